"""``harness -m`` starts the harness launcher's worker before composing its sweep (its imports then
overlap the sweep's own start); the launcher takes that worker for the sweep's first job."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize("argv, starts", [
    (["-m", "retriever.top_k=1,2"], True),
    (["--multirun", "hydra/launcher=harness", "retriever.top_k=1,2"], True),
    (["retriever.top_k=1"], False),  # one run: no launcher
    (["-m", "hydra/launcher=basic", "retriever.top_k=1,2"], False),
    (["-m", "hydra/launcher=joblib", "retriever.top_k=1,2"], False),
    (["-m", "retriever.top_k=1,2", "--cfg", "job"], False),  # prints the config, runs nothing
    (["-m", "--help"], False),
])
def test_a_worker_is_started_early_only_for_a_sweep_the_harness_launcher_runs(argv, starts):
    from harness.cli.main import _sweeps_in_workers

    assert _sweeps_in_workers(argv) is starts


def test_the_early_worker_survives_hydras_plugin_scan_and_is_the_launchers():
    """Hydra's plugin scan runs every hydra_plugins module imported before it again (forgetting its
    module's state); the module that keeps the early worker is one the scan skips."""
    from hydra.core.plugins import Plugins

    from hydra_plugins.harness_launcher import _process

    _process.prestart()
    spare = _process._SPARE[0]
    try:
        Plugins()  # a new registry: the scan, as a Hydra run starts it after `harness -m` started its worker
        import hydra_plugins.harness_launcher._process as again

        assert again._take_spare() is spare and spare.alive()
        assert again._take_spare() is None
    finally:
        spare.stop(at_once=True)
