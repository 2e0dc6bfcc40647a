"""app=python: a declared function called with each question and app.params, cached by its code,
concurrent, and every failure counted with its reason."""

from __future__ import annotations

import pytest
from hydra.utils import instantiate

from harness.apps.base import NoApp
from harness.apps.python import PythonApp
from harness.cache import DiskCache
from harness.config.allowlist import TargetNotAllowed
from harness.data.records import Question
from tests.apps import apps_for_tests

ALLOWED = ["tests.apps.apps_for_tests."]
QUESTIONS = [Question(id="q1", text="What is the capital of France?"), Question(id="q2", text="And Spain?")]


def app(function: str, **options) -> PythonApp:
    return PythonApp(target=f"tests.apps.apps_for_tests:{function}", allowed_targets=ALLOWED, **options)


def test_every_option_of_the_group_composes_and_builds(compose):
    assert isinstance(instantiate(compose([]).app), NoApp)  # the default: the harness's own pipeline
    built = instantiate(compose(["app=python", "app.target=tests.apps.apps_for_tests:echo",
                                 "+app.params.top_k=3", "plugins.allowed_targets=[tests.apps.apps_for_tests.echo]"]).app)
    assert isinstance(built, PythonApp) and built.params == {"top_k": 3} and built.timeout == 60
    http = instantiate(compose(["app=http", "app.url=http://127.0.0.1:9/rag"]).app)
    assert http.reply_fields["answer"] == "answer" and http.concurrency == 4


def test_a_typo_in_the_app_config_fails_at_compose_time(compose):
    with pytest.raises(Exception, match="concurency"):
        compose(["app=python", "app.target=x:y", "app.concurency=2"])


def test_a_target_that_is_not_a_declared_plugin_is_refused():
    with pytest.raises(TargetNotAllowed, match="app.target 'shutil:rmtree' is not a declared plugin"):
        PythonApp(target="shutil:rmtree", allowed_targets=[])
    with pytest.raises(ValueError, match="no callable 'nothing'"):
        app("nothing")


def test_a_plugin_declared_as_app_target_writes_it_is_allowed():
    declared = PythonApp(target="tests.apps.apps_for_tests:echo", allowed_targets=["tests.apps.apps_for_tests:echo"])
    assert declared.function is apps_for_tests.echo
    with pytest.raises(TargetNotAllowed, match="not a declared plugin"):
        PythonApp(target="tests.apps.apps_for_tests:echo", allowed_targets=["tests.apps.apps_for_tests:slow"])


def test_replies_carry_answer_contexts_tokens_cost_and_latency(tmp_path):
    apps_for_tests.CALLS.clear()
    replies = app("echo", params={"top_k": 3}).answer_all(QUESTIONS, DiskCache(tmp_path))
    assert [r.answer for r in replies] == ["you asked: What is the capital of France?", "you asked: And Spain?"]
    assert replies[0].contexts[0].doc_id == "france" and replies[0].cost_usd == 0.001
    assert all(r.latency_seconds is not None and r.latency_seconds >= 0 and r.error is None for r in replies)
    assert apps_for_tests.CALLS == [(q.text, {"top_k": 3}) for q in QUESTIONS]


def test_replies_are_cached_by_params_and_code(tmp_path):
    cache = DiskCache(tmp_path)
    apps_for_tests.CALLS.clear()
    app("echo", params={"top_k": 3}).answer_all(QUESTIONS, cache)
    again = app("echo", params={"top_k": 3}).answer_all(QUESTIONS, cache)
    assert len(apps_for_tests.CALLS) == 2 and all(reply.cached for reply in again)
    app("echo", params={"top_k": 5}).answer_all(QUESTIONS, cache)  # other params: asked again
    assert len(apps_for_tests.CALLS) == 4
    first = app("echo", params={"top_k": 3})
    first._source_sha256 = "edited"  # the module's code changed: asked again
    first.answer_all(QUESTIONS, cache)
    assert len(apps_for_tests.CALLS) == 6
    versioned = app("echo", params={"top_k": 3}, version="1.0")
    versioned.answer_all(QUESTIONS, cache)
    versioned._source_sha256 = "edited"  # a declared version: the code's hash is not the key
    versioned.answer_all(QUESTIONS, cache)
    assert len(apps_for_tests.CALLS) == 8


def test_failures_keep_their_reason_and_are_never_cached(tmp_path):
    cache = DiskCache(tmp_path)
    broken = app("broken", max_failed_fraction=0.5)
    replies = broken.answer_all(QUESTIONS, cache)
    assert replies[0].error == "KeyError: 'no index loaded'" and replies[0].answer == ""
    assert replies[1].error == "malformed reply: the app's answer must be a string, got int"
    assert broken.tally.failed == 2 and "app: all 2 calls failed" in broken.tally.verdict()
    assert not any(reply.cached for reply in broken.answer_all(QUESTIONS, cache))


def test_a_slow_app_times_out_and_questions_run_concurrently(tmp_path):
    slow = app("slow", params={"seconds": 0.6}, timeout=0.2, concurrency=2)
    replies = slow.answer_all(QUESTIONS, DiskCache(tmp_path))
    assert [r.error for r in replies] == ["TimeoutError: no reply within app.timeout 0.2 s"] * 2
    patient = app("slow", params={"seconds": 0.3}, timeout=5, concurrency=2)
    import time

    start = time.perf_counter()
    assert [r.answer for r in patient.answer_all(QUESTIONS, DiskCache(tmp_path / "b"))] == ["late", "late"]
    assert time.perf_counter() - start < 0.55  # two 0.3 s calls at once


@pytest.mark.parametrize("option, value, message", [("concurrency", 0, "app.concurrency must be >= 1"),
                                                    ("timeout", 0, "app.timeout must be > 0"),
                                                    ("top_k", 0, "app.top_k must be >= 1"),
                                                    ("max_failed_fraction", 2, "app.max_failed_fraction")])
def test_bad_options_name_their_key(option, value, message):
    with pytest.raises(ValueError, match=message):
        app("echo", **{option: value})
