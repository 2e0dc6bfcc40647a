"""A worker process of the harness launcher: it runs one job after another, as Hydra's own
launchers run a job (:mod:`.job`, step for step Hydra's :func:`hydra.core.utils.run_job`), and keeps
what they built.

The worker is a fresh interpreter (nothing of the launcher's threads, locks or open connections,
and not the launching program's main module). It imports what jobs need first while it waits
(``WARM_MODULES``; ``harness -m`` starts it before composing its sweep: _process.prestart), receives
the sweep once (Hydra's context, the sweep's config, the task function and Hydra's global state, as
the joblib launcher ships them) and then one job at a time. Its parts built per process
(:func:`harness.jobs.parts_of_this_process`) and the compositions its config loader keeps
(:mod:`harness.config.composition`) serve its later jobs and, since the launcher keeps the worker
across launches, a racing sweeper's later rounds: a configuration's next round continues the
config of its round before (only ``race.questions`` changes) on the pipeline built for it.

Messages on the pipe, pickled: ``("sweep", sys_path, hydra_context, config, task_function,
compositions, singleton_state)`` once (with cloudpickle, as joblib ships them: OmegaConf's resolvers
are local functions), then ``("job", number, overrides, checked)``, each answered with
``("done", job_return)`` or ``("error", exception)`` (composing the job failed: the launcher raises
it, as the basic launcher would); ``("stop",)`` or a closed pipe ends the worker.
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import pickle
import signal
import sys
import traceback
from typing import Any

from hydra.core.utils import configure_log

log = logging.getLogger(__name__)
# What a job imports first, imported by a new worker before its sweep arrives (~3 s of CPU): the
# harness's task and callbacks, MLflow's client and SQL store, the per-question table's writer.
WARM_MODULES = ("harness.cli.sweep", "harness.tracking.sweep.callback", "mlflow.tracking",
                "mlflow.store.tracking.sqlalchemy_store", "harness.results.table")



def serve_on(fd: int) -> None:
    """The worker's loop on the connection of file descriptor ``fd`` (the launcher's socket)."""
    from multiprocessing.connection import Connection

    serve(Connection(fd))


def serve(conn) -> None:
    """The worker's loop."""
    # Ctrl-C reaches every process of the terminal's group: the launcher stops its workers itself
    # (and the harness marks their open runs KILLED).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    from harness.config.secrets import RedactingStream

    sys.stdout, sys.stderr = RedactingStream(sys.stdout), RedactingStream(sys.stderr)
    for module in WARM_MODULES:  # while the launching process starts its sweep (_process.prestart)
        with contextlib.suppress(Exception):  # a module that cannot be imported fails the job that needs it
            importlib.import_module(module)
    sweep: _Sweep | None = None
    while True:
        try:
            message = pickle.loads(conn.recv_bytes())
        except (EOFError, OSError):  # the launcher's process is gone
            return
        if message[0] == "stop":
            return
        if message[0] == "sweep":
            sys.path[:] = message[1]  # the launching process's of now, as the worker was started earlier
            sweep = _Sweep(*message[2:])
            continue
        assert sweep is not None and message[0] == "job"
        try:
            answer = ("done", sweep.run(*message[1:]))
        except Exception as err:  # noqa: BLE001 - the job could not be composed: the launcher raises it
            answer = ("error", _portable(err))
        sys.stdout.flush()
        sys.stderr.flush()
        conn.send_bytes(_pickled(answer))


