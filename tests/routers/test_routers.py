"""Routers on the demo's labelled questions: keyword rules, nearest centroid, fixed, from predictions."""

from __future__ import annotations

import numpy as np
import pytest
from hydra.utils import instantiate

from harness.cache import DiskCache
from harness.data.records import Question
from harness.generators.base import Generation
from harness.models import load_sentence_transformer
from harness.results.records import QuestionRecord
from harness.routers.embedding import EmbeddingRouter
from harness.routers.from_predictions import FromPredictionsRouter
from harness.routers.keyword import KeywordRouter
from tests.metrics.routes.conftest import composed


def records_of(questions) -> list[QuestionRecord]:
    return [QuestionRecord(question=q, chunks=[], scores=[], top_k=5) for q in questions]


@pytest.fixture(scope="module")
def demo_records():
    return records_of(instantiate(composed().dataset).questions)


def accuracy(router, records, cache=None) -> float:
    predicted = router.route(records, cache)
    return sum(p == r.question.route for p, r in zip(predicted, records)) / len(records)


def test_keyword_router_on_the_demo(demo_records):
    router = instantiate(composed("routes=kpi_rag", "router=keyword").router)
    assert isinstance(router, KeywordRouter)
    value = accuracy(router, demo_records)
    print(f"keyword router accuracy on {len(demo_records)} demo questions: {value:.3f}")
    assert value >= 0.95
    kpi = [r for r in demo_records if r.question.route != "rag_docs"]
    assert accuracy(router, kpi) == 1.0


def test_keyword_router_most_hits_wins_ties_go_to_the_first_rule():
    router = KeywordRouter([{"route": "a", "keywords": ["x", "y"]}, {"route": "b", "keywords": ["y", "z", "w"]}],
                           default_route="d")
    assert router.route_text("x and y") == "a"
    assert router.route_text("y only") == "a"
    assert router.route_text("y z w") == "b"
    assert router.route_text("nothing") == "d"
    assert router.route_text("X-ray") == "a"                # case-insensitive whole words
    assert router.route_text("xylophone") == "d"
    with pytest.raises(ValueError, match=r"router.rules\[0\]"):
        KeywordRouter([{"route": "a", "keywords": []}], "d")


@pytest.mark.slow
def test_embedding_router_on_the_demo(demo_records, tmp_path):
    router = instantiate(composed("routes=kpi_rag", "router=embedding").router)
    assert isinstance(router, EmbeddingRouter)
    cache = DiskCache(tmp_path)
    value = accuracy(router, demo_records, cache)
    print(f"embedding router accuracy on {len(demo_records)} demo questions: {value:.3f}")
    assert value >= 0.8
    kpi = [r for r in demo_records if r.question.route in ("sales_kpi", "hr_kpi")]
    assert accuracy(router, kpi, cache) >= 0.8
    # The second pass read every embedding from the cache.
    assert cache.stats["router_examples/hit"] >= 1 and cache.stats["router_queries/miss"] == 2


@pytest.mark.slow
def test_embedding_router_is_the_nearest_normalised_centroid():
    examples = {"sales": ["monthly revenue figures", "how much did we sell"],
                "people": ["number of employees", "staff turnover"]}
    router = EmbeddingRouter(examples, model=composed().models.encoder, default_route="sales")
    encoder = load_sentence_transformer(router.model, "auto")
    queries = ["revenue in June", "how many people work here", "what is the weather"]
    names, scores = router.similarities(queries)
    # Independent computation: normalised mean of normalised example embeddings, then cosine.
    expected = []
    for name in names:
        block = encoder.encode(examples[name], normalize_embeddings=True)
        centroid = block.mean(axis=0) / np.linalg.norm(block.mean(axis=0))
        query = encoder.encode(queries, normalize_embeddings=True)
        expected.append(query @ centroid)
    assert scores == pytest.approx(np.array(expected).T, abs=1e-5)
    routed = router.route(records_of([Question(id=str(i), text=q) for i, q in enumerate(queries)]))
    assert routed[:2] == ["sales", "people"]
    strict = EmbeddingRouter(examples, model=router.model, default_route="fallback", min_similarity=0.99)
    assert strict.route(records_of([Question(id="w", text=queries[2])])) == ["fallback"]


def test_embedding_router_validates_up_front():
    with pytest.raises(ValueError, match="empty: \\['b'\\]"):
        EmbeddingRouter({"a": ["x"], "b": []}, model="m", default_route="a")
    with pytest.raises(ValueError, match="min_similarity"):
        EmbeddingRouter({"a": ["x"]}, model="m", default_route="a", min_similarity=2)


def test_fixed_router_sends_everything_to_the_default_route(demo_records):
    router = instantiate(composed("routes=kpi_rag").router)
    assert router.route(demo_records[:3]) == ["rag_docs"] * 3
    assert instantiate(composed().router).route(demo_records[:2]) == ["all", "all"]


def test_from_predictions_reads_the_generation_route():
    records = records_of([Question(id=i, text="q") for i in "abc"])
    records[0].generation = Generation(text="x", route="hr_kpi")
    records[1].generation = Generation(text="y")
    assert FromPredictionsRouter().route(records) == ["hr_kpi", None, None]
