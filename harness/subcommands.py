"""The ``harness`` subcommands: name -> (module whose ``main(argv) -> int`` runs it, one-line summary).

Read by the console script (:mod:`harness.cli.main`) and by ``harness --help``.
"""

SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "compare": ("harness.cli.compare",
                "paired significance report for runs already logged (champion vs challengers)"),
    "annotate": ("harness.cli.annotate",
                 "export annotation sheets of a run, import them: kappa, correlations, judge calibration"),
    "meta-eval": ("harness.cli.meta_eval",
                  "how far every metric and judge column of a run agrees with human labels"),
    "align": ("harness.cli.align",
              "fit a combination of a run's columns to human labels; agreement on held-out questions"),
    "reproduce": ("harness.cli.reproduce",
                  "re-run a logged run from its logged overrides and diff every metric against it"),
    "report": ("harness.cli.report",
               "one self-contained HTML file for a sweep or run: leaderboard, statistics, answers"),
    "sync": ("harness.cli.sync", "log a sweep's results that never reached the tracking server"),
}
