"""``harness meta-eval``: how far each metric and judge column of a run agrees with people.

    harness meta-eval RUN --labels LABELS.jsonl [--out-dir DIR] [--no-tracking]     # absolute ratings
    harness meta-eval RUN_A RUN_B --labels PREFS.jsonl [--scale -2 2] [...]         # pairwise: B over A

RUN is an MLflow run id or run name, or a run folder holding per_question.jsonl. A labels line
is ``{"question_id": "q1", "annotator": "a1", "<dimension>": <number>, ...}``: with one run, a
rating of its answer; with two, how much better B's answer is than A's. Prints, per dimension,
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

from harness.config.resolvers import PROJECT_ROOT
from harness.data.records import DatasetError

FALLBACK_DIR = "meta_eval_report"  # where the files go when MLflow logging fails and no --out-dir was given
_OVERRIDE = re.compile(r"^(~meta_eval(\.\S*)?|\+?(meta_eval|seed|experiment_name)(\.[^=\s]*)?=.*)$")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="harness meta-eval", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs", nargs="+", help="one run (absolute ratings) or two, A then B (pairwise)")
    parser.add_argument("--labels", type=Path, required=True, help="human labels (JSONL)")
    parser.add_argument("--scale", type=float, nargs=2, metavar=("LOW", "HIGH"),
                        help="the labels' scale (default: meta_eval.absolute_scale or meta_eval.pairwise_scale)")
    parser.add_argument("--out-dir", type=Path, help="also keep the report files in this folder")
    parser.add_argument("--no-tracking", action="store_true", help="print only; log nothing to MLflow")
    parser.add_argument("--tracking-uri", default="sqlite:///mlflow.db", help="MLflow store (default: %(default)s)")
    args, extra = parser.parse_known_args(argv)
    unknown = [a for a in extra if not _OVERRIDE.match(a)]
    if unknown:
        parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    overrides = [a for a in [*args.runs, *extra] if _OVERRIDE.match(a)]
    args.runs = [a for a in args.runs if not _OVERRIDE.match(a)]
    if len(args.runs) not in (1, 2):
        parser.error(f"give one run (absolute ratings) or two (pairwise preferences), got {len(args.runs)}")
    try:
        from harness.metaeval.evaluate import meta_evaluate
        from harness.metaeval.settings import Scale

        cfg = _compose(overrides)
        settings = instantiate(cfg.meta_eval)
        scale = Scale.of(args.scale, "--scale") if args.scale else None
        with tempfile.TemporaryDirectory() as tmp:
            tables = [_table(ref, args.tracking_uri, Path(tmp) / str(i)) for i, ref in enumerate(args.runs)]
            report = meta_evaluate(tables, args.labels, settings, scale)
            print(report.text(), end="")
            if args.no_tracking:
                if args.out_dir:
                    report.write(args.out_dir)
                    print(f"Report files: {args.out_dir}")
                return 0
            return _log(report, args, settings, cfg.tracking.get("artifact_location"), Path(tmp) / "meta_eval")
    except (DatasetError, ValueError, LookupError, FileNotFoundError, HydraException) as err:
        print(f"harness meta-eval: {err}", file=sys.stderr)
        return 2


def _log(report, args, settings, artifact_location: str | None, folder: Path) -> int:
    from harness.tracking.meta_eval import log_meta_eval

    params = {"meta_eval.kind": report.kind, "meta_eval.labels": str(args.labels),
              "meta_eval.bootstrap.resamples": settings.resamples, "meta_eval.bootstrap.confidence": settings.confidence,
              "meta_eval.bootstrap.seed": settings.seed, "meta_eval.headline": settings.headline,
              "meta_eval.scale": " ".join(map(str, args.scale)) if args.scale else "configured"}
    try:
        run_id, experiment_id = log_meta_eval(report, args.tracking_uri, settings.experiment_name,
                                              artifact_location, args.out_dir or folder, params)
    except Exception as err:  # the report is computed: keep it on disk, report the tracking failure
        kept = args.out_dir or Path(FALLBACK_DIR)
        report.write(kept)
        print(f"harness meta-eval: logging to {args.tracking_uri} failed ({err!r}); the report files are in {kept}",
              file=sys.stderr)
        return 1
    print(f"Logged as run {run_id} (tag harness.role=meta_eval) in experiment {experiment_id}"
          + (f"; report files: {args.out_dir}" if args.out_dir else ""))
    return 0


def _table(ref: str, tracking_uri: str, folder: Path):
    from harness.human.table import read_run_table
    from harness.tracking.runs import open_run_table

    folder.mkdir(parents=True, exist_ok=True)
    path, facts = open_run_table(ref, tracking_uri, folder)
    return read_run_table(path, name=facts["name"], run_id=facts["run_id"], experiment_id=facts["experiment_id"])


def _compose(overrides: list[str]):
    from hydra import compose, initialize_config_dir

    from harness.config import register
    from harness.config.allowlist import check_targets

    register()
    with initialize_config_dir(version_base="1.3", config_dir=str(PROJECT_ROOT / "conf")):
        cfg = compose("config", overrides=overrides)
    check_targets(cfg)
    return cfg
