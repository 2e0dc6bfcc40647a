"""The harness launcher's config, stored where Hydra looks for launchers (``hydra/launcher=harness``)."""

from dataclasses import dataclass

from hydra.core.config_store import ConfigStore


@dataclass
class HarnessLauncherConf:
    _target_: str = "hydra_plugins.harness_launcher.launcher.HarnessLauncher"
    # Worker processes running the batch's jobs side by side; each keeps what its jobs built
    # (indexes, encoders, models) for the sweep's later jobs and a race's later rounds.
    workers: int = 1


ConfigStore.instance().store(group="hydra/launcher", name="harness", node=HarnessLauncherConf, provider="harness")
