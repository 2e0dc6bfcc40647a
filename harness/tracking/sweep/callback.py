"""The Hydra callback that connects runs and sweeps to the configured tracker.

Hydra calls it in the main process at the start and end of a multirun and, in whichever
process runs the job (launcher workers included), at the end of every job.
"""

from __future__ import annotations

import functools
import logging
import subprocess
import sys
from contextlib import contextmanager
from dataclasses import asdict
from pathlib import Path
from typing import Any

from hydra.core.hydra_config import HydraConfig
from hydra.core.utils import JobReturn, JobStatus
from hydra.experimental.callback import Callback
from hydra.types import RunMode
from hydra.utils import get_class, instantiate
from omegaconf import DictConfig, ListConfig, OmegaConf

from harness import __version__
from harness.config.checks import check_config
from harness.config.resolvers import PROJECT_ROOT
from harness.config.secrets import redact, redact_file, redact_logging, redact_text
from harness.config.yaml_text import to_yaml
from harness.jobs import (JobNotValid, SweepNotValid, build_job, check_sweep_jobs, checked_in_this_process,
                          load_dataset, parts_of_this_process)
from harness.log_filters import FILE_ONLY
from harness.racing.race import read_race
from harness.tracking.sweep import handoff, race, state as sweep
from harness.tracking.verdicts.description import describe_runs
from harness.tracking.verdicts.gating import check_gates
from harness.tracking.sweep.interruption import OPEN, allow_signals, hold_signals
from harness.tracking.verdicts.leaderboard import Leaderboard
from harness.tracking.sweep.liveness import process_tags
from harness.tracking.sweep.naming import flatten, portable, single_run_name, sweep_job_name, sweep_naming
from harness.tracking.verdicts.selfcheck_flags import threshold_notes, warnings as selfcheck_warnings
from harness.tracking.outcome import JobInfo, JobOutcome
from harness.tracking.sweep.resume import resume_sweep
from harness.tracking.sweep.search import log_search_result
from harness.tracking.sweep.sync import log_ended_job, log_summary, mark_sweep_end_logged, not_logged

log = logging.getLogger(__name__)

# Config groups whose settings are logged as parameters.
PARAM_GROUPS = ("dataset", "chunker", "retriever", "reranker", "metrics", "generator", "prompt", "generation", "judge",
                "router")
# Exit statuses of the ``harness`` command (2, nothing started, is raised by _stop_on_error).
EXIT_JOBS_FAILED = 1
EXIT_NOT_STARTED = 2
EXIT_GATES_FAILED = 3  # every job finished, but a CI gate (conf/gates/) failed


