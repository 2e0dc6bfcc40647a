"""``harness align``: fit a combination of a run's columns to human labels, judged on held-out questions.

    harness align RUN --labels LABELS.jsonl [--name NAME] [--out-dir DIR] [--no-tracking]       # absolute
    harness align RUN_A RUN_B --labels PREFS.jsonl --pairwise [--scale -2 2] [...]              # pairwise

RUN and the labels are those of ``harness meta-eval`` (a labels file, or ``--labels mlflow:NAME``: the
feedback NAME people gave on the run's traces in MLflow). A ridge regression from the run's numeric
per-question columns to the labels is chosen by nested cross-validation grouped by question;
Pearson, Spearman and Kendall (bootstrap CIs) of the combination and of every single column are
printed on the held-out folds and in-sample, beside the annotator ceiling. The combination is
written as a metric config (``<config dir>/metrics/aligned/NAME.yaml``, or ``--out FILE``) that a
later run loads with ``--config-dir <config dir> +metrics/aligned=NAME`` as the column
``aligned/NAME``. Logged to MLflow as a run tagged harness.role=align (``align.csv``, the
held-out scatter plot, the config); ``--no-tracking`` logs nothing.

Overrides such as ``meta_eval.align.outer_folds=10`` or ``meta_eval.bootstrap.resamples=2000`` are
Hydra overrides of the ``meta_eval`` group (conf/meta_eval/default.yaml).

    harness align RUN --labels LABELS.jsonl --few-shot 4 judge=openai 'rubric=[answer_score]' [...]

writes K labelled examples (picked from the training folds, spread over the label range) into a
prompt rubric's prompt, judges the run's answers with it (the judge and rubric are the usual
``judge=...`` and ``rubric=[...]`` overrides), and prints its agreement with people before and
after on held-out folds; the new rubric goes to ``<config dir>/rubric/NAME.yaml``.
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

FALLBACK_DIR = "align_report"
_OVERRIDE = re.compile(r"^(\+?(meta_eval|seed|experiment_name|tracking|judge|rubric|rubrics|models|cache)(\.[^=\s]*)?=.*)$")
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="harness align", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs", nargs="+", help="one run (absolute ratings) or two, A then B (--pairwise)")
    parser.add_argument("--labels", required=True, help=LABELS_HELP)
    parser.add_argument("--pairwise", action="store_true", help="the labels prefer run B's answer over run A's")
    parser.add_argument("--scale", type=float, nargs=2, metavar=("LOW", "HIGH"), help="the labels' scale")
    parser.add_argument("--dimension", help="the labels' dimension to fit (default: the first)")
    parser.add_argument("--name", default="judge", help="the column aligned/NAME (default: judge)")
    parser.add_argument("--config-dir", type=Path, default=Path("conf"),
                        help="writes metrics/aligned/NAME.yaml under it (default: ./conf)")
    parser.add_argument("--out", type=Path, help="write the metric config to this file instead")
    parser.add_argument("--exclude", nargs="+", default=[], metavar="PATTERN",
                        help="columns never used as inputs (fnmatch), besides meta_eval.align.exclude")
    parser.add_argument("--few-shot", type=int, metavar="K", help="align a prompt rubric by K labelled examples "
                        "in its prompt instead of fitting a combination (absolute labels)")
    parser.add_argument("--out-dir", type=Path, help="also keep align.csv, align.txt and align.png here")
    parser.add_argument("--no-tracking", action="store_true", help="print and write files only; log nothing")
    add_tracking_argument(parser)
    return parser


def main(argv: list[str]) -> int:
    parser = _parser()
    args, overrides = parse_with_overrides(parser, argv, _OVERRIDE)
    if len(args.runs) != (2 if args.pairwise else 1):
        parser.error(f"give {'two runs, A then B, with --pairwise' if args.pairwise else 'one run (or two with --pairwise)'}"
                     f"; got {len(args.runs)}")
    if not _NAME.match(args.name):
        parser.error(f"--name must be a plain identifier (it names the column aligned/NAME), got {args.name!r}")
    try:
        from harness.align.evaluate import align
        from harness.align.settings import AlignSettings
        from harness.metaeval.settings import Scale

        cfg = compose(overrides, args.tracking_uri)
        settings = instantiate(cfg.meta_eval)
        align_settings = AlignSettings.of(settings.align, args.exclude, settings.seed)
        store = tracker(cfg)
        scale = Scale.of(args.scale, "--scale") if args.scale else None
        with tempfile.TemporaryDirectory() as tmp:
            tables = [run_table(ref, store, Path(tmp) / str(i)) for i, ref in enumerate(args.runs)]
            if args.few_shot is not None:
                report, config = _few_shot(args, cfg, tables, settings, align_settings, scale, store)
            else:
                report = align(tables, labels_source(args.labels, tables, store), settings, align_settings, scale,
                               args.dimension)
                print(report.text(), end="")
                config = args.out or args.config_dir / "metrics" / "aligned" / f"{args.name}.yaml"
                config.parent.mkdir(parents=True, exist_ok=True)
                config.write_text(report.metric_config(args.name), encoding="utf-8")
                print(f"Metric config: {config} (load it with: harness --config-dir {config.parents[2]} "
                      f"+metrics/aligned={args.name} ...; column aligned/{args.name})")
            if args.no_tracking:
                if args.out_dir:
                    report.write(args.out_dir)
                    print(f"Report files: {args.out_dir}")
                return 0
            folder = args.out_dir or Path(tmp) / "align"
            folder.mkdir(parents=True, exist_ok=True)
            (folder / config.name).write_text(config.read_text(encoding="utf-8"), encoding="utf-8")
            return _log(report, args, settings, store, folder)
    except (DatasetError, ValueError, LookupError, FileNotFoundError, HydraException) as err:
        print(f"harness align: {err}", file=sys.stderr)
        return 2


def _few_shot(args, cfg, tables, settings, align_settings, scale, store):
    """``--few-shot K``: the report, and the written rubric config's path."""
    from omegaconf import OmegaConf

    from harness.align.few_shot_report import few_shot_alignment
    from harness.metaeval.labels import read_labels

    if len(tables) != 1:
        raise ValueError("--few-shot aligns a rubric on absolute labels of one run")
    labels = read_labels(labels_source(args.labels, tables, store), tables[0].by_id.keys(),
                         scale or settings.absolute_scale, tables[0].name)
    dimension = args.dimension or labels.dimensions[0]
    rubric = next(iter(cfg.rubrics))
    name = args.name if args.name != "judge" else f"{rubric}_few_shot"
    if not _NAME.match(name):
        raise ValueError(f"--name must be a plain identifier, got {name!r}")
    config = OmegaConf.to_container(cfg.rubrics[rubric], resolve=True, enum_to_str=True)
    report = few_shot_alignment(instantiate(cfg.judge), config, tables[0], labels, dimension, args.few_shot,
                                settings, align_settings, scale or settings.absolute_scale, name)
    print(report.text(), end="")
    path = args.out or args.config_dir / "rubric" / f"{name}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(report.rubric_config(name), encoding="utf-8")
    print(f"Rubric config: {path} (use it with: harness --config-dir {path.parents[1]} 'rubric=[{name}]' ...)")
    return report, path


def _log(report, args, settings, store, folder: Path) -> int:
    from harness.tracking.reports.align import log_align

    params = {"align.kind": report.kind, "align.labels": str(args.labels), "align.dimension": report.dimension,
              "align.name": args.name, "align.few_shot": args.few_shot if args.few_shot is not None else "none",
              "meta_eval.bootstrap.resamples": settings.resamples, "meta_eval.bootstrap.seed": settings.seed}
    if hasattr(report, "design"):
        params.update({"align.outer_folds": report.settings.outer_folds, "align.inner_folds": report.settings.inner_folds,
                       "align.alphas": " ".join(map(str, report.settings.alphas)),
                       "align.columns": " ".join(report.design.columns)[:6000]})
    return log_or_keep("align", store, lambda: log_align(report, store, settings.experiment_name, folder, params),
                       report, args.out_dir, FALLBACK_DIR)
