"""harness.config.yaml_text: a job's logged config is the text OmegaConf.to_yaml writes, on libyaml's emitter."""

from __future__ import annotations

import yaml
from omegaconf import OmegaConf

from harness.config.yaml_text import to_yaml


def test_a_job_config_is_omegaconfs_text(compose):
    config = compose(["experiment=demo_sweep"], return_hydra_config=True)
    task = OmegaConf.to_container(config, resolve=False, enum_to_str=True)
    hydra = task.pop("hydra")
    assert to_yaml(task) == OmegaConf.to_yaml(OmegaConf.create(task))
    # Hydra's node (its help templates: long quoted strings) reads back as the same data
    assert yaml.safe_load(to_yaml(hydra)) == hydra


def test_strings_that_read_as_other_types_are_quoted_as_omegaconf_quotes_them():
    data = {"bool_text": "true", "yes": "yes", "int_text": "10", "float_text": "1.5e3", "exp": "1e3",
            "nan": "nan", "null_text": "null", "empty": "", "multi_line": "first line\nsecond: line\n",
            "unicode": "naïve café – ✓", "long": " ".join(["word"] * 60), "colon": "a: b", "hash": "# not a comment",
            "list": [1, "2", None, 1.5, True], "tab": "a\tb", "quote": "it's \"so\"", "nested": {"k": "off"}}
    text = to_yaml(data)
    assert text == OmegaConf.to_yaml(OmegaConf.create(data))
    assert OmegaConf.to_container(OmegaConf.create(text)) == data == yaml.safe_load(text)
