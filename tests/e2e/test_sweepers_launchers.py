"""The racing and Optuna sweepers hand their batches to Hydra's basic launcher and the joblib and Ray
launchers as to the harness launcher (the default: test_racing.py, test_optuna.py): the same race
(eliminations, runs, figures) and a study under one parent run."""

from __future__ import annotations

import shutil
import tempfile

import pytest

from tests.e2e.test_optuna import STUDY, check_study
from tests.e2e.test_racing import RACE, check_race, command, env
from tests.e2e.test_ray_launcher import MARK, _ray_processes
from tests.forkserver import run as forked

pytestmark = pytest.mark.slow

JOBLIB = ["hydra/launcher=joblib", "hydra.launcher.n_jobs=2"]
BASIC = ["hydra/launcher=basic"]


def sweep(folder, *overrides, extra_env=None):
    done = forked(command(folder, *overrides, f"hydra.sweep.dir={folder / 'sweep'}"), cwd=folder,
                  env={**env(), **(extra_env or {})}, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done


@pytest.mark.parametrize("launcher", [JOBLIB, BASIC], ids=["joblib", "basic"])
def test_race_and_study_with_another_launcher(tmp_path, launcher):
    race, study = tmp_path / "race", tmp_path / "study"
    race.mkdir()
    study.mkdir()
    check_race(race, race / "sweep", sweep(race, *RACE, *launcher).stdout)
    check_study(study, study / "sweep", sweep(study, *STUDY, *launcher).stdout)


@pytest.mark.usefixtures("one_ray_cluster_at_a_time")
def test_race_with_ray(tmp_path):
    ray_tmp = tempfile.mkdtemp(prefix="ray", dir="/tmp")  # Ray's unix sockets need a short path
    try:
        done = sweep(tmp_path, *RACE, "hydra/launcher=ray", "hydra.launcher.ray.init.num_cpus=2",
                     f"+hydra.launcher.ray.init._temp_dir={ray_tmp}", extra_env={"RAY_DEDUP_LOGS": "0", MARK: ray_tmp})
        assert _ray_processes(ray_tmp) == []
    finally:
        for process in _ray_processes(ray_tmp):
            process.kill()
        shutil.rmtree(ray_tmp, ignore_errors=True)
    check_race(tmp_path, tmp_path / "sweep", done.stdout)
