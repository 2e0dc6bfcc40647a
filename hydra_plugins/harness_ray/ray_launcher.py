"""hydra-ray-launcher, starting its Ray through :mod:`harness.ray_cluster` (conf/hydra/launcher/ray.yaml).

The plugin calls ``ray.init`` itself with Ray's console defaults (colour codes, INFO lines, the
token warning) and never stops the local cluster it starts; this launcher starts Ray first, so the
plugin finds it running, and the harness stops it with the sweep (:mod:`harness.ray_cluster`).
Everything else, one Ray task per job, is the plugin's.
"""

from __future__ import annotations

from collections.abc import Sequence

from hydra.core.utils import JobReturn
from hydra_plugins.hydra_ray_launcher.ray_launcher import RayLauncher
from omegaconf import OmegaConf


class HarnessRayLauncher(RayLauncher):
    def launch(self, job_overrides: Sequence[Sequence[str]], initial_job_idx: int) -> Sequence[JobReturn]:
        from harness.ray_cluster import start

        start(OmegaConf.to_container(self.ray_cfg.init, resolve=True))
        return super().launch(job_overrides, initial_job_idx)
