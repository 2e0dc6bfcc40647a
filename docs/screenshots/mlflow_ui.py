"""Refreshes the pictures of "Results in MLflow" (docs/how-to/results-in-mlflow.md): the MLflow UI on a sweep.

    python docs/screenshots/mlflow_ui.py                      # runs a two-job demo sweep first
    python docs/screenshots/mlflow_ui.py --store sqlite:///mlflow.db --experiment demo   # after `make run`

Starts ``mlflow server`` on the store (a free loopback port), opens it in headless Chromium
(``tests/browser/mlflow_ui.js``: puppeteer-core and @sparticuz/chromium, installed by ``make install``)
and saves, as small PNGs in ``docs/screenshots/``: the experiment's Evaluation runs, a run's Traces tab,
the two runs compared question by question, one answered question's trace with its assessments, and
its retriever span's passages.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "docs" / "screenshots"
BROWSER = ROOT / "tests" / "browser" / "mlflow_ui.js"
SWEEP = ["experiment=demo_sweep", "chunker=recursive", "retriever=bm25,dense"]


def demo_sweep(folder: Path) -> str:
    store = f"sqlite:///{folder / 'mlflow.db'}"
    subprocess.run([sys.executable, "-m", "harness", *SWEEP, f"tracking.tracking_uri={store}",
                    f"tracking.artifact_location={folder / 'mlruns'}", f"hydra.sweep.dir={folder / 'sweep'}"],
                   cwd=ROOT, check=True, env={**os.environ, "HF_HUB_OFFLINE": "1"})
    return store


def serve(store: str, folder: Path) -> tuple[subprocess.Popen, str]:
    import requests

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen([str(Path(sys.executable).parent / "mlflow"), "server", "--backend-store-uri", store,
                               "--artifacts-destination", str(folder / "artifacts"), "--host", "127.0.0.1",
                               "--port", str(port), "--workers", "1"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    uri = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        try:
            if requests.get(f"{uri}/health", timeout=2).ok:
                return server, uri
        except requests.RequestException:
            time.sleep(0.5)
    os.killpg(server.pid, signal.SIGTERM)
    raise RuntimeError(f"mlflow server on {store} did not answer")


def pages(store: str, experiment_name: str, uri: str) -> list[dict]:
    from mlflow.tracking import MlflowClient

    client = MlflowClient(store)
    experiment = client.get_experiment_by_name(experiment_name).experiment_id
    runs = [r for r in client.search_runs([experiment], order_by=["attributes.start_time DESC"])
            if "mlflow.parentRunId" in r.data.tags]
    run, other = runs[0], runs[1]
    traces = client.search_traces(locations=[experiment], run_id=run.info.run_id, max_results=500)
    answered = next(t for t in traces if any(s.name == "generate with_context" for s in t.data.spans))
    question = answered.data.spans[0].inputs["question"]
    base = f"{uri}/#/experiments/{experiment}"
    trace = f"{base}/traces?selectedEvaluationId={answered.info.trace_id}"
    return [
        {"name": "evaluation-runs", "url": f"{base}/evaluation-runs", "expect": [run.info.run_name]},
        {"name": "run-traces", "url": f"{base}/runs/{run.info.run_id}/traces", "expect": [question[:40]]},
        {"name": "compare", "expect": [question[:40]],
         "url": f"{base}/evaluation-runs?selectedRunUuid={run.info.run_id}&compareToRunUuid={other.info.run_id}"},
        {"name": "trace-assessments", "url": trace, "expect": [question], "click": ["Assess"]},
        {"name": "trace-passages", "url": trace, "expect": [question], "click": ["search"]},
    ]


def shrink(path: Path) -> None:
    """An adaptive 128-colour palette: a UI screenshot keeps its look at a third of the bytes."""
    from PIL import Image

    with Image.open(path) as image:
        image.convert("RGB").quantize(colors=128).save(path, optimize=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--store", help="an MLflow store with a sweep (default: run a two-job demo sweep)")
    parser.add_argument("--experiment", default="demo")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="harness-screens-") as tmp:
        folder = Path(tmp)
        store = args.store or demo_sweep(folder)
        server, uri = serve(store, folder)
        try:
            plan = folder / "plan.json"
            plan.write_text(json.dumps({"width": 1280, "height": 760, "screenshots": str(OUT),
                                        "pages": pages(store, args.experiment, uri)}))
            done = subprocess.run(["node", str(BROWSER), str(plan)], capture_output=True, text=True, timeout=600)
        finally:
            os.killpg(server.pid, signal.SIGTERM)
            server.wait(timeout=30)
    if done.returncode != 0:
        raise SystemExit(done.stderr[-3000:])
    for page in json.loads(done.stdout.strip().splitlines()[-1]):
        missing = [text for text, found in page["found"].items() if not found]
        shrink(OUT / f"{page['name']}.png")
        print(f"{OUT / page['name']}.png" + (f" (did not show: {missing})" if missing else ""))


if __name__ == "__main__":
    main()
