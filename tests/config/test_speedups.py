"""harness.config.speedups: OmegaConf with its parse trees kept and libyaml's emitter computes the same."""

from __future__ import annotations

import copy

import pytest
import yaml
from omegaconf import DictConfig, ListConfig, OmegaConf, open_dict
from omegaconf.nodes import ValueNode
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


def test_config_files_read_with_libyaml_are_omegaconfs_data_and_a_broken_one_gets_omegaconfs_error(tmp_path):
    """Every config file of conf/ and of Hydra's own reads as OmegaConf's pure-Python loader reads
    it (values, types, key order); a file libyaml refuses raises the error OmegaConf's loader
    gives, naming the file and showing the line."""
    from pathlib import Path

    import hydra
    from omegaconf._utils import get_yaml_loader

    from harness.config.speedups import _ORIGINAL, yaml_loader
    from tests.conftest import PROJECT_ROOT

    register()
    assert get_yaml_loader is yaml_loader and yaml_loader().__name__ == "OmegaConfCLoader"
    slow = _ORIGINAL["loader"]()
    files = [*(PROJECT_ROOT / "conf").rglob("*.yaml"), *(Path(hydra.__file__).parent / "conf").rglob("*.yaml")]
    assert len(files) > 50
    for path in files:
        with open(path) as fast_file, open(path) as slow_file:
            fast, expected = yaml.load(fast_file, Loader=yaml_loader()), yaml.load(slow_file, Loader=slow)
        assert repr(fast) == repr(expected), path
    tricky = "a: 1e3\nb: 1_000\nc: .5\nd: 2001-01-01\ne: 0x1F\nf: yes\ng: .inf\nh: ~\ni: !!str 5\n"
    assert repr(OmegaConf.create(tricky)) == repr(OmegaConf.create(yaml.load(tricky, Loader=slow)))
    def error(read) -> str:
        try:
            read()
        except yaml.YAMLError as err:
            return str(err)
        raise AssertionError("read without an error")

    for broken, message in [("a: 1\na: 2\n", "found duplicate key a"), ("a: [1\nb: 2\n", "expected ',' or ']'")]:
        path = tmp_path / "broken.yaml"
        path.write_text(broken)
        with open(path) as file:
            expected = error(lambda: yaml.load(file, Loader=slow))
        assert error(lambda: OmegaConf.load(path)) == expected  # the file named, the line and column given
        assert message in expected and f'in "{path}", line 2, column' in expected
        # text, not a file: PyYAML shows the line itself, under it a caret
        assert error(lambda: OmegaConf.create(broken)) == error(lambda: yaml.load(broken, Loader=slow))
        assert "^" in error(lambda: OmegaConf.create(broken))


def _nodes(node, path=()):
    """(path: its keys, node) of every node under ``node``, itself first, in order."""
    yield path, node
    if isinstance(node, (DictConfig, ListConfig)) and not node._is_none() and not node._is_missing() \
            and not node._is_interpolation():
        keys = node.keys() if isinstance(node, DictConfig) else range(len(node))
        for key in keys:
            yield from _nodes(node._get_node(key), (*path, key))


@pytest.mark.parametrize("overrides", [[], ["experiment=demo_sweep"],
                                       ["judge=local", "router=keyword", "stats.front.enabled=false"]])
