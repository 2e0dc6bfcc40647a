"""routes=single adds the routes suite and changes nothing else: the real composed config run on the
tiny corpus with a predictions file, with and without the routes suite."""

from __future__ import annotations

import json

import pytest
from omegaconf import open_dict

from harness.cli.sweep import run_from_config
from tests.conftest import TINY_DATASET_OVERRIDES

pytestmark = pytest.mark.slow  # loads the packaged encoder (BERTScore, semantic similarity)

# The tiny questions' answers: right, a wrong number, empty, right.
ANSWERS = {"t1": "Tokens expire after 3600 seconds.", "t2": "The pool holds 90 connections per region.",
           "t3": "", "t4": "Workflow definitions are cached for 1 hour."}


def without_routes_suite(cfg):
    cfg = cfg.copy()
    with open_dict(cfg):
        del cfg.metrics["routes"]
    return cfg


def other_suites(metrics: dict) -> dict:
    return {key: value for key, value in metrics.items() if not key.startswith("routes/")}


def test_routes_single_leaves_every_other_suite_unchanged(compose, tmp_path):
    predictions = tmp_path / "predictions.jsonl"
    predictions.write_text("".join(json.dumps({"question_id": qid, "answer": answer}) + "\n"
                                   for qid, answer in ANSWERS.items()))
    cfg = compose([*TINY_DATASET_OVERRIDES, "routes=single", "router=fixed", "generator=predictions",
                   f"generator.path={predictions}", "judge=none", "tracking=none",
                   # Both runs compute everything (a cache hit would show in generation/cached).
                   f"cache.dir={tmp_path}/cache", "cache.enabled=false"])
    assert "routes" in cfg.metrics and len(cfg.metrics) > 1

    with_routes = run_from_config(cfg)
    without = run_from_config(without_routes_suite(cfg))

    assert with_routes.metrics["routes/quality"] > 0 and "routes/routing_accuracy" not in with_routes.metrics
    assert not any(key.startswith("routes/") for key in without.metrics)
    assert other_suites(with_routes.metrics) == other_suites(without.metrics)
    assert {key.split("/")[0] for key in without.metrics} >= {"retrieval", "key_facts", "answer"}
    assert len(with_routes.rows) == len(without.rows) == len(ANSWERS)
    for routed, plain in zip(with_routes.rows, without.rows, strict=True):
        assert other_suites(routed) == plain
        assert routed["predicted_route"] == plain["predicted_route"] == "all"
    assert with_routes.artifacts == without.artifacts
