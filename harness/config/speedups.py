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

:func:`yaml_dumper` writes a job's logged config with libyaml's emitter (PyYAML's ``CDumper``)
and OmegaConf's quoting of strings that read as numbers or booleans: in a third of the time of
OmegaConf's pure-Python one, the same text for the harness's configs and the same data for any
(libyaml folds a long quoted string at other points). Hydra's own files are left to OmegaConf.
"""

from __future__ import annotations

import functools
import io

import yaml

# Distinct interpolation texts whose parse trees are kept (a config holds a few dozen).
PARSES_KEPT = 4096


def speed_up_omegaconf() -> None:
    """Keeps interpolations' parse trees and reads YAML with libyaml from now on (idempotent)."""
    _memoize_interpolation_parsing()
    _read_yaml_with_libyaml()


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
