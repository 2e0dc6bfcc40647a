"""The example app of docs/how-to/evaluate-your-own-app.md (examples/own_app) on the path, and a
module of small apps the tests declare as plugins."""

from __future__ import annotations

import sys

import pytest

from tests.conftest import PROJECT_ROOT

EXAMPLE = PROJECT_ROOT / "examples" / "own_app"


@pytest.fixture
def example_on_path(monkeypatch):
    monkeypatch.syspath_prepend(str(EXAMPLE))
    for name in ("rag_app", "http_app"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    return EXAMPLE
