"""Subcommands take their store from the composed tracking config, never a fixed path."""

from __future__ import annotations

import pytest

from harness.cli.compose import compose, tracker


def test_the_store_is_the_tracking_config_then_the_environment(monkeypatch):
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    assert tracker(compose([])).tracking_uri == "sqlite:///mlflow.db"
    monkeypatch.setenv("MLFLOW_TRACKING_URI", "http://127.0.0.1:5999")
    assert tracker(compose([])).tracking_uri == "http://127.0.0.1:5999"
    assert tracker(compose(["tracking.tracking_uri=sqlite:///other.db"])).tracking_uri == "sqlite:///other.db"


def test_tracking_uri_option_selects_an_mlflow_store(tmp_path):
    uri = f"sqlite:///{tmp_path / 'a b' / 'mlflow.db'}"
    store = tracker(compose([], uri))
    assert store.tracking_uri == uri and store.describe() == f"mlflow at {uri}"
    assert type(tracker(compose(["tracking=none"]))).__name__ == "NullTracker"
    with pytest.raises(ValueError, match="--tracking-uri names an MLflow store, but tracking=none was chosen"):
        compose(["tracking=none"], uri)
