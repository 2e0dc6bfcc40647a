"""The answering stage's seeded sample, simple or stratified by a question field."""

from __future__ import annotations

import doctest
from collections import Counter

import pytest

import harness.stages.answering as answering_module
from harness.data.records import Question
from harness.stages.answering import Answering, allocate
from harness.results.records import QuestionRecord
from tests.generators.test_local_generation import PROMPT, CountingGenerator


def records(routes: dict[str, int]) -> list[QuestionRecord]:
    questions = [Question(id=f"{route}{i}", text="?", route=route) for route, n in routes.items() for i in range(n)]
    return [QuestionRecord(q, [], [], 5) for q in questions]


def answering(sample: int | None, stratify: str | None, seed: int = 0) -> Answering:
    return Answering(CountingGenerator(), PROMPT, ["with_context"], contexts=None, sample=sample, seed=seed,
                     stratify=stratify)


def test_doctests():
    assert doctest.testmod(answering_module).failed == 0


@pytest.mark.parametrize("total, sizes, expected", [
    (8, [71, 8, 7], [6, 1, 1]),      # the demo: every route answered
    (2, [71, 8, 7], [2, 0, 0]),      # too few draws for one per stratum: plain proportions
    (86, [71, 8, 7], [71, 8, 7]),
    (500, [3, 2], [3, 2]),           # never more than a stratum holds
    (10, [1, 1, 50], [1, 1, 8]),
    (3, [5, 0, 5], [2, 0, 1]),
    (6, [10, 10, 10], [2, 2, 2]),
])
def test_allocation(total, sizes, expected):
    counts = allocate(total, sizes)
    assert counts == expected
    assert sum(counts) == min(total, sum(sizes))


def test_stratified_sample_covers_every_route_and_is_seeded():
    data = records({"rag_docs": 71, "sales_kpi": 8, "hr_kpi": 7})
    chosen = answering(8, "route").selected(data)
    assert Counter(r.question.route for r in chosen) == {"rag_docs": 6, "sales_kpi": 1, "hr_kpi": 1}
    assert [r.question.id for r in chosen] == [r.question.id for r in answering(8, "route").selected(data)]
    assert chosen != answering(8, "route", seed=1).selected(data)
    assert [r.question.id for r in chosen] == [r.question.id for r in data if r in chosen]  # dataset order kept


def test_simple_sample_and_no_sample():
    data = records({"a": 20})
    assert len(answering(5, None).selected(data)) == 5
    assert answering(None, "route").selected(data) == data


def test_unknown_stratify_field_is_named():
    with pytest.raises(ValueError, match="generation.stratify"):
        answering(4, "colour")


def test_answers_are_checked_against_the_chunks_their_prompt_held(tmp_path):
    """Faithfulness and the taxonomy read ``record.contexts``: the top ``generation.contexts``
    chunks that went into the prompt, not every retrieved chunk."""
    from harness.cache import DiskCache
    from harness.chunkers.base import Chunk

    chunks = [Chunk(id=f"c{i}", doc_id=f"d{i}", title=f"T{i}", text=f"passage {i}", start=0, end=9) for i in range(5)]
    record = QuestionRecord(Question(id="q", text="?"), chunks, [1.0] * 5, 5)
    untouched = QuestionRecord(Question(id="u", text="?"), chunks, [1.0] * 5, 5)
    generator = CountingGenerator()
    Answering(generator, PROMPT, ["with_context"], contexts=2, sample=None, seed=0).answer([record], DiskCache(tmp_path))
    assert record.contexts == ["passage 0", "passage 1"]
    assert record.row({})["contexts"] == ["passage 0", "passage 1"]
    assert untouched.contexts == [f"passage {i}" for i in range(5)]  # no prompt limit: every chunk
