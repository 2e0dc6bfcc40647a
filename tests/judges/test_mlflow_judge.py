"""judge=mlflow: MLflow's own judges (its Correctness scorer, the judges of RetrievalGroundedness and
RetrievalSufficiency, a make_judge rubric) run through the judging stage against a local
OpenAI-compatible server: verdicts become values, garbage and off-list verdicts are failures with
their reason, the cache answers a re-run, the self-check runs, and nothing but that server is
contacted."""

from __future__ import annotations

import json
import re
import socket

import pytest
from hydra.utils import instantiate
from werkzeug import Request, Response

from harness.cache import DiskCache
from harness.stages.judging import Judging
from tests.judges.conftest import ScriptedJudge, make_record

KEY_ENV = "HARNESS_TEST_MLFLOW_JUDGE_KEY"
KEY = "sk-mlflow-judge-test-0f1e2d3c4b5a69788796"
RUBRICS = ["mlflow_correctness", "mlflow_groundedness", "mlflow_sufficiency", "mlflow_answer_rubric"]


@pytest.fixture(autouse=True)
def offline(monkeypatch):
    """The key in the environment, no proxy, and every connection recorded: only loopback is allowed."""
    for proxy in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(proxy, raising=False)
    for variable in ("OPENAI_API_KEY", "OPENAI_API_BASE", "OPENAI_BASE_URL"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv(KEY_ENV, KEY)
    attempts = []
    connect, resolve = socket.socket.connect, socket.getaddrinfo
    local = ("127.0.0.1", "localhost", "::1")

    def guarded_connect(sock, address):
        attempts.append(address[0] if isinstance(address, tuple) else address)
        if isinstance(address, tuple) and address[0] not in local:
            raise OSError(f"test forbids network access to {address}")
        return connect(sock, address)

    def guarded_resolve(host, *args, **kwargs):
        attempts.append(host)
        if host not in local:
            raise socket.gaierror(f"test forbids looking up {host}")
        return resolve(host, *args, **kwargs)

    monkeypatch.setattr(socket.socket, "connect", guarded_connect)
    monkeypatch.setattr(socket, "getaddrinfo", guarded_resolve)
    return attempts


def verdicts(request: Request) -> Response:
    """A judge that reads MLflow's prompts: yes when the expected answer's number is in the document
    (Correctness, sufficiency) or the answer's number in the chunks (groundedness); for the 1-5
    rubric, 5 or 1. Answers containing "garbage" or "maybe" get such replies."""
    body = json.loads(request.get_data())
    prompt = "\n".join(m["content"] for m in body["messages"])
    claim = re.search(r"<claim>(.*?)</claim>", prompt, re.S)
    document = re.search(r"<document>(.*?)</document>", prompt, re.S)
    if "garbage" in prompt:
        content = "I'd rather not say."
    elif "maybe" in prompt:
        content = json.dumps({"result": "maybe", "rationale": "unsure"})
    elif "Rate from 1 to 5" in prompt:
        expected = re.search(r"expected_response.*?(\d+)", prompt.split("Your task")[-1], re.S)
        answered = re.findall(r"answer is (\d+)", prompt)
        content = json.dumps({"result": 5 if expected and answered and expected.group(1) in answered else 1,
                              "rationale": "compared"})
    else:
        numbers = re.findall(r"\d+", re.sub(r"<question>.*?</question>", "", claim.group(1), flags=re.S))
        content = json.dumps({"result": "yes" if numbers and all(n in document.group(1) for n in numbers) else "no",
                              "rationale": f"claim {numbers}"})
    return Response(json.dumps({"id": "c", "object": "chat.completion", "created": 0, "model": body["model"],
                                "choices": [{"index": 0, "finish_reason": "stop",
                                             "message": {"role": "assistant", "content": content}}],
                                "usage": {"prompt_tokens": 9, "completion_tokens": 3, "total_tokens": 12}}),
                    content_type="application/json")


@pytest.fixture
def mlflow_judging(compose, httpserver):
    """mlflow_judging(rubrics, *overrides) -> a Judging stage with judge=mlflow on the local server."""
    httpserver.expect_request("/v1/chat/completions", method="POST").respond_with_handler(verdicts)

    def build(rubrics=RUBRICS, *overrides):
        cfg = compose(["judge=mlflow", "judge.model=openai:/judge-model", f"judge.base_url={httpserver.url_for('/v1')}",
                       f"judge.api_key_env={KEY_ENV}", "judge.selfcheck.enabled=false", f"rubric=[{','.join(rubrics)}]",
                       *overrides])
        return Judging(judge=instantiate(cfg.judge), rubrics={n: instantiate(r) for n, r in cfg.rubrics.items()})
    return build


def records():
    right = make_record("q1", question="What is the answer?", expected="42", ground_truth="42",
                        answer="The answer is 42.", chunks=["The answer is 42 in every case.", "Nothing here."])
    wrong = make_record("q2", question="What is the count?", expected="7", ground_truth="7",
                        answer="The answer is 9.", chunks=["Counts vary.", "Nothing here either."])
    return [right, wrong]


def test_verdicts_become_values_and_the_rerun_reads_the_cache(mlflow_judging, httpserver, tmp_path, offline):
    judging, cache = mlflow_judging(), DiskCache(tmp_path)
    right, wrong = records()
    figures = judging.run([right, wrong], cache)
    values = {r.question.id: {k: v for j in r.judgements.values() for k, v in j.values.items()} for r in (right, wrong)}
    assert values == {"q1": {"mlflow_correctness": 1.0, "mlflow_groundedness": 1.0, "mlflow_sufficiency": 1.0,
                             "mlflow_answer_rubric": 5.0},
                      "q2": {"mlflow_correctness": 0.0, "mlflow_groundedness": 0.0, "mlflow_sufficiency": 0.0,
                             "mlflow_answer_rubric": 1.0}}
    correctness = right.judgements["mlflow_correctness/with_context"]
    assert (correctness.verdict, correctness.reasoning, correctness.detail["judge"]) == \
        ("yes", "claim ['42']", "mlflow:openai:/judge-model")
    assert figures["judge/judged"] == 8.0 and figures["judge/failed"] == 0.0
    calls = len(httpserver.log)
    assert calls == 8 and all(req.headers["Authorization"] == f"Bearer {KEY}" for req, _ in httpserver.log)

    again = records()
    figures = mlflow_judging().run(again, cache)
    assert figures["judge/cache_hits"] == 8.0 and len(httpserver.log) == calls
    assert again[0].judgements["mlflow_correctness/with_context"].values == {"mlflow_correctness": 1.0}
    assert offline and set(offline) <= {"127.0.0.1", "localhost", "::1"}  # no look-up, no connection elsewhere
    assert all(v not in __import__("os").environ for v in ("OPENAI_API_KEY", "OPENAI_API_BASE"))


def test_garbage_and_off_list_verdicts_are_failures_with_their_reason(mlflow_judging, tmp_path):
    judging = mlflow_judging(["mlflow_correctness"])
    garbage = make_record("q1", answer="garbage", expected="42")
    maybe = make_record("q2", answer="maybe", expected="42")
    figures = judging.run([garbage, maybe], DiskCache(tmp_path))
    assert figures["judge/failed"] == 2.0 and figures["judge/judged"] == 0.0
    bad = garbage.judgements["mlflow_correctness/with_context"]
    assert bad.values == {"mlflow_correctness": None}
    assert bad.missing.startswith("judge call failed: MlflowException: Failed to parse response from judge model")
    unsure = maybe.judgements["mlflow_correctness/with_context"]
    # MLflow reads a verdict off its yes/no list as its CategoricalRating "unknown"
    assert unsure.missing == "unparsable verdict: 'unknown' is not one of ['no', 'yes']"
    assert json.loads(unsure.raw) == {"value": "unknown", "rationale": "unsure"}
    assert {reason for reason, _ in judging.tally.reasons.most_common()} >= {unsure.missing}
    assert not list(tmp_path.rglob("*.json"))  # a failure is never cached


def test_a_refused_connection_fails_each_item_at_once(compose, tmp_path):
    with socket.socket() as probe:  # a free port, closed again: nothing listens there
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    cfg = compose(["judge=mlflow", f"judge.base_url=http://127.0.0.1:{port}/v1", f"judge.api_key_env={KEY_ENV}",
                   "judge.selfcheck.enabled=false", "rubric=[mlflow_correctness]"])
    judging = Judging(judge=instantiate(cfg.judge), rubrics={"mlflow_correctness": instantiate(cfg.rubrics.mlflow_correctness)})
    record = make_record()
    judging.run([record], DiskCache(tmp_path))
    assert record.judgements["mlflow_correctness/with_context"].missing.startswith(
        f"judge call failed: cannot connect to http://127.0.0.1:{port}/v1: ConnectionRefusedError")


def test_the_selfcheck_tells_right_from_wrong_answers(mlflow_judging, tmp_path):
    population = [make_record(f"q{i}", question=f"Q{i}?", expected=str(100 + i), ground_truth=str(100 + i),
                              answer=f"The answer is {100 + i}.") for i in range(6)]
    judging = mlflow_judging(["mlflow_correctness"], "judge.selfcheck.enabled=true", "judge.selfcheck.pairs=6")
    figures = judging.run(population[:1], DiskCache(tmp_path), population)
    assert figures["judge/mlflow_correctness_selfcheck_auc"] == 1.0
    assert figures["judge/mlflow_correctness_selfcheck_n"] == 6.0


def test_rubrics_and_judges_that_do_not_fit_are_refused_by_name(compose, rubric):
    judge = instantiate(compose(["judge=mlflow"]).judge)
    with pytest.raises(ValueError, match="rubric answer_score needs a judge that answers prompts; judge "
                                         "mlflow:openai:/gpt-4o-mini answers scorers"):
        Judging(judge=judge, rubrics={"answer_score": rubric("answer_score")})
    with pytest.raises(ValueError, match="rubric mlflow_correctness needs a judge that answers scorers"):
        Judging(judge=ScriptedJudge(lambda p, s: "1"), rubrics={"mlflow_correctness": rubric("mlflow_correctness")})
    assert list(compose(["judge=mlflow"]).rubrics) == ["mlflow_correctness", "mlflow_relevance_to_query",
                                                        "mlflow_groundedness", "mlflow_sufficiency"]


@pytest.mark.parametrize("overrides, message", [
    (["rubrics.mlflow_correctness.scorer=NoSuchScorer"], "scorer NoSuchScorer is neither a scorer"),
    (["rubrics.mlflow_correctness.scorer=RetrievalGroundedness"], "reads ['trace'], which a question's item"),
    (["+rubrics.mlflow_correctness.options.tone=1", "rubrics.mlflow_correctness.scorer=is_grounded"],
     "takes no option(s) ['tone']"),
])
def test_scorer_mistakes_fail_at_construction_naming_the_rubric(compose, overrides, message):
    cfg = compose(["rubric=[mlflow_correctness]", *overrides])
    with pytest.raises(Exception) as info:
        instantiate(cfg.rubrics.mlflow_correctness)
    assert "rubric mlflow_correctness" in str(info.value) and message in str(info.value)


@pytest.mark.parametrize("overrides, message", [
    (["judge.model=gpt-4o"], "must name a provider and a model"),
    (["judge.model=mistral:/m"], "no entry for provider 'mistral'"),
    (["judge.model=anthropic:/claude", "judge.base_url=http://localhost:1/v1"], "MLflow's anthropic judges take no"),
])
def test_judge_mistakes_fail_at_construction(compose, overrides, message):
    with pytest.raises(Exception, match=re.escape(message)):
        instantiate(compose(["judge=mlflow", *overrides]).judge)
