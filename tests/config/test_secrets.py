"""Secrets are refused as config values and redacted from text, logs and the console."""

from __future__ import annotations

import io
import logging
import random

import pytest

from harness.config import secrets
from harness.config.secrets import (RedactingFilter, RedactingStream, SecretInConfig, check_no_secrets,
                                    is_secret_key, redact, redact_file, redact_text)

OPENAI_KEY = "sk-proj-4fJ9xQ2mZ7vB1nL8kR3tY6wE"
ANTHROPIC_KEY = "sk-ant-api03-Zq8Lm2Nx5Vb7Tc1Rw4Ys9Ku"


@pytest.fixture(autouse=True)
def forget_known_secrets(monkeypatch):
    monkeypatch.setattr(secrets, "_KNOWN", set())


@pytest.mark.parametrize("key, secret", [("api_key", True), ("openai_api_key", True), ("hf_token", True),
                                         ("db_password", True), ("client_secret", True), ("apikey", True),
                                         ("api_key_env", False), ("max_new_tokens", False), ("tokenizer", False),
                                         ("key_facts", False), ("input_tokens", False)])
def test_secret_keys_are_told_from_ordinary_ones(key, secret):
    assert is_secret_key(key) is secret


@pytest.mark.parametrize("text, expected", [
    (f"+generator.api_key={OPENAI_KEY}", "+generator.api_key=***"),
    (f"key {ANTHROPIC_KEY}.", "key ***."),
    ("http://alice:s3cr3t-pass@llm.internal:8000/v1", "http://alice:***@llm.internal:8000/v1"),
    ("postgresql://harness:pw@127.0.0.1:5432/db and https://host/v1", "postgresql://harness:***@127.0.0.1:5432/db and https://host/v1"),
    ("- generator.base_url=http\\://bob\\:pw42@h\\:8000/v1", "- generator.base_url=http\\://bob\\:***@h\\:8000/v1"),
    ('"http\\\\://bob\\\\:pw42@h"', '"http\\\\://bob\\\\:***@h"'),
    ("Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.abcdefghij", "Authorization: Bearer ***"),
    ("hf_AbCdEfGhIjKlMnOpQrStUv and ghp_0123456789abcdefABCDEF", "*** and ***"),
    ("chunker=recursive,retriever=bm25 sk-short", "chunker=recursive,retriever=bm25 sk-short"),
])
def test_key_shapes_and_url_credentials_are_masked(text, expected):
    assert redact_text(text) == expected


def test_the_quick_check_skips_only_texts_the_full_patterns_leave_alone():
    # redact_text returns a text unchanged when no HINTS pattern is found in it: on texts pieced
    # together from the shapes' parts, that equals applying both patterns to every text.
    def always(text):
        return secrets.KEY_SHAPES.sub(secrets.MASK, secrets.URL_CREDENTIALS.sub(
            lambda m: f"{m['head']}{secrets.MASK}@", text))

    pieces = ["sk-", "Bearer ", "ghp_", "github_pat_", "hf_", "xoxb_", "AKIA", "http://", "s3\\://", "u:", "p@",
              "abcdefghijklmnopqrstuvwxyz0123", "ABCDEFGHIJKLMNOP1234", " ", "/", ":", "@", "-", "_", "x", "\\", "="]
    rng = random.Random(7)
    texts = ["".join(rng.choice(pieces) for _ in range(rng.randint(1, 12))) for _ in range(30000)]
    changed = [text for text in texts if always(text) != text]
    assert len(changed) > 3000  # the pieces do make secrets
    assert [redact_text(text) for text in texts] == [always(text) for text in texts]


def test_values_of_the_variables_the_config_names_are_masked(compose, monkeypatch):
    monkeypatch.setenv("TEAM_LLM_KEY", "plain-looking-secret-42")
    check_no_secrets(compose(["generator=openai", "generator.api_key_env=TEAM_LLM_KEY"]))
    assert redact_text("error: plain-looking-secret-42 rejected") == "error: *** rejected"


def test_every_shipped_option_holds_no_secret(compose):
    for overrides in (["generator=openai", "judge=anthropic"], ["generator=anthropic", "judge=openai"],
                      ["generator=local", "judge=local", "dataset=beir"]):
        check_no_secrets(compose(overrides, return_hydra_config=True))


