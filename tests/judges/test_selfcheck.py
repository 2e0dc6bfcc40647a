"""The judge's self-check: constructed judges (no model), hand-computed figures, the flags it raises."""

from __future__ import annotations

import re

import pytest
from sklearn.metrics import roc_auc_score

from harness.cache import DiskCache
from harness.judges.selfcheck import SelfCheckSettings, selfcheck_items, selfcheck_result
from harness.metrics.context_delta import ContextDeltaSuite
from harness.stages.judging import Judging
from harness.tracking.verdicts.leaderboard import Leaderboard
from harness.tracking.verdicts.selfcheck_flags import threshold_notes, warnings
from tests.judges.conftest import ScriptedJudge, demo_questions, make_record

SETTINGS = SelfCheckSettings(enabled=True, pairs=20, min_auc=0.75, contexts=2, seed=0)


def demo_records():
    """The demo questions, each answered with its own expected answer."""
    return [make_record(qid=q["id"], question=q["question"], ground_truth=q["ground_truth"],
                        expected=q.get("expected_answer"), answer=q.get("expected_answer") or q["ground_truth"],
                        baseline="I do not know.", chunks=[f"{q['id']}: {q.get('expected_answer')}"])
            for q in demo_questions()]


def oracle(records):
    """A judge that knows every question's right answer: 10 for it, 0 for anything else."""
    right = {r.question.text: r.question.expected_answer or r.question.ground_truth for r in records}

    def reply(prompt, sample):
        text = prompt.messages[-1]["content"]
        question = re.search(r"Q: (.*)\nExpected", text).group(1)
        answer = re.search(r"Actual: (.*)\nNumber only", text, re.S).group(1)
        return "10" if answer == right[question] else "0"
    return reply


def test_selfcheck_result_matches_hand_computed_figures():
    result = selfcheck_result([3.0, 2.0, 1.0, None], [1.0, 2.0, 0.0, 5.0], min_auc=0.75)
    # right {3, 2, 1} vs wrong {1, 2, 0}: 7 of 9 orderings right, 2 of them half (ties) -> 7/9
    assert result.auc == pytest.approx(7 / 9)
    assert result.auc == pytest.approx(roc_auc_score([1, 1, 1, 0, 0, 0], [3, 2, 1, 1, 2, 0]))
    assert (result.gap, result.ties, result.n, result.passed) == (1.0, 1, 3, True)
    assert selfcheck_result([1.0], [0.0], 0.75).passed is None  # too few pairs: not checked
    # score >= 3: TPR 1/3, FPR 0 (J 1/3); >= 2: 2/3, 1/3 (1/3); >= 1: 1, 2/3 (1/3); >= 0: 1, 1 (0).
    # J ties at 1/3: the highest threshold wins
    assert result.threshold == 3.0


def test_the_youden_threshold_separates_right_from_wrong_best():
    from sklearn.metrics import roc_curve

    right, wrong = [0.9, 0.8, 0.35, 0.7], [0.1, 0.4, 0.3, 0.2]
    result = selfcheck_result(right, wrong, 0.75)
    # >= 0.7 catches 3 of 4 right answers and no wrong one (J 0.75); >= 0.35 all right, 1 of 4 wrong (J 0.75);
    # the higher wins the tie
    assert result.threshold == 0.7
    assert result.figures("judge/x_selfcheck_")["judge/x_selfcheck_threshold"] == 0.7
    fpr, tpr, thresholds = roc_curve([1] * 4 + [0] * 4, right + wrong)
    assert max(tpr - fpr) == pytest.approx(0.75) and 0.7 in thresholds
    assert selfcheck_result([2.0, 2.0], [2.0, 2.0], 0.75).threshold is None


