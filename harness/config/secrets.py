"""Secrets: refused as config values, and redacted from everything that leaves the process.

API keys come from environment variables that a config names (``api_key_env: OPENAI_API_KEY``);
a key written into a config is refused at compose time. Whatever still carries a secret (a key
pasted into the wrong field, credentials inside a URL, an exception that quotes a header) goes
through :func:`redact_text` before it reaches a run name, tag, param, config file, summary,
traceback, log or the console: values of the environment variables the config names, strings
shaped like API keys, and the password part of ``scheme://user:password@host``.
"""

from __future__ import annotations

import logging
import os
import re
from pathlib import Path
from typing import Any, Iterator

from omegaconf import DictConfig, ListConfig, OmegaConf
from omegaconf.nodes import ValueNode

from harness.config.files import replace_file

MASK = "***"
# Keys whose values are secrets (`api_key`, `hf_token`, `db_password`...), not `api_key_env` or `max_tokens`.
SECRET_KEY = re.compile(r"(^|[_\-.])(api[_-]?key|apikey|token|secret|password|passwd|credentials?|"
                        r"access[_-]?key|private[_-]?key|auth)$", re.IGNORECASE)
# Keys that name the environment variable holding a secret (`api_key_env`).
KEY_HOLDER = re.compile(r"_env$", re.IGNORECASE)
ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
# Strings shaped like credentials: OpenAI/Anthropic keys, bearer tokens, GitHub, Hugging Face,
# Slack and AWS access keys.
KEY_SHAPES = re.compile(
    r"\bsk-[A-Za-z0-9_\-]{16,}"
    r"|(?<=Bearer )[A-Za-z0-9._~+/\-]{16,}=*"
    r"|\b(?:ghp|gho|ghs|ghu|github_pat|hf|xox[abprs])_[A-Za-z0-9_]{16,}"
    r"|\bAKIA[0-9A-Z]{16}\b")
# Hydra escapes `:` in overrides (`http\://user\:pw@host`), JSON doubles the backslash.
URL_CREDENTIALS = re.compile(r"(?P<head>[A-Za-z][A-Za-z0-9+.\-]*\\*://[^/\s:@\\]*\\*:)(?P<password>[^/\s@]+)@")
# What every match of KEY_SHAPES or URL_CREDENTIALS holds, as patterns that open with a literal,
# which Python's regex engine finds by a fast scan (the patterns above open with a word boundary or
# a character class, tried at every position: 60 ms on a job's 0.5 MB of stage records, against
# 6 ms for these). A text in which none is found is returned as it is.
HINTS = [re.compile(hint) for hint in (
    r"sk-[A-Za-z0-9_\-]{16}", r"Bearer [A-Za-z0-9._~+/\-]{16}", r"AKIA[0-9A-Z]{16}", r"://[^/\s:@\\]*\\*:[^/\s@]+@",
    *(prefix + r"_[A-Za-z0-9_]{16}" for prefix in ("ghp", "gho", "ghs", "ghu", "github_pat", "hf", "xoxa", "xoxb",
                                                   "xoxp", "xoxr", "xoxs")))]
# Values of the environment variables the config names as key holders (filled by remember_key_holders).
_KNOWN: set[str] = set()
_MIN_SECRET_LENGTH = 6  # shorter values would mask ordinary words


class SecretInConfig(ValueError):
    """A config holds a secret value instead of naming the environment variable that holds it."""


def is_secret_key(key: str) -> bool:
    return bool(SECRET_KEY.search(key))


def redact_text(text: str) -> str:
    """``text`` with known secrets, key-shaped strings and URL passwords masked.

    >>> redact_text("POST http://bob:hunter2@llm.internal/v1 with Authorization: Bearer abcdefghijklmnopqrstu")
    'POST http://bob:***@llm.internal/v1 with Authorization: Bearer ***'
    >>> redact_text("generator.api_key=sk-ant-api03-AbCdEfGhIjKlMnOpQrSt")
    'generator.api_key=***'
    """
    if not text:
        return text
    for secret in sorted(_KNOWN, key=len, reverse=True):
        text = text.replace(secret, MASK)
    if not any(hint.search(text) for hint in HINTS):
        return text
    return KEY_SHAPES.sub(MASK, URL_CREDENTIALS.sub(lambda m: f"{m['head']}{MASK}@", text))


