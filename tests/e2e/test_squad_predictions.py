"""End to end: a SQuAD v2.0 file and a SQuAD-style predictions file (``{question_id: answer}``)
scored by the harness, unanswerable questions by the official v2.0 rule."""

from __future__ import annotations

import json

import pytest

from harness.cli.sweep import run_from_config
from harness.config.resolvers import PROJECT_ROOT

SQUAD = PROJECT_ROOT / "tests" / "data" / "squad_tiny.json"

# Hand-worked EM and F1 (SQuAD normalisation, best over the gold answers).
PREDICTIONS = {
    "lh-wick": ("every four hours", 1.0, 1.0),
    "lh-inventor": ("Fresnel", 0.0, 2 / 3),              # P 1/1, R 1/2 against "Augustin Fresnel"
    "lh-year": ("in 1822", 0.0, 2 / 3),                  # P 1/2, R 1/1
    "lh-staff": ("satellites", 0.0, 0.0),
    "lh-first-automated": ("", 1.0, 1.0),                # unanswerable (v2.0): abstaining is right
    "sd-microbes": ("wild yeast", 0.0, 0.5),             # P 1, R 2/6
    "sd-acids": ("lactic and acetic", 1.0, 1.0),
    "sd-fridge": ("once a week", 1.0, 1.0),              # "a" is dropped by the normalisation
}


def test_squad_system_is_scored_from_its_predictions(compose, tmp_path):
    path = tmp_path / "predictions.json"
    path.write_text(json.dumps({qid: answer for qid, (answer, _, _) in PREDICTIONS.items()}))
    cfg = compose(["dataset=squad", f"dataset.path={SQUAD}", "generator=predictions", f"generator.path={path}",
                   "metrics=[answer]", "metrics.answer.bertscore=null", "tracking=none", f"cache.dir={tmp_path}/c"])
    result = run_from_config(cfg)
    rows = {row["question_id"]: row for row in result.rows}
    assert set(rows) == set(PREDICTIONS)
    for qid, (_, em, f1) in PREDICTIONS.items():
        assert rows[qid]["answer/em"] == em, qid
        assert rows[qid]["answer/f1"] == pytest.approx(f1), qid
    assert rows["lh-first-automated"]["answer/unanswerable"] == 1.0
    assert result.metrics["answer/em"] == pytest.approx(4 / 8)
    assert result.metrics["answer/f1"] == pytest.approx(sum(f for _, _, f in PREDICTIONS.values()) / 8)


def test_answering_an_unanswerable_question_scores_zero(compose, tmp_path):
    path = tmp_path / "predictions.json"
    path.write_text(json.dumps({qid: "Eddystone" if qid == "lh-first-automated" else answer
                                for qid, (answer, _, _) in PREDICTIONS.items()}))
    cfg = compose(["dataset=squad", f"dataset.path={SQUAD}", "generator=predictions", f"generator.path={path}",
                   "metrics=[answer]", "metrics.answer.bertscore=null", "tracking=none", f"cache.dir={tmp_path}/c"])
    rows = {row["question_id"]: row for row in run_from_config(cfg).rows}
    assert rows["lh-first-automated"]["answer/em"] == rows["lh-first-automated"]["answer/f1"] == 0.0


def official_v11_scores(dataset_path, predictions: dict[str, str]) -> tuple[float, float]:
    """evaluate-v1.1.py's evaluate(): every question counts; one without a prediction scores 0."""
    from tests.metrics.test_answer import squad_exact_match_score, squad_f1_score

    data = json.loads(dataset_path.read_text())["data"]
    exact = f1_total = total = 0
    for article in data:
        for paragraph in article["paragraphs"]:
            for qa in paragraph["qas"]:
                if qa.get("is_impossible"):
                    continue  # v1.1 has no unanswerable questions
                total += 1
                if qa["id"] not in predictions:
                    continue  # 'Unanswered question ... will receive score 0.'
                golds = [a["text"] for a in qa["answers"]]
                exact += max(squad_exact_match_score(predictions[qa["id"]], g) for g in golds)
                f1_total += max(squad_f1_score(predictions[qa["id"]], g) for g in golds)
    return exact / total, f1_total / total


def test_on_missing_zero_scores_missing_predictions_as_the_official_script(compose, tmp_path):
    answered = {qid: answer for qid, (answer, _, _) in PREDICTIONS.items()
                if qid not in ("lh-year", "sd-acids", "lh-first-automated")}
    path = tmp_path / "predictions.json"
    path.write_text(json.dumps(answered))
    cfg = compose(["dataset=squad", f"dataset.path={SQUAD}", "generator=predictions", f"generator.path={path}",
                   "generator.on_missing=zero", "metrics=[answer,generation]", "metrics.answer.bertscore=null",
                   "tracking=none", f"cache.dir={tmp_path}/c"])
    result = run_from_config(cfg)
    rows = {row["question_id"]: row for row in result.rows if not row["question_id"] == "lh-first-automated"}
    assert rows["lh-year"]["answer/em"] == rows["sd-acids"]["answer/f1"] == 0.0
    answerable_em = [row["answer/em"] for row in rows.values()]
    answerable_f1 = [row["answer/f1"] for row in rows.values()]
    em, f1 = official_v11_scores(SQUAD, answered)
    assert sum(answerable_em) / len(answerable_em) == pytest.approx(em)
    assert sum(answerable_f1) / len(answerable_f1) == pytest.approx(f1)
    assert em == pytest.approx(2 / 7)  # every four hours, once a week
    # The default still refuses the file, naming the missing ids.
    refused = compose(["dataset=squad", f"dataset.path={SQUAD}", "generator=predictions", f"generator.path={path}",
                       "metrics=[answer]", "metrics.answer.bertscore=null", "tracking=none", f"cache.dir={tmp_path}/c"])
    with pytest.raises(Exception, match="no prediction for 3 requested question"):
        run_from_config(refused)
