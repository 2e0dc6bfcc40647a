"""Records built like the pipeline builds them, the real rubric configs, and a scripted judge."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from hydra.utils import instantiate

from harness.chunkers.base import Chunk
from harness.data.records import Question
from harness.generators.base import Generation
from harness.judges.base import Judge, JudgePrompt, Reply
from harness.results.records import QuestionRecord
from tests.conftest import PROJECT_ROOT

RUBRICS = sorted(p.stem for p in (PROJECT_ROOT / "conf" / "rubric").glob("*.yaml"))
DEMO_QUESTIONS = PROJECT_ROOT / "experiments" / "demo" / "questions.jsonl"


def make_record(qid: str = "q1", question: str = "When do tokens expire?", ground_truth: str | None = "3600 seconds",
                expected: str | None = "Tokens expire after 3600 seconds.", answer: str | None = "After 3600 seconds.",
                baseline: str | None = None, chunks: list[str] | None = None, gold_doc: str = "auth",
                error: str | None = None) -> QuestionRecord:
    texts = chunks if chunks is not None else ["All tokens expire after 3600 seconds.", "Rate limits: 100/min."]
    doc_ids = [gold_doc if i == 0 else f"other{i}" for i in range(len(texts))]
    record = QuestionRecord(
        question=Question(id=qid, text=question, relevant={gold_doc: 1}, ground_truth=ground_truth,
                          expected_answer=expected),
        chunks=[Chunk(f"{d}#{i}", d, t, 0, len(t), d.title()) for i, (d, t) in enumerate(zip(doc_ids, texts))],
        scores=[1.0 / (i + 1) for i in range(len(texts))], top_k=5)
    if answer is not None:
        record.generation = Generation(text="" if error else answer, error=error)
    if baseline is not None:
        record.baseline = Generation(text=baseline)
    return record


def demo_questions() -> list[dict]:
    return [json.loads(line) for line in DEMO_QUESTIONS.read_text().splitlines() if line.strip()]


class ScriptedJudge(Judge):
    """Replies with ``reply(prompt, sample)``; records every prompt it was sent."""

    def __init__(self, reply: Callable[[JudgePrompt, int], Reply | str], samples: int = 1, cache: str = "on",
                 name: str = "scripted") -> None:
        self.reply, self.samples, self.cache, self.name = reply, samples, cache, name
        self.prompts: list[JudgePrompt] = []

    def fingerprint(self) -> dict:
        return {"judge": self.name, "model": "script", "samples": self.samples}

    def complete(self, prompts: list[JudgePrompt], sample: int = 0) -> list[Reply]:
        self.prompts += prompts
        out = [self.reply(p, sample) for p in prompts]
        return [r if isinstance(r, Reply) else Reply(text=r) for r in out]


@pytest.fixture
def rubric(compose):
    """rubric(name) -> the instantiated rubric from conf/rubric/<name>.yaml."""
    def _rubric(name: str, overrides: list[str] | None = None):
        cfg = compose([f"rubric=[{name}]", *(overrides or [])])
        return instantiate(cfg.rubrics[name])
    return _rubric
