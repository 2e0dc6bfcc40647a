"""Reference check: QAGS scored as a predictions run, then ``harness meta-eval`` on its folder.

Reproduces the published UniEval correlations in ../shared/data/qags/README.md to 1e-6 (passed
through the predictions file's ``metrics``) and the README's token-overlap faithfulness baseline.
"""

from __future__ import annotations

import csv
import json
import os
import sys
from pathlib import Path

import pytest
from scipy.stats import pearsonr, zscore

from harness.cli.meta_eval import main as meta_eval
from harness.config.resolvers import PROJECT_ROOT
from harness.metaeval.qags import write_qags_run_inputs
from tests.forkserver import run as forked

QAGS = PROJECT_ROOT.parent / "shared" / "data" / "qags"
# The README's tables: (Pearson, Spearman, Kendall) against human_consistency.
UNIEVAL = {"xsum": (0.461376, 0.487920, 0.399218), "cnndm": (0.681681, 0.662255, 0.531636)}
FAITHFULNESS = {"xsum": (0.2969, 0.2989, 0.2481), "cnndm": (0.3722, 0.1947, 0.1606)}

pytestmark = pytest.mark.skipif(not (QAGS / "README.md").is_file(),
                                reason=f"the QAGS reference data is not at {QAGS}")


@pytest.mark.slow
@pytest.mark.parametrize("name", ["xsum", "cnndm"])
def test_meta_eval_reproduces_the_published_figures(tmp_path, name, capsys):
    write_qags_run_inputs(QAGS / f"qags_{name}.jsonl", tmp_path)
    run = tmp_path / "run"
    command = [sys.executable, "-m", "harness", "dataset=questions_jsonl", "dataset.name=qags",
               f"dataset.questions={tmp_path / 'questions.jsonl'}", f"dataset.documents={tmp_path / 'docs'}",
               "chunker=none", "generator=predictions", f"generator.path={tmp_path / 'preds.jsonl'}",
               "metrics.answer.bertscore=null", "tracking=none", f"cache.dir={tmp_path / 'cache'}",
               # a combined column (z-mean) the meta-evaluation sees like any other
               "++metrics.combined.combinations.overlap_unieval={answer/faithfulness:1.0,external/unieval:1.0}",
               f"hydra.run.dir={run}"]
    env = {**os.environ, "PYTHONPATH": str(PROJECT_ROOT)}
    done = forked(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    out = tmp_path / "report"
    assert meta_eval([str(run), "--labels", str(tmp_path / "labels.jsonl"), "--scale", "0", "1",
                      "--no-tracking", "--out-dir", str(out), "meta_eval.bootstrap.resamples=100"]) == 0
    rows = {r["column"]: r for r in csv.DictReader((out / "meta_eval.csv").open())}
    figures = {column: tuple(float(rows[column][s]) for s in ("pearson", "spearman", "kendall"))
               for column in ("external/unieval", "answer/faithfulness")}
    assert figures["external/unieval"] == pytest.approx(UNIEVAL[name], abs=1e-6)
    assert figures["answer/faithfulness"] == pytest.approx(FAITHFULNESS[name], abs=1e-4)
    assert int(rows["external/unieval"]["n"]) == {"xsum": 239, "cnndm": 235}[name]
    # combined/overlap_unieval is the mean of the two columns' z-scores (population std), per question
    table = [json.loads(line) for line in (run / "per_question.jsonl").open()]
    expected = (zscore([r["answer/faithfulness"] for r in table]) + zscore([r["external/unieval"] for r in table])) / 2
    assert [r["combined/overlap_unieval"] for r in table] == pytest.approx(list(expected), abs=1e-12)
    assert "combined/overlap_pmi" not in table[0]  # no pmi judge in this run: no column
    human = [float(json.loads(line)["consistency"]) for line in (tmp_path / "labels.jsonl").open()]
    assert float(rows["combined/overlap_unieval"]["pearson"]) == pytest.approx(pearsonr(expected, human)[0], abs=1e-9)
    print(name, figures)  # shown with -s: the measured figures
    assert "external/unieval" in capsys.readouterr().out
