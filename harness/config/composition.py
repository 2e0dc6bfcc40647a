"""A sweep's job configs composed once per set of config-group choices, values applied to a copy.

Hydra composes every job of a sweep from scratch: it builds the defaults tree, loads and merges
every config file, then applies the job's value overrides (``retriever.top_k=7``). Jobs that
choose the same config groups share everything up to that last step, which is nearly all of a
composition's ~0.3 s of CPU: a 64-job ``retriever.top_k`` sweep composed the same tree 64 times
(times three: the start check, the sweeper's validation and the launcher each ask for it).
:class:`ComposedByChoices` is a service of the harness, not a part of Hydra's loader: the start
check (:func:`harness.jobs.check_sweep_jobs`), the harness's sweepers' validation and the harness
launcher's workers call it; Hydra's own sweepers and launchers compose with Hydra's loader. It
asks Hydra to compose each distinct set of group overrides once (through the composition store,
:mod:`harness.config.stored`: once per machine while the config files stay the same) and
builds every job's config from a copy of it the way Hydra finishes a composition
(``ConfigLoaderImpl._load_configuration_impl`` after ``_compose_config_from_defaults_list``): the
value overrides applied by Hydra's own ``_apply_overrides_to_config``, then the job's override
lists, its ``override_dirname`` and copied environment variables. Tests check that every job's
config equals Hydra's own composition of it.
"""

from __future__ import annotations

import copy
import functools
import os
import sys

from hydra._internal.config_loader_impl import ConfigLoaderImpl, get_overrides_dirname
from hydra.core.override_parser.overrides_parser import OverridesParser
from hydra.core.override_parser.types import Override, OverrideType
from hydra.errors import ConfigCompositionException
from hydra.types import RunMode
from omegaconf import DictConfig, OmegaConf, open_dict, read_write
from omegaconf.errors import OmegaConfBaseException

from harness.config import stored
from harness.config.lru import LeastRecentlyUsed


# Jobs whose configs are kept between the start check, the sweeper's validation and the launcher
# (a larger sweep composes the earliest again).
JOBS_KEPT = 256