def test_a_key_written_into_the_config_is_refused_pointing_to_api_key_env(compose):
    with pytest.raises(SecretInConfig, match=r"'generator.api_key' holds a secret.*api_key_env") as refused:
        check_no_secrets(compose(["generator=openai", f"+generator.api_key={OPENAI_KEY}"]))
    assert OPENAI_KEY not in str(refused.value)
    with pytest.raises(SecretInConfig, match=r"'judge.hf_token' holds a secret"):
        check_no_secrets(compose(["judge=local", "+judge.hf_token=${oc.env:HOME}"]))


def test_a_key_pasted_as_the_variable_name_is_refused_and_masked(compose):
    with pytest.raises(SecretInConfig, match=r"'judge.api_key_env' must name an environment variable") as refused:
        check_no_secrets(compose(["judge=openai", "judge.api_key_env='pasted/key+without=shape'"]))
    assert "pasted/key+without=shape" not in str(refused.value)
    assert redact_text("variable pasted/key+without=shape is not set") == "variable *** is not set"


def test_redact_drops_secret_keys_and_masks_strings():
    config = {"generator": {"base_url": "http://u:pw@h/v1", "api_key": "x", "headers": [f"Bearer {OPENAI_KEY}"]}}
    assert redact(config) == {"generator": {"base_url": "http://u:***@h/v1", "headers": ["Bearer ***"]}}


def test_log_records_and_their_tracebacks_are_redacted():
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.addFilter(RedactingFilter())
    logger = logging.getLogger("tests.secrets")
    logger.addHandler(handler)
    try:
        logger.warning("HTTP Request: POST %s", "http://bob:hunter22@api.local/v1/chat")
        try:
            raise RuntimeError(f"rejected key {OPENAI_KEY}")
        except RuntimeError:
            logger.exception("call failed")
    finally:
        logger.removeHandler(handler)
    text = stream.getvalue()
    assert "http://bob:***@api.local/v1/chat" in text and "RuntimeError: rejected key ***" in text
    assert "hunter22" not in text and OPENAI_KEY not in text


def test_the_console_stream_and_saved_files_are_redacted(tmp_path):
    out = io.StringIO()
    RedactingStream(out).write(f"run generator.api_key={OPENAI_KEY}\n")
    assert out.getvalue() == "run generator.api_key=***\n"
    saved = tmp_path / "overrides.yaml"
    saved.write_text("- generator.base_url=http://u:topsecret@h/v1\n")
    redact_file(saved)
    assert saved.read_text() == "- generator.base_url=http://u:***@h/v1\n"
    redact_file(tmp_path / "missing.yaml")


def test_a_failed_job_s_message_and_traceback_are_redacted(tmp_path):
    from harness.tracking.outcome import JobOutcome

    try:
        raise ConnectionError(f"http://u:pw-in-url@h/v1 refused key {OPENAI_KEY}")
    except ConnectionError as err:
        outcome = JobOutcome.from_exception(err, tmp_path)
    assert outcome.message == "ConnectionError: http://u:***@h/v1 refused key ***"
    assert "pw-in-url" not in outcome.error and OPENAI_KEY not in outcome.error


def test_the_leaves_checked_are_every_value_the_config_resolves_to(compose):
    """check_no_secrets reads a plain value node directly: the same (key, value) pairs, in order, as
    reading every leaf through the config (``node[key]``, resolving interpolations)."""
    from omegaconf import DictConfig, ListConfig

    def through_the_config(node, path):
        if node._is_missing() or node._is_none():
            return
        for key in (node.keys() if isinstance(node, DictConfig) else range(len(node))):
            where = f"{path}.{key}" if path else str(key)
            child = node._get_node(key)
            if isinstance(child, (DictConfig, ListConfig)):
                yield from through_the_config(child, where)
            elif child is not None and not child._is_missing():
                try:
                    value = node[key]
                except Exception:  # noqa: BLE001 - as check_no_secrets: unresolvable outside a job
                    continue
                if isinstance(value, (DictConfig, ListConfig)):
                    yield from through_the_config(value, where)
                else:
                    yield where, value

    for overrides in ([], ["experiment=demo_sweep"], ["judge=local", "generator=openai", "router=keyword"]):
        config = compose(overrides, return_hydra_config=True)
        fast, expected = list(secrets._leaves(config, "")), list(through_the_config(config, ""))
        assert len(fast) > 500 and [(k, type(v)) for k, v in fast] == [(k, type(v)) for k, v in expected]
        assert fast == expected
