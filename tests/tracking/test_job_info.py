"""What a job logs of its config: the same data as OmegaConf's own conversion, faster."""

from __future__ import annotations

from omegaconf import OmegaConf

from harness.tracking.callback import _task_container


def test_the_task_config_equals_omegaconfs_masked_copy_resolved(compose):
    config = compose(["experiment=demo_sweep", "chunker=recursive", "retriever=hybrid"], return_hydra_config=True)
    keys = [key for key in config.keys() if key != "hydra"]
    expected = OmegaConf.to_container(OmegaConf.masked_copy(config, keys), resolve=True, enum_to_str=True)
    got = _task_container(config)
    assert got == expected and list(got) == list(expected)