class ComposedByChoices:
    """A job's config, as the loader's ``load_sweep_config`` gives it, composing each distinct set of
    config-group overrides once.

    Args:
        loader: the Hydra run's config loader (its ``load_sweep_config`` composes a set of group
            overrides; its repository tells groups from values).
    """

    def __init__(self, loader) -> None:
        self.loader = loader
        self.compose = functools.partial(stored.load_sweep_config, loader)  # kept across runs too
        self.jobs: dict[tuple[int, tuple[str, ...]], DictConfig] = LeastRecentlyUsed(JOBS_KEPT)
        # (id of the master config, group overrides) -> (master config, kept alive so that its id
        # cannot be reused; the composition before its value overrides)
        self.composed: dict[tuple[int, tuple[str, ...]], tuple[DictConfig, DictConfig]] = {}
        self._groups: dict[tuple[int, str], bool] = {}
        self._repositories: dict[int, tuple[DictConfig, object]] = {}  # master kept alive, as above
        self._parser = OverridesParser.create()

    def __call__(self, master_config: DictConfig, sweep_overrides: list[str]) -> DictConfig:
        """The job's config, the caller's own (the launcher sets the job's id and folders on it): the
        one :meth:`shared` kept goes to the first caller (Hydra's sweeper, which validates the batch
        before launching it) and leaves the cache; a later caller (the launcher) gets a new one.
        Either way one copy of the composition fewer than copying the kept config for each."""
        kept = self.jobs.pop((id(master_config), tuple(sweep_overrides)), None)
        return kept if kept is not None else self._job(master_config, list(sweep_overrides))

    def shared(self, master_config: DictConfig, sweep_overrides: list[str]) -> DictConfig:
        """The job's config, kept for the next request for the same job: read it, never change it
        (the start check builds the job from it; the sweeper and launcher then get copies)."""
        key = (id(master_config), tuple(sweep_overrides))
        if key not in self.jobs:
            self.jobs[key] = self._job(master_config, list(sweep_overrides))
        return self.jobs[key]

    def _job(self, master_config: DictConfig, sweep_overrides: list[str]) -> DictConfig:
        parsed = self._parser.parse_overrides(list(sweep_overrides))
        if any(o.is_sweep_override() or o.get_key_element() == "hydra.searchpath" for o in parsed):
            return self.compose(master_config, list(sweep_overrides))  # Hydra's own error or search path
        structural = [o for o in parsed if self._shapes_defaults(master_config, o)]
        values = [o for o in parsed if not self._shapes_defaults(master_config, o)]
        key = (id(master_config), tuple(o.input_line for o in structural))
        if key not in self.composed:
            self.composed[key] = (master_config, self.compose(master_config, [o.input_line for o in structural]))
        composed = self.composed[key][1]
        cfg = copy.deepcopy(composed)
        try:
            self._finish(cfg, composed, structural, parsed, values)
        except OmegaConfBaseException as err:  # as Hydra's load_configuration reports it
            raise ConfigCompositionException().with_traceback(sys.exc_info()[2]) from err
        OmegaConf.copy_cache(from_config=master_config, to_config=cfg)
        return cfg

    def group_overrides(self, master_config: DictConfig, sweep_overrides: list[str]) -> tuple[str, ...] | None:
        """The job's overrides that shape its defaults tree (its config-group choices), in order; None
        where Hydra composes the job itself (a sweep or search-path override)."""
        parsed = self._parser.parse_overrides(list(sweep_overrides))
        if any(o.is_sweep_override() or o.get_key_element() == "hydra.searchpath" for o in parsed):
            return None
        return tuple(o.input_line for o in parsed if self._shapes_defaults(master_config, o))

    def compositions(self, master_config: DictConfig) -> dict[tuple[str, ...], DictConfig]:
        """The compositions kept for ``master_config``, by group overrides: what
        :meth:`adopt` gives another process's copy (the harness launcher's worker)."""
        return {key[1]: composed for key, (master, composed) in self.composed.items() if master is master_config}

    def adopt(self, master_config: DictConfig, compositions: dict[tuple[str, ...], DictConfig]) -> None:
        """Keeps ``compositions`` (:meth:`compositions` of the same master config, composed in another
        process from an equal copy of it) as if composed here."""
        for overrides, composed in compositions.items():
            self.composed.setdefault((id(master_config), tuple(overrides)), (master_config, composed))

    def _shapes_defaults(self, master_config: DictConfig, override: Override) -> bool:
        """Whether Hydra reads ``override`` while building the defaults tree (a group choice,
        ``+group=x``, ``~group``, ``group@package=x``) rather than applying it as a value."""
        if override.package is not None:
            return True
        if isinstance(override.value(), dict):
            return False
        return self._is_group(master_config, override.key_or_group)

    def _is_group(self, master_config: DictConfig, name: str) -> bool:
        key = (id(master_config), name)
        if key not in self._groups:
            self._groups[key] = self._repository(master_config).group_exists(name)
        return self._groups[key]

    def _repository(self, master_config: DictConfig):
        """The config repository Hydra composes this sweep's jobs from (the primary config's
        ``hydra.searchpath`` included)."""
        if id(master_config) not in self._repositories:
            hydra_overrides = OmegaConf.to_container(master_config.hydra.overrides.hydra)
            _, repository = self.loader._parse_overrides_and_create_caching_repo(
                master_config.hydra.job.config_name, hydra_overrides)
            self._repositories[id(master_config)] = (master_config, repository)
        return self._repositories[id(master_config)][1]

    def _finish(self, cfg: DictConfig, composed: DictConfig, structural: list[Override], parsed: list[Override],
                values: list[Override]) -> None:
        """What Hydra does after merging the defaults, for the job's full override list."""
        self.loader.validate_sweep_overrides_legal(overrides=parsed, run_mode=RunMode.RUN, from_shell=True)
        ConfigLoaderImpl._apply_overrides_to_config(values, cfg)
        for kind, is_kind in (("hydra", True), ("task", False)):
            lines = cfg.hydra.overrides[kind]
            # the composition appended the group overrides last: the job's own order replaces them
            del lines[len(lines) - sum(o.is_hydra_override() is is_kind for o in structural):]
            lines.extend([o.input_line for o in parsed if o.is_hydra_override() is is_kind])
        with open_dict(cfg.hydra):
            cfg.hydra.runtime.choices.update(composed.hydra.runtime.choices)
            for key in cfg.hydra.job.env_copy:
                cfg.hydra.job.env_set[key] = os.environ[key]
        _name_folder(cfg, parsed)


