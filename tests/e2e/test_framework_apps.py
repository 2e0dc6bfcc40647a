"""End to end, as teams' apps behave: the how-to's LangChain and LlamaIndex apps (real packages)
swept with their documents as the frameworks return them, scored as the same app with document ids;
a flaky HTTP app beside a healthy one, its failures on the leaderboard and its quality not above
the healthy one's; a question file without ids that asks one question twice."""

from __future__ import annotations

import json
import os
import threading

import mlflow
import pytest

from tests.conftest import PROJECT_ROOT
from tests.e2e.test_own_app import EXAMPLE, page_command, with_example_paths
from tests.e2e.test_sweep import run_cli, runs_of, split

pytestmark = pytest.mark.slow

STEM_APP = '''
from pathlib import Path

from langchain_core.documents import Document

from langchain_app import answer as langchain_answer


def answer(question, top_k=2):
    """The LangChain app with each Document's source set to its file's stem: the documents' ids."""
    reply = langchain_answer(question, top_k)
    documents = [Document(page_content=d.page_content, metadata={**d.metadata, "source": Path(d.metadata["source"]).stem})
                 for d in reply["source_documents"]]
    return {**reply, "source_documents": documents}
'''


def on_path(tmp_path) -> dict[str, str]:
    return {"PYTHONPATH": os.pathsep.join([str(tmp_path), str(EXAMPLE), str(PROJECT_ROOT)])}


def retrieval_metrics(child) -> dict[str, float]:
    return {k: v for k, v in child.data.metrics.items() if k.startswith("retrieval/")}


def test_langchain_documents_score_as_the_same_app_with_document_ids(tmp_path):
    (tmp_path / "stem_app.py").write_text(STEM_APP)
    overrides = [o.replace("app.target=langchain_app:answer", "app.target=langchain_app:answer,stem_app:answer")
                  .replace("[langchain_app:answer]", "[langchain_app:answer,stem_app:answer]")
                 for o in with_example_paths(page_command("app.target=langchain_app:answer"))]
    done = run_cli(tmp_path, *overrides, env=on_path(tmp_path))
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "matched a document" not in done.stdout + done.stderr  # every context matched its file
    _, runs = runs_of(tmp_path)
    _, children = split(runs)
    assert len(children) == 4
    by_job = {(c.data.params["app.target"], c.data.params["app.params.top_k"]): c for c in children}
    for top_k in ("1", "2"):
        paths, stems = retrieval_metrics(by_job["langchain_app:answer", top_k]), retrieval_metrics(by_job["stem_app:answer", top_k])
        assert paths == stems and paths["retrieval/mrr"] > 0, (top_k, paths, stems)
        assert by_job["langchain_app:answer", top_k].data.metrics["app/unmatched_contexts"] == 0


def test_a_llamaindex_app_returns_its_nodes_as_they_come(tmp_path):
    done = run_cli(tmp_path, *with_example_paths(page_command("app.target=llamaindex_app:answer")), env=on_path(tmp_path))
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    client, runs = runs_of(tmp_path)
    _, children = split(runs)
    assert len(children) == 2
    for child in children:
        assert child.data.metrics["retrieval/mrr"] == 1.0 and child.data.metrics["app/unmatched_contexts"] == 0
    child = next(c for c in children if c.data.params["app.params.top_k"] == "2")
    mlflow.set_tracking_uri(f"sqlite:///{tmp_path / 'mlflow.db'}")
    traces = mlflow.search_traces(locations=[child.info.experiment_id], run_id=child.info.run_id, return_type="list")
    trace = next(t for t in traces if t.info.tags.get("harness.question_id") == "q2")
    retrieval = next(s for s in trace.data.spans if s.span_type == "RETRIEVER")
    assert [d["metadata"]["doc_id"] for d in retrieval.outputs] == ["germany", "spain"]
    assert all(d["metadata"]["score"] > 0 for d in retrieval.outputs)  # BM25's own scores


def test_a_flaky_http_app_shows_its_failures_and_never_looks_better(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(EXAMPLE))
    import http_app

    class Flaky(http_app.Handler):
        def respond(self, body: dict) -> tuple[int, dict]:
            if "Spain" in body["question"]:
                return 500, {"error": "index shard down"}
            return super().respond(body)

    # A RAGAS export: no ids, the first question asked twice.
    questions = tmp_path / "ragas.csv"
    lines = [json.loads(line) for line in (EXAMPLE / "questions.jsonl").read_text().splitlines()]
    rows = [("What is the capital of France?", "Paris", "Paris is the capital and largest city of France."),
            *((r["question"], r["answer"], text) for r, text in zip(lines[1:], [
                "Berlin is the capital and largest city of Germany.", "Madrid is the capital and largest city of Spain."])),
            ("What is the capital of France?", "Paris", "Paris is the capital and largest city of France.")]
    questions.write_text("user_input,reference,reference_contexts\n" + "".join(
        f'{q},{a},"[""{c}""]"\n' for q, a, c in rows))
    servers = [http_app.server(port=0), http_app.server(port=0, handler=Flaky)]
    for server in servers:
        threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        healthy, flaky = (f"http://127.0.0.1:{s.server_address[1]}/rag" for s in servers)
        overrides = with_example_paths([
            o.replace("app.url=http://localhost:8000/rag", f"app.url={healthy},{flaky}")
             .replace("dataset.questions=examples/own_app/questions.jsonl", f"dataset.questions={questions}")
             .replace("+app.params.top_k=1,2,3", "+app.params.top_k=2") for o in page_command("app=http")])
        done = run_cli(tmp_path, *overrides, "app.retry_wait_seconds=0.01", "app.max_failed_fraction=0.5")
    finally:
        for server in servers:
            server.shutdown()
            server.server_close()
    out = done.stdout + done.stderr
    assert done.returncode == 0, out[-3000:]
    assert "app: 1 of 4 questions failed (25%): 1x" in out and "HTTP 500" in out  # the job's line
    assert "1/4 (25%)" in out  # the leaderboard's failed column
    assert (tmp_path / "sweep" / "leaderboard.csv").read_text().splitlines()[0].startswith("job,run,status,failed,")
    client, runs = runs_of(tmp_path)
    _, children = split(runs)
    by_url = {c.data.params["app.url"]: c for c in children}
    good, bad = by_url[healthy].data.metrics, by_url[flaky].data.metrics
    assert good["run/questions"] == bad["run/questions"] == 4  # the repeated question is a question
    assert good["generation/failed_count"] == 0 and bad["generation/failed_count"] == 1
    for name in ("retrieval/mrr", "retrieval/hit_at_1", "answer/f1", "answer/em", "answer/bertscore_f1"):
        assert bad[name] < good[name] or bad[name] == good[name] == 0, name
    mlflow.set_tracking_uri(f"sqlite:///{tmp_path / 'mlflow.db'}")
    traces = mlflow.search_traces(locations=[by_url[flaky].info.experiment_id], run_id=by_url[flaky].info.run_id,
                                  return_type="list")
    failed = [t for t in traces if t.info.state.value == "ERROR"]
    assert len(failed) == 1 and "HTTP 500" in failed[0].data.spans[0].status.description
