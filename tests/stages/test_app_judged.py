"""An app's runs are judged as the harness's own: an OpenAI-compatible judge on a loopback server
scores the example app's answers (judge/answer_score) beside its retrieval and answer metrics."""

from __future__ import annotations

import sys

from harness.cli.sweep import run_from_config
from tests.conftest import PROJECT_ROOT
from tests.stages.conftest import KEY_ENV

EXAMPLE = PROJECT_ROOT / "examples" / "own_app"


def test_the_example_app_is_judged(openai_server, compose, tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(EXAMPLE))
    monkeypatch.delitem(sys.modules, "rag_app", raising=False)
    cfg = compose(["dataset=questions_jsonl", f"dataset.questions={EXAMPLE / 'questions.jsonl'}",
                   f"dataset.documents={EXAMPLE / 'docs'}", "app=python", "app.target=rag_app:answer",
                   "plugins.allowed_targets=[rag_app.answer]", "judge=openai", f"judge.base_url={openai_server('ok')}",
                   f"judge.api_key_env={KEY_ENV}", "judge.model=m", f"cache.dir={tmp_path / 'cache'}"])
    result = run_from_config(cfg)
    assert [stage.name for stage in result.stages.stages] == ["app", "route", "judge", "score"]
    assert result.metrics["judge/judged"] == 3.0 and result.metrics["judge/failed"] == 0.0
    assert all(row["judge/answer_score"] == 8.0 for row in result.rows)
    assert result.metrics["retrieval/mrr"] == 1.0
