"""Meta-evaluation fixtures: the real ``meta_eval`` config, run folders and labels files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hydra.utils import instantiate

from harness.results.table import write_table


@pytest.fixture
def settings_for(compose):
    """settings_for(overrides) -> the composed ``conf/meta_eval/default.yaml`` as MetaEvalSettings."""
    return lambda overrides=(): instantiate(compose(list(overrides)).meta_eval)


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def run_folder(root: Path, name: str, columns: dict[str, list]) -> Path:
    """A run folder whose per-question table has questions q1..qN and the given columns (None: absent)."""
    size = len(next(iter(columns.values())))
    rows = []
    for i in range(size):
        row = {"question_id": f"q{i + 1}", "answer": f"answer {i + 1}"}
        row.update({column: values[i] for column, values in columns.items() if values[i] is not None})
        rows.append(row)
    write_table(root / name, rows)
    return root / name


def labels_file(path: Path, dimension: str, ratings: dict[str, list]) -> Path:
    """``{annotator: [rating of q1, q2, ...]}`` -> a labels JSONL file (None: not labelled)."""
    rows = [{"question_id": f"q{i + 1}", "annotator": annotator, dimension: value}
            for annotator, values in ratings.items() for i, value in enumerate(values) if value is not None]
    return write_jsonl(path, rows)
