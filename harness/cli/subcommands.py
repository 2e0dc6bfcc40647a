"""The ``harness`` subcommands: name -> (module whose ``main(argv) -> int`` runs it, one-line summary).

Read by the console script (:mod:`harness.cli.main`), which also registers the ``harness_subcommands``
resolver that ``harness --help`` (``conf/hydra/help/harness.yaml``) lists them with.
"""

from omegaconf import OmegaConf

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
    "traces": ("harness.cli.traces", "write the MLflow traces a run or sweep lacks (--all, or --questions ID ...)"),
    "synth": ("harness.cli.synth", "write a question set from your own documents (cloze or llm), filtered"),
    "serve": ("harness.cli.serve", "the embedded model behind transformers serve on loopback (OpenAI chat API)"),
}


def summaries() -> str:
    """The subcommands with their one-line summaries, one line each (for ``harness --help``)."""
    return "\n".join(f"  {name:<11} {summary}" for name, (_, summary) in SUBCOMMANDS.items())


def register_help_resolver() -> None:
    """Registers ``${harness_subcommands:}`` (here, not in :mod:`harness.config.resolvers`: the config
    layer does not import the command line)."""
    if not OmegaConf.has_resolver("harness_subcommands"):
        OmegaConf.register_new_resolver("harness_subcommands", summaries, use_cache=True)