class TrackingCallback(Callback):
    """Args:
        exit_on_failure: end the command with status 1 (SystemExit) once a run or sweep with a
            failed job has reported; the Python API turns it off and returns the failures instead.
    """

    def __init__(self, exit_on_failure: bool = True) -> None:
        self.exit_on_failure = exit_on_failure
        self._failed_run: str | None = None  # a single run's failure, raised in on_run_end
        self._gates_failed = False  # a single run's failed gates, raised in on_run_end

    def on_run_start(self, config: DictConfig, **kwargs: Any) -> None:
        redact_logging()
        with _stop_on_error("run", "the config is refused"):
            check_config(config)
        built = parts_of_this_process(str(config.hydra.run.dir))  # the run's job takes its parts from here
        _check_dataset(config, "run", built)
        with _stop_on_error("run", "its config is invalid"):
            build_job(config, built, checked=True)  # as a sweep checks every job: wrong arguments leave no run behind (exit 2)
        checked_in_this_process(str(config.hydra.run.dir)).add(tuple(config.hydra.overrides.task))
        allow_signals()
        with _stop_on_error("run", "the tracker cannot record it"):
            instantiate(config.tracking).check()

    def on_multirun_start(self, config: DictConfig, **kwargs: Any) -> None:
        redact_logging()
        with _stop_on_error("sweep", "the config is refused"):
            check_config(config)
        dataset = _check_dataset(config, "sweep", parts_of_this_process(str(config.hydra.sweep.dir)))
        with _stop_on_error("sweep", "a job's config is invalid"):
            check_sweep_jobs(config)  # before the parent run exists: a sweep that cannot start leaves no run
        tracker = sweep_tracker(config)
        with _stop_on_error("sweep", "the tracker cannot record it"):
            tracker.check()
        resume = config.get("resume")
        with _stop_on_error("sweep", "it cannot be resumed" if resume else "the tracker could not start the sweep"):
            state = self._resume_sweep(config, tracker, resume) if resume else self._start_sweep(config, tracker)
        OPEN.tracker, OPEN.sweep_id, OPEN.sweep_dir = tracker, state["sweep_id"], str(config.hydra.sweep.dir)
        if dataset is not None and _traces_written_here(config):
            tracker.expect_traces(len(dataset.questions))
        stats = instantiate(config.stats)
        if stats.enabled and dataset is not None:
            from harness.tracking.verdicts.statistics import plan_sweep  # scipy and statsmodels: a sweep's, not a run's

            plan_sweep(stats, len(dataset.questions), Path(config.hydra.sweep.dir), tracker,
                       state.get("parent_run_id"))
        allow_signals()

    def _start_sweep(self, config: DictConfig, tracker) -> dict[str, Any]:
        sweep_dir = Path(config.hydra.sweep.dir)
        state = sweep.start_sweep(sweep_dir)
        overrides = list(config.hydra.overrides.task)
        params = config.hydra.sweeper.get("params")
        sweep_params = OmegaConf.to_container(params, resolve=True, enum_to_str=True) if params else {}
        tags = redact({
            "harness.sweep_dir": str(sweep_dir.resolve()),
            "harness.sweep_overrides": " ".join(overrides),
            "harness.sweep_params": " ".join(f"{k}={v}" for k, v in sweep_params.items()),
            "harness.role": "sweep",
            "harness.sweep_id": state["sweep_id"],
            **process_tags(),
            **_code_tags(),
        })
        name = f"{config.experiment_name} sweep {sweep_dir.name}"
        state["overrides"] = redact(overrides)
        state["naming"] = sweep_naming(overrides, sweep_params, config)  # what tells its jobs apart
        state["parent"] = {"name": name, "tags": tags}  # for `harness sync` into another store
        state["parent_run_id"] = tracker.start_sweep(name, tags)
        sweep.save_sweep(sweep_dir, state)
        return state

    def _resume_sweep(self, config: DictConfig, tracker, resume: str) -> dict[str, Any]:
        overrides = redact(list(config.hydra.overrides.task))
        state = resume_sweep(Path(config.hydra.sweep.dir), str(resume), overrides, tracker)
        print(f"Resuming sweep {config.hydra.sweep.dir}: finished jobs are kept, the others run again")
        return state

    def on_job_start(self, config: DictConfig, **kwargs: Any) -> None:
        allow_signals()  # held while Hydra composed this job's config
        # Hydra has just set up the job's log handlers and written its .hydra/*.yaml.
        redact_logging()
        hydra_cfg, multirun, info, state = _job_context(config)
        for path in [*(Path(hydra_cfg.runtime.output_dir) / hydra_cfg.output_subdir).glob("*.yaml"),
                     Path(hydra_cfg.sweep.dir) / "multirun.yaml"]:
            redact_file(path)
        if multirun and sweep.finished_job(Path(hydra_cfg.sweep.dir), Path(hydra_cfg.runtime.output_dir),
                                           info.overrides):
            return  # a resumed sweep's finished job keeps its run
        output_dir, race_round = Path(hydra_cfg.runtime.output_dir), multirun and race.is_round(config)
        tracker = sweep_tracker(config, race_round) if multirun else instantiate(config.tracking)
        try:  # the job's run is RUNNING while it computes, so a kill can mark it KILLED
            if race_round:
                earlier = sweep.round_run(output_dir, state.get("sweep_id"))
                OPEN.job_run_id = earlier or tracker.start_job(info, state.get("parent_run_id"))
                if not earlier and OPEN.job_run_id:  # the configuration's one run, from round to round
                    sweep.keep_round_run(output_dir, state["sweep_id"], OPEN.job_run_id)
            else:
                OPEN.job_run_id = open_job_run(tracker, info, state, output_dir)
            OPEN.job_tracker = tracker
        except Exception:  # the job's end opens it (waiting for a server that blinks); the job goes on
            log.info("tracking could not open a run for %s", info.name, exc_info=True, extra=FILE_ONLY)

    def on_job_end(self, config: DictConfig, job_return: JobReturn, **kwargs: Any) -> None:
        hydra_cfg, multirun, info, state = _job_context(config)
        outcome = _outcome(job_return, Path(hydra_cfg.runtime.output_dir))
        if outcome.previous is not None:
            hold_signals()
            return
        summary = {
            "sweep_id": state.get("sweep_id"), "job_num": _job_number(hydra_cfg) if multirun else 0,
            "name": info.name, "status": outcome.status, "choices": info.choices,
            "overrides": info.overrides, "metrics": outcome.result.metrics if outcome.result else {},
            "error": outcome.message, "output_dir": str(outcome.output_dir),
            "job_info": asdict(info),  # what `harness sync` needs to log the job later
            # failed calls per stage (the leaderboard's failed column and reasons)
            "failures": outcome.result.info.get("failures", {}) if outcome.result else {},
        }
        run_id, race_round = OPEN.job_run_id, multirun and race.is_round(config)
        if run_id is None and multirun:  # its start ran in a worker that died (harness launcher): the run it opened
            kept = sweep.round_run if race_round else sweep.job_run
            run_id = kept(Path(hydra_cfg.runtime.output_dir), state.get("sweep_id"))
        if race_round:  # its traces now; its results once the race has decided it
            tracker = sweep_tracker(config, race_round=True)
            race.log_round_traces(tracker, run_id, outcome, info.name, state["sweep_id"])
        else:
            tracker = sweep_tracker(config) if multirun else instantiate(config.tracking)
            if multirun and handoff.leave(log_ended_job, tracker, summary, outcome, info,
                                          state.get("parent_run_id"), run_id, _job_log_file(hydra_cfg)):
                # a harness launcher's worker: the sweep's process logs the job (and writes its
                # summary) while this one runs the next job
                OPEN.job_run_id = None
                hold_signals()
                return
            log_summary(tracker, summary, outcome, info, state.get("parent_run_id"), run_id, multirun)
        traces_failed = tracker.flush() if OPEN.sweep_id is None else []  # else written in the background
        if traces_failed:
            summary["traces_error"] = traces_failed[-1]
        sweep.write_job_summary(outcome.output_dir, redact(summary))
        OPEN.job_run_id = None  # only now: a kill before the summary is written leaves the job to re-run
        if not multirun:
            self._failed_run = info.name if outcome.failed else None
            if "tracking_error" in summary:
                print(f"NOT LOGGED {info.name}: {summary['tracking_error']}; the results are in {outcome.output_dir}")
                self._failed_run = f"{info.name} (not logged)"
            elif traces_failed:
                self._failed_run = f"{info.name} (traces not logged)"
            _report([summary], config, tracker, title=f"{config.experiment_name}: {info.name}")
            describe_runs(tracker, [summary], list(config.report.headline), None)
            self._gates_failed = bool(check_gates(_gates(config), [summary], tracker, outcome.output_dir,
                                                  summary.get("run_id")))
            _print_where(tracker)
        hold_signals()  # until the next job starts: Hydra composes its config meanwhile

    def on_multirun_end(self, config: DictConfig, **kwargs: Any) -> None:
        allow_signals()
        sweep_dir = Path(config.hydra.sweep.dir)
        redact_file(sweep_dir / "multirun.yaml")
        state = sweep.read_sweep(sweep_dir)
        summaries = sweep.collect_job_summaries(sweep_dir, state.get("sweep_id", ""))
        failed = [s["name"] for s in summaries if s["status"] != "FINISHED"]
        tracker = sweep_tracker(config)
        record = read_race(sweep_dir)  # a racing sweep's rounds and eliminations
        if record:
            summaries = race.add_race_figures(summaries, record)
            race.log_decided(summaries, tracker, state.get("parent_run_id"))  # the survivors' runs
        board = _report(summaries, config, tracker, title=f"{config.experiment_name}: {len(summaries)} runs",
                        extra_columns=race.RACE_COLUMNS if record else [])
        (sweep_dir / "leaderboard.csv").write_text(board.to_csv())
        stats = instantiate(config.stats)
        end_logged = True
        try:
            if record:
                race.print_race(record)
                race.log_race(record, summaries, sweep_dir, tracker, state.get("parent_run_id"))
            log_search_result(sweep_dir, summaries, tracker, state.get("parent_run_id"))
            report = None
            if stats.enabled:  # a race's survivors only: they ran the same questions
                from harness.tracking.verdicts.statistics import report_sweep_statistics

                report = report_sweep_statistics(stats, race.survivors(summaries) if record else summaries,
                                                 sweep_dir, tracker, state.get("parent_run_id"),
                                                 list(config.report.headline), brief=_brief(config))
            describe_runs(tracker, summaries, list(config.report.headline), report)  # the verdicts exist now
            tracker.end_sweep(state.get("parent_run_id"), board.texts(), jobs=len(summaries), failed=len(failed))
            mark_sweep_end_logged(sweep_dir)
        except Exception as err:  # everything is on disk; `harness sync` logs it later
            log.info("tracking failed at the end of the sweep", exc_info=True, extra=FILE_ONLY)
            print(f"NOT LOGGED the sweep's end (leaderboard, statistics): {err!r}")
            end_logged = False
        # The jobs' traces, written in the background while the sweep went on (statistics included).
        untraced = len(tracker.flush()) + sum("traces_error" in s for s in summaries)
        undone = handoff.failures()  # a job's logging its worker handed over that could not run: said then
        OPEN.sweep_id = None
        for summary in summaries:
            if summary["status"] != "FINISHED":
                print(f"FAILED {summary['name']}: {summary.get('error')}")
        unlogged = not_logged(summaries) if tracker.records else []  # tracking=none: nothing was to be logged
        if unlogged:  # each job said why on its own line when it ended
            print(f"NOT LOGGED {len(unlogged)} of {len(summaries)} jobs: {', '.join(s['name'] for s in unlogged)}")
        if untraced:  # each job said why on its own line
            print(f"NOT LOGGED the traces of {untraced} of {len(summaries)} jobs")
        if undone:
            print(f"NOT DONE {len(undone)} job(s)' logging handed to the sweep's process by its workers (above)")
        if unlogged or not end_logged or untraced or undone:
            print(f"Results are kept in {sweep_dir}; log them once the tracker is back: harness sync {sweep_dir}")
        print(f"Leaderboard: {sweep_dir / 'leaderboard.csv'}")
        gates_failed = check_gates(_gates(config), summaries, tracker, sweep_dir, state.get("parent_run_id"))
        _print_where(tracker)
        if (failed or unlogged or not end_logged or untraced or undone) and self.exit_on_failure:
            raise SystemExit(EXIT_JOBS_FAILED)
        if gates_failed and self.exit_on_failure:
            raise SystemExit(EXIT_GATES_FAILED)

    def on_run_end(self, config: DictConfig, **kwargs: Any) -> None:
        if self._failed_run is not None and self.exit_on_failure:
            raise SystemExit(EXIT_JOBS_FAILED)
        if self._gates_failed and self.exit_on_failure:
            raise SystemExit(EXIT_GATES_FAILED)


