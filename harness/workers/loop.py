"""A worker process's loop: it receives a sweep once, then runs one job after another (:mod:`.job`).

The worker is a fresh interpreter (nothing of the launcher's threads, locks or open connections,
and not the launching program's main module). It imports what jobs need first while it waits
(``WARM_MODULES``; ``harness -m`` starts it before Hydra composes its sweep:
:meth:`harness.workers.pool.WorkerPool.prestart`), receives the sweep once (Hydra's context, the
sweep's config, the task function and Hydra's global state, as the joblib launcher ships them) and
then one job at a time.

Messages on the pipe, pickled: ``("sweep", sys_path, hydra_context, config, task_function,
compositions, singleton_state)`` once (with cloudpickle, as joblib ships them: OmegaConf's resolvers
are local functions), then ``("job", number, overrides, checked)``, each answered with
``("done", job_return, left)`` (``left``: the work the job left to the sweep's process, such as
writing its traces: :mod:`harness.tracking.sweep.handoff`) or ``("error", exception)`` (composing
the job failed: the launcher raises it, as the basic launcher would); ``("stop",)`` or a closed
pipe ends the worker.
"""

from __future__ import annotations

import contextlib
import importlib
import pickle
import signal
import sys
import traceback

# What a job imports first, imported by a new worker before its sweep arrives (~3 s of CPU): the
# harness's task and callbacks, MLflow's client and SQL store, the per-question table's writer.
WARM_MODULES = ("harness.cli.sweep", "harness.tracking.sweep.callback", "mlflow.tracking",
                "mlflow.store.tracking.sqlalchemy_store", "harness.results.table", "harness.workers.job")


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
    for module in WARM_MODULES:  # while the launching process starts its sweep
        with contextlib.suppress(Exception):  # a module that cannot be imported fails the job that needs it
            importlib.import_module(module)
    from harness.tracking.sweep import handoff
    from harness.workers.job import SweepInWorker

    sweep: SweepInWorker | None = None
    while True:
        try:
            message = pickle.loads(conn.recv_bytes())
        except (EOFError, OSError):  # the launcher's process is gone
            return
        if message[0] == "stop":
            return
        if message[0] == "sweep":
            sys.path[:] = message[1]  # the launching process's of now, as the worker was started earlier
            sweep = SweepInWorker(*message[2:])
            continue
        assert sweep is not None and message[0] == "job"
        try:
            answer = ("done", sweep.run(*message[1:]), handoff.taken())
        except Exception as err:  # noqa: BLE001 - the job could not be composed: the launcher raises it
            handoff.taken()  # nothing a job that did not run left is done
            answer = ("error", _portable(err))
        sys.stdout.flush()
        sys.stderr.flush()
        conn.send_bytes(_pickled(answer))


def _pickled(answer: tuple) -> bytes:
    """The answer, or where it cannot be pickled (a task's return value or exception of its own),
    the job as failed with the reason. Pickled as the joblib launcher pickles (cloudpickle): a
    config's structured-config classes may have been imported twice by Hydra's plugin discovery."""
    import cloudpickle

    try:
        return cloudpickle.dumps(answer)
    except Exception as err:  # noqa: BLE001 - any pickling failure
        kind, value, *left = answer
        if kind == "error":
            return pickle.dumps((kind, RuntimeError(f"{value!r} (could not be sent back: {err!r})")))
        from hydra.core.utils import JobReturn, JobStatus

        return pickle.dumps((kind, JobReturn(overrides=value.overrides, working_dir=value.working_dir,
                                             task_name=value.task_name, status=JobStatus.FAILED,
                                             _return_value=RuntimeError(
                                                 f"the job's result could not be sent back to the launcher: {err!r}")),
                             *left))


def _portable(err: Exception) -> Exception:
    try:
        pickle.dumps(err)
        return err
    except Exception:  # noqa: BLE001
        return RuntimeError("".join(traceback.format_exception(err)))
