"""OmegaConf's costs that a sweep repeats for nothing, removed (tests compare the results).

A sweep resolves the same configs again and again: each job's composition, checks, parts and
logged config. OmegaConf parses an interpolation's text with its ANTLR grammar every time it
resolves it (~0.3 ms of CPU), and a sweep resolves the same few dozen texts thousands of times
(6% of a warm 32-job sweep): the parse tree of each text is kept, since resolution only reads it.
OmegaConf internals: where they differ from what is patched here, OmegaConf is left as it is.

Config files are read with libyaml's parser (PyYAML's ``CParser``) and OmegaConf's own loader
otherwise (its resolvers, constructors and duplicate-key check): the same data in a tenth of the
time (Hydra reads some 40 files per composition, and a sweep composes several times). Text that
libyaml refuses is read again by OmegaConf's pure-Python loader, so a broken file's error is the
one OmegaConf gives, with the offending line shown.

A deep copy of a config copies each node's metadata field by field (:func:`_metadata_deepcopy`)
rather than through ``copy.deepcopy``'s generic handling of a dataclass: a job's config is copied in
three quarters of the time (19 to 14 ms for the default config), and Hydra copies it four times a
job. A test compares every node of such copies with Python's own.

:func:`yaml_dumper` writes a job's logged config with libyaml's emitter (PyYAML's ``CDumper``)
and OmegaConf's quoting of strings that read as numbers or booleans: in a third of the time of
OmegaConf's pure-Python one, the same text for the harness's configs and the same data for any
(libyaml folds a long quoted string at other points). Hydra writes each job's ``.hydra/*.yaml``
files with it too (:func:`_save_hydra_files_with_libyaml`): 23 of 24 ms a job to 8.

Nodes are deep-copied without running their constructors (:func:`_value_node_deepcopy`,
:func:`_dict_config_deepcopy`, :func:`_list_config_deepcopy`): OmegaConf builds a fresh node,
validating a default value and setting its flags, only to overwrite every field. With the metadata
copy, the demo config's copy takes about 8 ms instead of 19 (15 with the metadata copy alone).
"""

from __future__ import annotations

import collections
import copy
import dataclasses
import functools
import io

import yaml

# Distinct interpolation texts whose parse trees are kept (a config holds a few dozen).
PARSES_KEPT = 4096


def speed_up_omegaconf() -> None:
    """Keeps interpolations' parse trees, reads YAML with libyaml and copies node metadata directly
    from now on (idempotent)."""
    _memoize_interpolation_parsing()
    _read_yaml_with_libyaml()
    _copy_metadata_directly()
    _copy_value_nodes_directly()
    _copy_containers_directly()
    _save_hydra_files_with_libyaml()


# The fields of OmegaConf's value nodes that hold no value-type state of their own (EnumNode keeps
# its enum type, so it is left to OmegaConf).
_VALUE_NODE_FIELDS = ["_metadata", "_parent", "_flags_cache", "_val"]


def _copy_value_nodes_directly() -> None:
    """Each plain value node class (any, str, path, int, bytes, float, bool) copies through
    :func:`_value_node_deepcopy` when a fresh node holds exactly the fields that copy sets."""
    from omegaconf import nodes

    for name in ("AnyNode", "StringNode", "PathNode", "IntegerNode", "BytesNode", "FloatNode", "BooleanNode"):
        cls = getattr(nodes, name, None)
        if cls is None or vars(cls).get("__deepcopy__") is _value_node_deepcopy:
            continue
        if vars(cls).get("__deepcopy__") is None or cls._deepcopy_impl is not nodes.ValueNode._deepcopy_impl:
            continue  # OmegaConf no longer copies this class the way the fast copy reproduces
        fresh = cls()
        if list(fresh.__dict__) != _VALUE_NODE_FIELDS or fresh.__dict__["_flags_cache"] is not None:
            continue
        _ORIGINAL[f"{name}.__deepcopy__"] = vars(cls)["__deepcopy__"]
        cls.__deepcopy__ = _value_node_deepcopy


def _value_node_deepcopy(self, memo: dict):
    """What OmegaConf's copy of a value node gives (a fresh node of the class, then its metadata
    deep-copied, its value and parent kept), without the fresh node's construction."""
    res = object.__new__(type(self))
    fields = res.__dict__
    fields["_metadata"] = copy.deepcopy(self.__dict__["_metadata"], memo)
    fields["_parent"] = self.__dict__["_parent"]
    fields["_flags_cache"] = None
    fields["_val"] = self.__dict__["_val"]
    return res


