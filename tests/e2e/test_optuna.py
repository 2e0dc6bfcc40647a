"""End to end: `harness -m experiment=optuna_demo` (hydra/sweeper=optuna), and a killed study resumed."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.test_racing import command, env, kill_after, resume, runs
from tests.forkserver import run as forked

pytestmark = pytest.mark.slow

STUDY = ["experiment=optuna_demo", "experiment_name=race", "hydra.sweeper.n_trials=4"]


def check_study(folder: Path, sweep_dir: Path, stdout: str) -> None:
    _, parent, children = runs(folder, jobs=4)
    assert parent.info.status == "FINISHED" and all(c.info.status == "FINISHED" for c in children.values())
    # Each trial returned its nDCG@5 to Optuna: the best trial is the best run.
    best = max(children, key=lambda name: children[name].data.metrics["retrieval/ndcg_at_5"])
    assert parent.data.tags["optuna.best_trial"] == best
    assert float(parent.data.tags["optuna.best_value"]) == pytest.approx(
        children[best].data.metrics["retrieval/ndcg_at_5"])
    assert f"optuna.best_trial: {best}" in stdout
    assert (sweep_dir / "optimization_results.yaml").is_file()
    for name in children:  # the sampled values name the runs
        assert {"chunker.size", "chunker.overlap", "retriever.top_k", "retriever.k1"} == {
            part.split("=")[0] for part in name.split(",")}


def test_optuna_study_lands_under_one_parent(tmp_path):
    done = forked(command(tmp_path, *STUDY, f"hydra.sweep.dir={tmp_path / 'sweep'}"), cwd=tmp_path,
                  env=env(), capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    check_study(tmp_path, tmp_path / "sweep", done.stdout)


def test_killed_study_resumes_with_the_same_trials(tmp_path):
    sweep_dir = kill_after(tmp_path, STUDY, jobs=2)
    kept = {p.parent.name: p.read_text() for p in sweep_dir.glob("*/summary.json")}
    done = resume(tmp_path, STUDY, sweep_dir)
    assert "kept from before the interruption" in done.stdout + done.stderr
    # the seeded sampler asks for the same first trials again: their finished jobs are kept as they were
    assert all((sweep_dir / job / "summary.json").read_text() == text for job, text in kept.items())
    check_study(tmp_path, sweep_dir, done.stdout)
