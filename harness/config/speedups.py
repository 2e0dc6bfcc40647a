"""OmegaConf's costs that a sweep repeats for nothing, removed (tests compare the results).

A sweep resolves the same configs again and again: each job's composition, checks, parts and
logged config. OmegaConf parses an interpolation's text with its ANTLR grammar every time it
resolves it (~0.3 ms of CPU), and a sweep resolves the same few dozen texts thousands of times
(6% of a warm 32-job sweep): the parse tree of each text is kept, since resolution only reads it.
OmegaConf internals: where they differ from what is patched here, OmegaConf is left as it is.

:func:`yaml_dumper` writes a job's logged config with libyaml's emitter (PyYAML's ``CDumper``)
and OmegaConf's quoting of strings that read as numbers or booleans: in a third of the time of
OmegaConf's pure-Python one, the same text for the harness's configs and the same data for any
(libyaml folds a long quoted string at other points). Hydra's own files are left to OmegaConf.
"""

from __future__ import annotations

import functools

import yaml

# Distinct interpolation texts whose parse trees are kept (a config holds a few dozen).
PARSES_KEPT = 4096


def speed_up_omegaconf() -> None:
    """Keeps interpolations' parse trees from now on (idempotent)."""
    _memoize_interpolation_parsing()


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
