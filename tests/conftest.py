"""Shared fixtures: real configs composed with Hydra, shrunk to the tiny test corpus."""

from __future__ import annotations

import copy
import os
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

PROJECT_ROOT = Path(__file__).resolve().parents[1]
# GGUF models de-quantized, and Hydra's compositions kept, once for the whole run and the runs after
# (every worker and CLI subprocess), in the checkout's ignored .cache/ rather than the user's home.
os.environ.setdefault("HARNESS_MODEL_CACHE", str(PROJECT_ROOT / ".cache" / "models"))
os.environ.setdefault("HARNESS_COMPOSITION_CACHE", str(PROJECT_ROOT / ".cache" / "compositions"))
# One torch thread per xdist worker (and the CLI subprocesses it starts): with a worker per core,
# two threads each oversubscribe the cores, and OpenMP's spinning threads then run the model tests
# about 2.5x slower (measured on 2 cores: 26 s vs 62-74 s wall for the same two generator tests).
if os.environ.get("PYTEST_XDIST_WORKER"):
    for variable in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(variable, "1")
# Ray starts its workers at niceness 15, so beside the suite's other busy workers they starve: the
# Ray Data test took 190 s against 4 busy loops on 2 cores, 39 s with its workers at the default
# priority (17 s on a quiet machine). Tests measure what the workers compute, not their priority.
os.environ.setdefault("RAY_worker_niceness", "0")
# Subprocesses (`python -m harness` from a temporary folder) import this checkout's package, not
# whichever one the virtualenv's editable install points at (e.g. from a git worktree).
os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(PROJECT_ROOT), os.environ.get("PYTHONPATH")) if p)


def pytest_configure(config):
    """``HARNESS_TEST_CPU=FOLDER``: CPU seconds per test into FOLDER (tests/cpu_profile.py). New
    MLflow stores are copies of one MLflow initialised (tests/mlflow_template.py)."""
    from tests import mlflow_template

    mlflow_template.install()
    if os.environ.get("HARNESS_TEST_CPU"):
        from tests import cpu_profile

        config.pluginmanager.register(cpu_profile, "harness_cpu_profile")


def pytest_collection_modifyitems(config, items):
    """Under ``-n N``, the tests in N parts that each start with their share of the slow files: xdist's
    ``worksteal`` gives each worker one contiguous Nth of the collection, then moves tests from the end
    of a busy worker's queue to an idle one. In the collection's own order (by folder) most slow files
    sat in one part, and the suite ended on end-to-end tests that no other worker could share
    (tests/cpu_profile.py's "last to finish"); now each part ends on unit tests, which move. A file
    stays whole in one part (its module-scoped servers start once); every worker collects the same
    order, as xdist requires."""
    workers = int(getattr(config, "workerinput", {}).get("workercount", 0))
    if workers < 2:
        return
    files: dict[str, list] = {}
    for item in items:
        files.setdefault(item.nodeid.split("::")[0], []).append(item)
    slow = {name: sum(1 for item in own if item.get_closest_marker("slow")) for name, own in files.items()}
    # per part: its slow tests counted, the slow files' tests, the other files' tests
    parts = [{"slow": 0, "first": [], "then": []} for _ in range(workers)]
    for name in sorted((n for n in files if slow[n]), key=lambda n: -slow[n]):  # the most slow tests first
        part = min(parts, key=lambda p: p["slow"])
        part["slow"] += slow[name]
        part["first"].extend(files[name])
    for name in sorted((n for n in files if not slow[n]), key=lambda n: -len(files[n])):  # parts of equal size
        min(parts, key=lambda p: len(p["first"]) + len(p["then"]))["then"].extend(files[name])
    items[:] = [item for part in parts for item in part["first"] + part["then"]]