def sweep_tracker(config: DictConfig, race_round: bool = False):
    """The tracker of a sweep's job (a race's round: :func:`race.round_tracker`), sharing the wait
    for a store that stopped answering with the sweep's other jobs, in any process."""
    tracker = race.round_tracker(config) if race_round else instantiate(config.tracking)
    tracker.share_outages(Path(config.hydra.sweep.dir))
    return tracker


def open_job_run(tracker, info: JobInfo, state: dict[str, Any], output_dir: Path) -> str | None:
    """The job's run, RUNNING while it computes: the run its folder names when the store still has
    it (a resumed sweep's job that was not logged: reopened, whatever its status), else a new one,
    its id kept in the folder before anything is logged into it (``harness sync`` logs into it)."""
    sweep_id = state.get("sweep_id")
    earlier = sweep.job_run(output_dir, sweep_id)
    logged = sweep.read_job_summary(output_dir).get("run_id") == earlier
    if earlier and not logged and tracker.run_status(earlier) is not None:
        tracker.reopen_run(earlier, {**process_tags(), "harness.resumed": "true"})
        return earlier
    run_id = tracker.start_job(info, state.get("parent_run_id"))
    if run_id and sweep_id:
        sweep.keep_job_run(output_dir, sweep_id, run_id)
    return run_id


