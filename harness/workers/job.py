"""A sweep in a worker process, and each of its jobs, run by Hydra's :func:`hydra.core.utils.run_job`.

A worker keeps what its jobs built (:func:`harness.jobs.parts_of_this_process`) and the
compositions of their configs (:func:`harness.jobs.compositions_of_this_process`, with those the
launching process's start check made) for the sweep's later jobs and, since the launcher keeps its
workers across launches, a racing sweeper's later rounds: a configuration's next round continues
the config of its round before (:func:`~harness.config.composition.next_round`: only the round's
keys change, :mod:`.rounds`), which ``run_job`` takes as the job's config, on the pipeline built
for it.
"""

from __future__ import annotations

import logging
from typing import Any

from hydra.core.singleton import Singleton
from hydra.core.utils import JobReturn, configure_log, run_job, setup_globals
from omegaconf import open_dict, read_write

from harness.config.allowlist import check_targets
from harness.config.composition import next_job, next_round
from harness.config.lru import LeastRecentlyUsed
from harness.jobs import PARTS_KEPT, checked_in_this_process, compositions_of_this_process
from harness.tracking.sweep import handoff
from harness.workers.rounds import rounds_of

log = logging.getLogger(__name__)


class SweepInWorker:
    """The sweep a worker received, and its jobs.

    Args:
        hydra_context: the launcher's (its config loader and callbacks).
        config: the sweep's config.
        task_function: the job's task.
        compositions: those the launching process made of this sweep's configs
            (:meth:`~harness.config.composition.ComposedByChoices.compositions`): not composed again.
        singleton_state: Hydra's global state in the launching process.
    """

    def __init__(self, hydra_context, config, task_function, compositions: dict, singleton_state: dict[Any, Any]) -> None:
        setup_globals()
        Singleton.set_state(singleton_state)
        handoff.accept()  # the sweep's process logs each job (run, traces) while this one runs the next
        self.hydra_context, self.config, self.task_function = hydra_context, config, task_function
        self.sweep_dir = str(config.hydra.sweep.dir)
        self.composed = compositions_of_this_process(self.sweep_dir, hydra_context.config_loader)
        self.composed.adopt(config, compositions)
        self.rounds = rounds_of(config)
        configure_log(config.hydra.hydra_logging, config.hydra.verbose)
        # a race's configurations by their overrides: (the last round's overrides, its config)
        self.kept: dict[tuple[str, ...], tuple[list[str], Any]] = LeastRecentlyUsed(PARTS_KEPT)
        # the last other job of each set of group choices: (its overrides, its config)
        self.last: dict[tuple[str, ...], tuple[list[str], Any]] = LeastRecentlyUsed(PARTS_KEPT)

    def run(self, number: int, overrides: list[str], checked: set[tuple[str, ...]]) -> JobReturn:
        """The job, as Hydra's basic launcher runs it (its id and number, its folder, callbacks)."""
        # jobs the launcher's start check passed, composed there from the same config and overrides
        passed = checked_in_this_process(self.sweep_dir)
        passed.update(checked)
        overrides = list(overrides)
        if self.rounds.grid_job(overrides) in passed:  # a round of a checked job, as the job looks it up
            passed.add(tuple(o for o in overrides if not o.startswith("hydra.")))
        same = self.rounds.configuration_of(overrides)
        groups = self.composed.group_overrides(self.config, overrides)
        kept = self.kept.pop(same, None)
        if kept is not None and next_round(kept[1], None, kept[0], overrides, self.rounds.keys):
            config = kept[1]
            log.info("#%d continues its configuration's round before (race: %s)", number,
                     " ".join(o for o in overrides if o not in same))
        else:
            config = self._continued(groups, overrides)
            if config is None:
                config = self.composed(self.config, overrides)
            if tuple(overrides) not in passed and self.rounds.grid_job(overrides) not in passed:
                check_targets(config)  # a search sweeper's job: its logging config is set up before the task checks it
        # a continued round's config: Hydra's node has been read-only since the round before ran
        with read_write(config.hydra), open_dict(config):
            config.hydra.job.id = number
            config.hydra.job.num = number
        result = run_job(task_function=self.task_function, config=config, job_dir_key="hydra.sweep.dir",
                         job_subdir_key="hydra.sweep.subdir", hydra_context=self.hydra_context)
        if same != tuple(overrides):  # a race's round: its next round continues this config
            self.kept[same] = (overrides, config)
        elif groups is not None:  # the next job of these group choices may continue it
            self.last[groups] = (overrides, config)
        configure_log(self.config.hydra.hydra_logging, self.config.hydra.verbose)
        return result

    def _continued(self, groups: tuple[str, ...] | None, overrides: list[str]) -> Any:
        """The config of the worker's last job of the same group choices changed in place into this
        job's, where the two differ only in plain values of keys outside Hydra's node (a sweep over
        ``retriever.top_k``: :func:`~harness.config.composition.next_job`, as a race's next round), with
        no copy of the composition (~40 ms a job). None, changing nothing, otherwise."""
        last = self.last.pop(groups, None) if groups is not None else None
        if last is None:
            return None
        before, config = last
        return config if next_job(config, before, overrides, groups) else None