_CONTAINER_FIELDS = ["_metadata", "_parent", "_flags_cache", "_content"]


def _copy_containers_directly() -> None:
    """DictConfig and ListConfig copy through :func:`_dict_config_deepcopy` and
    :func:`_list_config_deepcopy` when an empty one holds exactly the fields those set."""
    from omegaconf import DictConfig, ListConfig

    for cls, fast in ((DictConfig, _dict_config_deepcopy), (ListConfig, _list_config_deepcopy)):
        if vars(cls).get("__deepcopy__") in (None, fast):
            continue
        fresh = cls(None)
        if list(fresh.__dict__) != _CONTAINER_FIELDS or any(fresh.__dict__[f] is not None for f in _CONTAINER_FIELDS[1:]):
            continue  # OmegaConf's containers are no longer what the fast copy builds
        _ORIGINAL[f"{cls.__name__}.__deepcopy__"] = vars(cls)["__deepcopy__"]
        cls.__deepcopy__ = fast


def _dict_config_deepcopy(self, memo: dict):
    """OmegaConf's ``DictConfig.__deepcopy__``, step for step, on a node made without its constructor."""
    content = self.__dict__["_content"]
    res = _bare_container(self, memo)
    if isinstance(content, dict):
        copied = {}
        for key, child in content.items():
            copied[key] = _child_copy(child, res, memo)
        content = copied
    res.__dict__["_content"] = content  # None and strings (missing, interpolation) as they are
    res.__dict__["_parent"] = self.__dict__["_parent"]  # the parent is kept, not copied
    return res


def _list_config_deepcopy(self, memo: dict):
    """OmegaConf's ``ListConfig.__deepcopy__``, step for step, on a node made without its constructor."""
    content = self.__dict__["_content"]
    res = _bare_container(self, memo)
    if isinstance(content, list):
        content = [_child_copy(child, res, memo) for child in content]
    res.__dict__["_content"] = content
    res.__dict__["_parent"] = self.__dict__["_parent"]
    return res


def _bare_container(self, memo: dict):
    res = object.__new__(type(self))
    fields = res.__dict__
    fields["_metadata"] = copy.deepcopy(self.__dict__["_metadata"], memo)
    fields["_parent"] = None
    flags = self.__dict__["_flags_cache"]
    fields["_flags_cache"] = None if flags is None else copy.deepcopy(flags, memo)
    fields["_content"] = None
    return res


def _child_copy(child, parent, memo: dict):
    """A child copied on its own (its parent unset meanwhile, as OmegaConf does), under ``parent``."""
    old_parent = child.__dict__["_parent"]
    try:
        child.__dict__["_parent"] = None
        copied = copy.deepcopy(child, memo)
        copied.__dict__["_parent"] = parent
    finally:
        child.__dict__["_parent"] = old_parent
    return copied


def _save_hydra_files_with_libyaml() -> None:
    """Hydra's ``_save_config`` (each job's ``.hydra/config.yaml``, ``hydra.yaml``, ``overrides.yaml``)
    dumps with :func:`yaml_dumper` instead of OmegaConf's pure-Python dumper."""
    import hydra.core.utils

    slow = hydra.core.utils._save_config
    if getattr(slow, "_harness_fast", False) or not getattr(yaml, "__with_libyaml__", False):
        return
    if slow.__code__.co_argcount != 3 or "to_yaml" not in slow.__code__.co_names:
        return  # Hydra no longer writes its files this way

    def _save_config(cfg, filename: str, output_dir) -> None:
        output_dir.mkdir(parents=True, exist_ok=True)
        with open(str(output_dir / filename), "w", encoding="utf-8") as file:
            file.write(to_yaml(cfg))

    _save_config._harness_fast = True
    hydra.core.utils._save_config = _save_config


def to_yaml(cfg) -> str:
    """``OmegaConf.to_yaml(cfg)``, on libyaml's emitter (:func:`yaml_dumper`)."""
    from omegaconf import OmegaConf

    return yaml.dump(OmegaConf.to_container(cfg, resolve=False, enum_to_str=True), Dumper=yaml_dumper(),
                     default_flow_style=False, allow_unicode=True, sort_keys=False)


