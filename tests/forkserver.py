"""``python -m harness ARGS`` for the tests, as a child forked from a process that has already
imported the harness's heavy dependencies: the same command, arguments, folder, environment, exit
status, stdout, stderr and signals, without the imports every new interpreter pays (MLflow's SQL
store, transformers, torch, SciPy, Hydra: about two thirds of the CPU of a CLI run on the tiny
corpus, measured with tests/cpu_profile.py).

:func:`run` and :func:`popen` stand in for ``subprocess.run`` and ``subprocess.Popen`` with a
``[sys.executable, "-m", "harness", ...]`` command and captured text output. Each test process
(xdist worker) starts one server (``python -m tests.forkserver SOCKET``) on first use; it imports
``PRELOAD`` and then, per request, forks a waiter that forks the child and reports its pid and,
once it ends, its exit status. The child sets up what a new interpreter would have (the folder, the
environment, ``sys.argv``, ``sys.path[0]``, stdin from /dev/null, stdout and stderr into files, the
SIGINT handler, the warning filters of ``PYTHONWARNINGS``, fresh random seeds), runs the
``harness`` module as ``__main__`` (``runpy``) and ends as the interpreter does (threads joined,
atexit handlers, streams flushed).

The harness launcher's worker processes (``harness.workers.process.Worker.spawn``: a new interpreter
that imports the task's libraries, ~6.5 of a 4-job sweep's 16.5 CPU s) are forked by the same server
for a forked run: the worker's end of its socket and the run's stdout and stderr are passed to the
server (``SCM_RIGHTS``), and the child runs the worker's loop (``harness.workers.loop.serve_on``) with
the run's folder, environment and module search path, as the new interpreter would.
Workers started as new interpreters are still tested: by tests/workers/ and by the script that
tests/e2e/test_harness_launcher.py runs with ``python script.py`` (not forked, nor are its workers).

A real interpreter is started instead where the fork could differ: an environment that differs from
the server's in a variable read when the interpreter starts or a preloaded library is imported
(``SHARED_AT_START``, less those read only when used and those the CLI sets itself before its
imports; ``PYTHONWARNINGS`` is applied in the child), or ``HARNESS_TEST_FORK=0`` (the
whole suite with real subprocesses, to compare). What is not the same: warnings that the preloaded
imports themselves would print (none where ``PYTHONWARNINGS=ignore``, as ``run_cli`` sets), the
hash seed (shared by the children) and the command line ``ps`` shows.
"""

from __future__ import annotations

import atexit
import json
import locale
import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[1]

# What CLI runs import (python -X importtime of runs on the tiny corpus): the third-party libraries
# hold nearly all of the import time (sentence_transformers 3.2, mlflow's SQL store 1.9, torch 1.3 CPU
# s); the harness's own modules cost tenths, so only its stable entry points are named here, and a
# name that no longer imports (a module moved) is skipped: the children import what they need.
PRELOAD = ("harness", "torch", "transformers.configuration_utils", "transformers.tokenization_utils_base",
           "sentence_transformers", "mlflow.store.tracking.sqlalchemy_store", "mlflow.tracking",
           "sqlalchemy.dialects.sqlite", "hydra", "omegaconf", "scipy.stats", "bm25s", "git",
           "harness.cli.main", "harness.cli.sweep")
SHARED_AT_START = ("PYTHON", "OMP_", "MKL_", "OPENBLAS_", "HF_", "TRANSFORMERS_", "TORCH", "TOKENIZERS_",
                   "MLFLOW_", "RAY_", "NUMBA_", "SENTENCE_TRANSFORMERS")
APPLIED_IN_CHILD = ("PYTHONWARNINGS",)
# Read by MLflow when used, not when imported (mlflow.environment_variables' .get() at call time):
# the harness sets them in the test process itself (harness.tracking.store), and a child forked
# with or without them behaves as a new interpreter would.
READ_WHEN_USED = ("MLFLOW_HTTP_REQUEST_MAX_RETRIES", "MLFLOW_HTTP_REQUEST_BACKOFF_FACTOR",
                  "MLFLOW_HTTP_REQUEST_TIMEOUT", "MLFLOW_ENABLE_ARTIFACTS_PROGRESS_BAR", "MLFLOW_DISABLE_TELEMETRY")
# What the CLI sets (if unset) before it imports the libraries that read it: harness/__init__.py for
# every command, harness/cli/main.py before a run or sweep (huggingface_hub reads it on import),
# not before a subcommand. The server imports the libraries with these set; a request is compared
# as its command would find itself once it set them.
SET_BY_EVERY_COMMAND = {"MLFLOW_DISABLE_TELEMETRY": "true"}
SET_BEFORE_A_RUN = {"HF_HUB_DISABLE_PROGRESS_BARS": "1"}
HARNESS = [sys.executable, "-m", "harness"]