def _job_log_file(hydra_cfg) -> tuple[str, str] | None:
    """The job's log file and its lines' format, as its Hydra logging config names them
    (``hydra.job_logging.handlers.file``: conf/hydra/job_logging/harness.yaml); None without one."""
    handler = OmegaConf.select(hydra_cfg, "job_logging.handlers.file", default=None)
    if handler is None or handler.get("filename") is None:
        return None
    fmt = OmegaConf.select(hydra_cfg, f"job_logging.formatters.{handler.get('formatter')}.format", default=None)
    return str(handler.filename), fmt or logging.BASIC_FORMAT


# The launchers whose jobs' traces this process writes: its own jobs', and those the harness
# launcher's workers hand over (named, not imported: the launchers sit above the tracking layer).
_TRACES_WRITTEN_HERE = ("hydra._internal.core_plugins.basic_launcher.BasicLauncher",
                        "hydra_plugins.harness_launcher.launcher.HarnessLauncher")


def _traces_written_here(config: DictConfig) -> bool:
    return OmegaConf.select(config, "hydra.launcher._target_", default=None) in _TRACES_WRITTEN_HERE


def _gates(config: DictConfig):
    # A config from elsewhere (an older logged one, a user's config folder) may have no gates.
    return instantiate(config.gates) if config.get("gates") is not None else None


