"""Opt-in pytest plugin: CPU seconds per test, for finding what makes the suite slow on a busy machine.

Wall time says little where other work shares the cores; CPU time (user + system, of the test
process and of the child processes it waited for) does not depend on the load. Turn it on with
``HARNESS_TEST_CPU=FOLDER`` (``tests/conftest.py`` loads this module then): every test process
writes one line per test and phase to ``FOLDER/<worker>.tsv``, and the controlling process writes
``FOLDER/table.txt`` at the end: the tests by CPU seconds, the files by CPU seconds, each worker's
total (imports and session fixtures included) and the last tests to finish (the serial tail).

Children that are not waited for (a server left running, Ray's daemons) are not counted; the CLI
runs that tests/forkserver.py forks, and its server, are.
"""

from __future__ import annotations

import os
import resource
import sys
import time
from collections import defaultdict
from pathlib import Path

import pytest

FOLDER = Path(os.environ.get("HARNESS_TEST_CPU", "test-cpu"))
WORKER = os.environ.get("PYTEST_XDIST_WORKER", "main")


def _cpu() -> tuple[float, float]:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    # CLI runs forked by tests/forkserver.py are its server's children, not this process's.
    forked = sys.modules.get("tests.forkserver")
    extra = forked.CPU["children"] + forked.CPU["server"] if forked else 0.0
    return own.ru_utime + own.ru_stime, children.ru_utime + children.ru_stime + extra


def _write(line: str) -> None:
    FOLDER.mkdir(parents=True, exist_ok=True)
    with open(FOLDER / f"{WORKER}.tsv", "a") as out:
        out.write(line + "\n")


def _measured(phase: str):
    @pytest.hookimpl(hookwrapper=True)
    def hook(item, *args):
        own, children = _cpu()
        start = time.time()
        yield
        own_after, children_after = _cpu()
        _write(f"{item.nodeid}\t{phase}\t{own_after - own:.3f}\t{children_after - children:.3f}"
               f"\t{start:.3f}\t{time.time():.3f}")
    return hook


pytest_runtest_setup = _measured("setup")
pytest_runtest_call = _measured("call")
pytest_runtest_teardown = _measured("teardown")


def pytest_sessionfinish(session):
    own, children = _cpu()
    _write(f"<worker {WORKER}>\ttotal\t{own:.3f}\t{children:.3f}\t0\t{time.time():.3f}")
    if WORKER == "main":
        (FOLDER / "table.txt").write_text(table(FOLDER))


def table(folder: Path, top: int = 80) -> str:
    """The report of ``folder``'s measurements (also ``python tests/cpu_profile.py FOLDER``)."""
    tests: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0, 0.0, float("inf"), 0.0])
    workers: dict[str, tuple[float, float]] = {}
    for path in sorted(folder.glob("*.tsv")):
        for line in path.read_text().splitlines():
            name, phase, own, children, start, end = line.split("\t")
            if phase == "total":
                workers[name] = (float(own), float(children))
                continue
            row = tests[name]
            row[0] += float(own)
            row[1] += float(children)
            row[2] += float(end) - float(start)
            row[3] += float(own) + float(children)
            row[4] = min(row[4], float(start))
            row[5] = max(row[5], float(end))
    total = sum(row[3] for row in tests.values())
    lines = [f"{len(tests)} tests, {total:.0f} CPU s in tests; per process (incl. imports, "
             "session fixtures, children):"]
    lines += [f"  {name}: {own + children:.0f} s ({own:.0f} own, {children:.0f} children)"
              for name, (own, children) in sorted(workers.items())]
    # the controlling process's children are the workers: counted once, as workers
    main = workers.get("<worker main>", (0.0, 0.0))
    spent = sum(a + b for a, b in workers.values()) - (main[1] if len(workers) > 1 else 0.0)
    lines.append(f"  all: {spent:.0f} s")
    files: dict[str, float] = defaultdict(float)
    for name, row in tests.items():
        files[name.split("::")[0]] += row[3]
    lines.append("\nfiles by CPU s:")
    lines += [f"  {cpu:8.1f}  {name}" for name, cpu in sorted(files.items(), key=lambda kv: -kv[1])[:top]]
    lines.append("\ntests by CPU s (own, children, wall):")
    lines += [f"  {row[3]:8.1f}  ({row[0]:.1f}, {row[1]:.1f}, {row[2]:.1f})  {name}"
              for name, row in sorted(tests.items(), key=lambda kv: -kv[1][3])[:top]]
    if tests:
        end = max(row[5] for row in tests.values())
        lines.append("\nlast to finish (s before the end, CPU s):")
        lines += [f"  {end - row[5]:7.1f}  {row[3]:7.1f}  {name}"
                  for name, row in sorted(tests.items(), key=lambda kv: -kv[1][5])[:20]]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(table(Path(sys.argv[1])), end="")