# The environment the server starts with: this test process's as the tests were collected (a
# test's monkeypatched variables reach only its own requests).
_BASE_ENV = {k: v for k, v in os.environ.items() if k not in APPLIED_IN_CHILD}
_SERVER_ENV = {**SET_BY_EVERY_COMMAND, **SET_BEFORE_A_RUN, **_BASE_ENV}
_STATE: dict[str, object] = {}
_PARENT = "HARNESS_TEST_FORKSERVER_PARENT"  # the test process's pid, in the server's environment
# CPU seconds of the forked children and of the server (tests/cpu_profile.py adds them to this
# process's: they are not its children).
CPU = {"children": 0.0, "server": 0.0}


def run(command, *, cwd=None, env=None, timeout: float | None = None, capture_output: bool = True,
        text: bool = True) -> subprocess.CompletedProcess:
    """``subprocess.run(command, cwd=cwd, env=env, timeout=timeout, capture_output=..., text=...)``."""
    process = popen(command, cwd=cwd, env=env, capture_output=capture_output, text=text)
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()  # as subprocess.run does
        process.wait()
        raise
    return subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)


def popen(command, *, cwd=None, env=None, capture_output: bool = True, text: bool = True,
          sigint_default: bool = False):
    """``subprocess.Popen(command, cwd=cwd, env=env, stdout=PIPE, stderr=PIPE, text=True)``, forked
    where that is the same. ``sigint_default``: SIGINT as a terminal's Ctrl-C would find it, even if
    this process ignores it (``preexec_fn`` resetting it to SIG_DFL)."""
    command = [str(a) for a in command]
    env = dict(os.environ if env is None else env)
    if command[:3] == HARNESS and capture_output and text and _forkable(command[3:], env):
        return Forked(command, cwd, env, sigint_default or signal.getsignal(signal.SIGINT) != signal.SIG_IGN)
    pipe = subprocess.PIPE if capture_output else None
    reset = (lambda: signal.signal(signal.SIGINT, signal.SIG_DFL)) if sigint_default else None
    return subprocess.Popen(command, cwd=cwd, env=env, stdout=pipe, stderr=pipe, text=text, preexec_fn=reset)


class Forked:
    """What the tests use of ``subprocess.Popen``, for a child of the fork server."""

    def __init__(self, command: list[str], cwd, env: dict[str, str], sigint: bool, fds: list[int] | None = None):
        self.args, self.returncode = command, None
        self._folder = Path(tempfile.mkdtemp(prefix="run-", dir=_work_folder()))
        request = {"args": command[3:], "cwd": str(Path(cwd if cwd is not None else os.getcwd()).resolve()),
                   "env": env, "stdout": str(self._folder / "stdout"), "stderr": str(self._folder / "stderr"),
                   "sigint": sigint}
        if fds:  # a worker: its socket, stdout and stderr are the launching run's
            request.update(worker=True, path=list(sys.path))
        self._connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._connection.connect(_server())
        socket.send_fds(self._connection, [json.dumps(request).encode() + b"\n"], fds or [])
        self._buffer = b""
        self.pid = int(self._line())

    def poll(self) -> int | None:
        if self.returncode is None and (b"\n" in self._buffer or select.select([self._connection], [], [], 0)[0]):
            self._ended()
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        if self.returncode is None:
            if b"\n" not in self._buffer and not select.select([self._connection], [], [], timeout)[0]:
                raise subprocess.TimeoutExpired(self.args, timeout)
            self._ended()
        return self.returncode

    def communicate(self, timeout: float | None = None) -> tuple[str, str]:
        try:
            self.wait(timeout)
        except subprocess.TimeoutExpired as expired:
            expired.output, expired.stderr = self._output("stdout"), self._output("stderr")
            raise
        output = self._output("stdout"), self._output("stderr")
        shutil.rmtree(self._folder, ignore_errors=True)
        return output

    def send_signal(self, signum: int) -> None:
        if self.returncode is None:
            try:
                os.kill(self.pid, signum)
            except ProcessLookupError:  # ended, its status not read yet: as Popen, nothing to signal
                pass

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    def _ended(self) -> None:
        ended = json.loads(self._line())
        self._connection.close()
        workers = self._folder / _WORKERS_CPU  # the run's workers: the server's children, not the run's
        CPU["children"] += ended["cpu"] + (float(workers.read_text()) if workers.is_file() else 0.0)
        CPU["server"] = ended["server_cpu"]
        self.returncode = ended["status"]

    def _line(self) -> str:
        while b"\n" not in self._buffer:
            chunk = self._connection.recv(65536)
            if not chunk:
                raise RuntimeError(f"the tests' fork server went away (log: {_STATE.get('log')})")
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return line.decode()

    def _output(self, name: str) -> str:
        # as Popen(text=True) decodes: the locale's encoding, universal newlines
        path = self._folder / name
        data = path.read_bytes() if path.exists() else b""
        return data.decode(locale.getpreferredencoding(False)).replace("\r\n", "\n").replace("\r", "\n")