def _job_number(hydra_cfg) -> int:
    """The job's number: its folder's when that is a number (a race keeps one folder per
    configuration across rounds, ``hydra.sweep.subdir=<configuration number>``), else Hydra's."""
    subdir = str(hydra_cfg.sweep.subdir)
    return int(subdir) if subdir.isdigit() else hydra_cfg.job.num


def _job_context(config: DictConfig):
    """The job's Hydra config, whether it is part of a sweep, how it is logged, and its sweep's state."""
    hydra_cfg = HydraConfig.get()
    multirun = hydra_cfg.mode == RunMode.MULTIRUN
    state = sweep.read_sweep(Path(hydra_cfg.sweep.dir)) if multirun else {}
    info = _JOB_INFO.get(hydra_cfg, config, state.get("naming"))
    if state:  # children attach to their own sweep's parent, named in their sweep folder
        info.tags["harness.sweep_id"] = state["sweep_id"]
    return hydra_cfg, multirun, info, state


def _check_dataset(config: DictConfig, what: str, built: dict):
    """Loads the dataset once up front: malformed data stops everything before a job starts. It is
    kept among the parts the jobs of this process take (``built``).

    When a sweep itself varies the dataset's keys they are unset here (returns None); each job
    then checks its own.
    """
    if OmegaConf.missing_keys(config.dataset):
        return None
    with _stop_on_error(what, "the dataset is invalid"):
        return load_dataset(config, built)


@contextmanager
def _stop_on_error(what: str, reason: str):
    # Hydra downgrades a callback's exceptions to warnings, so what must stop the run exits.
    try:
        yield
    except Exception as err:
        # the checks' own errors already name every part and reason; others are read at their cause
        root = err if isinstance(err, (JobNotValid, SweepNotValid)) else err.__cause__ or err
        print(redact_text(f"harness: {what} not started, {reason}:\n{root}"), file=sys.stderr)
        raise SystemExit(EXIT_NOT_STARTED) from err


def _brief(config: DictConfig) -> bool:
    """``report.console: brief`` (one screen) rather than ``full``; a config without it is full."""
    return str(OmegaConf.select(config, "report.console", default="full")) == "brief"


def _report(summaries: list[dict], config: DictConfig, tracker, title: str,
            extra_columns: list[str] = ()) -> Leaderboard:
    board = Leaderboard.from_summaries(summaries, [*config.report.headline, *extra_columns])
    brief = _brief(config)  # a single run's table too: one renderer, legend and width rule for both
    if brief:
        board.print_brief(title)
    else:
        board.print(title)
    for line in selfcheck_warnings(summaries):  # a judge that failed its self-check is not evidence
        print(line)
    for line in threshold_notes(summaries):  # which accuracy threshold each judge column used
        print(line)
    for suite in config.metrics.values():  # each suite may add its own table (e.g. per route)
        get_class(suite._target_).sweep_summary(summaries, title, brief=brief)
    return board


def _print_where(tracker) -> None:
    """The last line a run prints: the exact command that opens its results."""
    where = tracker.where()
    if where:
        print(f"Open the results: {where}")


