"""harness report: one self-contained HTML file with the sweep's tables, logged to the parent run."""

from __future__ import annotations

import json
from html.parser import HTMLParser

import pytest
from mlflow.tracking import MlflowClient

from harness.api import sweep
from harness.cli.report import main
from tests.conftest import TINY_DATASET_OVERRIDES

pytestmark = pytest.mark.slow

ANSWERS = {"t1": "after 3600 seconds", "t2": "twenty connections", "t3": "1000 requests per minute", "t4": "no idea"}


class Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tables, self.headings, self.images, self.cells, self.headline = 0, [], [], [], ""
        self._in, self._heading, self._paragraph = None, None, None

    def handle_starttag(self, tag, attrs):
        self.tables += tag == "table"
        self.images += [dict(attrs)["src"]] if tag == "img" else []
        self._in = tag
        if tag in ("h1", "h2"):
            self._heading = ""
        if tag == "p" and dict(attrs).get("class") == "headline":
            self._paragraph = ""

    def handle_endtag(self, tag):
        if tag in ("h1", "h2"):
            self.headings.append(self._heading)
            self._heading = None
        if tag == "p" and self._paragraph is not None:
            self.headline, self._paragraph = self._paragraph, None

    def handle_data(self, data):
        if self._heading is not None:
            self._heading += data
        if self._paragraph is not None:
            self._paragraph += data
        if self._in == "td":
            self.cells.append(data)


def test_report_of_a_sweep_holds_every_table_and_is_logged_to_the_parent(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    predictions = tmp_path / "predictions.jsonl"
    predictions.write_text("".join(json.dumps({"question_id": q, "answer": a}) + "\n" for q, a in ANSWERS.items()))
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    done = sweep([*TINY_DATASET_OVERRIDES, f"tracking.tracking_uri={uri}", f"tracking.artifact_location={tmp_path / 'mlruns'}",
                  f"cache.dir={tmp_path / 'cache'}", f"hydra.sweep.dir={tmp_path / 'sweep'}", "experiment_name=e2e",
                  "retriever=bm25,hybrid", "generator=predictions", f"generator.path={predictions}",
                  "metrics.answer.bertscore=null"])
    assert len(done.runs) == 2 and done.parent_run_id

    out = tmp_path / "report.html"
    assert main([str(tmp_path / "sweep"), "--html", str(out), "--tracking-uri", uri]) == 0
    page = Page()
    page.feed(out.read_text())
    # each run under its short name (retriever=bm25 -> bm25), in every section
    assert page.headings[1:] in (["Ship candidates", "Leaderboard", "Runs", "Statistics", "Per route", "Worst answers",
                                  f"Side by side: {first} vs {second}", "Questions"]
                                 for first, second in (("bm25", "hybrid"), ("hybrid", "bm25")))
    champion = json.loads((tmp_path / "sweep" / "champion.json").read_text())["name"].split("=")[1]
    assert page.headline.startswith(f"The champion is {champion} (")
    assert "Of the 1 other configuration on " in page.headline and "To ship: the front of" in page.headline
    # ship candidates, leaderboard, runs key, statistics, per route, worst, side by side; 4 questions' drill-downs
    assert page.tables == 7 + 4
    # the statistics plot; answers from a predictions file carry no cost or latency: no front plot
    assert len(page.images) == 1 and page.images[0].startswith("data:image/png;base64,")
    assert "no idea" in page.cells and "twenty connections" in page.cells
    client = MlflowClient(uri)
    assert "report.html" in {a.path for a in client.list_artifacts(done.parent_run_id)}

    # The same report named by the parent run's id.
    again = tmp_path / "from_mlflow.html"
    assert main([done.parent_run_id, "--html", str(again), "--tracking-uri", uri]) == 0
    from_mlflow = Page()
    from_mlflow.feed(again.read_text())
    assert from_mlflow.headings[1:] == page.headings[1:] and from_mlflow.tables == page.tables
    assert main(["no-such-run", "--html", str(again), "--tracking-uri", uri]) == 2


def test_the_leaderboards_failed_column_is_not_a_headline_metric():
    from harness.cli.report import _leaderboard

    order, headline = _leaderboard("job,run,status,failed,retrieval/mrr\n0,a,FINISHED,1/4 (25%),0.5\n", ["a"], {})
    assert (order, headline) == (["a"], ["retrieval/mrr"])
