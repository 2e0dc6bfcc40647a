"""What traces cost a 10,000-question single run (issue 45): ``python benchmarks/tracing.py --scale 10000``.

    python benchmarks/tracing.py --scale 10000 [--postgres] [--cold] [-- extra overrides]

Builds the SQuAD-shaped set of ``benchmarks/squad_scale.py`` (seeded, offline: paragraphs as
documents, a predictions file) and runs

    harness dataset=squad dataset.path=dev.json generator=predictions generator.path=predictions.json

once with ``tracking=none`` to fill the cache (timed as ``cold_untracked``), then once per
``tracking.traces`` value (``none``, ``auto``, ``all``), each into a fresh store from that cache
(``--cold``: each from an empty cache): wall seconds, CPU seconds (the run's process tree), the
traces in the store and the store's bytes per 1,000 questions (SQLite: the database file and the
artifact folder). Then ``harness traces RUN --all`` on the ``auto`` run: what writing the rest on
demand costs. ``--postgres``: the same against ``mlflow server`` on PostgreSQL (both started from
temporary folders, as the tests start them; bytes: ``pg_database_size`` growth plus the artifacts).
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VARIANTS = ("none", "auto", "all")
ENV = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(command: list[str], cwd: Path) -> dict[str, float]:
    start, cpu = time.perf_counter(), _children_cpu()
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, env=ENV)
    if done.returncode != 0:
        raise SystemExit(f"failed ({done.returncode}): {' '.join(command)}\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}")
    return {"wall": round(time.perf_counter() - start, 2), "cpu": round(_children_cpu() - cpu, 2),
            "stdout": done.stdout.strip().splitlines()[-3:]}


def folder_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) if folder.exists() else 0


def traces_in(uri: str, experiment: str) -> int:
    from mlflow.tracing.client import TracingClient

    store = TracingClient(uri).store
    found = store.get_experiment_by_name(experiment)
    count, token = 0, None
    while found is not None:
        infos, token = store.search_traces(locations=[found.experiment_id], max_results=500, page_token=token)
        count += len(infos)
        if not token:
            break
    return count


class Store:
    """Where the runs go: a SQLite file per variant, or one tracking server on PostgreSQL."""

    def __init__(self, tmp: Path, stack: ExitStack, postgres: bool) -> None:
        self.tmp, self.database, self.server = tmp, None, None
        if postgres:
            sys.path.insert(0, str(ROOT))
            from tests.services import mlflow_server, postgres as start_postgres

            self.database = stack.enter_context(start_postgres())
            self.artifacts = tmp / "server-artifacts"
            self.server = stack.enter_context(mlflow_server(self.database, self.artifacts))

    def uri(self, variant: str) -> str:
        return self.server or f"sqlite:///{self.tmp / variant / 'mlflow.db'}"

    def overrides(self, variant: str) -> list[str]:
        location = "null" if self.server else str(self.tmp / variant / "mlruns")
        return [f"tracking.tracking_uri={self.uri(variant)}", f"tracking.artifact_location={location}",
                f"experiment_name=scale-{variant}"]

    def bytes(self, variant: str) -> int:
        if self.server is None:
            return folder_bytes(self.tmp / variant)
        import psycopg

        with psycopg.connect(self.database) as connection:
            database = connection.execute("select pg_database_size(current_database())").fetchone()[0]
        return int(database) + folder_bytes(self.artifacts)


def measure(questions: int, postgres: bool, cold: bool, extra: list[str]) -> dict:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from squad_scale import synthetic_squad

    paragraphs = max(1, round(questions * 2067 / 10570))
    report: dict = {"questions": questions, "store": "mlflow server on PostgreSQL" if postgres else "SQLite",
                    "cache": "empty (cold)" if cold else "filled by the untracked run (warm)", "runs": {}}
    with tempfile.TemporaryDirectory(prefix="harness-tracing-scale-") as name, ExitStack() as stack:
        tmp = Path(name)
        dataset, predictions = synthetic_squad(questions, paragraphs, 48, 0)
        (tmp / "dev.json").write_text(json.dumps(dataset))
        (tmp / "predictions.json").write_text(json.dumps(predictions))
        base = [sys.executable, "-m", "harness", "dataset=squad", f"dataset.path={tmp / 'dev.json'}",
                "generator=predictions", f"generator.path={tmp / 'predictions.json'}", *extra]
        cache = tmp / "cache"
        report["cold_untracked"] = timed([*base, "tracking=none", f"cache.dir={cache}",
                                          f"hydra.run.dir={tmp / 'untracked'}"], tmp)
        store = Store(tmp, stack, postgres)
        for variant in VARIANTS:
            (tmp / variant).mkdir()  # the store's folder (SQLite file, artifacts) and nothing else
            before = store.bytes(variant)
            run_cache = tmp / f"cache-{variant}" if cold else cache
            result = timed([*base, f"tracking.traces={variant}", f"cache.dir={run_cache}",
                            f"hydra.run.dir={tmp / f'run-{variant}'}", *store.overrides(variant)], tmp)
            grown = store.bytes(variant) - before
            result.update(traces=traces_in(store.uri(variant), f"scale-{variant}"), store_bytes=grown,
                          store_mb_per_1000_questions=round(grown / 1e6 / questions * 1000, 2))
            print(f"traces={variant}: {result}", flush=True)
            report["runs"][variant] = result
            if variant == "auto":
                before = store.bytes(variant)
                demand = timed([sys.executable, "-m", "harness", "traces", str(tmp / "run-auto"), "--all"], tmp)
                grown = store.bytes(variant) - before
                demand.update(traces=traces_in(store.uri(variant), "scale-auto"), store_bytes=grown)
                print(f"harness traces --all: {demand}", flush=True)
                report["traces_all_on_demand"] = demand
        none = report["runs"]["none"]
        for variant in ("auto", "all"):
            run = report["runs"][variant]
            report[f"{variant}_wall_ratio"] = round(run["wall"] / none["wall"], 3)
            report[f"{variant}_cpu_ratio"] = round(run["cpu"] / none["cpu"], 3)
    report["load_average"] = os.getloadavg()
    return report
