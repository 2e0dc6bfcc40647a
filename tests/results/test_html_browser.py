"""The HTML report in a real headless browser (Chromium from npm, tests/browser/): it opens with the
answer, nothing fails or leaves the file, no table widens the page (each scrolls in its own box with
a sticky first column), each run has one name in every section, answers are text, a click on a
header sorts and a click on a question opens it across runs."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from harness.console import short_names
from harness.results.html_report import ReportInputs, render_html
from harness.tracking.verdicts.front import write_front
from tests.stats.test_front import FRONT
from tests.stats.test_report import settings

BROWSER = Path(__file__).resolve().parents[1] / "browser"
NAMES = [f"chunker={c},retriever={r}" for c in ("fixed_tokens", "recursive", "markdown_sections")
         for r in ("bm25", "dense", "hybrid")]
METRICS = ["retrieval/ndcg_at_5", "answer/f1", "context_delta/delta_pp"]
# Enough columns to make the leaderboard wider than the page: it must scroll inside its box.
WIDE = [f"extra/a_metric_with_a_long_name_{k}" for k in range(16)]

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed: no headless browser")


def _rows(job: int) -> list[dict]:
    rng = random.Random(job)
    return [{"question_id": f"q{i:02d}", "question": f"What is fact {i}?", "gold_answers": [f"fact {i}"],
             "gold_doc_ids": [f"d{i}"], "retrieved_doc_ids": [f"d{i}", f"d{i + 1}"] if i % 2 else [f"d{i + 1}"],
             "contexts": [f"passage {i}, line one\nline two"], "route": ("kpi", "docs")[i % 2],
             "answer": f"Fact {i} is\n\n### a heading\nthen text ({job})",
             "retrieval/ndcg_at_5": min(1.0, rng.random() * 0.5 + 0.03 * job), "answer/f1": rng.random(),
             "generation/cost_usd": 0.001 * (1 + job % 3) * (1 + 0.05 * rng.random())} for i in range(24)]


def inputs(tmp_path: Path) -> ReportInputs:
    tables = {name: _rows(job) for job, name in enumerate(NAMES)}
    statistics = settings(primary={"name": "retrieval/ndcg_at_5", "direction": "higher", "margin": 0.01}, guards=[], front=FRONT)
    report = statistics.compare(tables)
    front = write_front(tmp_path, statistics.ship_front(tables, {}, report), NAMES)
    runs = {name: {m: sum(r[m] for r in rows) / len(rows) for m in METRICS[:2]} | {METRICS[2]: 12.5}
            | {m: 1234.5678 for m in WIDE} for name, rows in tables.items()}
    order = sorted(runs, key=lambda n: -runs[n][METRICS[0]])
    return ReportInputs(title="a sweep of 9 runs", runs={n: runs[n] for n in order}, tables=tables,
                        headline=METRICS + WIDE,
                        stats_csv=report.to_csv(), stats_png=report.plot(tmp_path / "stats.png").read_bytes(),
                        labels={METRICS[0]: "ndcg@5", METRICS[1]: "f1", METRICS[2]: "ctx_delta"},
                        legend=["ndcg@5 = retrieval/ndcg_at_5 (nDCG, 0-1)"], champion=report.champion, front=front,
                        resamples=200)


def test_the_report_leads_with_the_answer_fits_the_page_names_each_run_once_and_drills_down(tmp_path):
    if not (BROWSER / "node_modules").is_dir():
        pytest.fail(f"{BROWSER}/node_modules is missing: run `make install` (npm ci --prefix tests/browser)")
    page = tmp_path / "report.html"
    given = inputs(tmp_path)
    page.write_text(render_html(given), encoding="utf-8")
    done = subprocess.run(["node", str(BROWSER / "check_report.js"), str(page)], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["errors"] == [] and result["requests"] == []  # no script error, nothing fetched: offline
    found = result["found"]
    short, _, _ = short_names(NAMES)
    # the headline: the champion, how many tied and worse, the front
    assert found["headline"].startswith(f"The champion is {short[given.champion]} (ndcg@5 ")
    assert "other configurations" in found["headline"] and "To ship: the front of" in found["headline"]
    assert found["sections"][:2] == ["ship-candidates", "leaderboard"] and "questions" in found["sections"]
    # no table wider than the page outside its scrolling box; first columns stay in view
    assert found["scrollWidth"] <= found["width"]
    assert all(t["inScrollBox"] and t["boxRight"] <= found["width"] and t["stickyFirst"] for t in found["tables"])
    assert any(t["tableWidth"] > t["boxWidth"] for t in found["tables"])  # some table does scroll
    # one name per run in every section; the full overrides on hover and in the Runs key only
    assert sorted(found["names"]) == sorted(NAMES)
    for name, seen in found["names"].items():
        assert set(seen["shown"]) == {short[name]} and set(seen["title"]) == {name}, name
        assert name in found["keyText"]
    assert found["outsideKey"] == []
    # answers as text: line breaks kept, no escape sequence shown
    answers = [a for a in found["answers"] if a.startswith("Fact ")]
    assert answers and all("\n\n### a heading\n" in a and "\\n" not in a for a in answers)
    # a click on a header sorts the leaderboard
    sort = result["sort"]
    values = [float(v) for v in sort["ascending"]]
    assert values == sorted(values) and sort["descending"] == sort["ascending"][::-1]
    assert sorted(sort["before"]) == sorted(sort["ascending"])
    # a click on a question opens it across runs: gold, each run's passages, answer and scores
    drill = result["drill"]
    assert drill["closedBefore"] and drill["open"] and drill["visible"]
    assert sorted(drill["runs"]) == sorted(short.values())
    assert "gold answer: fact" in drill["text"] and "(gold)" in drill["text"] and "passage" in drill["text"]
