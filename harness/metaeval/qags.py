"""The QAGS recipe of docs/how-to/meta-evaluation.md as code: a file of summaries with human scores beside them becomes a
questions_jsonl dataset, a predictions file and a labels file for ``harness meta-eval``.

Used by the reference test (tests/metaeval/test_qags.py) and benchmarks/judge_validity.py.
"""

from __future__ import annotations

import json
from pathlib import Path


def write_qags_run_inputs(source: Path, folder: Path, limit: int | None = None) -> int:
    """Writes ``docs/``, ``questions.jsonl`` (one document per article), ``preds.jsonl`` (answer =
    summary, contexts = [article], metrics = UniEval's score) and ``labels.jsonl`` (the human
    consistency score) under ``folder``, from the first ``limit`` rows (all when null).

    Returns:
        the number of rows written.
    """
    (folder / "docs").mkdir(parents=True)
    written = 0
    with (folder / "questions.jsonl").open("w") as questions, (folder / "preds.jsonl").open("w") as preds, \
            (folder / "labels.jsonl").open("w") as labels, source.open(encoding="utf-8") as rows:
        for raw in rows:
            if limit is not None and written >= limit:
                break
            row = json.loads(raw)
            doc = f"doc_{row['id']}"
            (folder / "docs" / f"{doc}.txt").write_text(row["source"], encoding="utf-8")
            questions.write(json.dumps({"id": row["id"], "domain": "qags", "difficulty": "easy",
                                        "question": "Summarise the article.", "ground_truth": row["summary"],
                                        "source": doc}) + "\n")
            preds.write(json.dumps({"question_id": row["id"], "answer": row["summary"], "contexts": [row["source"]],
                                    "metrics": {"unieval": row["unieval_consistency"]}}) + "\n")
            labels.write(json.dumps({"question_id": row["id"], "annotator": "qags",
                                     "consistency": row["human_consistency"]}) + "\n")
            written += 1
    return written
