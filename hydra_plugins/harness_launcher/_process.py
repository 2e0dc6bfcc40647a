"""The harness launcher's worker processes, seen from the launcher: start, talk to, stop.

Its name starts with an underscore so that Hydra's plugin scan leaves it alone: the scan executes
every other module of ``hydra_plugins`` again when it was imported before (``harness -m`` imports
this one first, to start a worker early: :func:`prestart`), which would forget the started workers.
"""

from __future__ import annotations

import atexit
import os
import pickle
import signal
import socket
import subprocess
import sys
from multiprocessing.connection import Connection

import cloudpickle

# How long a stopped worker may take to finish before it is killed.
STOP_SECONDS = 10.0


class Worker:
    """A worker process and the launcher's end of its connection.

    The worker is a new interpreter started with ``subprocess`` (what multiprocessing's ``spawn``
    starts, without its import of the launching program's main module: a script that runs a sweep
    through the Python API without an ``if __name__ == "__main__"`` guard would run again in it). It
    gets this process's module search path first, then the sweep. Its death is seen on a pidfd.
    """

    def __init__(self, process: subprocess.Popen, conn: Connection) -> None:
        self.process, self.conn = process, conn
        self.sentinel = os.pidfd_open(process.pid)

    @classmethod
    def start(cls, sweep: tuple) -> Worker:
        """A worker for ``sweep`` (the launcher's context, config, task function and compositions):
        the one :func:`prestart` started, else a new one."""
        started = _take_spare() or cls.spawn()
        started.begin(sweep)
        return started

    @classmethod
    def spawn(cls) -> Worker:
        """A new worker process, importing what its jobs need while it waits for its sweep."""
        ours, theirs = socket.socketpair()
        bootstrap = (f"import sys; sys.path[:0] = {sys.path!r}; "
                     f"from hydra_plugins.harness_launcher.worker import serve_on; serve_on({theirs.fileno()})")
        # its own session is not wanted: Ctrl-C reaches it with the terminal's group, and it ignores it
        process = subprocess.Popen([sys.executable, "-c", bootstrap], pass_fds=[theirs.fileno()],
                                   stdin=subprocess.DEVNULL)
        theirs.close()
        spawned = cls(process, Connection(ours.detach()))
        _STARTED.add(spawned)
        return spawned

    def begin(self, sweep: tuple) -> None:
        """Sends the worker its sweep, with this process's module search path of now."""
        from hydra.core.singleton import Singleton

        # Hydra's state holds OmegaConf's resolvers, local functions: pickled as the joblib launcher does
        self.send(("sweep", list(sys.path), *sweep, Singleton.get_state()), pickler=cloudpickle)

    def alive(self) -> bool:
        return self.process.poll() is None

    def send(self, message: tuple, pickler=pickle) -> None:
        try:
            self.conn.send_bytes(pickler.dumps(message))
        except OSError:  # dead already (a broken pipe): receive() says so
            pass

    def receive(self):
        """The worker's answer, or None when it died without one."""
        try:
            return pickle.loads(self.conn.recv_bytes()) if self.conn.poll() else None
        except (EOFError, OSError):
            return None

    def stop(self, at_once: bool = False) -> None:
        if self.alive() and not at_once:
            self.send(("stop",))
            try:
                self.process.wait(STOP_SECONDS)
            except subprocess.TimeoutExpired:
                pass
        if self.alive():
            self.process.kill()
        self.process.wait()
        self.conn.close()
        os.close(self.sentinel)
        _STARTED.discard(self)


_STARTED: set[Worker] = set()  # every live worker of this process, stopped at exit at the latest
_SPARE: list[Worker] = []  # the worker prestart() started, until a launcher takes it


def prestart() -> None:
    """Starts a worker now, for the sweep this process is about to launch: its imports (the
    harness's task and callbacks, MLflow's SQL store: ~3 s of CPU) then overlap this process's own
    start (imports, composition, the start check) instead of following it. The first launcher to
    need a worker takes it; unused, it is stopped at exit."""
    if not _SPARE:
        _SPARE.append(Worker.spawn())


def _take_spare() -> Worker | None:
    while _SPARE:
        spare = _SPARE.pop()
        if spare.alive():
            return spare
        spare.stop(at_once=True)
    return None


def stop_all(pool: list[Worker], at_once: bool = False) -> None:
    while pool:
        pool.pop().stop(at_once)


def _stop_started() -> None:
    stop_all(_SPARE, at_once=True)  # it has had no sweep: nothing of its own to finish
    stop_all(list(_STARTED))


atexit.register(_stop_started)


def death(exitcode: int | None) -> str:
    if exitcode is not None and exitcode < 0:
        name = signal.Signals(-exitcode).name
        why = ": out of memory, or kill -9" if -exitcode == signal.SIGKILL else ""
        return f"killed by {name}{why}"
    return f"exit status {exitcode}" if exitcode is not None else "its pipe closed"


