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
(libyaml folds a long quoted string at other points). Hydra's own files are left to OmegaConf.
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