def _copy_metadata_directly() -> None:
    """A deep copy of a config (Hydra makes four of each job's, the sweep's composition cache one)
    copies every node's metadata through Python's generic ``copy.deepcopy`` of a dataclass: half
    of the copy's time. :func:`_metadata_deepcopy` copies it field by field instead."""
    from omegaconf.base import ContainerMetadata, Metadata

    expected = {"ref_type", "object_type", "optional", "key", "flags", "flags_root", "resolver_cache"}
    if "__deepcopy__" in vars(Metadata) or {f.name for f in dataclasses.fields(Metadata)} != expected:
        return  # patched already, or OmegaConf's metadata is no longer what this copies
    if {f.name for f in dataclasses.fields(ContainerMetadata)} != expected | {"key_type", "element_type"}:
        return
    Metadata.__deepcopy__ = _metadata_deepcopy  # ContainerMetadata inherits it


def _metadata_deepcopy(self, memo: dict):
    """What ``copy.deepcopy`` gives for OmegaConf's node metadata: the same class and fields, the
    flags and resolver cache copied (types, keys and booleans are kept, as deepcopy keeps them)."""
    res = object.__new__(type(self))
    memo[id(self)] = res
    fields = dict(self.__dict__)
    flags, cache, key = self.flags, self.resolver_cache, self.key
    atomic = (bool, type(None))
    fields["flags"] = dict(flags) if all(type(v) in atomic for v in flags.values()) else copy.deepcopy(flags, memo)
    fields["resolver_cache"] = (collections.defaultdict(dict) if not cache and type(cache) is collections.defaultdict
                                and cache.default_factory is dict else copy.deepcopy(cache, memo))
    fields["key"] = key if type(key) in (str, int, float, bool, type(None)) else copy.deepcopy(key, memo)
    res.__dict__.update(fields)
    return res


def yaml_dumper():
    """OmegaConf's YAML dumper, on libyaml's emitter where PyYAML has it."""
    from omegaconf._utils import get_omega_conf_dumper

    return _libyaml_dumper(get_omega_conf_dumper())


@functools.cache
def _libyaml_dumper(dumper):
    if not getattr(yaml, "__with_libyaml__", False):
        return dumper
    fast = type("OmegaConfCDumper", (yaml.CDumper,), {})
    fast.add_representer(str, dumper.str_representer)
    return fast


def _memoize_interpolation_parsing() -> None:
    import omegaconf._utils
    import omegaconf.base
    import omegaconf.grammar_parser

    parse = omegaconf.grammar_parser.parse
    if not all(getattr(module, "parse", None) is parse for module in (omegaconf.base, omegaconf._utils)):
        return  # memoized already, or OmegaConf no longer parses this way
    memo = functools.lru_cache(maxsize=PARSES_KEPT)(parse)
    omegaconf.base.parse = omegaconf._utils.parse = memo


def yaml_loader():
    """OmegaConf's YAML loader, on libyaml's parser where PyYAML has it."""
    from omegaconf._utils import get_yaml_loader

    return _libyaml_loader(_ORIGINAL.get("loader", get_yaml_loader))


_ORIGINAL: dict = {}


@functools.cache
def _libyaml_loader(make_loader):
    slow = make_loader()
    if not getattr(yaml, "__with_libyaml__", False):
        return slow
    from yaml.constructor import SafeConstructor
    from yaml.cyaml import CParser
    from yaml.resolver import Resolver

    class OmegaConfCLoader(CParser, slow):
        """libyaml's parser, OmegaConf's constructors and resolvers; a refusal re-read by OmegaConf's own."""

        def __init__(self, stream) -> None:
            self._stream = stream
            self._text = stream.read() if hasattr(stream, "read") else stream
            CParser.__init__(self, self._text)
            SafeConstructor.__init__(self)
            Resolver.__init__(self)

        def get_single_data(self):
            try:
                return super().get_single_data()
            except yaml.YAMLError:
                text = self._text
                if hasattr(self._stream, "read"):  # named as the file was, for the error's "in <file>"
                    text = io.StringIO(text) if isinstance(text, str) else io.BytesIO(text)
                    text.name = getattr(self._stream, "name", "<file>")
                return yaml.load(text, Loader=slow)

    return OmegaConfCLoader


def _read_yaml_with_libyaml() -> None:
    import omegaconf._utils
    import omegaconf.basecontainer

    if "loader" in _ORIGINAL or not getattr(yaml, "__with_libyaml__", False):
        return
    if omegaconf.basecontainer.get_yaml_loader is not omegaconf._utils.get_yaml_loader:
        return  # OmegaConf no longer reads YAML this way
    _ORIGINAL["loader"] = omegaconf._utils.get_yaml_loader
    omegaconf._utils.get_yaml_loader = omegaconf.basecontainer.get_yaml_loader = yaml_loader