class _Sweep:
    def __init__(self, hydra_context, config, task_function, compositions: dict, singleton_state: dict[Any, Any]) -> None:
        from hydra.core.singleton import Singleton
        from hydra.core.utils import setup_globals

        from harness.config.composition import compose_by_choices
        from harness.config.lru import LeastRecentlyUsed
        from harness.jobs import PARTS_KEPT

        setup_globals()
        Singleton.set_state(singleton_state)
        self.hydra_context, self.config, self.task_function = hydra_context, config, task_function
        compose_by_choices(hydra_context.config_loader)  # each set of group choices composed once here
        # and those the launcher's start check composed, not again
        hydra_context.config_loader.load_sweep_config.adopt(config, compositions)
        configure_log(config.hydra.hydra_logging, config.hydra.verbose)
        # a race's configurations by their overrides: (the last round's overrides, config, task config)
        self.rounds: dict[tuple[str, ...], tuple[list[str], Any, Any]] = LeastRecentlyUsed(PARTS_KEPT)

    def run(self, number: int, overrides: list[str], checked: set[tuple[str, ...]]):
        """The job, as Hydra's basic launcher runs it (its id and number, its folder, callbacks).

        A race's next round of a configuration this worker ran continues that job's config
        (:func:`~harness.config.composition.next_round`: only ``race.questions`` changes) and hands
        it to the pipeline the worker built for it; any other job is composed from the kept compositions."""
        from omegaconf import open_dict, read_write

        from harness.config.composition import next_round
        from harness.jobs import checked_in_this_process
        from hydra_plugins.harness_launcher.job import run_job

        # jobs the launcher's start check passed, composed there from the same config and overrides
        passed = checked_in_this_process(str(self.config.hydra.sweep.dir))
        passed.update(checked)
        overrides = list(overrides)
        if _grid_job(overrides) in passed:  # a race's round of a checked job: its questions and folder added
            passed.add(tuple(o for o in overrides if not o.startswith("hydra.")))  # as the job looks it up
        same = configuration_of(overrides)
        kept = self.rounds.pop(same, None)
        if kept is not None and next_round(kept[1], kept[2], kept[0], overrides, ROUND_KEYS):
            config, task_config = kept[1], kept[2]
            log.info("#%d continues its configuration's round before (race: %s)", number,
                     " ".join(o for o in overrides if o not in same))
        else:
            config = self.hydra_context.config_loader.load_sweep_config(self.config, overrides)
            task_config = None
        # a continued round's config: Hydra's node has been read-only since the round before ran
        with read_write(config.hydra), open_dict(config):
            config.hydra.job.id = number
            config.hydra.job.num = number
        result = run_job(self.hydra_context, self.task_function, config, task_config)
        if same != tuple(overrides):  # a race's round: its next round continues this config
            self.rounds[same] = (overrides, config, result.cfg)
        configure_log(self.config.hydra.hydra_logging, self.config.hydra.verbose)
        return result


# What a race's next round of a configuration changes (hydra_plugins.harness_racing): its questions.
ROUND_KEYS = frozenset({"race.questions"})


def configuration_of(overrides: list[str]) -> tuple[str, ...]:
    """The job's overrides but a race round's own (``race.questions=N``): the same for every round
    of one configuration."""
    return _without(overrides, ROUND_KEYS)


def _grid_job(overrides: list[str]) -> tuple[str, ...]:
    """The job's overrides without what the racing sweeper adds to a grid job's for a round (its
    questions and its folder): those the start check checked (harness.jobs.check_sweep_jobs)."""
    return _without(overrides, ROUND_KEYS | {"hydra.sweep.subdir"})


def _without(overrides: list[str], keys: frozenset[str]) -> tuple[str, ...]:
    return tuple(o for o in overrides if o.split("=", 1)[0].strip() not in keys)


def _pickled(answer: tuple) -> bytes:
    """The answer, or where it cannot be pickled (a task's return value or exception of its own),
    the job as failed with the reason. Pickled as the joblib launcher pickles (cloudpickle): a
    config's structured-config classes may have been imported twice by Hydra's plugin discovery."""
    import cloudpickle

    try:
        return cloudpickle.dumps(answer)
    except Exception as err:  # noqa: BLE001 - any pickling failure
        kind, value = answer
        if kind == "error":
            return pickle.dumps((kind, RuntimeError(f"{value!r} (could not be sent back: {err!r})")))
        from hydra.core.utils import JobReturn, JobStatus

        return pickle.dumps((kind, JobReturn(overrides=value.overrides, working_dir=value.working_dir,
                                             task_name=value.task_name, status=JobStatus.FAILED,
                                             _return_value=RuntimeError(
                                                 f"the job's result could not be sent back to the launcher: {err!r}"))))


def _portable(err: Exception) -> Exception:
    try:
        pickle.dumps(err)
        return err
    except Exception:  # noqa: BLE001
        return RuntimeError("".join(traceback.format_exception(err)))
