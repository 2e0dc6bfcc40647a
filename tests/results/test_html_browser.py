"""The HTML report in a real headless browser (Chromium from npm, tests/browser/): no script error,
no request leaving the file, no table wider than the page (each scrolls in its own box), and a
click on a header sorts its table."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from harness.results.html_report import ReportInputs, render_html
from harness.stats.sweep_report import StatsReport
from tests.stats.test_report import settings, table

BROWSER = Path(__file__).resolve().parents[1] / "browser"

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed: no headless browser")


def _inputs(tmp_path: Path) -> ReportInputs:
    names = [f"chunker={c},retriever={r}" for c in ("fixed_tokens", "recursive", "markdown_sections")
             for r in ("bm25", "dense", "hybrid")]
    rng = random.Random(0)
    runs = {name: {"retrieval/ndcg_at_5": rng.random(), "key_facts/coverage_exact": rng.random()} for name in names}
    report: StatsReport = settings().compare({name: table(0.02 * i, i) for i, name in enumerate(names)})
    png = report.plot(tmp_path / "stats.png").read_bytes()
    return ReportInputs(title="a sweep of 9 runs", runs=runs, tables={}, headline=list(runs[names[0]]),
                        stats_csv=report.to_csv(), stats_png=png, labels={"retrieval/ndcg_at_5": "ndcg@5",
                                                                           "key_facts/coverage_exact": "cov"},
                        legend=["ndcg@5 = retrieval/ndcg_at_5 (nDCG, 0-1)"])


def test_the_report_opens_in_a_browser_without_errors_and_its_tables_fit_and_sort(tmp_path):
    if not (BROWSER / "node_modules").is_dir():
        pytest.fail(f"{BROWSER}/node_modules is missing: run `make install` (npm ci --prefix tests/browser)")
    page = tmp_path / "report.html"
    page.write_text(render_html(_inputs(tmp_path)), encoding="utf-8")
    done = subprocess.run(["node", str(BROWSER / "check_report.js"), str(page)], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["errors"] == [] and found["requests"] == []  # no script error, nothing fetched: offline
    layout = found["layout"]
    assert layout["scrollWidth"] <= layout["page"]  # no table widens the page
    assert len(layout["tables"]) == 2
    for box in layout["tables"]:
        assert box["inScrollBox"] and box["boxRight"] <= layout["page"]
    assert any(box["tableWidth"] > box["boxWidth"] for box in layout["tables"])  # the statistics table scrolls
    sort = found["sort"]
    values = [float(v) for v in sort["ascending"]]
    assert values == sorted(values) and sort["descending"] == sort["ascending"][::-1]
    assert sorted(sort["before"]) == sorted(sort["ascending"])
