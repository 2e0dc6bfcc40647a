"""A worker process seen from the launching process: start it, talk to it, see it die, stop it."""

from __future__ import annotations

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
# Where the OS has one (Linux 5.3 on), a pidfd sees the worker's death even while a process it
# started still holds its end of the pipe; elsewhere the pipe's closing and the process handle do.
HAS_PIDFD = hasattr(os, "pidfd_open")


def supported() -> bool:
    """Whether this platform can start a worker: a socket pair passed to a new interpreter (POSIX)."""
    return os.name == "posix" and hasattr(socket, "socketpair")


class Worker:
    """A worker process and the launcher's end of its connection.

    The worker is a new interpreter started with ``subprocess`` (what multiprocessing's ``spawn``
    starts, without its import of the launching program's main module: a script that runs a sweep
    through the Python API without an ``if __name__ == "__main__"`` guard would run again in it). It
    gets this process's module search path first, then the sweep.

    Args:
        process: the worker's process.
        conn: this process's end of the worker's socket (only the worker holds the other end, so it
            reads as closed once the worker is gone: the portable sign of its death).
        pidfd: also watch a pidfd of the process (:data:`HAS_PIDFD`).
    """

    def __init__(self, process: subprocess.Popen, conn: Connection, pidfd: bool = HAS_PIDFD) -> None:
        self.process, self.conn = process, conn
        self.pidfd = os.pidfd_open(process.pid) if pidfd else None

    @classmethod
    def spawn(cls, pidfd: bool = HAS_PIDFD) -> Worker:
        """A new worker process, importing what its jobs need while it waits for its sweep."""
        ours, theirs = socket.socketpair()
        bootstrap = (f"import sys; sys.path[:0] = {sys.path!r}; "
                     f"from harness.workers.loop import serve_on; serve_on({theirs.fileno()})")
        # its own session is not wanted: Ctrl-C reaches it with the terminal's group, and it ignores it
        process = subprocess.Popen([sys.executable, "-c", bootstrap], pass_fds=[theirs.fileno()],
                                   stdin=subprocess.DEVNULL)
        theirs.close()
        return cls(process, Connection(ours.detach()), pidfd)

    def waitables(self) -> list:
        """What becomes ready when the worker answers or dies (for ``multiprocessing.connection.wait``)."""
        return [self.conn] if self.pidfd is None else [self.conn, self.pidfd]

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
        if self.pidfd is not None:
            os.close(self.pidfd)
            self.pidfd = None

    def death(self) -> str:
        """Why the worker is gone, once stopped: the signal that killed it, or its exit status."""
        exitcode = self.process.returncode
        if exitcode is not None and exitcode < 0:
            name = signal.Signals(-exitcode).name
            why = ": out of memory, or kill -9" if -exitcode == getattr(signal, "SIGKILL", None) else ""
            return f"killed by {name}{why}"
        return f"exit status {exitcode}" if exitcode is not None else "its pipe closed"
