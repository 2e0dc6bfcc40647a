"""What a job logs of its config: the same data and text as OmegaConf's own conversions, faster."""

from __future__ import annotations

import yaml
from omegaconf import OmegaConf
from omegaconf._utils import get_omega_conf_dumper

from harness.tracking.callback import _task_container, _yaml_dumper


def test_the_task_config_equals_omegaconfs_masked_copy_resolved(compose):
    config = compose(["experiment=demo_sweep", "chunker=recursive", "retriever=hybrid"], return_hydra_config=True)
    keys = [key for key in config.keys() if key != "hydra"]
    expected = OmegaConf.to_container(OmegaConf.masked_copy(config, keys), resolve=True, enum_to_str=True)
    got = _task_container(config)
    assert got == expected and list(got) == list(expected)


def test_the_logged_yaml_is_omegaconfs_text(compose):
    """libyaml's emitter with OmegaConf's quoting writes what OmegaConf's pure-Python dumper writes."""
    data = _task_container(compose(["experiment=demo_sweep"], return_hydra_config=True))
    data["tricky"] = {"bool_text": "true", "int_text": "10", "float_text": "1.5e3", "null_text": "null",
                      "multi_line": "first line\nsecond: line\n", "unicode": "naïve café – ✓", "empty": "",
                      "long": " ".join(["word"] * 60), "colon": "a: b", "hash": "# not a comment", "list": [1, "2", None]}
    options = {"default_flow_style": False, "allow_unicode": True, "sort_keys": False}
    assert yaml.dump(data, Dumper=_yaml_dumper(), **options) == yaml.dump(data, Dumper=get_omega_conf_dumper(), **options)
