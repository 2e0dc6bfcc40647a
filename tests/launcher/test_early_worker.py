"""``harness -m`` starts the harness launcher's worker before Hydra starts its sweep (its imports then
overlap the sweep's own start), decided from the composed config's launcher; the launcher takes that
worker for the sweep's first job."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize("argv, starts", [
    (["-m", "retriever.top_k=1,2"], True),
    (["--multirun", "hydra/launcher=harness", "retriever.top_k=1,2"], True),
    (["retriever.top_k=1"], False),  # one run: no launcher
    (["-m", "hydra/launcher=basic", "retriever.top_k=1,2"], False),
    (["-m", "hydra/launcher=joblib", "retriever.top_k=1,2"], False),
    (["hydra.mode=MULTIRUN", "retriever.top_k=1,2"], True),  # a sweep set in the config, not by -m
])
def test_a_worker_is_started_early_only_for_a_sweep_the_harness_launcher_runs(argv, starts):
    from harness.cli.start_check import check_command
    from harness.cli.sweep import CONFIG_DIR
    from harness.workers import runs_in_workers

    cfg = check_command(argv, CONFIG_DIR)
    assert cfg is not None
    assert runs_in_workers(cfg, "-m" in argv or "--multirun" in argv) is starts


def test_the_early_worker_is_the_launchers_first():
    """The pool is an object of the harness (not of Hydra's plugin modules, which Hydra's plugin scan
    imports again): the worker started early is the one the first launcher takes."""
    from hydra.core.plugins import Plugins

    from harness.workers import WorkerPool

    pool = WorkerPool()
    pool.prestart()
    spare = pool.spare[0]
    try:
        Plugins()  # a new registry: the scan, as a Hydra run starts it after `harness -m` started its worker
        assert pool._take_spare() is spare and spare.alive()
        assert pool._take_spare() is None
    finally:
        pool.stop_all()
    assert not spare.alive() and not pool.started