def _forkable(args: list[str], env: dict[str, str]) -> bool:
    if os.environ.get("HARNESS_TEST_FORK", "1") == "0" or not hasattr(os, "fork"):
        return False
    from harness.cli.subcommands import SUBCOMMANDS

    found = {**SET_BY_EVERY_COMMAND, **({} if args[:1] and args[0] in SUBCOMMANDS else SET_BEFORE_A_RUN), **env}
    changed = {k for k in found.keys() | _SERVER_ENV.keys() if found.get(k) != _SERVER_ENV.get(k)}
    return not any(k.startswith(SHARED_AT_START) for k in changed - set(APPLIED_IN_CHILD) - set(READ_WHEN_USED))


def _work_folder() -> str:
    if "work" not in _STATE:
        _STATE["work"] = tempfile.mkdtemp(prefix="harness-forkserver-")
        atexit.register(shutil.rmtree, _STATE["work"], True)
    return _STATE["work"]


def _server() -> str:
    """The socket of this process's server, started on first use (and stopped at exit); in a forked
    run, the server that forked it."""
    if "served" in _STATE:
        return _STATE["served"]
    process = _STATE.get("process")
    if process is not None and process.poll() is None:
        return _STATE["socket"]
    path = os.path.join(_work_folder(), f"socket-{len(_STATE)}")
    _STATE["log"] = log = path + ".log"
    with open(log, "wb") as output:
        process = subprocess.Popen([sys.executable, "-m", "tests.forkserver", path], cwd=PROJECT_ROOT,
                                   env={**_SERVER_ENV, _PARENT: str(os.getpid())}, stdin=subprocess.DEVNULL,
                                   stdout=output, stderr=output)
    atexit.register(_stop, process)
    deadline = time.monotonic() + 600
    while not os.path.exists(path):
        if process.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"the tests' fork server did not start:\n{Path(log).read_text()[-3000:]}")
        time.sleep(0.05)
    _STATE.update(process=process, socket=path)
    return path


def _stop(process: subprocess.Popen) -> None:
    process.kill()
    process.wait()


# The server (python -m tests.forkserver SOCKET)

_STARTUP_FILTERS: list = []  # the server's warning filters before the preloaded imports


def serve(path: str) -> None:
    """Preloads, then forks a waiter per request (so several children may run at once)."""
    import importlib
    import resource
    import warnings

    _die_with_parent(int(os.environ.get(_PARENT, "0")))
    _STARTUP_FILTERS.extend(warnings.filters)
    for name in PRELOAD:
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - a child that needs it imports it and reports its error
            pass
    from tests import mlflow_template

    mlflow_template.install()  # the children's new MLflow stores: copies of one MLflow initialised
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path + ".tmp")
    listener.listen(16)
    os.rename(path + ".tmp", path)  # the clients wait for the name: it appears once accepting
    _STATE["served"] = path  # where a forked run asks for its workers
    while True:
        connection, _ = listener.accept()
        request, fds = _request(connection)
        own = resource.getrusage(resource.RUSAGE_SELF)
        sys.stdout.flush()
        sys.stderr.flush()
        if os.fork() == 0:
            listener.close()
            _wait(connection, request, own.ru_utime + own.ru_stime, fds)
        connection.close()
        for fd in fds:
            os.close(fd)
        try:
            while os.waitpid(-1, os.WNOHANG)[0]:  # the waiters that have ended
                pass
        except ChildProcessError:
            pass


def _request(connection: socket.socket) -> tuple[dict, list[int]]:
    """A request's line and the file descriptors sent with it (a worker's)."""
    data, fds, _, _ = socket.recv_fds(connection, 1 << 20, 3)
    while not data.endswith(b"\n"):
        chunk = connection.recv(1 << 20)
        if not chunk:
            break
        data += chunk
    return json.loads(data), list(fds)


