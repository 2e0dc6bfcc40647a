"""tracking.traces=auto: which questions of a large job are traced when it is logged (a seeded sample
plus the failures, the worst on the primary metric and the judged answers), composed from conf/."""

from __future__ import annotations

from hydra.utils import instantiate

from harness.tracking.trace_policy import TracePolicy


def rows(n: int) -> list[dict]:
    made = [{"question_id": f"q{i:05d}", "retrieval/mrr": (i * 7919 % n) / n, "answer/f1": 1.0} for i in range(n)]
    made[7].update({"answer": "", "answer_error": "timeout"})
    made[8].update({"answer": "yes", "judgements": {"answer_score/with_context": {"score": 3, "raw": "Score: 3"}}})
    made[9].update({"answer": "no", "judgements": {"answer_score/with_context": {"missing": "unparsable", "raw": "?"}}})
    return made


def ids(selected: list[dict]) -> list[str]:
    return [row["question_id"] for row in selected]


def test_a_job_within_traces_max_traces_every_question():
    assert ids(TracePolicy("auto", traces_max=50).select(rows(50))) == ids(rows(50))


def test_a_larger_job_traces_a_seeded_sample_and_the_questions_a_person_opens_first():
    table = rows(10_000)
    policy = TracePolicy("auto", traces_max=1000, worst=100, seed=3)
    chosen = policy.select(table, ["retrieval/mrr", "answer/f1"])
    assert ids(chosen) == sorted(ids(chosen))  # in the table's order
    assert 1000 < len(chosen) <= 2000
    picked = set(ids(chosen))
    assert {"q00007", "q00008", "q00009"} <= picked  # a failed answer, a judge's reply, a failed judgement
    worst = sorted(table, key=lambda row: row["retrieval/mrr"])[:100]
    assert set(ids(worst)) <= picked  # the 100 worst on the primary metric (the first reported one)
    assert ids(policy.select(table, ["retrieval/mrr"])) == ids(chosen)  # seeded: the same again (a sync)
    assert ids(TracePolicy("auto", traces_max=1000, worst=100, seed=4).select(table, ["retrieval/mrr"])) != ids(chosen)
    # the worst on a metric where lower is better: the highest values
    highest = TracePolicy("auto", 1000, 100, 3, primary="retrieval/mrr", lower_is_better=True).select(table)
    assert set(ids(sorted(table, key=lambda row: -row["retrieval/mrr"])[:100])) <= set(ids(highest))


def test_the_questions_a_person_opens_first_are_at_most_traces_max_more():
    table = [{**row, "answer": "", "answer_error": "down"} for row in rows(300)]  # every answer failed
    assert len(TracePolicy("auto", traces_max=100).select(table)) == 200


def test_the_default_config_traces_auto_and_assesses_the_reported_metrics(compose):
    cfg = compose(["stats.guards=[{name: generation/cost_usd, direction: lower, margin: 0.01}]",
                   "stats.primary.name=answer/f1", "stats.primary.direction=lower"])
    tracker = instantiate(cfg.tracking)
    assert tracker.trace_policy == TracePolicy("auto", 1000, 100, cfg.seed, "answer/f1", lower_is_better=True)
    assessed = tracker.trace_content.assessments
    assert assessed[0] == "answer/f1" and assessed[-1] == "generation/cost_usd"
    assert set(assessed) == {"answer/f1", "generation/cost_usd", *cfg.report.headline}
    assert tracker.trace_content.passage_chars == 1000
    bare = instantiate(compose(["stats=none", "tracking.trace_assessments=null"]).tracking)
    assert bare.trace_policy.primary is None and bare.trace_content.assessments is None
