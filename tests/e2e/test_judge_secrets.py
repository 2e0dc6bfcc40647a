"""A sweep that generates and judges through an OpenAI-compatible server with a key in the
environment and credentials in the server's URL: both reach the server and appear nowhere in
what the harness stores or prints."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from werkzeug import Request, Response

from tests.conftest import TINY_DATASET_OVERRIDES
from tests.e2e.test_sweep import runs_of, split
from tests.forkserver import run as forked

pytestmark = pytest.mark.slow
KEY_ENV = "HARNESS_E2E_SECRET_KEY"
SECRET = "sk-e2e-SECRET-7c4f9a1b2d3e4f5061728394a5b6c7d8"
URL_PASSWORD = "url-pass-91f3e7"


def chat_server(request: Request) -> Response:
    body = json.loads(request.get_data())
    content = body["messages"][-1]["content"]
    if body.get("stream"):  # the generator
        chunk = {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": body["model"],
                 "choices": [{"index": 0, "delta": {"content": "Tokens expire after 3600 seconds."},
                              "finish_reason": "stop"}]}
        return Response(f"data: {json.dumps(chunk)}\n\ndata: [DONE]\n\n", content_type="text/event-stream")
    text = '{"grade": 9, "reasoning": "chunk 1 answers it"}' if content.startswith("You are evaluating") else "8"
    return Response(json.dumps({"id": "j", "object": "chat.completion", "created": 0, "model": body["model"],
                                "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                                             "finish_reason": "stop"}]}), content_type="application/json")


def test_api_keys_never_reach_runs_artifacts_or_the_cache(tmp_path, httpserver):
    httpserver.expect_request("/v1/chat/completions", method="POST").respond_with_handler(chat_server)
    base_url = httpserver.url_for("/v1")
    # The judge's server sits behind a proxy that wants credentials in the URL (sent as Basic auth).
    judge_url = base_url.replace("://", f"://harness:{URL_PASSWORD}@")
    args = [sys.executable, "-m", "harness", "-m",
            f"tracking.tracking_uri=sqlite:///{tmp_path / 'mlflow.db'}", f"tracking.artifact_location={tmp_path / 'mlruns'}",
            f"cache.dir={tmp_path / 'cache'}", f"hydra.sweep.dir={tmp_path / 'sweep'}", "experiment_name=e2e",
            *TINY_DATASET_OVERRIDES, "chunker=none,recursive", "retriever=bm25",
            "generator=openai", f"generator.base_url={base_url}", f"generator.api_key_env={KEY_ENV}",
            "generator.model=served-model", "generation.conditions=[with_context,no_context]",
            "judge=openai", f"judge.base_url={judge_url}", f"judge.api_key_env={KEY_ENV}", "judge.model=judge-model",
            "rubric=[answer_score,retrieval_grade]"]
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    env.update({KEY_ENV: SECRET, "HF_HUB_OFFLINE": "1", "PYTHONWARNINGS": "ignore"})
    done = forked(args, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    # The key is nowhere on disk: not in MLflow's database, artifacts, the cache, the sweep's
    # folders or the captured output...
    stored = [path for path in tmp_path.rglob("*") if path.is_file()]
    assert any(p.name == "mlflow.db" for p in stored) and any("cache" in p.parts for p in stored)
    assert any("mlruns" in p.parts for p in stored)
    assert any(p.name == "overrides.yaml" for p in stored) and any(p.suffix == ".log" for p in stored)
    for secret in (SECRET, URL_PASSWORD):
        leaks = [str(p) for p in stored if secret.encode() in p.read_bytes()]
        assert leaks == []
        assert secret not in done.stdout and secret not in done.stderr
    assert "judge.base_url=http\\://harness\\:***@" in (tmp_path / "sweep" / "0" / ".hydra" / "overrides.yaml").read_text()

    # ...though they did reach the server, the key from the generator, the URL's credentials from the judge...
    requests = [request for request, _ in httpserver.log]
    generated = [r for r in requests if json.loads(r.get_data()).get("stream")]
    assert generated and all(r.headers["Authorization"] == f"Bearer {SECRET}" for r in generated)
    judged_requests = [r for r in requests if r not in generated]
    assert all(r.authorization.password == URL_PASSWORD for r in judged_requests)
    judged = [json.loads(r.get_data()) for r in judged_requests]
    # 4 questions: with- and no-context answers and retrieved chunks (identical prompts of the
    # second job come from the judgement cache)
    assert {b["model"] for b in judged} == {"judge-model"} and len(judged) >= 4 + 4 + 4
    # ...and the runs were logged with the judge's scores.
    _, runs = runs_of(tmp_path)
    parents, children = split(runs)
    assert len(children) == 2
    for child in children:
        assert child.data.metrics["judge/answer_score"] == 8.0
        assert child.data.metrics["judge/retrieval_total_score"] == pytest.approx(9.0)
        assert child.data.params["judge.model"] == "judge-model"
        assert child.data.params["judge.base_url"] == judge_url.replace(URL_PASSWORD, "***")
        delta = json.loads((Path(child.data.tags["harness.output_dir"]) / "context_delta.json").read_text())
        assert delta["scorer"] == "judge: rubric answer_score (openai:judge-model)"
        assert delta["per_pack"]["questions_jsonl"]["scores"] == {"training": [8.0] * 4, "pack": [8.0] * 4}