def next_round(config: DictConfig, task_config: DictConfig | None, before: list[str], after: list[str],
               keys: frozenset[str]) -> bool:
    """Changes a job's config into the config of the same job with other values of ``keys``, in place.

    ``config`` (with its ``hydra`` node) and ``task_config`` (without; or None) were composed for the
    overrides ``before``; when ``after`` differs from them only in plain values of ``keys``
    (``race.questions=40`` for ``race.questions=20``: a race's next round of the same
    configuration), both become what composing ``after`` gives: the values set as Hydra sets them,
    the job's override list and ``override_dirname`` rewritten. No copy and no composition: a race
    round's config costs nothing. Returns False, changing nothing, for any other difference.
    """
    if len(before) != len(after):
        return False
    parser = OverridesParser.create()
    old, new = parser.parse_overrides(list(before)), parser.parse_overrides(list(after))
    changed = [n for o, n in zip(old, new) if o.input_line != n.input_line]
    if not all(_plain_value(o) and _plain_value(n) and o.key_or_group == n.key_or_group in keys
               for o, n in zip(old, new) if o.input_line != n.input_line):
        return False
    if not changed:
        return True
    for cfg in (config, task_config) if task_config is not None else (config,):
        ConfigLoaderImpl._apply_overrides_to_config(changed, cfg)
    with read_write(config.hydra), open_dict(config.hydra):
        lines = config.hydra.overrides.task  # the job's own task overrides last, as _finish wrote them
        del lines[len(lines) - sum(not o.is_hydra_override() for o in old):]
        lines.extend([o.input_line for o in new if not o.is_hydra_override()])
        _name_folder(config, new)
    return True


def next_job(config: DictConfig, before: list[str], after: list[str], groups: tuple[str, ...]) -> bool:
    """:func:`next_round` for a sweep's next job of the same config-group choices: ``config``, run with
    the overrides ``before`` (whose group choices are ``groups``:
    :meth:`ComposedByChoices.group_overrides`), becomes the config of ``after`` in place where the two
    differ only in plain values of keys that are neither groups nor in Hydra's node
    (``retriever.top_k=5`` for ``retriever.top_k=2``). Returns False, changing nothing, otherwise."""
    if not set(groups) <= set(after):
        return False
    chosen = {line.split("=", 1)[0].lstrip("+~") for line in groups}
    keys = frozenset(key for key in (line.split("=", 1)[0] for line in after if line not in before)
                     if key not in chosen and not key.startswith("hydra."))
    return next_round(config, None, before, after, keys)


def _plain_value(override: Override) -> bool:
    """``key=value``: no ``+``/``~``/``++``, no package, no sweep, no dict merged into the node."""
    return (override.type is OverrideType.CHANGE and override.package is None and not override.is_sweep_override()
            and not isinstance(override.value(), dict))


def _name_folder(cfg: DictConfig, parsed: list[Override]) -> None:
    """``hydra.job.override_dirname`` of the job's overrides, as Hydra names it."""
    naming = cfg.hydra.job.config.override_dirname
    cfg.hydra.job.override_dirname = get_overrides_dirname(
        overrides=[o for o in parsed if not o.is_hydra_override()], kv_sep=naming.kv_sep,
        item_sep=naming.item_sep, exclude_keys=naming.exclude_keys)

