"""``harness align --few-shot K``: examples picked from the training folds only, written into a
prompt rubric as user/assistant exchanges with the label mapped onto the rubric's scale; run
against a fake OpenAI-compatible server and with the embedded local model."""

from __future__ import annotations

import json

import pytest
import yaml
from hydra.utils import instantiate
from werkzeug import Request, Response

from harness.align.few_shot import pick_examples
from harness.cli.align import main
from harness.results.table import write_table
from tests.judges.conftest import demo_questions
from tests.metaeval.conftest import write_jsonl

KEY_ENV = "HARNESS_TEST_JUDGE_KEY"
FAST = ["meta_eval.bootstrap.resamples=20", "meta_eval.align.outer_folds=2"]


def answered_run(tmp_path, count: int):
    """A run folder of demo questions, every other one answered right; labels 5 (right) and 1."""
    rows, labels = [], []
    for i, q in enumerate(demo_questions()[:count]):
        right = i % 2 == 0
        rows.append({"question_id": q["id"], "question": q["question"], "gold_answers": [q["ground_truth"]],
                     "expected_answer": q.get("expected_answer"), "contexts": [q.get("expected_answer") or ""],
                     "answer": q["ground_truth"] if right else "I do not know.", "answer_error": None})
        labels.append({"question_id": q["id"], "annotator": "alice", "correctness": 5 if right else 1})
    write_table(tmp_path / "run", rows)
    return tmp_path / "run", write_jsonl(tmp_path / "labels.jsonl", labels), {r["question_id"]: r for r in rows}


def test_examples_are_spread_over_the_labels():
    labels = {f"q{i}": float(i % 5) for i in range(20)}
    chosen = pick_examples(labels, list(labels), 5)
    assert [labels[q] for q in chosen] == [0, 1, 2, 3, 4]
    with pytest.raises(ValueError, match="needs 1 to 20 examples"):
        pick_examples(labels, list(labels), 21)


def test_few_shot_against_an_openai_compatible_server(tmp_path, httpserver, monkeypatch, capsys):
    for proxy in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(proxy, raising=False)
    monkeypatch.setenv(KEY_ENV, "sk-test-few-shot")
    run, labels, rows = answered_run(tmp_path, 8)
    seen = []

    def chat(request: Request) -> Response:
        messages = json.loads(request.data)["messages"]
        seen.append(messages)
        last = messages[-1]["content"]
        score = "9" if "I do not know." not in last else "1"
        body = {"id": "c", "object": "chat.completion", "created": 0, "model": "m",
                "choices": [{"index": 0, "message": {"role": "assistant", "content": score}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}
        return Response(json.dumps(body), content_type="application/json")

    httpserver.expect_request("/v1/chat/completions", method="POST").respond_with_handler(chat)
    out = tmp_path / "report"
    assert main([str(run), "--labels", str(labels), "--few-shot", "2", "--scale", "1", "5", "--no-tracking",
                 "--config-dir", str(tmp_path / "conf"), "--out-dir", str(out), "judge=openai",
                 f"judge.base_url={httpserver.url_for('/v1')}", "judge.model=m", f"judge.api_key_env={KEY_ENV}",
                 "judge.selfcheck.enabled=false", "rubric=[answer_score]", *FAST]) == 0
    printed = capsys.readouterr().out
    assert "answer_score_few_shot" in printed and "held-out Pearson after minus before" in printed
    before = [m for m in seen if len(m) == 1]
    after = [m for m in seen if len(m) == 5]  # 2 examples x (user, assistant) + the question
    assert len(before) == 8 and len(after) == 8 + 8  # held-out folds, then in-sample with every answer's examples
    for messages in after[:8]:  # held-out: the judged question is never one of its own examples
        assert messages[-1]["content"] not in (messages[0]["content"], messages[2]["content"])
        for example, reply in ((messages[0], messages[1]), (messages[2], messages[3])):  # labels 1, 5 -> 0, 10
            assert reply["content"] == ("0" if "I do not know." in example["content"] else "10")
    written = yaml.safe_load((tmp_path / "conf" / "rubric" / "answer_score_few_shot.yaml").read_text())
    assert written["column"] == "answer_score_few_shot" and len(written["messages"]) == 5
    with (out / "align.csv").open() as handle:
        assert sum(1 for _ in handle) == 5  # header + before/after x in-sample/held-out


@pytest.mark.slow
def test_few_shot_with_the_embedded_model_and_the_rubric_loads(tmp_path, capsys, compose):
    run, labels, _ = answered_run(tmp_path, 4)
    assert main([str(run), "--labels", str(labels), "--few-shot", "2", "--scale", "1", "5", "--no-tracking",
                 "--config-dir", str(tmp_path / "conf"), "--name", "graded", "judge=local",
                 "rubric=[answer_score]", *FAST]) == 0
    assert "graded" in capsys.readouterr().out
    text = (tmp_path / "conf" / "rubric" / "graded.yaml").read_text()
    assert text.startswith("# @package rubrics.graded\n")
    local = yaml.safe_load(text)["local"]["messages"]
    assert [m["role"] for m in local] == ["user", "assistant", "user", "assistant", "user"]
    assert {local[1]["content"], local[3]["content"]} == {"yes", "no"}  # the local judge's replies, nearest value
    # a later run picks it like any rubric (`harness --config-dir conf 'rubric=[graded]'`)
    cfg = compose([f"hydra.searchpath=[file://{tmp_path / 'conf'}]", "rubric=[graded]", "judge=local"])
    graded = instantiate(cfg.rubrics.graded)
    assert graded.column == "graded" and len(graded.local_messages) == 5