def _wait(connection: socket.socket, request: dict, server_cpu: float, fds: list[int]) -> None:
    """The waiter: forks the child, reports its pid, then its exit status and CPU; never returns."""
    try:
        _die_with_parent(os.getppid())
        pid = os.fork()
        if pid == 0:
            connection.close()
            _die_with_parent(os.getppid())
            if request.get("worker"):
                _worker(request, fds)
            _child(request)
        for fd in fds:  # the worker's socket reads as closed once the worker alone is gone
            os.close(fd)
        connection.sendall(f"{pid}\n".encode())
        _, status, usage = os.wait4(pid, 0)
        ended = {"status": os.waitstatus_to_exitcode(status), "cpu": usage.ru_utime + usage.ru_stime,
                 "server_cpu": server_cpu}
        connection.sendall(json.dumps(ended).encode() + b"\n")
    finally:
        os._exit(0)


def _child(request: dict) -> None:
    """Becomes ``python -m harness ARGS`` in the request's folder and environment; never returns."""
    status = 1
    try:
        import random
        import runpy
        import warnings

        os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
        os.dup2(os.open(request["stdout"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), 1)
        os.dup2(os.open(request["stderr"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), 2)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        for name, value in SET_BY_EVERY_COMMAND.items():  # harness/__init__.py ran in the server
            os.environ.setdefault(name, value)
        signal.signal(signal.SIGINT, signal.default_int_handler if request["sigint"] else signal.SIG_IGN)
        random.seed()
        if "numpy" in sys.modules:
            sys.modules["numpy"].random.seed()
        # PYTHONWARNINGS as the interpreter applies it at start-up: before the default filters,
        # after those that libraries add as they are imported (later, in a new interpreter).
        options = [o for o in os.environ.get("PYTHONWARNINGS", "").split(",") if o]
        sys.warnoptions[:] = options
        added = [f for f in warnings.filters if f not in _STARTUP_FILTERS]
        warnings.filters[:] = list(_STARTUP_FILTERS)
        for option in options:
            warnings._setoption(option)
        warnings.filters[:0] = added
        warnings._filters_mutated()
        sys.path[0] = os.getcwd()  # `python -m` puts the current folder first
        sys.argv = ["-m", *request["args"]]
        _fork_workers(request)
        try:
            runpy.run_module("harness", run_name="__main__", alter_sys=True)
            status = 0
        except SystemExit as done:
            status = 0 if done.code is None else done.code
        except BaseException:  # noqa: BLE001 - the interpreter prints an uncaught exception, status 1
            import traceback

            traceback.print_exc()
            status = 1
        if isinstance(status, str):
            print(status, file=sys.stderr)
            status = 1
        _finalise()
    finally:
        os._exit(status if isinstance(status, int) else 1)


_WORKERS_CPU = "workers_cpu"  # the CPU seconds of a forked run's workers, beside its stdout


def _fork_workers(request: dict) -> None:
    """The run's harness-launcher workers are forked by the server too (where a new interpreter would
    find the server's environment); their CPU is written beside the run's stdout at its exit."""
    from harness.workers import process

    spawn = process.Worker.spawn

    def forked(cls, pidfd: bool = process.HAS_PIDFD):
        if not _forkable([], dict(os.environ)):
            return spawn(pidfd)
        ours, theirs = socket.socketpair()
        worker = Forked([*HARNESS, "<worker>"], os.getcwd(), dict(os.environ), False,
                        fds=[theirs.fileno(), 1, 2])
        theirs.close()
        from multiprocessing.connection import Connection

        return cls(worker, Connection(ours.detach()), pidfd)

    process.Worker.spawn = classmethod(forked)
    atexit.register(lambda: Path(request["stdout"]).with_name(_WORKERS_CPU).write_text(str(CPU["children"])))


def _worker(request: dict, fds: list[int]) -> None:
    """Becomes the worker a run's launcher would start as ``python -c 'serve_on(FD)'``; never returns."""
    status = 1
    try:
        import random

        conn, stdout, stderr = fds
        os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
        os.dup2(stdout, 1)
        os.dup2(stderr, 2)
        os.close(stdout)
        os.close(stderr)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        signal.signal(signal.SIGINT, signal.default_int_handler)
        random.seed()
        if "numpy" in sys.modules:
            sys.modules["numpy"].random.seed()
        sys.path[:0] = request["path"]
        sys.argv = ["-c"]
        from harness.workers.loop import serve_on

        serve_on(conn)
        status = 0
        _finalise()
    finally:
        os._exit(status)


def _die_with_parent(parent: int) -> None:
    """SIGKILL when ``parent`` ends (Linux), so that a test process killed, or stopped by Ctrl-C
    before its atexit handlers run, leaves no server, waiter or CLI run behind."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:  # it ended before the signal was asked for
        os._exit(1)


def _finalise() -> None:
    # The interpreter's exit: non-daemon threads joined, atexit handlers, streams flushed.
    import threading

    threading._shutdown()
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # noqa: BLE001 - as the interpreter ignores a failed flush at exit
            pass


if __name__ == "__main__":
    serve(sys.argv[1])