def _outcome(job_return: JobReturn, output_dir: Path) -> JobOutcome:
    if job_return.status == JobStatus.COMPLETED and isinstance(job_return.return_value, JobOutcome):
        return job_return.return_value
    error = job_return._return_value  # the exception Hydra caught outside the task's own handler
    if not isinstance(error, BaseException):
        error = RuntimeError(f"job returned {error!r} instead of a JobOutcome")
    return JobOutcome.from_exception(error, output_dir)


class _JobInfoOfCurrentJob:
    """The current job's :class:`JobInfo`, built once for its start and end (building it resolves and
    redacts the whole config: ~0.2 s a job, much of a cached re-run)."""

    def __init__(self) -> None:
        self._job: tuple[DictConfig, Any] | None = None  # Hydra hands a job's start and end the same object
        self._info: JobInfo | None = None

    def get(self, hydra_cfg, config: DictConfig, naming: dict[str, Any] | None) -> JobInfo:
        # and its number: the harness launcher continues a race's configuration in the same object,
        # changed in place for its next round (harness/workers/job.py)
        number = hydra_cfg.job.get("id")
        if self._job is None or self._job[0] is not config or self._job[1] != number:
            self._job, self._info = (config, number), _job_info(config, hydra_cfg, naming)
        return self._info


_JOB_INFO = _JobInfoOfCurrentJob()


def _job_info(config: DictConfig, hydra_cfg, naming: dict[str, Any] | None) -> JobInfo:
    task = portable(_task_container(config))
    params: dict[str, Any] = {}
    for group in PARAM_GROUPS:
        params.update(flatten(task.get(group, {}), group))
    app = task.get("app") or {}
    if not str(app.get("_target_", "")).endswith(".NoApp"):  # your own app: its params, target, version...
        params.update(flatten(app, "app"))
    params.update({"seed": task.get("seed"), "cache.enabled": task.get("cache", {}).get("enabled")})
    choices = {g: str(o) for g, o in hydra_cfg.runtime.choices.items()
               if o is not None and not g.startswith(("hydra/", "schema/")) and "@" not in g}
    overrides = list(hydra_cfg.overrides.task)
    if naming and naming["varied"]:  # a sweep's job: the keys its sweep varies
        name = sweep_job_name(overrides, naming["varied"], naming["path_keys"], naming["labels"])
    else:
        name = single_run_name(overrides, list(hydra_cfg.job.config.override_dirname.exclude_keys), list(choices),
                               str(config.experiment_name))
    tags = {"harness.version": __version__, "harness.output_dir": str(Path(hydra_cfg.runtime.output_dir).resolve()),
            "harness.overrides": " ".join(overrides), **process_tags(), **_code_tags()}
    return JobInfo(name=redact_text(name), choices=redact(choices), overrides=redact(overrides),
                   params=redact(params), config_yaml=_config_yaml(task, overrides, config), tags=redact(tags))


def _config_yaml(task: dict[str, Any], overrides: list[str], config: DictConfig) -> str:
    """The resolved config, plus what re-running it needs: the job's overrides and the callbacks
    that track it (``harness reproduce`` reads the overrides)."""
    hydra = {"overrides": {"task": overrides},
             "callbacks": OmegaConf.to_container(config.hydra.callbacks, resolve=False)}
    # What OmegaConf.to_yaml writes, without first building a DictConfig of the plain dict (~0.1 s a job).
    return to_yaml(redact({**task, "hydra": hydra}))


def _task_container(config: DictConfig) -> dict[str, Any]:
    """The config without its ``hydra`` node, resolved, as plain data: each key converted in place
    (a masked copy of the config first, as OmegaConf.masked_copy makes, took 2.5x as long)."""
    task = {}
    for key in config.keys():
        if key != "hydra":
            node = config._get_node(key)
            task[key] = (OmegaConf.to_container(node, resolve=True, enum_to_str=True)
                         if isinstance(node, (DictConfig, ListConfig)) else config[key])
    return task


@functools.cache  # the code a process runs is the code it loaded at its start
def _code_tags() -> dict[str, str]:
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=PROJECT_ROOT, capture_output=True,
                                text=True, timeout=10, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=PROJECT_ROOT,
                               capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return {}
    return {"mlflow.source.git.commit": commit, "harness.git_commit": commit,
            "harness.git_dirty": str(bool(dirty)).lower()}
