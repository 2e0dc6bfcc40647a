"""The question file (``questions_jsonl`` lines with their provenance) and its summary."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import asdict
from pathlib import Path
from typing import Any

from harness.config.files import replace_file
from harness.synth.records import Scored, Tools
from harness.synth.settings import SynthSettings
from harness.synth.synthesizer import Outcome

PARTIAL = ".partial"
SUMMARY = ".summary.json"
# Seed 004's `domain` of every line when the dataset has no name of its own.
DEFAULT_DOMAIN = "synthetic"


def question_line(number: int, scored: Scored, settings: SynthSettings, tools: Tools, domain: str) -> dict[str, Any]:
    """One ``questions_jsonl`` record: the question, its gold answer and sources, and its provenance."""
    candidate, writer = scored.candidate, settings.writer
    documents = list(dict.fromkeys(passage.doc_id for passage in candidate.passages))
    line: dict[str, Any] = {
        "id": f"{writer.kind}_{number:04d}",
        "domain": domain or DEFAULT_DOMAIN,
        "difficulty": writer.difficulty[candidate.kind],
        "question": candidate.question,
        "ground_truth": candidate.answer,
        "source": documents[0],
        "needle_doc_id": documents[0],
    }
    if len(documents) > 1:
        line["needle_doc_ids"] = documents
    if candidate.expected_answer:
        line["expected_answer"] = candidate.expected_answer
    if candidate.key_facts:
        line["key_facts"] = list(candidate.key_facts)
    line["gold_passages"] = [{"chunk_id": p.id, "doc_id": p.doc_id, "start": p.start, "end": p.end, "text": p.text}
                             for p in candidate.passages]
    line["provenance"] = {"kind": candidate.kind, "model": writer.model(tools), "prompt_sha256": writer.prompt_sha256(),
                          "seed": settings.seed, "filters": scored.scores, **candidate.detail}
    return line


def summary(outcome: Outcome, settings: SynthSettings, tools: Tools, dataset: str, chunker: dict,
            corpus: dict[str, Any] | None = None) -> dict[str, Any]:
    """What was asked and made, what each filter removed, and how the set was made; ``corpus``: the
    dataset config the documents came from (``dataset=synthetic`` loads the set over it)."""
    writes = outcome.writes
    return {
        "kind": settings.kind, "asked": outcome.asked, "made": len(outcome.kept), "complete": outcome.complete,
        "stopped": None if outcome.complete else outcome.shortfall(),
        "dataset": dataset, "corpus": corpus, "chunker": chunker, "seed": settings.seed,
        "model": settings.writer.model(tools), "prompt_sha256": settings.writer.prompt_sha256(),
        "answer_model": getattr(tools.generator, "model", None) if getattr(tools.generator, "enabled", False) else None,
        "passages": outcome.passages, "pairs": outcome.pairs, "passage_groups_tried": outcome.tried,
        "no_question": dict(outcome.no_question),
        "writes": writes.summary() if writes else None,
        "by_kind": dict(Counter(s.candidate.kind for s in outcome.kept)),
        "filters": {name: {**setting, **(asdict(outcome.filters[name]) if name in outcome.filters else {})}
                    for name, setting in settings.filter_settings().items()},
    }


def write_set(out: Path, lines: list[dict[str, Any]], facts: dict[str, Any]) -> Path:
    """Writes the lines to ``out`` when the set is complete, else to ``out.partial`` (``out`` is left
    as it was); the summary beside the file written (``<file>.summary.json``). Returns that file."""
    target = out if facts["complete"] else out.with_name(out.name + PARTIAL)
    target.parent.mkdir(parents=True, exist_ok=True)
    replace_file(target, "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines))
    replace_file(summary_path(target), json.dumps(facts, indent=2, ensure_ascii=False, default=str) + "\n")
    if facts["complete"]:  # an earlier attempt's leftovers would read as this set's
        for stale in (out.with_name(out.name + PARTIAL), summary_path(out.with_name(out.name + PARTIAL))):
            stale.unlink(missing_ok=True)
    return target


def summary_path(questions: Path) -> Path:
    return questions.with_name(questions.name + SUMMARY)


