"""The issue's check at the size people benchmark: 10,000 questions of prediction files, one system a
copy of another with 1% of its answers changed (and cheaper), one clearly weaker."""

from __future__ import annotations

import numpy as np

from harness.metrics.answer import f1
from tests.stats.test_front import FRONT
from tests.stats.test_report import settings

N = 10_000
WORDS = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma".split()


def answer(gold: str, rng: np.random.Generator) -> str:
    """The system's answer: right about 70% of the time, partly right or wrong otherwise."""
    return gold if rng.random() < 0.7 else f"{gold.split()[0]} {rng.choice(WORDS)}" if rng.random() < 0.5 \
        else str(rng.choice(WORDS))


def predictions(seed: int) -> tuple[list[str], list[str]]:
    rng = np.random.default_rng(seed)
    golds = [" ".join(rng.choice(WORDS, size=rng.integers(1, 4))) for _ in range(N)]
    return golds, [answer(gold, rng) for gold in golds]


def table(golds: list[str], answers: list[str], cost: float) -> list[dict]:
    return [{"question_id": f"q{i:05d}", "answer": answer, "answer/f1": f1(answer, gold), "generation/cost_usd": cost}
            for i, (gold, answer) in enumerate(zip(golds, answers))]


def test_a_copy_with_one_percent_changed_is_equivalent_and_on_the_front_and_a_weaker_system_is_worse():
    golds, answers = predictions(0)
    rng = np.random.default_rng(1)
    changed = set(rng.choice(N, size=N // 100, replace=False).tolist())
    # the copy answers 1% of the questions again (as a re-run with another seed would); the weaker
    # system leaves 15% of the answers empty
    copy = [answer(golds[i], rng) if i in changed else given for i, given in enumerate(answers)]
    weaker = [given if rng.random() < 0.85 else "" for given in answers]
    tables = {"system": table(golds, answers, 0.002), "copy": table(golds, copy, 0.001),
              "weaker": table(golds, weaker, 0.0005)}
    statistics = settings(primary={"name": "answer/f1", "direction": "higher", "margin": 0.01}, guards=[],
                          front=FRONT)
    report = statistics.compare(tables)
    verdicts = {c.name: c.metrics[0].verdict for c in report.result.challengers}
    champion = report.champion
    assert champion == "system" and verdicts == {"copy": "equivalent", "weaker": "worse"}
    front = statistics.ship_front(tables, {}, report)
    assert front.members == ["copy"]  # equivalent and cheaper: it dominates the system it copies
    assert front.run("weaker").versus_champion == "worse" and not front.run("weaker").on_front
    assert front.reason("copy").startswith("equivalent to the champion at margin 0.01, 2.0x cheaper")
