"""The Ray cluster of a sweep on ``hydra/launcher=ray``: started quietly, named in one console line,
and, when the sweep started it, stopped with every process of its session.

Started by the harness's Ray launcher (``hydra_plugins/harness_ray``) before its first batch, so the
console of a Ray sweep is a basic sweep's plus one line: ``Ray: started a local cluster at ...``
or ``Ray: connected to the cluster at ...``. Quiet means: Ray's own INFO lines (``Started a local
Ray instance``) stay off the console, worker lines carry no colour codes where the console is not
a terminal, and a new local cluster keeps Ray's default token authentication without Ray's
warning that it is the default.

Stopping: Ray's exit hook shuts the cluster down when the process ends normally, but a harness
stopped by Ctrl-C skips exit hooks (:mod:`harness.cli.main`). Its end then kills the GCS and the
raylet (Ray ties them to the process that started them) and leaves the raylet's agents
(``ray::DashboardAgent``, ``ray::RuntimeEnvAgent``) orphaned, deaf to SIGINT and SIGTERM.
:func:`stop_started_cluster` notes the session's processes, shuts Ray down, and then ends
whichever of them is still alive.
"""

from __future__ import annotations

import atexit
import logging
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)
# The session folder of the local cluster this process started (None: it started none).
_STARTED: dict[str, str | None] = {"session_dir": None}
# Seconds a leftover process of the session gets to end after SIGTERM before SIGKILL.
TERMINATE_GRACE_S = 5.0


def start(init: Mapping[str, Any]) -> None:
    """``ray.init(**init)`` unless Ray is running in this process, quietly; logs the one line."""
    import ray

    if ray.is_initialized():
        return
    options = dict(init)
    local = options.get("address") is None
    if not sys.stdout.isatty():  # "(pid=...)" prefixes in colour are escape codes in a pipe or file
        os.environ.setdefault("RAY_COLOR_PREFIX", "0")
    # Ray announces, as a warning, that a new local cluster gets its default (token authentication);
    # its own "configured explicitly" path cannot be taken once ray is imported (its settings are cached).
    logging.getLogger(AUTH_LOGGER).addFilter(_drop_default_auth_notice)
    options.setdefault("logging_level", logging.WARNING)
    context = ray.init(**options)
    cpus = ray.cluster_resources().get("CPU", 0)
    if local:
        _STARTED["session_dir"] = context.address_info["session_dir"]
        atexit.register(stop_started_cluster)  # runs before Ray's own hook: leftovers of a normal exit too
        log.info("Ray: started a local cluster at %s (%g CPUs, session %s); it stops with the sweep",
                 context.address_info["gcs_address"], cpus, Path(context.address_info["session_dir"]).name)
    else:
        log.info("Ray: connected to the cluster at %s (%g CPUs)", options["address"], cpus)


AUTH_LOGGER = "ray._private.authentication.authentication_token_setup"


def _drop_default_auth_notice(record: logging.LogRecord) -> bool:
    """False for Ray's notice that token authentication is on by default (the secure default, kept)."""
    return not record.getMessage().startswith("Token authentication is enabled for this Ray cluster")


def stop_started_cluster() -> int:
    """Shuts down the local cluster this process started and ends every process of its session
    that is still alive afterwards; returns how many had to be ended. Nothing when it started none."""
    session = _STARTED["session_dir"]
    if session is None:
        return 0
    _STARTED["session_dir"] = None
    members = session_processes(session)  # now: once the raylet is gone its agents have no parent to be found by
    ray = sys.modules.get("ray")
    if ray is not None and ray.is_initialized():
        try:
            ray.shutdown()
        except Exception:  # a raylet already gone: its leftovers are ended below
            log.debug("ray.shutdown failed", exc_info=True)
    return end_processes([p for p in members if _alive(p)])


def session_processes(session_dir: str) -> list:
    """The live processes of a Ray session: those whose command line names its folder (GCS, raylet,
    log monitor...), and all their descendants, whose command lines Ray rewrites (``ray::DashboardAgent``,
    ``ray::RuntimeEnvAgent``, ``ray::<task>`` workers); this process excluded."""
    import psutil

    name = Path(session_dir).name
    found: dict[int, psutil.Process] = {}
    for process in psutil.process_iter(["pid", "cmdline"]):
        if process.info["pid"] != os.getpid() and any(name in part for part in process.info["cmdline"] or []):
            found[process.pid] = process
            try:
                found.update((child.pid, child) for child in process.children(recursive=True))
            except psutil.NoSuchProcess:
                pass
    found.pop(os.getpid(), None)
    return list(found.values())


def _alive(process) -> bool:
    import psutil

    try:
        return process.is_running() and process.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def end_processes(processes: list) -> int:
    """SIGTERM, then SIGKILL for those still alive after :data:`TERMINATE_GRACE_S`; how many there were."""
    import psutil

    for process in processes:
        try:
            process.terminate()
        except psutil.NoSuchProcess:
            pass
    _, alive = psutil.wait_procs(processes, timeout=TERMINATE_GRACE_S)
    for process in alive:
        try:
            process.kill()
        except psutil.NoSuchProcess:
            pass
    psutil.wait_procs(alive, timeout=TERMINATE_GRACE_S)  # reaped where they are this process's children
    return len(processes)
