"""The annotation sheet: a CSV that opens in any spreadsheet and reads back with :mod:`.annotations`.

Layout: comment rows (first cell starting with ``#``) carrying the instructions and the rubric,
then a header row, then one row per sampled answer::

    # Annotation sheet for run ... : stratified sample of 20 (seed 0): correct 3/12, ...
    # relevance (1-5): Does the answer address the query?
    #   1 = Completely irrelevant - answer does not address the query at all
    ...
    question_id,question,gold_answer,answer,contexts,relevance,...,annotator,notes

The error category and the metrics are left out on purpose: annotators who saw them would be
anchored by them. The file is plain UTF-8 and the comment rows are written unquoted, so that
``pandas.read_csv(path, comment="#")`` reads the table as it is (a byte-order mark or a quoted
``"# ..."`` row would defeat its comment handling); sheets saved back with a byte-order mark by a
spreadsheet program still read (:data:`READ_ENCODING`).
"""

from __future__ import annotations

import csv
import io
import random
from pathlib import Path
from typing import Any

from harness.config.files import replace_file
from harness.human.sampling import Sample
from harness.human.settings import Dimension

COMMENT = "#"
ID, ANNOTATOR, NOTES = "question_id", "annotator", "notes"
SHOWN = (ID, "question", "gold_answer", "answer", "contexts")
ENCODING = "utf-8"
# Spreadsheet programs may save the sheet back with a byte-order mark; reading strips it if present.
READ_ENCODING = "utf-8-sig"
# Excel's documented maximum characters in one cell; a longer cell would be cut silently on open.
CELL_LIMIT = 32767
TRUNCATED = " [... truncated]"


def instructions(dimensions: dict[str, Dimension], header: str) -> list[str]:
    """The comment lines above the table: what to do, then each dimension's rubric."""
    columns = ", ".join(f"'{name}'" for name in dimensions)
    lines = [
        header,
        f"For every row read the question, the gold answer, the system's answer and the retrieved contexts; "
        f"rate each column {columns} with one of the levels below, answering its question (which says "
        f"whether it rates the answer or the retrieved contexts); write your name in "
        f"'{ANNOTATOR}' on every row you rate; '{NOTES}' is optional.",
        f"Leave '{ID}' and 'answer' unchanged, add no rows, and save as CSV. Rate on your own: "
        "agreement between annotators is measured.",
    ]
    for dim in dimensions.values():
        lines.append(f"{dim.name} ({dim.scale_text()}): {dim.prompt}")
        lines.extend(f"  {level} = {text}" for level, text in zip(dim.levels, dim.rubric))
    return [f"{COMMENT} {line}" for line in lines]


def render_contexts(row: dict[str, Any]) -> str:
    contexts = row.get("contexts") or []
    ids = row.get("retrieved_chunk_ids") or []
    names = ids if len(ids) == len(contexts) else [""] * len(contexts)
    return "\n\n".join(f"[{rank}] {name}".rstrip() + f"\n{text}"
                       for rank, (name, text) in enumerate(zip(names, contexts), start=1))


def render_gold(row: dict[str, Any]) -> str:
    golds = " | ".join(row.get("gold_answers") or [])
    expected = row.get("expected_answer")
    if expected and expected not in golds:
        return f"{golds}\n(expected: {expected})" if golds else expected
    return golds


def _cell(text: str) -> str:
    return text if len(text) <= CELL_LIMIT else text[:CELL_LIMIT - len(TRUNCATED)] + TRUNCATED


def write_sheet(path: Path, sample: Sample, dimensions: dict[str, Dimension], header: str, shuffle: bool,
                overwrite: bool = False) -> Path:
    """Writes the sheet; the rows are shuffled with the sample's seed when ``shuffle`` is set.

    Refuses to replace an existing file unless ``overwrite``: it may hold someone's ratings.
    """
    if path.exists() and not overwrite:
        raise FileExistsError(f"{path} exists (it may already hold ratings); choose another --out or pass --force")
    rows = list(sample.rows)
    if shuffle:
        random.Random(sample.seed).shuffle(rows)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle = io.StringIO()
    for line in instructions(dimensions, header):  # unquoted: one physical line each
        handle.write(" ".join(line.split()) + "\r\n")
    writer = csv.writer(handle)
    writer.writerow([*SHOWN, *dimensions, ANNOTATOR, NOTES])
    for row in rows:
        shown = [row["question_id"], row.get("question", ""), render_gold(row), row.get("answer", ""),
                 render_contexts(row)]
        writer.writerow([_cell(str(v)) for v in shown] + [""] * (len(dimensions) + 2))
    replace_file(path, handle.getvalue(), encoding=ENCODING, newline="")
    return path