def test_a_copy_with_metadata_and_value_nodes_copied_directly_equals_omegaconfs_copy(compose, monkeypatch, overrides):
    """Node metadata copied field by field equals Python's generic copy of it, and nodes (values,
    dicts, lists) copied without their constructors equal OmegaConf's own copy: every node's
    fields, in order, each child under its copied parent."""
    from omegaconf import nodes
    from omegaconf.base import Metadata

    from harness.config.speedups import _ORIGINAL, _value_node_deepcopy

    register()
    config = compose(overrides, return_hydra_config=True)
    config.retriever._metadata.resolver_cache["oc.env"][("HOME",)] = "/home/x"  # a cache with an entry
    fast = copy.deepcopy(config)
    monkeypatch.delattr(Metadata, "__deepcopy__")
    patched = [name for name in ("AnyNode", "StringNode", "PathNode", "IntegerNode", "BytesNode", "FloatNode",
                                 "BooleanNode") if vars(getattr(nodes, name))["__deepcopy__"] is _value_node_deepcopy]
    assert len(patched) == 7
    for name in patched:
        monkeypatch.setattr(getattr(nodes, name), "__deepcopy__", _ORIGINAL[f"{name}.__deepcopy__"])
    for cls in (DictConfig, ListConfig):
        assert vars(cls)["__deepcopy__"] is not _ORIGINAL[f"{cls.__name__}.__deepcopy__"]
        monkeypatch.setattr(cls, "__deepcopy__", _ORIGINAL[f"{cls.__name__}.__deepcopy__"])
    generic = copy.deepcopy(config)
    pairs = list(zip(_nodes(fast), _nodes(generic), _nodes(config)))
    fast_nodes, generic_nodes = dict(_nodes(fast)), dict(_nodes(generic))
    assert len(pairs) == len(list(_nodes(config))) > 500
    for (path, a), (_, b), (_, original) in pairs:
        assert type(a) is type(b) and type(a._metadata) is type(b._metadata), path
        assert a._metadata == b._metadata and a._metadata is not original._metadata, path
        assert a._metadata.flags is not original._metadata.flags, path
        assert a._metadata.resolver_cache is not original._metadata.resolver_cache, path
        assert a.__dict__.get("_flags_cache") == b.__dict__.get("_flags_cache"), path
        assert list(a.__dict__) == list(b.__dict__), path
        assert (a._parent is None) == (b._parent is None) and (path == () or a._parent is not original._parent), path
        if path:
            assert a._parent is fast_nodes[path[:-1]] and b._parent is generic_nodes[path[:-1]], path
        if isinstance(a, ValueNode):
            assert a._value() == b._value() and type(a._value()) is type(b._value()), path
    assert OmegaConf.to_yaml(fast) == OmegaConf.to_yaml(generic) == OmegaConf.to_yaml(config)
    fast.retriever.top_k = 99  # the copy's values are its own
    assert config.retriever.top_k != 99 and generic.retriever.top_k == config.retriever.top_k
    fast.retriever._set_flag("readonly", True)  # and its flags
    assert config.retriever._get_flag("readonly") is not True


def test_hydras_job_files_are_omegaconfs_text_for_the_harness_configs_and_its_data_for_hydras(compose, tmp_path):
    """Each job's .hydra/config.yaml and overrides.yaml, written on libyaml's emitter, are the text
    OmegaConf's own dumper writes; hydra.yaml (Hydra's help templates: long quoted strings) the same data."""
    from pathlib import Path

    import hydra.core.utils

    register()
    assert hydra.core.utils._save_config._harness_fast
    config = compose(["experiment=demo_sweep", "retriever.top_k=7"], return_hydra_config=True)
    task = copy.deepcopy(config)
    with open_dict(task):  # as Hydra's run_job makes the job's config
        del task["hydra"]
    files = {"config.yaml": task, "hydra.yaml": OmegaConf.masked_copy(config, "hydra"),
             "overrides.yaml": config.hydra.overrides.task}
    for name, cfg in files.items():
        hydra.core.utils._save_config(cfg, name, tmp_path / "fast")
        written = Path(tmp_path / "fast" / name).read_text()
        expected = OmegaConf.to_yaml(cfg)
        if name == "hydra.yaml":
            assert yaml.safe_load(written) == yaml.safe_load(expected)
        else:
            assert written == expected, name
    assert yaml.safe_load((tmp_path / "fast" / "overrides.yaml").read_text()) == ["experiment=demo_sweep",
                                                                                 "retriever.top_k=7"]
