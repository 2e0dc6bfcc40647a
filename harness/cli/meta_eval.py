"""``harness meta-eval``: how far each metric and judge column of a run agrees with people.

    harness meta-eval RUN --labels LABELS.jsonl [--out-dir DIR] [--no-tracking]     # absolute ratings
    harness meta-eval RUN --labels mlflow:quality [...]      # people's feedback "quality" on RUN's traces
    harness meta-eval RUN_A RUN_B --labels PREFS.jsonl [--scale -2 2] [...]         # pairwise: B over A

RUN is an MLflow run id or run name, or a run folder holding per_question.jsonl. A labels line
is ``{"question_id": "q1", "annotator": "a1", "<dimension>": <number>, ...}``: with one run, a
rating of its answer; with two, how much better B's answer is than A's. ``--labels mlflow:NAME``
reads instead the feedback named NAME that people gave on the run's traces in MLflow (run B's
for two runs), one label per person (the feedback source) and question, checked as a file is. Prints, per dimension,
every numeric per-question column sorted by agreement (Pearson, Spearman, Kendall with bootstrap
CIs for ratings; Pearson and Spearman x 100 and sign agreement for preferences), the
inter-annotator ceiling, and logs ``meta_eval.csv`` and a chart to MLflow as a run tagged
harness.role=meta_eval beside the evaluated run.

Arguments such as ``meta_eval.bootstrap.resamples=2000``, ``meta_eval.headline=pearson`` or
``seed=1`` are Hydra overrides of the ``meta_eval`` config group (conf/meta_eval/default.yaml).
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from pathlib import Path

from hydra.errors import HydraException
from hydra.utils import instantiate

from harness.cli.compose import (LABELS_HELP, add_tracking_argument, compose, labels_source, log_or_keep,
                                  parse_with_overrides, run_table, tracker)
from harness.data.records import DatasetError

FALLBACK_DIR = "meta_eval_report"  # where the files go when MLflow logging fails and no --out-dir was given
_OVERRIDE = re.compile(r"^(~meta_eval(\.\S*)?|\+?(meta_eval|seed|experiment_name|tracking)(\.[^=\s]*)?=.*)$")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="harness meta-eval", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs", nargs="+", help="one run (absolute ratings) or two, A then B (pairwise)")
    parser.add_argument("--labels", required=True, help=LABELS_HELP)
    parser.add_argument("--scale", type=float, nargs=2, metavar=("LOW", "HIGH"),
                        help="the labels' scale (default: meta_eval.absolute_scale or meta_eval.pairwise_scale)")
    parser.add_argument("--out-dir", type=Path, help="also keep the report files in this folder")
    parser.add_argument("--no-tracking", action="store_true", help="print only; log nothing to MLflow")
    add_tracking_argument(parser)
    args, overrides = parse_with_overrides(parser, argv, _OVERRIDE)
    if len(args.runs) not in (1, 2):
        parser.error(f"give one run (absolute ratings) or two (pairwise preferences), got {len(args.runs)}")
    try:
        from harness.metaeval.evaluate import meta_evaluate
        from harness.metaeval.settings import Scale

        cfg = compose(overrides, args.tracking_uri)
        settings = instantiate(cfg.meta_eval)
        store = tracker(cfg)
        scale = Scale.of(args.scale, "--scale") if args.scale else None
        with tempfile.TemporaryDirectory() as tmp:
            tables = [run_table(ref, store, Path(tmp) / str(i)) for i, ref in enumerate(args.runs)]
            report = meta_evaluate(tables, labels_source(args.labels, tables, store), settings, scale)
            print(report.text(), end="")
            if args.no_tracking:
                if args.out_dir:
                    report.write(args.out_dir)
                    print(f"Report files: {args.out_dir}")
                return 0
            return _log(report, args, settings, store, Path(tmp) / "meta_eval")
    except (DatasetError, ValueError, LookupError, FileNotFoundError, HydraException) as err:
        print(f"harness meta-eval: {err}", file=sys.stderr)
        return 2


def _log(report, args, settings, store, folder: Path) -> int:
    from harness.tracking.reports.meta_eval import log_meta_eval

    params = {"meta_eval.kind": report.kind, "meta_eval.labels": str(args.labels),
              "meta_eval.bootstrap.resamples": settings.resamples, "meta_eval.bootstrap.confidence": settings.confidence,
              "meta_eval.bootstrap.seed": settings.seed, "meta_eval.headline": settings.headline,
              "meta_eval.scale": " ".join(map(str, args.scale)) if args.scale else "configured"}
    folder = args.out_dir or folder
    return log_or_keep("meta-eval", store, lambda: log_meta_eval(report, store, settings.experiment_name, folder, params),
                       report, args.out_dir, FALLBACK_DIR)
