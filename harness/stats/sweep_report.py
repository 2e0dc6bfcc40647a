"""A sweep's paired comparison as an object that renders itself, in the manner of ranx's ``Report``.

``StatsReport`` holds the numbers; ``to_dataframe()``, ``to_csv()``, ``to_markdown()`` and
``plot()`` render them. Printing and logging happen at the edge (the tracking callback and the CLI).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # annotations only: the statistics (scipy, statsmodels) load when a sweep is compared
    from harness.stats.sweep import SweepResult


# Columns of the short view (to_markdown, the console table); "CI" is labelled with its level.
SUMMARY_COLUMNS = ("challenger", "metric", "mean diff", "CI", "d", "p", "p corr.", "n (missing)", "verdict")


def ci_label(alpha: float, correction: str = "none") -> str:
    """The confidence interval's label for a significance level and the correction its levels follow.

    Example:
        >>> ci_label(0.05), ci_label(0.1), ci_label(0.01, "holm")
        ('95% CI', '90% CI', '99% CI (holm)')
    """
    corrected = "" if correction == "none" else f" ({correction})"
    return f"{round(100 * (1 - alpha), 6):g}% CI{corrected}"


@dataclass
class StatsReport:
    """Every challenger compared with the champion.

    Attributes:
        champion: the run the others are compared with.
        result: per challenger and metric, the paired comparison and the verdict.
        alpha: the significance level (the bootstrap interval is at ``1 - alpha``).
        run_metrics: per challenger, ``stats/<figure>/<metric>`` values to log on its own run.
        settings: the settings as used (the primary metric resolved), logged with a sweep so that
            ``harness compare`` can repeat the comparison exactly.
    """

    champion: str
    result: SweepResult
    alpha: float
    run_metrics: dict[str, dict[str, float]] = field(default_factory=dict)
    settings: dict[str, Any] = field(default_factory=dict)

    @property
    def ci_label(self) -> str:
        """The confidence the intervals hold jointly under the correction: ``1 - alpha`` times the
        share of the budget the comparisons with the champion spend (the front's pairs spend the rest)."""
        decision = self.result.decision
        alpha = decision.settings.get("family_alpha", self.alpha) if decision is not None else self.alpha
        return ci_label(alpha, self.result.correction)

    def to_dataframe(self):
        """One row per (challenger, metric) with every figure (``SweepResult.to_rows``)."""
        import pandas as pd

        # object dtype: counts stay integers and missing values stay empty, as in the rows
        return pd.DataFrame(self.result.to_rows(), dtype=object)

    def verdicts_dataframe(self):
        """One row per (challenger, metric): the verdict at the margin, the reason in words, and the
        challenger's winner with its reason."""
        import pandas as pd

        columns = ["challenger", "metric", "role", "verdict", "margin", "questions_needed", "reason", "winner",
                   "winner_reason"]
        return pd.DataFrame(self.result.verdict_rows(), columns=columns, dtype=object)

    def to_csv(self, path: Path | None = None) -> str:
        """The full table as CSV (also written to ``path`` when given)."""
        text = self.to_dataframe().to_csv(index=False) if self.result.challengers else ""
        if path is not None:
            Path(path).write_text(text)
        return text

    def verdicts_to_csv(self, path: Path | None = None) -> str:
        text = self.verdicts_dataframe().to_csv(index=False) if self.result.challengers else ""
        if path is not None:
            Path(path).write_text(text)
        return text

    @property
    def table_csv(self) -> str:
        return self.to_csv()

    @property
    def verdicts_csv(self) -> str:
        return self.verdicts_to_csv()

    @property
    def title(self) -> str:
        return f"Paired comparison with the champion: {self.champion} (p corrected: {self.result.correction})"

    def summary_columns(self) -> list[str]:
        return [self.ci_label if c == "CI" else c for c in SUMMARY_COLUMNS]

    def summary_rows(self) -> list[list[str]]:
        """The short view, formatted: one row of strings per (challenger, metric)."""
        rows = []
        for challenger in self.result.challengers:
            for c in challenger.metrics:
                ci = "-" if c.ci_low is None else f"[{c.ci_low:+.4f}, {c.ci_high:+.4f}]"
                rows.append([challenger.name, c.spec.name, _num(c.mean_difference, "+.4f"), ci,
                             _num(c.cohens_d, ".2f"),
                             _num(c.p_value, ".3g") if c.p_value is not None else (c.reason or "-"),
                             _num(c.p_corrected, ".3g"), f"{c.n} ({c.missing})", c.verdict or "-"])
        return rows

    def verdict_lines(self) -> list[tuple[str, str]]:
        """(challenger, "<primary verdict> at margin m (reason); winner <who> - <reason>") per challenger."""
        lines = []
        for c in self.result.challengers:
            primary = next((m for m in c.metrics if m.spec.role == "primary"), c.metrics[0])
            lines.append((c.name, f"{primary.decision.reason} (margin {primary.spec.margin:g}); "
                                  f"winner {c.verdict.winner} - {c.verdict.reason}"))
        return lines

    def brief_rows(self, short: dict[str, str]) -> tuple[list[str], list[list[str]]]:
        """One row per challenger: its primary metric's difference, CI, corrected p and n, the
        verdict at the margin, the winner, and each guard as ``label difference`` with ``!`` where it
        is shown worse. ``short``: the short label of every metric."""
        headers = ["challenger", "diff", self.ci_label, f"p {self.result.correction}", "n", "verdict", "winner",
                   "guards"]
        rows = []
        for challenger in self.result.challengers:
            primary = next((m for m in challenger.metrics if m.spec.role == "primary"), challenger.metrics[0])
            ci = "-" if primary.ci_low is None else f"[{primary.ci_low:+.4f}, {primary.ci_high:+.4f}]"
            guards = []
            for g in (m for m in challenger.metrics if m.spec.role == "guard"):
                regressed = g.verdict == "worse"
                guards.append(f"{short.get(g.spec.name, g.spec.name)} {_num(g.mean_difference, '+.4f')}"
                              + ("!" if regressed else ""))
            rows.append([challenger.name, _num(primary.mean_difference, "+.4f"), ci, _num(primary.p_corrected, ".3g"),
                         str(primary.n), primary.verdict or "-", challenger.verdict.winner, " ".join(guards) or "-"])
        return headers, rows

    def to_markdown(self) -> str:
        """The short view as a Markdown table, then one verdict line per challenger."""
        import pandas as pd

        table = pd.DataFrame(self.summary_rows(), columns=self.summary_columns()).to_markdown(index=False)
        verdicts = "\n".join(f"- **{name}**: {text}" for name, text in self.verdict_lines())
        return f"### {self.title}\n\n{table}\n\n{verdicts}\n"

    def plot(self, path: Path) -> Path:
        """Mean difference with its bootstrap CI per challenger, one panel per metric; a PNG at ``path``."""
        import matplotlib.pyplot as plt

        fig = self.figure()
        fig.savefig(path, dpi=120)
        plt.close(fig)
        return Path(path)

    def figure(self):
        """The plot's figure: each difference with the interval its verdict read (at the level the
        sweep's correction tested it at), the metric's margin as a grey band around 0; a filled
        marker is a difference significant after the correction (its interval leaves out 0), a hollow
        one is not, so the figure never contradicts the verdicts."""
        import textwrap

        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        from matplotlib.ticker import MaxNLocator

        from harness.console import short_names

        challengers = self.result.challengers
        metrics = [m.spec.name for m in challengers[0].metrics]
        short, _, _ = short_names([self.champion, *(c.name for c in challengers)])
        names = [textwrap.shorten(short[c.name], 40, placeholder="...") for c in challengers]
        # Rows 0.28 inch apart at any number of runs; a few x ticks, slanted, so labels never overlap.
        fig, axes = plt.subplots(1, len(metrics), figsize=(5 * len(metrics), 0.28 * len(names) + 1.8),
                                 squeeze=False, layout="constrained")
        # The champion's name can be long: it goes once, wrapped, above all panels.
        fig.suptitle(textwrap.fill(f"challenger - champion ({short[self.champion]})", 40 * len(metrics)), fontsize=8)
        for axis, metric in zip(axes[0], metrics):
            for y, challenger in enumerate(challengers):
                c = next(m for m in challenger.metrics if m.spec.name == metric)
                if c.mean_difference is None:
                    continue
                # an end no shift reaches (too few questions) is drawn to the panel's edge
                low = c.mean_difference - (c.ci_low if c.ci_low is not None and math.isfinite(c.ci_low)
                                           else c.mean_difference)
                high = (c.ci_high if c.ci_high is not None and math.isfinite(c.ci_high)
                        else c.mean_difference) - c.mean_difference
                significant = c.p_corrected is not None and c.p_corrected < self.alpha
                axis.errorbar(c.mean_difference, y, xerr=[[low], [high]], fmt="o", capsize=3,
                              color="C0", markerfacecolor="C0" if significant else "white")
            margin = challengers[0].metrics[metrics.index(metric)].spec.margin
            if margin > 0:
                axis.axvspan(-margin, margin, color="grey", alpha=0.15, linewidth=0)
            axis.axvline(0.0, color="grey", linewidth=0.8)
            axis.set_yticks(range(len(names)), names, fontsize=7)
            axis.set_ylim(-0.6, len(names) - 0.4)
            axis.xaxis.set_major_locator(MaxNLocator(nbins=4))
            axis.tick_params(axis="x", labelsize=7, labelrotation=30)
            axis.set_title(textwrap.fill(metric, 45), fontsize=8)
            axis.set_xlabel(f"mean difference, {self.ci_label}; band: margin ±{margin:g}\n"
                            f"filled: significant after {self.result.correction} correction", fontsize=7)
        return fig


def _num(value: float | None, spec: str) -> str:
    return "-" if value is None else format(value, spec)
