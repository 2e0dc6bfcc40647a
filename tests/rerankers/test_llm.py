"""The llm reranker on the embedded SmolLM2: the passage that answers ranks first, in both modes."""

from __future__ import annotations

import pytest
from hydra.utils import instantiate

from harness.cache import DiskCache
from harness.chunkers.base import Chunk

pytestmark = pytest.mark.slow

QUERY = "What is the boiling point of water at sea level?"
PASSAGES = ["The Eiffel Tower is a wrought-iron lattice tower in Paris, completed in 1889.",
            "At sea level, water boils at 100 degrees Celsius (212 degrees Fahrenheit)."]
CHUNKS = [Chunk(id=f"c{i}", doc_id=f"d{i}", text=text, start=0, end=len(text)) for i, text in enumerate(PASSAGES)]


@pytest.mark.parametrize("mode", ["query_likelihood", "yes_no"])
def test_the_answering_passage_is_ranked_above_an_unrelated_one(compose, tmp_path, mode):
    cfg = compose(["reranker=llm", f"reranker.mode={mode}", "reranker.fusion=replace", "reranker.candidates=2",
                   "reranker.top_k=2"])
    reranker = instantiate(cfg.reranker)
    # BM25's (hypothetical) order puts the unrelated passage first; the reranker must swap them.
    out = reranker.rerank([QUERY], [[(0, 2.0), (1, 1.0)]], CHUNKS, DiskCache(tmp_path))
    assert [chunk for chunk, _ in out.rankings[0]] == [1, 0]
    assert out.tally.failed == 0 and out.pairs_scored == 2
    scores = dict(out.rankings[0])
    if mode == "query_likelihood":   # mean token log-probabilities
        assert scores[1] < 0 and scores[0] < scores[1]


def test_the_yes_no_reading_is_the_log_odds_of_the_candidate_probabilities(compose):
    from harness.generators.local import _load
    from harness.judges.candidates import candidate_probabilities

    cfg = compose(["reranker=llm", "reranker.mode=yes_no"])
    reranker = instantiate(cfg.reranker)
    [scored] = reranker.score([(QUERY, PASSAGES[1:])])
    tokenizer, model = _load(reranker.model_path, reranker.gguf_file, reranker.device, reranker.dtype)
    text = tokenizer.apply_chat_template(
        [{"role": "user", "content": cfg.reranker.yes_no.prompt.format(query=QUERY, passage=PASSAGES[1])}],
        tokenize=False, add_generation_prompt=True)
    [p] = candidate_probabilities(tokenizer, model, [text], ["yes", "Yes", "no", "No"])
    import math
    assert scored.scores[0] == pytest.approx(math.log(p[0] + p[1]) - math.log(p[2] + p[3]), abs=1e-4)
