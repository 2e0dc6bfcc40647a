"""The pictures of docs/getting-started.md, from a real `make run` (``harness experiment=demo_sweep``).

    python docs/screenshots.py [--work .cache/screenshots] [--reuse] [OVERRIDE ...]

Runs the demo sweep into ``--work`` (its own MLflow store and sweep folder; the console output kept
in ``console.log``), then saves, under ``docs/images/``: the end of the console output (rendered by
rich as SVG, photographed in headless Chromium), the top of ``harness report``'s page and one of its
questions opened, and the MLflow UI's run list and sweep parent run (``mlflow server`` on a free local
port). ``--reuse`` skips the sweep and pictures what ``--work`` already holds; OVERRIDEs go to the
sweep (``cache.dir=...``: a cache that already holds the demo's answers makes it a warm re-run). Chromium is the npm
one of tests/browser/ (``make install``); every PNG is reduced to 256 colours and must stay under
300 KB.
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
IMAGES = ROOT / "docs" / "images"
SHOOT = ROOT / "tests" / "browser" / "screenshot.js"
MAX_BYTES = 300_000
# MLflow 3's UI opens its assistant beside every page: closed for the picture.
ASSISTANT_CLOSE = 'button[aria-label="Close"]'
# The run list: the sidebar folded, the sweep's parent opened onto its children, the tag harness.front
# added as a column.
SIDEBAR = 'button[aria-label="Toggle sidebar"]'
EXPAND_PARENT = 'button[data-component-id*="runnamecellrenderer"]'
COLUMNS = '[data-testid="column-selection-dropdown"]'
# The end of the sweep's console output: from the leaderboard's title (after the last of its 9 jobs,
# "#8 : ...") to the results' command.
CONSOLE_FROM, CONSOLE_TO = "demo: 9 runs", "Open the results:"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--work", type=Path, default=ROOT / ".cache" / "screenshots")
    parser.add_argument("--reuse", action="store_true", help="picture the sweep already in --work")
    parser.add_argument("overrides", nargs="*", help="Hydra overrides for the sweep, e.g. cache.dir=...")
    args = parser.parse_args(argv)
    work = args.work.resolve()
    store = f"sqlite:///{work / 'mlflow.db'}"
    if not args.reuse:
        run_sweep(work, store, args.overrides)
    IMAGES.mkdir(parents=True, exist_ok=True)
    console_picture(work / "console.log", work / "console.svg", IMAGES / "console-leaderboard.png")
    report = work / "report.html"
    subprocess.run([sys.executable, "-m", "harness", "report", str(work / "sweep"), "--html", str(report),
                    "--tracking-uri", store], check=True, env=_env())
    shoot(report.as_uri(), IMAGES / "report.png", 1280, 1000)
    shoot(report.as_uri(), IMAGES / "report-question.png", 1280, 900, steps="a.q")  # the first worst answer
    mlflow_pictures(work, store)
    for path in sorted(IMAGES.glob("*.png")):
        print(f"{path.relative_to(ROOT)}: {path.stat().st_size // 1000} KB")
    return 0


def run_sweep(work: Path, store: str, overrides: list[str]) -> None:
    """`make run`'s sweep, its console output in ``console.log`` (120 columns, as in a log)."""
    work.mkdir(parents=True, exist_ok=True)
    for stale in ("sweep", "mlruns", "mlflow.db"):
        subprocess.run(["rm", "-rf", str(work / stale)], check=True)
    with (work / "console.log").open("w") as log:
        subprocess.run([sys.executable, "-m", "harness", "experiment=demo_sweep", f"hydra.sweep.dir={work / 'sweep'}",
                        f"tracking.tracking_uri={store}", f"tracking.artifact_location={work / 'mlruns'}", *overrides],
                       stdout=log, stderr=subprocess.STDOUT, check=True, env=_env(), cwd=ROOT)


def console_picture(log: Path, svg: Path, png: Path) -> None:
    """The sweep's closing summary as rich renders a terminal, photographed at its own size."""
    from rich.console import Console
    from rich.text import Text

    lines = log.read_text().splitlines()
    last_job = max(i for i, line in enumerate(lines) if "#8 : " in line)
    start = next(i for i in range(last_job, len(lines)) if lines[i].startswith(CONSOLE_FROM))
    end = next(i for i in range(start, len(lines)) if lines[i].startswith(CONSOLE_TO))
    console = Console(record=True, width=120, file=open(os.devnull, "w"))
    for line in lines[start:end + 1]:
        console.print(Text(line), soft_wrap=True)
    svg.write_text(console.export_svg(title="make run"))
    width, height = _viewbox(svg.read_text())
    shoot(svg.as_uri(), png, width, height)


def mlflow_pictures(work: Path, store: str) -> None:
    """The experiment's run list and the sweep's parent run in MLflow's own UI."""
    from mlflow.tracking import MlflowClient

    from omegaconf import OmegaConf

    client = MlflowClient(store)
    name = OmegaConf.load(work / "sweep" / "multirun.yaml").experiment_name
    experiment = client.get_experiment_by_name(name).experiment_id
    parent = next(r for r in client.search_runs([experiment]) if r.data.tags.get("harness.role") == "sweep")
    port = _free_port()
    server = subprocess.Popen([str(Path(sys.executable).with_name("mlflow")), "server", "--backend-store-uri", store,
                               "--host", "127.0.0.1", "--port", str(port), "--workers", "1"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=_env(), start_new_session=True)
    try:
        base = f"http://127.0.0.1:{port}/#/experiments/{experiment}/runs"
        _wait_for(f"http://127.0.0.1:{port}/health")
        shoot(base, IMAGES / "mlflow-runs.png", 1600, 660, wait_for=f"a[href*='{parent.info.run_id}']",
              steps=" ;; ".join([ASSISTANT_CLOSE, SIDEBAR, EXPAND_PARENT, COLUMNS, "type:harness.front",
                                 'span[title="harness.front"]', "key:Escape"]))
        shoot(f"{base}/{parent.info.run_id}", IMAGES / "mlflow-parent.png", 1400, 1100,
              steps=ASSISTANT_CLOSE)
    finally:
        os.killpg(server.pid, signal.SIGTERM)  # the server and the uvicorn worker it started
        server.wait(timeout=60)


def shoot(url: str, png: Path, width: int, height: int, wait_for: str = "", steps: str = "") -> None:
    """A PNG of ``url`` at ``width`` x ``height``, reduced to 256 colours (text stays sharp)."""
    from PIL import Image

    subprocess.run(["node", str(SHOOT), url, str(png), str(width), str(height), wait_for, steps], check=True,
                   env=_env(), timeout=300)
    Image.open(png).convert("RGB").quantize(colors=256, method=Image.Quantize.MEDIANCUT).save(png, optimize=True)
    if png.stat().st_size > MAX_BYTES:
        raise SystemExit(f"{png} is {png.stat().st_size} bytes, over {MAX_BYTES}")


def _viewbox(svg: str) -> tuple[int, int]:
    import re

    found = re.search(r'viewBox="0 0 ([\d.]+) ([\d.]+)"', svg)
    return int(float(found.group(1))) + 1, int(float(found.group(2))) + 1


def _env() -> dict[str, str]:
    return {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false",
            "COLUMNS": "120", "LANG": "en_US.UTF-8", "PYTHONPATH": str(ROOT)}


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _wait_for(url: str, seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while True:
        try:
            with urllib.request.urlopen(url, timeout=5):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(1)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
