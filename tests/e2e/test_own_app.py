"""End to end: the how-to's example app (examples/own_app) swept over three values of a parameter,
as a Python function and behind a loopback HTTP endpoint, into a temporary MLflow store; and the
issue's one-line question file run against two documents."""

from __future__ import annotations

import json
import os
import re
import shlex
import threading

import mlflow
import pytest

from tests.conftest import PROJECT_ROOT
from tests.e2e.test_sweep import run_cli, runs_of, split

pytestmark = pytest.mark.slow

EXAMPLE = PROJECT_ROOT / "examples" / "own_app"
PAGE = PROJECT_ROOT / "docs" / "how-to" / "evaluate-your-own-app.md"


def page_command(marker: str) -> list[str]:
    """The overrides of the page's `harness -m ...` command whose block contains ``marker``."""
    for block in re.findall(r"```bash\n(.*?)```", PAGE.read_text(), flags=re.S):
        if marker in block:
            words = shlex.split(block.replace("\\\n", " "))
            start = words.index("harness")
            return [w for w in words[start + 1:] if w != "-m"]
    raise AssertionError(f"no command with {marker!r} on {PAGE}")


def with_example_paths(overrides: list[str]) -> list[str]:
    return [o.replace("examples/own_app", str(EXAMPLE)) for o in overrides]


def check_sweep(tmp_path, done, name: str) -> list:
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    client, runs = runs_of(tmp_path)
    parents, children = split(runs)
    assert len(parents) == 1 and len(children) == 3
    assert sorted(c.data.params[name] for c in children) == ["1", "2", "3"]
    for child in children:
        assert child.data.metrics["retrieval/mrr"] == 1.0 and child.data.metrics["generation/failed_count"] == 0
        assert child.data.metrics["answer/f1"] > 0 and "generation/latency_p50_seconds" in child.data.metrics
        assert "harness.front" in child.data.tags
    sweep = tmp_path / "sweep"
    assert (sweep / "stats.csv").is_file() and json.loads((sweep / "front.json").read_text())["members"]
    assert "Champion (" in done.stdout
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setenv("MLFLOW_TRACKING_URI", f"sqlite:///{tmp_path / 'mlflow.db'}")
        mlflow.set_tracking_uri(f"sqlite:///{tmp_path / 'mlflow.db'}")
        child = next(c for c in children if c.data.params[name] == "2")
        traces = mlflow.search_traces(locations=[child.info.experiment_id], run_id=child.info.run_id,
                                      return_type="list")
        assert len(traces) == 3
        trace = next(t for t in traces if t.info.tags.get("harness.question_id") == "q2")
        retrieval = next(s for s in trace.data.spans if s.span_type == "RETRIEVER")
        assert [d["metadata"]["doc_id"] for d in retrieval.outputs][:2] == ["germany", "spain"]
    return children


def test_a_python_app_swept_over_three_values(tmp_path):
    overrides = with_example_paths(page_command("app.target=rag_app:answer"))
    done = run_cli(tmp_path, *overrides, env={"PYTHONPATH": os.pathsep.join([str(EXAMPLE), str(PROJECT_ROOT)])})
    check_sweep(tmp_path, done, "app.params.top_k")


def test_an_http_app_swept_over_three_values(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(EXAMPLE))
    import http_app

    server = http_app.server(port=0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/rag"
        overrides = [o.replace("http://localhost:8000/rag", url) for o in with_example_paths(page_command("app=http"))]
        done = run_cli(tmp_path, *overrides)
    finally:
        server.shutdown()
        server.server_close()
    check_sweep(tmp_path, done, "app.params.top_k")


def test_the_one_line_question_file_of_the_issue(tmp_path):
    (tmp_path / "docs").mkdir()
    for name in ("france", "germany"):
        (tmp_path / "docs" / f"{name}.md").write_text((EXAMPLE / "docs" / f"{name}.md").read_text())
    questions = tmp_path / "q.jsonl"
    questions.write_text('{"id":"q1","question":"What is the capital of France?","answer":"Paris"}\n'
                         '{"id":"q2","question":"What is the capital of Germany?","answer":"Berlin",'
                         '"gold_doc_ids":["germany"]}\n')
    done = run_cli(tmp_path, "dataset=questions_jsonl", f"dataset.questions={questions}",
                   f"dataset.documents={tmp_path / 'docs'}", "generator=predictions",
                   f"generator.path={write_predictions(tmp_path)}", multirun=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    _, runs = runs_of(tmp_path)
    (run,) = runs
    assert run.data.metrics["retrieval/mrr"] == 1.0  # scored on q2, whose gold is a document id
    assert run.data.metrics["answer/em"] == 1.0 and run.data.metrics["answer/f1"] == 1.0


def write_predictions(tmp_path):
    path = tmp_path / "predictions.jsonl"
    path.write_text('{"question_id": "q1", "answer": "Paris"}\n{"question_id": "q2", "answer": "Berlin"}\n')
    return path
