"""Result records: per-question records are the unit of truth, aggregates derive from them."""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from harness.chunkers.base import Chunk
from harness.config.secrets import redact_text
from harness.data.records import Question
from harness.generators.base import NO_RANKING, Generation
from harness.results.stage_records import StageRecords
from harness.results.table import read_table, write_table


@dataclass
class QuestionRecord:
    """Everything the pipeline produced for one question (later stages add fields)."""

    question: Question
    chunks: list[Chunk]
    scores: list[float]
    top_k: int
    # Set when a generator is configured (None for retrieval-only runs and unsampled questions).
    generation: Generation | None = None
    # The same question answered without retrieval (seed 004's baseline), when that condition runs.
    baseline: Generation | None = None
    # The chat messages each answered condition was prompted with (condition -> messages).
    prompts: dict[str, list[dict[str, str]]] = field(default_factory=dict)
    # How many retrieved chunks the with-context prompt held (``generation.contexts``; None: all).
    prompt_chunk_count: int | None = None
    # The route the router under test picked (seed 001), when a router ran.
    predicted_route: str | None = None
    # The judging stage's judgements, keyed "<rubric>/<target>" (harness.judges.judgement.Judgement).
    judgements: dict[str, Any] = field(default_factory=dict)
    # The first stage's own record of the reranker's candidates (its ``top_k`` is the candidates
    # searched), when a reranker ran (``chunks`` is then the reranked top ``top_k``); scored as
    # ``first_stage/*``.
    first_stage: QuestionRecord | None = None

    @property
    def prompt_chunks(self) -> list[Chunk]:
        """The retrieved chunks the with-context prompt held (the top ``prompt_chunk_count``)."""
        return self.chunks if self.prompt_chunk_count is None else self.chunks[:self.prompt_chunk_count]

    @property
    def contexts(self) -> list[str] | None:
        """The context passages the answer was generated from (the generator's own, if it brought
        them): what faithfulness and the error taxonomy check the answer against. None when a
        predictions file answered without saying which contexts its system used."""
        if self.generation is not None and self.generation.contexts is not None:
            return self.generation.contexts
        if self.generation is not None and self.generation.contexts_unknown:
            return None
        return [chunk.text for chunk in self.prompt_chunks]

    @property
    def has_ranking(self) -> bool:
        """False when an app (harness.apps) failed or answered without saying which contexts it used:
        there is no ranking to score, which is not a ranking that missed."""
        return self.generation is None or not self.generation.extra.get(NO_RANKING)

    def ranked_doc_ids(self) -> list[str]:
        """Documents in order of their best chunk."""
        return list(dict.fromkeys(chunk.doc_id for chunk in self.chunks))

    def gold_rank(self) -> int | None:
        """1-based rank of the first chunk from a relevant document, or None."""
        relevant = self.question.relevant
        return next((rank for rank, chunk in enumerate(self.chunks, start=1)
                     if relevant.get(chunk.doc_id, 0) > 0), None)

    def row(self, metrics: dict[str, float]) -> dict[str, Any]:
        """The question's line in the per-question table."""
        return {
            "question_id": self.question.id,
            "question": self.question.text,
            "gold_doc_ids": sorted(d for d, g in self.question.relevant.items() if g > 0),
            "gold_rank": self.gold_rank(),
            "retrieved_chunk_ids": [chunk.id for chunk in self.chunks],
            "retrieved_doc_ids": [chunk.doc_id for chunk in self.chunks],
            "retrieved_scores": [round(score, 6) for score in self.scores],
            **({"first_stage_doc_ids": self.first_stage.ranked_doc_ids()} if self.first_stage is not None else {}),
            **({"answer": self.generation.text, "answer_error": self.generation.error,
                # What a human annotator needs beside the answer (harness annotate export).
                "gold_answers": list(self.question.answers or [a for a in [self.question.ground_truth] if a]),
                "expected_answer": self.question.expected_answer, "contexts": self.contexts}
               if self.generation is not None else {}),
            **({"no_context_answer": self.baseline.text, "no_context_answer_error": self.baseline.error}
               if self.baseline is not None else {}),
            **({"route": self.question.route} if self.question.route is not None else {}),
            **({"predicted_route": self.predicted_route} if self.predicted_route is not None else {}),
            **({"judgements": {key: j.row() for key, j in self.judgements.items()}} if self.judgements else {}),
            **metrics,
        }


@dataclass
class RunResult:
    """One job's results: the per-question table, aggregates and run facts."""

    dataset: str
    dataset_sha256: str
    rows: list[dict[str, Any]]
    metrics: dict[str, float]
    info: dict[str, Any] = field(default_factory=dict)
    # Extra files a suite produced (file name -> text), e.g. the 20 worst answers.
    artifacts: dict[str, str] = field(default_factory=dict)
    dataset_source: str = ""  # the dataset's file or folder (a hub dataset's id); empty in older results
    # What each stage did to each question, and when (the questions' traces); None in older results.
    stages: StageRecords | None = None

    def write(self, folder: Path) -> dict[str, Path]:
        """Writes the per-question table (:mod:`harness.results.table`), ``metrics.json`` and the
        stage records (``stages.json``); returns their paths."""
        folder.mkdir(parents=True, exist_ok=True)
        table = write_table(folder, self.rows)
        summary = folder / "metrics.json"
        # Not dataclasses.asdict: it deep-copies every row first (8.6 of 124 s, profiled, for SQuAD dev's
        # 10,570 rows) only for them to be dropped here.
        facts = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in _OWN_FILES}
        summary.write_text(json.dumps({**facts, "artifact_files": sorted(self.artifacts)}, indent=2))
        written = {"per_question": table, "metrics": summary}
        if self.stages is not None:
            written["stages"] = self.stages.write(folder)
        for name, text in self.artifacts.items():
            written[name] = folder / name
            written[name].write_text(redact_text(text))
        return written

    @classmethod
    def read(cls, folder: Path) -> "RunResult":
        """The result :meth:`write` left in ``folder`` (e.g. to log it later with ``harness sync``)."""
        facts = json.loads((folder / "metrics.json").read_text())
        artifacts = {name: (folder / name).read_text() for name in facts.pop("artifact_files", [])}
        return cls(rows=read_table(folder), artifacts=artifacts, stages=StageRecords.read(folder), **facts)


# Fields kept in files of their own rather than in metrics.json.
_OWN_FILES = ("rows", "artifacts", "stages")
