"""Agreement of two sweeps' rankings on hand-worked tables, and sets chosen from a scored pool."""

from __future__ import annotations

import numpy as np
import pytest
from hydra.utils import instantiate

from harness.chunkers.base import Chunk
from harness.cli.compose import compose
from harness.synth.agreement import agreement, verdicts
from harness.synth.duplicates import DuplicatesFilter
from harness.synth.records import Candidate, Scored
from harness.synth.selection import select

METRIC = "retrieval/mrr"


def tables(means: dict[str, float], n: int = 40) -> dict[str, list[dict]]:
    """Per configuration, n questions: its mean plus seeded noise (sd 0.05, its own per configuration),
    centred so the mean is exact. A gap of 0.3 between two means is significant at any correction;
    equal means are not (checked for these seeds)."""
    rows = {}
    for number, (name, mean) in enumerate(means.items()):
        noise = np.random.default_rng(number).normal(0, 0.05, n)
        rows[name] = [{"question_id": f"q{i}", METRIC: float(mean + e)} for i, e in enumerate(noise - noise.mean())]
    return rows


@pytest.fixture(scope="module")
def stats():
    return instantiate(compose([f"stats.primary.name={METRIC}", "stats.resamples=50"]).stats)


def test_the_same_order_agrees_and_the_reverse_is_opposite(stats):
    human = tables({"a": 0.2, "b": 0.5, "c": 0.8})
    assert verdicts(tables({"a": 0.5, "b": 0.5, "c": 0.5}), stats) == {("a", "b"): 0, ("a", "c"): 0, ("b", "c"): 0}
    assert verdicts(human, stats) == {("a", "b"): 1, ("a", "c"): 1, ("b", "c"): 1}
    same = agreement(human, tables({"a": 0.5, "b": 0.8, "c": 1.1}), METRIC, stats)
    assert (same.tau, same.agreement, same.opposed, same.decisive, same.decisive_agreeing) == (
        pytest.approx(1.0), 1.0, 0, 3, 3)
    assert same.shift == pytest.approx(0.3) and same.abs_shift == pytest.approx(0.3)
    reverse = agreement(human, tables({"a": 0.8, "b": 0.5, "c": 0.2}), METRIC, stats)
    assert (reverse.tau, reverse.agreeing, reverse.opposed, reverse.decisive_agreeing) == (pytest.approx(-1.0), 0, 3, 0)
    assert reverse.means == {"a": (pytest.approx(0.2), pytest.approx(0.8)), "b": (pytest.approx(0.5), pytest.approx(0.5)),
                             "c": (pytest.approx(0.8), pytest.approx(0.2))}


def test_a_swapped_pair_and_ties(stats):
    human = tables({"a": 0.2, "b": 0.5, "c": 0.8})
    # a < c < b against a < b < c: 2 concordant pairs, 1 discordant, tau = (2 - 1) / 3.
    swapped = agreement(human, tables({"a": 0.2, "b": 0.8, "c": 0.5}), METRIC, stats)
    assert swapped.tau == pytest.approx(1 / 3, abs=1e-12) and (swapped.agreeing, swapped.opposed) == (2, 1)
    # Every configuration equal: no pair differs significantly, so none agrees with a decisive verdict.
    flat = agreement(human, tables({"a": 0.5, "b": 0.5, "c": 0.5}), METRIC, stats)
    assert (flat.agreeing, flat.opposed, flat.pairs) == (0, 0, 3)
    with pytest.raises(ValueError, match="other configurations"):
        agreement(human, tables({"a": 0.5, "b": 0.5}), METRIC, stats)


def test_select_chooses_what_the_filters_would_have_kept():
    chunk = Chunk("d#0", "d", "text", 0, 4)

    def scored(question, roundtrip, answerability):
        return Scored(Candidate(question, "a", (chunk,), "llm"),
                      {"roundtrip": {"passed": roundtrip}, "answerability": {"passed": answerability}})

    pool = [scored("q0", True, False), scored("q1", True, True), scored("q2", False, True), scored("q3", True, True),
            scored("q4", True, True)]
    questions = lambda chosen: [s.candidate.question for s in chosen]  # noqa: E731
    assert questions(select(pool, [], 3)) == ["q0", "q1", "q2"]
    assert questions(select(pool, ["roundtrip"], 3)) == ["q0", "q1", "q3"]
    assert questions(select(pool, ["roundtrip", "answerability"], 9)) == ["q1", "q3", "q4"]
    # q3 points the way q1 does (cosine 1), q4 nearly so (0.8): at most 0.9 keeps q4, drops q3.
    vectors = np.array([[1, 0], [1, 0], [0, 1], [1, 0], [0.8, 0.6]], dtype=np.float32)
    duplicates = DuplicatesFilter(True, 0.9, "not loaded", "cpu", 8)
    assert questions(select(pool, ["roundtrip", "answerability"], 9, duplicates, vectors)) == ["q1", "q4"]
