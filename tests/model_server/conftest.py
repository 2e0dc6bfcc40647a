"""One ``transformers serve`` with the embedded model per test session (per xdist worker), stopped after."""

from __future__ import annotations

import pytest

from harness.serving import LOCAL_KEY_ENV, embedded_model, servable_folder, start


@pytest.fixture(scope="session")
def served_folder():
    """The embedded model as a servable Hugging Face folder (written once per machine)."""
    return servable_folder(*embedded_model())


@pytest.fixture(scope="session")
def model_server(served_folder, tmp_path_factory):
    with start(served_folder, log=tmp_path_factory.mktemp("serve") / "server.log") as server:
        yield server


@pytest.fixture
def server_key(monkeypatch):
    """The key variable the API clients read (the server checks no key; the SDKs need one)."""
    monkeypatch.setenv(LOCAL_KEY_ENV, "local")
    return LOCAL_KEY_ENV