def test_selfcheck_items_pair_each_question_with_another_questions_answer_or_chunks():
    records = demo_records()
    right, wrong = selfcheck_items(records, "with_context", reads_contexts=False, settings=SETTINGS)
    assert len(right) == len(wrong) == 20
    by_id = {r.question.id: r.question for r in records}
    for good, bad in zip(right, wrong):
        assert good.question_id == bad.question_id
        assert good.answer == (by_id[good.question_id].expected_answer or by_id[good.question_id].ground_truth)
        assert bad.answer != good.answer and good.contexts == bad.contexts
    assert {w.answer for w in wrong} <= {r.answer for r in right}  # every wrong answer is another's right one
    again, _ = selfcheck_items(records, "with_context", reads_contexts=False, settings=SETTINGS)
    assert [i.question_id for i in again] == [i.question_id for i in right]  # seeded

    right, wrong = selfcheck_items(records, "with_context", reads_contexts=True, settings=SETTINGS)
    assert all(g.answer == b.answer and g.contexts != b.contexts for g, b in zip(right, wrong))


def run(judge, records, tmp_path, rubric, overrides=()):
    judge.selfcheck = SETTINGS
    judging = Judging(judge, {"answer_score": rubric("answer_score", list(overrides))})
    sampled = records[:4]
    return judging.run(sampled, DiskCache(tmp_path), population=records), sampled


def test_a_judge_that_always_gives_the_same_score_fails(rubric, tmp_path):
    figures, sampled = run(ScriptedJudge(lambda p, s: "5"), demo_records(), tmp_path, rubric)
    assert figures["judge/selfcheck_auc"] == 0.5 and figures["judge/selfcheck_gap"] == 0.0
    assert figures["judge/selfcheck_ties"] == figures["judge/selfcheck_n"] == 20
    assert figures["judge/selfcheck_passed"] == 0.0 == figures["judge/answer_score_selfcheck_passed"]
    assert sampled[0].judgements["answer_score/with_context"].detail["selfcheck_passed"] is False


def test_a_perfect_oracle_passes_and_its_selfcheck_is_cached(rubric, tmp_path):
    records = demo_records()
    judge = ScriptedJudge(oracle(records))
    figures, _ = run(judge, records, tmp_path, rubric)
    assert (figures["judge/selfcheck_auc"], figures["judge/selfcheck_gap"]) == (1.0, 10.0)
    assert (figures["judge/selfcheck_ties"], figures["judge/selfcheck_passed"]) == (0.0, 1.0)
    calls = len(judge.prompts)
    again, _ = run(judge, records, tmp_path, rubric)
    assert len(judge.prompts) == calls and again["judge/selfcheck_auc"] == 1.0  # all from the cache


def test_selfcheck_can_be_turned_off(rubric, tmp_path):
    judge = ScriptedJudge(lambda p, s: "5")
    judge.selfcheck = SelfCheckSettings(enabled=False)
    figures = Judging(judge, {"answer_score": rubric("answer_score")}).run(demo_records()[:3], DiskCache(tmp_path))
    assert not [k for k in figures if "selfcheck" in k] and len(judge.prompts) == 6


def test_a_failed_judge_flags_its_columns_and_the_context_delta(rubric, tmp_path):
    records = demo_records()
    _, sampled = run(ScriptedJudge(lambda p, s: "8"), records, tmp_path, rubric)
    suite = ContextDeltaSuite(threshold=7, bands=[{"min_delta_pp": None, "label": "any"}], judge_rubric="answer_score")
    suite.prepare(sampled)
    delta = suite.aggregate([suite.score(r) for r in sampled])
    assert delta["selfcheck_passed"] == 0.0
    metrics = {"judge/answer_score": 8.0, "judge/answer_score_selfcheck_passed": 0.0,
               "judge/answer_score_selfcheck_auc": 0.5, "judge/answer_score_selfcheck_n": 20.0,
               "judge/selfcheck_passed": 0.0, "context_delta/delta_pp": 0.0, **{f"context_delta/{k}": v for k, v in delta.items()},
               "answer/f1": 0.4}
    summaries = [{"job_num": 0, "name": "a", "status": "FINISHED", "metrics": metrics}]
    board = Leaderboard.from_summaries(summaries, ["answer/f1", "judge/answer_score", "context_delta/delta_pp"])
    assert board.columns[3:] == ["answer/f1", "judge/answer_score (!)", "context_delta/delta_pp (!)"]
    assert board.rows[0]["judge/answer_score (!)"] == 8.0
    lines = warnings(summaries)
    assert lines == ["judge/answer_score (!): the judge could not tell right from wrong answers on this dataset "
                     "(self-check AUC 0.50 over 20 pairs); its scores are not evidence.",
                     "context_delta (!): scored by a judge that failed its self-check on this dataset; the delta "
                     "is not evidence."]
    passed = {**metrics, "judge/answer_score_selfcheck_passed": 1.0, "context_delta/selfcheck_passed": 1.0}
    board = Leaderboard.from_summaries([{**summaries[0], "metrics": passed}], ["judge/answer_score"])
    assert board.columns[3:] == ["judge/answer_score"] and warnings([{"metrics": passed}]) == []


