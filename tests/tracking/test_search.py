"""What a job returns to a search sweeper, and the study's result on the parent run."""

import math
from pathlib import Path

import pytest
from omegaconf import OmegaConf

from harness.tracking.base import Tracker
from harness.tracking.outcome import JobOutcome
from harness.tracking.sweep.search import log_search_result, objective_values, search_tags

CFG = OmegaConf.create({"objectives": [], "stats": {"primary": {"name": None}},
                        "report": {"headline": ["retrieval/ndcg_at_5", "answer/f1"]}})


def test_objectives_default_to_the_primary_metric():
    assert objective_values(CFG, {"retrieval/ndcg_at_5": 0.8, "answer/f1": 0.3}) == [0.8]
    assert objective_values(CFG, {"answer/f1": 0.3}) == [0.3]  # the first headline metric the run has
    named = OmegaConf.merge(CFG, {"stats": {"primary": {"name": "answer/f1"}}})
    assert objective_values(named, {"retrieval/ndcg_at_5": 0.8, "answer/f1": 0.3}) == [0.3]
    several = OmegaConf.merge(CFG, {"objectives": ["answer/f1", "generation/cost_usd"]})
    values = objective_values(several, {"answer/f1": 0.3})
    assert values[0] == 0.3 and math.isnan(values[1])


def test_outcome_reads_as_its_objectives():
    outcome = JobOutcome(status="FINISHED", output_dir=Path("."), objectives=[0.25])
    assert float(outcome) == 0.25 and list(outcome) == [0.25]
    two = JobOutcome(status="FINISHED", output_dir=Path("."), objectives=[0.25, 3.0])
    assert [float(v) for v in two] == [0.25, 3.0]
    with pytest.raises(ValueError, match="2 objectives"):
        float(two)
    failed = JobOutcome(status="FAILED", output_dir=Path("."), message="RuntimeError: boom")
    with pytest.raises(ValueError, match="boom"):
        float(failed)


class Recorder(Tracker):
    def __init__(self):
        self.tags, self.files = {}, []

    def set_tags(self, run_id, tags):
        self.tags.update(tags)

    def log_files(self, run_id, paths):
        self.files.extend(paths)


SUMMARIES = [{"name": "chunker.size=100,retriever.top_k=5", "overrides": ["chunker.size=100", "retriever.top_k=5"]},
             {"name": "chunker.size=300,retriever.top_k=5", "overrides": ["chunker.size=300", "retriever.top_k=5"]}]


def test_best_trial_is_tagged_on_the_parent(tmp_path):
    (tmp_path / "optimization_results.yaml").write_text(
        "name: optuna\nbest_params:\n  chunker.size: 300\n  retriever.top_k: 5\nbest_value: 0.91\n")
    tracker = Recorder()
    tags = log_search_result(tmp_path, SUMMARIES, tracker, "parent")
    assert tracker.tags == tags == {"optuna.best_value": "0.91",
                                    "optuna.best_params": "chunker.size=300 retriever.top_k=5",
                                    "optuna.best_trial": "chunker.size=300,retriever.top_k=5"}
    assert tracker.files == [tmp_path / "optimization_results.yaml"]
    assert log_search_result(tmp_path / "nothing", SUMMARIES, tracker, "parent") == {}


def test_pareto_front_of_a_multi_objective_study():
    tags = search_tags({"solutions": [{"params": {"chunker.size": 100}, "values": [0.8, 0.01]}]}, SUMMARIES)
    assert tags["optuna.best_trial"] == "chunker.size=100,retriever.top_k=5"
    assert tags["optuna.pareto_front"] == "chunker.size=100 -> [0.8, 0.01]"
