"""harness.config.speedups: OmegaConf with its parse trees kept and libyaml's emitter computes the same."""

from __future__ import annotations

import yaml
from omegaconf import OmegaConf
from omegaconf._utils import get_omega_conf_dumper

from harness.config import register
from harness.config.speedups import yaml_dumper


def test_interpolations_resolve_alike_with_their_parse_trees_kept():
    import omegaconf.base
    import omegaconf.grammar_parser

    register()  # installs the speed-ups
    assert omegaconf.base.parse is not omegaconf.grammar_parser.parse
    omegaconf.base.parse.cache_clear()
    cfg = OmegaConf.create({"a": 2, "b": "${a}", "c": "x-${a}-${oc.select:missing,7}", "d": {"e": "${b}", "f": "${c}"}})
    for _ in range(3):
        assert OmegaConf.to_container(cfg, resolve=True) == {"a": 2, "b": 2, "c": "x-2-7",
                                                             "d": {"e": 2, "f": "x-2-7"}}
    info = omegaconf.base.parse.cache_info()
    assert info.currsize == 4 and info.hits >= 8  # ${a}, x-${a}-..., ${b}, ${c}: each parsed once


def test_yaml_is_omegaconfs_text_for_a_job_config_and_its_data_for_any(compose):
    """A job's logged config (the demo's, without Hydra's node) is the text OmegaConf's pure-Python
    dumper writes; Hydra's node (its help templates: long quoted strings) and strings OmegaConf
    quotes load back as the same data."""
    register()
    config = compose(["experiment=demo_sweep"], return_hydra_config=True)
    options = {"default_flow_style": False, "allow_unicode": True, "sort_keys": False}
    task = OmegaConf.to_container(config, resolve=False, enum_to_str=True)
    hydra = task.pop("hydra")
    assert yaml.dump(task, Dumper=yaml_dumper(), **options) == yaml.dump(task, Dumper=get_omega_conf_dumper(), **options)
    data = {"hydra": hydra, "tricky": {
        "bool_text": "true", "int_text": "10", "float_text": "1.5e3", "null_text": "null", "empty": "",
        "multi_line": "first line\nsecond: line\n", "unicode": "naïve café – ✓", "long": " ".join(["word"] * 60),
        "colon": "a: b", "hash": "# not a comment", "list": [1, "2", None, 1.5], "tab": "a\tb", "quote": "it's \"so\""}}
    fast, slow = (yaml.dump(data, Dumper=dumper, **options) for dumper in (yaml_dumper(), get_omega_conf_dumper()))
    assert yaml.safe_load(fast) == yaml.safe_load(slow) == data
