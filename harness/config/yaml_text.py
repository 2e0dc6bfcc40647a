"""Plain config data as the YAML text ``OmegaConf.to_yaml`` writes, on libyaml's emitter.

A job's logged config is plain data (resolved and redacted); writing it through
``OmegaConf.to_yaml`` would first build a config of it again (~0.1 s a job). :func:`to_yaml` writes
it with PyYAML's public API only: libyaml's emitter (``CSafeDumper``) where PyYAML has it, and
strings that OmegaConf's loader would read as a boolean or a number (``"yes"``, ``"10"``,
``"1e3"``) single-quoted, by OmegaConf's own rule (YAML 1.1's booleans, or text Python reads as a
number); the emitter quotes the rest of what would read back otherwise (``"null"``). A test
compares the text with ``OmegaConf.to_yaml``'s for the harness's configs.

Example:
    >>> print(to_yaml({"top_k": 5, "name": "10"}), end="")
    top_k: 5
    name: '10'
"""

from __future__ import annotations

from typing import Any

import yaml

_BASE = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
_STR = "tag:yaml.org,2002:str"
# YAML 1.1's booleans, which OmegaConf's loader reads as such.
_BOOLEANS = frozenset(variant for word in ("y", "yes", "n", "no", "true", "false", "on", "off")
                      for variant in (word, word.capitalize(), word.upper()))


class ConfigDumper(_BASE):  # type: ignore[misc, valid-type]
    """libyaml's safe dumper, quoting strings that read back as something else."""


def _represent_str(dumper: yaml.SafeDumper, data: str) -> yaml.ScalarNode:
    return dumper.represent_scalar(_STR, data, style="'" if _reads_as_other(data) else None)


def _reads_as_other(text: str) -> bool:
    if text in _BOOLEANS:
        return True
    try:
        float(text)  # every text int() reads, float() reads too
    except ValueError:
        return False
    return True


ConfigDumper.add_representer(str, _represent_str)


def to_yaml(data: Any) -> str:
    """``data`` (dicts, lists, scalars) as block-style YAML in its own key order, unicode kept."""
    return yaml.dump(data, Dumper=ConfigDumper, default_flow_style=False, allow_unicode=True, sort_keys=False)