def test_an_auto_threshold_is_measured_by_the_runs_selfcheck_and_drives_the_context_delta(rubric, tmp_path):
    records = demo_records()
    figures, sampled = run(ScriptedJudge(oracle(records)), records, tmp_path, rubric,
                           ["rubrics.answer_score.accuracy_threshold=auto"])
    # the oracle gives 10 to right answers and 0 to wrong ones: every t in (0, 10] separates them,
    # and the highest such score is Youden's threshold
    assert figures["judge/answer_score_threshold"] == 10.0 == figures["judge/answer_score_selfcheck_threshold"]
    assert figures["judge/answer_score_threshold_auto"] == 1.0
    judged = sampled[0].judgements
    assert judged["answer_score/with_context"].values["answer_score_accurate"] == 1.0  # its own expected answer
    assert judged["answer_score/no_context"].values["answer_score_no_context_accurate"] == 0.0  # "I do not know."
    assert judged["answer_score/with_context"].detail["accuracy_threshold"] == 10.0
    suite = ContextDeltaSuite(threshold="auto", bands=[{"min_delta_pp": None, "label": "any"}],
                              judge_rubric="answer_score")
    suite.prepare(sampled)
    delta = suite.aggregate([suite.score(r) for r in sampled])
    assert (delta["accuracy_with_context"], delta["accuracy_no_context"], delta["delta_pp"]) == (100.0, 0.0, 100.0)
    assert suite.threshold == 10.0
    assert threshold_notes([{"metrics": figures}]) == [
        "judge/answer_score_accurate: score >= 10, threshold auto: each run's self-check, Youden's J."]


def test_a_fixed_threshold_is_logged_and_auto_without_a_selfcheck_leaves_accuracy_missing(rubric, tmp_path):
    records = demo_records()
    figures, _ = run(ScriptedJudge(oracle(records)), records, tmp_path / "fixed", rubric)
    assert (figures["judge/answer_score_threshold"], figures["judge/answer_score_threshold_auto"]) == (7.0, 0.0)
    assert threshold_notes([{"metrics": figures}]) == ["judge/answer_score_accurate: score >= 7, fixed by the rubric."]
    judge = ScriptedJudge(oracle(records))
    judge.selfcheck = SelfCheckSettings(enabled=False)
    judging = Judging(judge, {"answer_score": rubric("answer_score", ["rubrics.answer_score.accuracy_threshold=auto"])})
    figures = judging.run(records[:2], DiskCache(tmp_path / "off"))
    assert not [k for k in figures if k.endswith("_threshold")]
    assert records[0].judgements["answer_score/with_context"].values["answer_score_accurate"] is None
    suite = ContextDeltaSuite(threshold="auto", bands=[{"min_delta_pp": None, "label": "any"}],
                              judge_rubric="answer_score")
    suite.prepare(records[:2])
    assert "delta_pp" not in suite.aggregate([suite.score(r) for r in records[:2]])
    with pytest.raises(ValueError, match="threshold must be a number or 'auto'"):
        ContextDeltaSuite(threshold="sometimes", bands=[])
