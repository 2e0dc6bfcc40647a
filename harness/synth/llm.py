"""Questions a generator writes: from one passage, or (``multi_hop``) from two passages that
retrieve each other. Prompts live in YAML (``conf/synth/llm.yaml``); replies go through the
generation cache, like a run's answers.

A reply must hold ``Question: ...`` then ``Answer: ...``; anything else is a failed write with
its reason (counted against ``synth.max_failed_fraction``), never a question.
"""

from __future__ import annotations

import re
from typing import Any

from harness.chunkers.base import Chunk
from harness.failures import check_fraction
from harness.generators.base import GenerationRequest
from harness.generators.cached import generate_cached
from harness.synth.records import Candidate, Tools, Written
from harness.synth.writer import Writer

_REPLY = re.compile(r"question\s*\d*\s*:\s*(?P<question>.+?)\s*\banswer\s*:\s*(?P<answer>.+)", re.IGNORECASE | re.DOTALL)
SHOWN_CHARS = 120  # of an unusable reply, in its failure reason


class LLMWriter(Writer):
    """Asks the configured generator for a question and its answer.

    Args:
        system: the system message, or null.
        single: the prompt for one passage (``{title}``, ``{passage}``).
        pair: the prompt for two passages (``{first_title}``, ``{first}``, ``{second_title}``, ``{second}``).
        multi_hop: share of the questions written from two passages (0 to 1).
        pair_top_k: two passages retrieve each other when each is in the other's top ``pair_top_k``.
        passage_chars: a passage is cut to this many characters in the prompt.
        min_question_words: shorter questions are unusable replies.
        max_answer_words: longer answers are unusable replies (a short answer is what F1 can check).
        difficulty: the ``difficulty`` field of the lines, by question kind (``llm``, ``multi_hop``).
    """

    kind = "llm"

    def __init__(self, system: str | None, single: str, pair: str, multi_hop: float, pair_top_k: int,
                 passage_chars: int, min_question_words: int, max_answer_words: int,
                 difficulty: dict[str, str]) -> None:
        super().__init__(difficulty)
        self.multi_hop = check_fraction("synth.writer.multi_hop", multi_hop)
        for name, value in (("pair_top_k", pair_top_k), ("passage_chars", passage_chars),
                            ("min_question_words", min_question_words), ("max_answer_words", max_answer_words)):
            if value < 1:
                raise ValueError(f"synth.writer.{name} must be >= 1, got {value}")
        missing = sorted({"llm", "multi_hop"} - set(self.difficulty))
        if missing:
            raise ValueError(f"synth.writer.difficulty must give the difficulty of {missing} questions")
        self.system, self.single, self.pair = system, single, pair
        self.pair_top_k, self.passage_chars = pair_top_k, passage_chars
        self.min_question_words, self.max_answer_words = min_question_words, max_answer_words
        one = Chunk("c", "d", "text", 0, 4, "title")
        self._messages((one,))  # a template typo fails now, not after a model has loaded
        self._messages((one, one))

    def templates(self) -> dict[str, Any]:
        return {"system": self.system, "single": self.single, "pair": self.pair, "passage_chars": self.passage_chars}

    def model(self, tools: Tools) -> str | None:
        return getattr(tools.generator, "model", None) or None

    def write(self, groups: list[tuple[Chunk, ...]], tools: Tools, seed: int) -> list[Written]:
        generator = tools.require_generator("synth kind 'llm'")
        requests = [GenerationRequest(question_id="|".join(c.id for c in group), messages=self._messages(group))
                    for group in groups]
        replies = generate_cached(generator, requests, tools.cache)
        return [self._read(group, reply) for group, reply in zip(groups, replies, strict=True)]

    def _messages(self, group: tuple[Chunk, ...]) -> tuple[dict[str, str], ...]:
        cut = [chunk.text[:self.passage_chars] for chunk in group]
        try:
            if len(group) == 1:
                content = self.single.format(title=group[0].title, passage=cut[0])
            else:
                content = self.pair.format(first_title=group[0].title, first=cut[0],
                                           second_title=group[1].title, second=cut[1])
        except (KeyError, IndexError) as err:
            which = "single" if len(group) == 1 else "pair"
            raise ValueError(f"synth.writer.{which} has an unknown placeholder {err}") from err
        return tuple(([{"role": "system", "content": self.system}] if self.system else [])
                     + [{"role": "user", "content": content}])

    def _read(self, group: tuple[Chunk, ...], reply) -> Written:
        if reply.failed:
            return Written(None, f"generation failed: {reply.error}", failed=True)
        parsed = parse_reply(reply.text, self.min_question_words, self.max_answer_words)
        if isinstance(parsed, str):
            return Written(None, parsed, failed=True)
        question, answer = parsed
        kind = "llm" if len(group) == 1 else "multi_hop"
        return Written(Candidate(question=question, answer=answer, passages=group, kind=kind,
                                 detail={"reply": reply.text}))


def parse_reply(text: str, min_question_words: int, max_answer_words: int) -> tuple[str, str] | str:
    """``(question, answer)`` from a ``Question: ... Answer: ...`` reply, or why it is unusable.

    Example:
        >>> parse_reply("Question: How long are tokens valid?\\nAnswer: 3600 seconds.", 3, 10)
        ('How long are tokens valid?', '3600 seconds')
        >>> parse_reply("Sure!", 3, 10)
        "unusable reply: no 'Question: ... Answer: ...' in 'Sure!'"
    """
    shown = " ".join(text.split())[:SHOWN_CHARS]
    match = _REPLY.search(text)
    if match is None:
        return f"unusable reply: no 'Question: ... Answer: ...' in {shown!r}"
    question = " ".join(match.group("question").split())
    answer = " ".join(match.group("answer").strip().splitlines()[0].split()).strip(" .\"'")
    if "?" not in question:
        return f"unusable reply: the question has no question mark in {shown!r}"
    question = question[:question.index("?") + 1]
    if len(question.split()) < min_question_words:
        return f"unusable reply: a question of fewer than {min_question_words} words in {shown!r}"
    if not answer or len(answer.split()) > max_answer_words:
        return f"unusable reply: an answer that is empty or longer than {max_answer_words} words in {shown!r}"
    return question, answer
