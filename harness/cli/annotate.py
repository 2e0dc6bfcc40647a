"""``harness annotate``: human evaluation of a finished run.

    harness annotate export RUN [--strategy stratified|worst|random] [--n 30] [--seed 0] [--out sheet.csv]
    harness annotate export RUN [...] --tag-traces NAME     # label the sample's traces in the MLflow UI instead
    harness annotate import RUN SHEET.csv SHEET.csv [...] [--out-dir DIR] [--no-tracking]

RUN is an MLflow run id or run name, or a local run folder holding per_question.jsonl (a run's
output folder). ``export`` writes an annotation sheet: the rubric as comment rows on top, then
one row per sampled answer with an empty column per dimension and an ``annotator`` column. Give
a copy to each annotator; ``import`` reads the filled copies back (two or more annotators), checks
them against the run, and prints and logs (an MLflow run tagged harness.role=human_eval) Cohen's
kappa per dimension and annotator pair, Spearman's rho between the human ratings and every
automated metric and judge column, and the judge's bias with the prediction-powered estimate of
the judge-scored mean.

``export --tag-traces NAME`` writes no sheet: it tags the sampled answers' traces in MLflow with
``harness.annotate`` = NAME, so people find them in the UI's Traces search
(``tags.`harness.annotate` = 'NAME'``) and label them there with a Feedback; ``harness meta-eval RUN
--labels mlflow:<feedback name>`` then reads those labels.

Arguments such as ``human.confidence=0.9``, ``human.sample.worst_column=answer/f1``,
``~human.dimensions.verdict`` or ``seed=1`` are Hydra overrides of the ``human`` config group
(conf/human/default.yaml).
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from pathlib import Path

from hydra.errors import HydraException
from hydra.utils import instantiate

from harness.cli.compose import add_tracking_argument, compose, log_or_keep, run_table, tracker
from harness.data.records import DatasetError

# Where the report files go when MLflow logging fails and no --out-dir was given.
FALLBACK_DIR = "human_eval_report"
_TAG_VALUE = re.compile(r"^[\w.\-]+$")
_OVERRIDE = re.compile(r"^(~human(\.\S*)?|\+?(human|seed|experiment_name|tracking)(\.[^=\s]*)?=.*)$")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="harness annotate", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    overrides_help = ("Hydra overrides of the human config group (conf/human/default.yaml) may follow, e.g. "
                      "human.sample.worst_column=answer/f1, human.confidence=0.9, ~human.dimensions.verdict.")
    export = commands.add_parser("export", help="write an annotation sheet for a sample of a run's answers",
                                 description="Write an annotation sheet (CSV with the rubric) for a seeded "
                                             "sample of a run's answers.", epilog=overrides_help)
    export.add_argument("run", help="MLflow run id or name, or a run folder with per_question.jsonl")
    export.add_argument("--strategy", choices=["stratified", "worst", "random"],
                        help="stratified: proportional by error category (default: human.sample.strategy); "
                             "worst: lowest on human.sample.worst_column; random: uniform")
    export.add_argument("--n", type=int, help="number of answers to sample (default: human.sample.n)")
    export.add_argument("--seed", type=int, help="sampling seed (default: human.sample.seed)")
    export.add_argument("--out", default="annotation_sheet.csv", help="sheet to write (default: %(default)s)")
    export.add_argument("--force", action="store_true", help="replace an existing sheet")
    export.add_argument("--tag-traces", metavar="NAME",
                        help="instead of a sheet, tag the sampled answers' traces in MLflow with harness.annotate=NAME, "
                             "for people to label there (then: harness meta-eval RUN --labels mlflow:<feedback name>)")
    imports = commands.add_parser("import", help="score filled sheets: agreement, correlations, judge calibration",
                                  description="Read filled annotation sheets (two or more annotators) and report "
                                              "kappa, Spearman correlations and the judge's bias and PPI mean.",
                                  epilog=overrides_help)
    imports.add_argument("run", help="the run the sheets were exported from")
    imports.add_argument("sheets", nargs="+", type=Path, help="filled sheets (CSV), one or more per annotator")
    imports.add_argument("--out-dir", type=Path, help="also keep the report files in this folder")
    imports.add_argument("--no-tracking", action="store_true", help="print only; log nothing to MLflow")
    for sub in (export, imports):
        add_tracking_argument(sub)
    args, extra = parser.parse_known_args(argv)
    overrides = [a for a in extra if _OVERRIDE.match(a)]
    unknown = [a for a in extra if not _OVERRIDE.match(a)]
    if args.command == "import":  # overrides given after the sheets land among them
        overrides += [str(s) for s in args.sheets if _OVERRIDE.match(str(s))]
        args.sheets = [s for s in args.sheets if not _OVERRIDE.match(str(s))]
        if not args.sheets:
            parser.error("import needs one or more filled sheets")
    if unknown:
        parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    if getattr(args, "tag_traces", None) is not None and not _TAG_VALUE.match(args.tag_traces):
        parser.error(f"--tag-traces takes a name of letters, digits, '.', '_' or '-' (it goes into a search "
                     f"filter), got {args.tag_traces!r}")
    try:
        cfg = compose(overrides, args.tracking_uri)
        settings = instantiate(cfg.human)
        store = tracker(cfg)
        with tempfile.TemporaryDirectory() as tmp:
            table = run_table(args.run, store, Path(tmp))
            if args.command == "export":
                return _export(args, settings, table, store)
            return _import(args, settings, table, Path(tmp), store)
    except (DatasetError, ValueError, LookupError, FileNotFoundError, FileExistsError, HydraException) as err:
        print(f"harness annotate {args.command}: {err}", file=sys.stderr)
        return 2


def _export(args, settings, table, store) -> int:
    from harness.human.export import write_sheet
    from harness.human.sampling import draw_sample

    s = settings.sample
    sample = draw_sample(table.answered(), args.strategy or s.strategy, args.n or s.n,
                         s.seed if args.seed is None else args.seed, s.worst_column, s.worst_direction,
                         s.category_prefix)
    if args.tag_traces:
        return _tag_traces(args, sample, table, store)
    source = table.run_id or table.path
    header = f"Annotation sheet for run {table.name} ({source}): {sample.describe()}."
    path = write_sheet(Path(args.out), sample, settings.dimensions, header, s.shuffle, overwrite=args.force)
    print(f"Wrote {len(sample.rows)} answers to {path}: {sample.describe()}")
    print(f"Give each annotator a copy; then: harness annotate import {args.run} <filled sheets>")
    return 0


def _tag_traces(args, sample, table, store) -> int:
    """Tags the sample's traces ``harness.annotate`` = NAME and says how to find and label them."""
    from harness.tracking.base import RunRef
    from harness.tracking.mlflow.labels import ANNOTATE_TAG, trace_filter

    if table.run_id is None:
        raise ValueError(f"--tag-traces tags a run's traces in MLflow, but {args.run} is a run folder; give the run's "
                         "id or name")
    ids = [row["question_id"] for row in sample.rows]
    run = RunRef(run_id=table.run_id, name=table.name, experiment_id=table.experiment_id)
    tagged = store.tag_traces(run, ids, ANNOTATE_TAG, args.tag_traces)
    if tagged < len(ids):
        print(f"harness annotate export: {len(ids) - tagged} of the {len(ids)} sampled answers have no trace in run "
              f"{table.name} (logged before the harness wrote traces?)", file=sys.stderr)
    if not tagged:
        return 1
    print(f"Tagged {tagged} traces of run {table.name} ({sample.describe()}) with {ANNOTATE_TAG}={args.tag_traces}.")
    print(f"In the MLflow UI, open the run's experiment, Traces, and search: {trace_filter(args.tag_traces)}")
    print(f"Add a Feedback (e.g. named 'quality') to each trace; then: harness meta-eval {args.run} "
          f"--labels mlflow:quality")
    return 0


def _import(args, settings, table, tmp: Path, store) -> int:
    from harness.human.annotations import read_sheets
    from harness.human.report import build_report

    annotations = read_sheets(args.sheets, table, settings.dimensions)
    report = build_report(table, args.sheets, annotations, settings)
    print(report.text(), end="")
    if args.no_tracking:
        if args.out_dir:
            report.write(args.out_dir)
            print(f"Report files: {args.out_dir}")
        return 0
    from harness.tracking.reports.human_eval import log_human_eval

    params = {"human.dimensions": ",".join(settings.dimensions), "human.confidence": settings.confidence,
              "human.annotators": ",".join(annotations.annotators),
              "human.sheets": ",".join(str(p) for p in args.sheets)}
    folder = args.out_dir or tmp / "human_eval"
    return log_or_keep("annotate import", store,
                       lambda: log_human_eval(report, store, settings.experiment_name, folder, params),
                       report, args.out_dir, FALLBACK_DIR)