def redact(value: Any) -> Any:
    """A copy of a nested dict/list with secret-keyed entries dropped and every string redacted."""
    if isinstance(value, dict):
        return {k: redact(v) for k, v in value.items() if not is_secret_key(str(k))}
    if isinstance(value, (list, tuple)):
        return [redact(v) for v in value]
    if isinstance(value, str):
        return redact_text(value)
    return value


def check_no_secrets(cfg: DictConfig) -> None:
    """Refuses secret-keyed values and key-holder names that are not variable names; remembers the
    named variables' values for redaction."""
    problems = []
    for key, value in _leaves(cfg, ""):
        name = key.rsplit(".", 1)[-1]
        if is_secret_key(name) and value not in (None, ""):
            problems.append(f"config key '{key}' holds a secret: put it in an environment variable and name "
                            f"that variable with api_key_env (e.g. generator.api_key_env=MY_KEY_VARIABLE)")
        elif KEY_HOLDER.search(name) and isinstance(value, str):
            if ENV_NAME.match(value):
                remember(os.environ.get(value))
            else:
                remember(value)  # a key pasted where its variable's name belongs
                problems.append(f"config key '{key}' must name an environment variable (like OPENAI_API_KEY), "
                                f"got '{redact_text(value)}'")
    if problems:
        raise SecretInConfig("; ".join(problems))


def remember(secret: str | None) -> None:
    if secret and len(secret) >= _MIN_SECRET_LENGTH:
        _KNOWN.add(secret)


def redact_file(path: Path) -> None:
    """Rewrites a text file (Hydra's saved configs) redacted, atomically; a missing file is left alone."""
    try:
        text = path.read_text(encoding="utf-8")
    except (FileNotFoundError, UnicodeDecodeError):
        return
    redacted = redact_text(text)
    if redacted != text:
        replace_file(path, redacted)


class RedactingFilter(logging.Filter):
    """Redacts a record's message and traceback; put it on handlers so every logger's records pass it."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        redacted = redact_text(message)
        if redacted != message:
            record.msg, record.args = redacted, None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact_text(record.exc_text)
        return True


def redact_logging() -> None:
    """Adds the filter to every handler of the root logger (Hydra reconfigures them per job)."""
    for handler in logging.getLogger().handlers:
        if not any(isinstance(f, RedactingFilter) for f in handler.filters):
            handler.addFilter(RedactingFilter())


class RedactingStream:
    """A text stream (stdout/stderr) that redacts what is written to it."""

    def __init__(self, stream) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        self._stream.write(redact_text(text))
        return len(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def _leaves(node, path: str) -> Iterator[tuple[str, Any]]:
    if isinstance(node, DictConfig):
        keys: Any = node.keys()
    elif isinstance(node, ListConfig):
        keys = range(len(node))
    else:
        return
    if node._is_missing() or node._is_none():
        return
    for key in keys:
        where = f"{path}.{key}" if path else str(key)
        child = node._get_node(key)
        if isinstance(child, (DictConfig, ListConfig)):
            yield from _leaves(child, where)
        elif child is not None and not child._is_missing():
            if isinstance(child, ValueNode) and not child._is_interpolation():
                yield where, child._value()  # what node[key] returns, without its resolution machinery
                continue
            try:
                value = node[key]
            except Exception:  # noqa: BLE001 - unresolvable outside a job (${hydra:...}): not a value yet
                continue
            if isinstance(value, (DictConfig, ListConfig)):
                yield from _leaves(value, where)
            else:
                yield where, value
