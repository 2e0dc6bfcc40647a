"""The race order: seeded, stratified in every prefix, and a longer prefix only adds questions."""

from collections import Counter

import pytest

from harness.data.questions_jsonl import load_questions_jsonl
from harness.racing.order import first_questions, race_order, round_sizes
from tests.conftest import PROJECT_ROOT


def test_every_prefix_is_stratified_and_seeded():
    strata = ["kpi"] * 30 + ["docs"] * 60 + ["faq"] * 10
    order = race_order(strata, seed=3)
    assert sorted(order) == list(range(100)) and order == race_order(strata, seed=3) != race_order(strata, seed=4)
    for n in range(1, 101):
        counts = Counter(strata[i] for i in order[:n])
        for stratum, size in (("kpi", 30), ("docs", 60), ("faq", 10)):
            assert abs(counts[stratum] - n * size / 100) < 1.0 + 1e-9, (n, stratum, counts)


def test_round_sizes_end_with_every_question_or_max_rounds():
    assert round_sizes(86, 20, 20, 100) == [20, 40, 60, 80, 86]
    assert round_sizes(86, 30, 30, 2) == [30, 60]
    assert round_sizes(10, 20, 5, 3) == [10]
    with pytest.raises(ValueError, match="race.step"):
        round_sizes(86, 20, 0, 3)


def test_round_sizes_grow_geometrically_and_never_by_less_than_a_step():
    # 20 -> 40 (step: 1.5 x 20 adds only 10) -> 60 (step) -> 90 = 1.5 x 60 -> ... -> every question
    assert round_sizes(10_000, 20, 20, 100, growth=1.5) == [
        20, 40, 60, 90, 135, 203, 305, 458, 687, 1031, 1547, 2321, 3482, 5223, 7835, 10_000]
    assert round_sizes(86, 20, 20, 100, growth=1.0) == round_sizes(86, 20, 20, 100)
    assert round_sizes(300, 20, 20, 4, growth=2) == [20, 40, 80, 160]
    with pytest.raises(ValueError, match="race.growth"):
        round_sizes(86, 20, 20, 3, growth=0.5)


def test_first_questions_of_the_demo_grow_by_prefix():
    demo = load_questions_jsonl("demo", str(PROJECT_ROOT / "experiments/demo/questions.jsonl"),
                                str(PROJECT_ROOT / "experiments/demo/docs"))
    small, large = (first_questions(demo, n, seed=0, stratify="route") for n in (20, 40))
    assert [q.id for q in large.questions[:20]] == [q.id for q in small.questions]
    assert len({q.route for q in small.questions}) == len({q.route for q in demo.questions})
    assert small.documents == demo.documents and small.sha256 == demo.sha256
    assert first_questions(demo, None, seed=0) is demo
    with pytest.raises(ValueError, match="race.questions"):
        first_questions(demo, 0, seed=0)
