"""The human-evaluation report: agreement, correlations and calibration, as text, CSV and metrics."""

from __future__ import annotations

import csv
import io
import math
from dataclasses import asdict, dataclass, field
from pathlib import Path

from harness.human.agreement import PairAgreement, pairwise_agreement
from harness.human.annotations import Annotations
from harness.human.calibration import Calibration, calibrate
from harness.human.correlation import Correlation, correlations
from harness.human.settings import HumanEvalSettings
from harness.human.table import RunTable


@dataclass
class HumanEvalReport:
    """Everything ``harness annotate import`` computes from a run and its filled sheets."""

    run: RunTable
    sheets: list[Path]
    annotations: Annotations
    agreement: list[PairAgreement]
    correlations: list[Correlation]
    calibrations: list[Calibration]
    target_kappa: float
    kappa_decimals: int
    notes: list[str] = field(default_factory=list)

    @property
    def dimensions(self) -> list[str]:
        return list(self.annotations.dimensions)

    def human_means(self) -> dict[str, float]:
        """Each dimension's mean rating over every rated question (annotators averaged first)."""
        means = {}
        for dim in self.dimensions:
            ratings = list(self.annotations.mean_rating(dim).values())
            means[dim] = sum(ratings) / len(ratings)
        return means

    def metrics(self) -> dict[str, float]:
        """Flat metric names -> values for the tracker; undefined (NaN) values are left out."""
        out: dict[str, float] = {"human/annotators": len(self.annotations.annotators),
                                 "human/questions": len(self.annotations.question_ids),
                                 "human/ratings": len(self.annotations.items)}
        for dim, mean in self.human_means().items():
            out[f"human/{dim}/mean"] = mean
        for dim in self.dimensions:
            pairs = [a for a in self.agreement if a.dimension == dim]
            for a in pairs:
                out[f"human/{dim}/kappa/{a.pair}"] = a.kappa
                out[f"human/{dim}/kappa_quadratic/{a.pair}"] = a.kappa_quadratic
            for key in ("kappa", "kappa_quadratic"):
                values = [getattr(a, key) for a in pairs if not math.isnan(getattr(a, key))]
                if values:
                    out[f"human/{dim}/{key}_mean"] = sum(values) / len(values)
        for c in self.correlations:
            out[f"human/{c.dimension}/spearman/{c.column}"] = c.rho
        for c in self.calibrations:
            prefix = f"human/{c.dimension}"
            out.update({f"{prefix}/bias": c.bias, f"{prefix}/judge_mean": c.judge_mean,
                        f"{prefix}/judge_mean_labelled": c.judge_mean_labelled,
                        f"{prefix}/ppi_mean": c.ppi_mean, f"{prefix}/ppi_ci_low": c.ppi_low,
                        f"{prefix}/ppi_ci_high": c.ppi_high, f"{prefix}/human_ci_low": c.human_low,
                        f"{prefix}/human_ci_high": c.human_high})
        return {k: float(v) for k, v in out.items() if not (isinstance(v, float) and math.isnan(v))}

    def agreement_csv(self) -> str:
        return _csv([asdict(a) for a in self.agreement], list(PairAgreement.__dataclass_fields__))

    def correlation_csv(self) -> str:
        return _csv([asdict(c) for c in self.correlations], list(Correlation.__dataclass_fields__))

    def calibration_csv(self) -> str:
        return _csv([asdict(c) for c in self.calibrations], list(Calibration.__dataclass_fields__))

    def files(self) -> dict[str, str]:
        """Artifact name -> content."""
        return {"annotations.csv": self.annotations.to_csv(), "agreement.csv": self.agreement_csv(),
                "correlation.csv": self.correlation_csv(), "calibration.csv": self.calibration_csv(),
                "report.txt": self.text()}

    def write(self, folder: Path) -> list[Path]:
        """Writes :meth:`files` into ``folder``; returns the paths."""
        folder.mkdir(parents=True, exist_ok=True)
        paths = []
        for name, text in self.files().items():
            paths.append(folder / name)
            paths[-1].write_text(text, encoding="utf-8")
        return paths

    def text(self) -> str:
        """The report as printed: agreement, correlations, calibration, notes."""
        from rich.console import Console
        from rich.table import Table

        console = Console(file=io.StringIO(), width=140, record=True)
        console.print(f"Human evaluation of run {self.run.name}: {len(self.annotations.items)} ratings of "
                      f"{len(self.annotations.question_ids)} questions by {', '.join(self.annotations.annotators)} "
                      f"(sheets: {', '.join(p.name for p in self.sheets)})")
        agreement = Table(title="Inter-annotator agreement (Cohen's kappa; Landis & Koch)")
        for column in ("dimension", "pair", "n", "agreement", "kappa", "", "kappa (quadratic)", ""):
            agreement.add_column(column)
        kappa_format = f".{self.kappa_decimals}f"
        for a in self.agreement:
            agreement.add_row(a.dimension, f"{a.annotator_a} / {a.annotator_b}", str(a.n), f"{a.observed:.0%}",
                              _num(a.kappa, kappa_format), a.kappa_label, _num(a.kappa_quadratic, kappa_format),
                              a.kappa_quadratic_label)
        console.print(agreement)
        low = sorted({a.dimension for a in self.agreement
                      if math.isnan(a.kappa_quadratic) or a.kappa_quadratic < self.target_kappa})
        if low:
            console.print(f"Below the target kappa {self.target_kappa:g} (quadratic): {', '.join(low)}; "
                          "revise the rubric or train the annotators before trusting these ratings.")
        if self.correlations:
            matrix = Table(title="Spearman's rho: mean human rating vs automated columns (n in correlation.csv)")
            matrix.add_column("column")
            for dim in self.dimensions:
                matrix.add_column(dim, justify="right")
            rho = {(c.dimension, c.column): c.rho for c in self.correlations}
            columns = list(dict.fromkeys(c.column for c in self.correlations))
            shown = [col for col in columns if any(not math.isnan(rho.get((d, col), math.nan)) for d in self.dimensions)]
            for column in shown:
                matrix.add_row(column, *(_num(rho.get((d, column)), "+.2f") for d in self.dimensions))
            console.print(matrix)
            if len(shown) < len(columns):
                console.print(f"({len(columns) - len(shown)} column(s) constant on the rated questions, rho undefined: "
                              f"{', '.join(c for c in columns if c not in shown)})")
        if self.calibrations:
            level = f"{self.calibrations[0].confidence:.0%}"
            calibration = Table(title=f"Judge vs human: bias and the prediction-powered mean ({level} CI)")
            for column in ("dimension", "judge column", "n / N", "human mean", "judge mean (same)", "bias",
                           "judge mean (all N)", "PPI mean", "PPI CI", "human-only CI"):
                calibration.add_column(column)
            for c in self.calibrations:
                calibration.add_row(c.dimension, c.judge_column, f"{c.n_labelled} / {c.n_judged}", _num(c.human_mean),
                                    _num(c.judge_mean_labelled), _num(c.bias, "+.2f"), _num(c.judge_mean),
                                    _num(c.ppi_mean), f"[{_num(c.ppi_low)}, {_num(c.ppi_high)}]",
                                    f"[{_num(c.human_low)}, {_num(c.human_high)}]")
            console.print(calibration)
        for note in self.notes:
            console.print(f"Note: {note}")
        return console.export_text()


def build_report(run: RunTable, sheets: list[Path], annotations: Annotations,
                 settings: HumanEvalSettings) -> HumanEvalReport:
    """Computes agreement, correlations and calibration from validated annotations."""
    calibrations, notes = calibrate(annotations, run, settings.confidence, settings.min_pairs)
    judged = [d for d in annotations.dimensions.values() if d.judge is not None]
    if not judged:
        notes.append("no dimension names a judge column (human.dimensions.<name>.judge): no bias or PPI")
    agreement = pairwise_agreement(annotations, settings)
    if not agreement:
        notes.append(f"no annotator pair shares {settings.min_pairs} or more questions: no kappa")
    return HumanEvalReport(run=run, sheets=sheets, annotations=annotations, agreement=agreement,
                           correlations=correlations(annotations, run, settings.min_pairs),
                           calibrations=calibrations, target_kappa=settings.target_kappa,
                           kappa_decimals=settings.kappa_decimals, notes=notes)


def _num(value: float | None, spec: str = ".3f") -> str:
    return "-" if value is None or math.isnan(value) else format(value, spec)


def _csv(rows: list[dict], columns: list[str]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()
