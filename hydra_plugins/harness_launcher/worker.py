"""A worker process of the harness launcher: it runs one job after another, as Hydra's own
launchers run a job (:func:`hydra.core.utils.run_job`), and keeps what they built.

The worker is a fresh interpreter (nothing of the launcher's threads, locks or open connections,
and not the launching program's main module), receives the sweep once (Hydra's context, the sweep's
config, the task function and Hydra's global state, as the joblib launcher ships them) and then
one job at a time. Its parts built per process (:func:`harness.jobs.parts_of_this_process`) and
the compositions its config loader keeps (:mod:`harness.config.composition`) serve its later jobs
and, since the launcher keeps the worker across launches, a racing sweeper's later rounds.

Messages on the pipe, pickled: ``("sweep", hydra_context, config, task_function, compositions,
singleton_state)``
once (with cloudpickle, as joblib ships them: OmegaConf's resolvers are local functions), then
``("job", number, overrides, checked)``, each answered with ``("done", job_return)`` or
``("error", exception)`` (composing the job failed: the launcher raises it, as the basic launcher
would); ``("stop",)`` or a closed pipe ends the worker.
"""

from __future__ import annotations

import pickle
import signal
import sys
import traceback
from typing import Any



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
    sweep: _Sweep | None = None
    while True:
        try:
            message = pickle.loads(conn.recv_bytes())
        except (EOFError, OSError):  # the launcher's process is gone
            return
        if message[0] == "stop":
            return
        if message[0] == "sweep":
            sweep = _Sweep(*message[1:])
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
        from hydra.core.utils import configure_log, setup_globals

        from harness.config.composition import compose_by_choices

        setup_globals()
        Singleton.set_state(singleton_state)
        self.hydra_context, self.config, self.task_function = hydra_context, config, task_function
        compose_by_choices(hydra_context.config_loader)  # each set of group choices composed once here
        # and those the launcher's start check composed, not again
        hydra_context.config_loader.load_sweep_config.adopt(config, compositions)
        configure_log(config.hydra.hydra_logging, config.hydra.verbose)

    def run(self, number: int, overrides: list[str], checked: set[tuple[str, ...]]):
        """The job, as Hydra's basic launcher runs it (its id and number, its folder, callbacks)."""
        from hydra.core.utils import configure_log, run_job
        from omegaconf import open_dict

        from harness.jobs import checked_in_this_process

        # jobs the launcher's start check passed, composed there from the same config and overrides
        checked_in_this_process(str(self.config.hydra.sweep.dir)).update(checked)
        sweep_config = self.hydra_context.config_loader.load_sweep_config(self.config, list(overrides))
        with open_dict(sweep_config):
            sweep_config.hydra.job.id = number
            sweep_config.hydra.job.num = number
        result = run_job(hydra_context=self.hydra_context, task_function=self.task_function, config=sweep_config,
                         job_dir_key="hydra.sweep.dir", job_subdir_key="hydra.sweep.subdir")
        configure_log(self.config.hydra.hydra_logging, self.config.hydra.verbose)
        return result


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