@pytest.hookimpl(optionalhook=True)  # an xdist hook: unknown under -p no:xdist
def pytest_xdist_auto_num_workers(config) -> int:
    """``-n auto``: one test process more than the cores this process may run on (``make test``
    caps it at 4). A worker spends about a quarter of its time waiting (on the services and CLI
    processes it starts, on files, on sleeps in the outage tests). Measured on 2 cores, 27 Nov
    2026, the whole suite with ``--durations=0``: 2 workers kept the cores busy 151% of the time
    (2,451 CPU s in 1,618 s, beside about 5 minutes of other work on the machine), 3 workers 174%
    (2,377 CPU s in 1,365 s); ``make test`` then took 21.0-22.5 min against 23.1-23.6 min with
    2 workers on a quiet machine earlier that day. The Ray tests slow down most under the extra
    load (the Ray Data one from 40-92 s to 316-323 s), but the suite ends sooner. Four workers on
    the same 2 cores, 28 Nov 2026, quiet machine: 171% (1,739 CPU s in 1,013 s), against 177%
    (1,666 CPU s in 940 s) with three an hour before, on code without that hour's speed-ups."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return cores + 1


TINY = PROJECT_ROOT / "tests" / "data" / "tiny"
TINY_BEIR = PROJECT_ROOT / "tests" / "data" / "tiny_beir"

TINY_DATASET_OVERRIDES = [
    "dataset=questions_jsonl",
    f"dataset.questions={TINY / 'questions.jsonl'}",
    f"dataset.documents={TINY / 'docs'}",
]


@pytest.fixture
def one_ray_cluster_at_a_time(tmp_path_factory):
    """Held while a test runs a local Ray cluster (2 CPUs each): the session's workers start one at a
    time, as two clusters side by side on 2 cores slow each other down most of all (the Ray Data test
    took 40-92 s alone, 316-323 s beside the rest of the suite)."""
    from filelock import FileLock

    from tests.shared import shared_root

    with FileLock(str(shared_root(tmp_path_factory) / "ray.lock")):
        yield


@pytest.fixture
def compose():
    """compose(overrides) -> the real root config with those overrides: the test's own copy of a
    composition kept in this test process (~480 tests compose, many the same overrides, and Hydra's
    composition is most of a config test's time); what any process composed, the others read
    from the composition store (harness.config.stored)."""
    from harness.config import register

    register()

    def _compose(overrides: list[str] | None = None, return_hydra_config: bool = False):
        key = (tuple(overrides or []), return_hydra_config, os.getcwd(),
               tuple(sorted((k, v) for k, v in os.environ.items() if k not in _NOT_READ)))
        if key not in _COMPOSED:
            _COMPOSED[key] = _hydra_compose(PROJECT_ROOT / "conf", list(overrides or []), return_hydra_config)
        return copy.deepcopy(_COMPOSED[key])

    return _compose


# Compositions of conf/ kept per test process, by overrides, working folder and environment (what a
# composition reads besides the files); a failed composition is not kept, so it fails again.
_COMPOSED: dict = {}
# Set by pytest for each test and phase ("tests/x.py::test_y (call)") and for each test process
# ("gw0"), read by no config: with the first in the key, no composition was ever reused (30 of 483
# in `make test-fast`); with the second, none was shared between the test processes.
_NOT_READ = frozenset({"PYTEST_CURRENT_TEST", "PYTEST_XDIST_WORKER"})


def _hydra_compose(folder: Path, overrides: list[str], return_hydra_config: bool = False):
    """Hydra's compose API's config, through the composition store as the subcommands compose."""
    from hydra import initialize_config_dir

    from harness.config import stored

    with initialize_config_dir(version_base="1.3", config_dir=str(folder)):
        return stored.compose("config", overrides, return_hydra_config)


@pytest.fixture
def copied_conf(tmp_path):
    """A copy of ``conf/`` in tmp_path, for tests that add or change config files (never in the
    source tree): returns (folder, compose(overrides) -> the root config composed from the copy)."""
    import shutil

    from harness.config import register

    register()
    folder = shutil.copytree(PROJECT_ROOT / "conf", tmp_path / "conf")

    def _compose(overrides: list[str] | None = None):
        return _hydra_compose(folder, list(overrides or []))

    return folder, _compose



@pytest.fixture(scope="module", autouse=True)
def _environment_read_at_start_kept():
    """After each test file, the variables a new interpreter reads as it starts (those
    tests/forkserver.py compares) as they were when the tests were collected. A library run in the
    test process sets some for good (Ray's ``ray.init``: RAY_*, PYTHONBREAKPOINT; torch's compiler:
    TORCHINDUCTOR_CACHE_DIR; MLflow's fluent API: MLFLOW_EXPERIMENT_ID), and from then on every CLI
    run of that test process differed from the fork server's and started a new interpreter: in
    ``make test``, after the first such file, most of them (~5 CPU s each)."""
    yield
    from tests import forkserver

    # what the fork server allows to differ (it applies or sets them in the child) is left alone
    allowed = {*forkserver.SET_BY_EVERY_COMMAND, *forkserver.SET_BEFORE_A_RUN, *forkserver.READ_WHEN_USED,
               *forkserver.APPLIED_IN_CHILD}
    for name in (set(os.environ) | set(_ENVIRONMENT_AT_START)) - allowed:
        if name.startswith(forkserver.SHARED_AT_START) and os.environ.get(name) != _ENVIRONMENT_AT_START.get(name):
            if name in _ENVIRONMENT_AT_START:
                os.environ[name] = _ENVIRONMENT_AT_START[name]
            else:
                del os.environ[name]


_ENVIRONMENT_AT_START = dict(os.environ)
