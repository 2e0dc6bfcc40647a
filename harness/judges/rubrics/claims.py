"""Claim-based faithfulness and context recall in the RAGAS manner (seed 003, sections 4-5).

The judge extracts claims from a text (the answer for faithfulness; the expected answer for
context recall), then checks each claim against the retrieved contexts:
``score = supported claims / total claims``.

API judges reply in text (claims one per line, then ``yes``/``no`` per claim) under strict
parsing with one repair attempt. The local judge extracts claims by greedy decoding (after the
prefix in ``extract.local_prefix``) and reads each verification as P(yes) / (P(yes) + P(no))
from its next-token distribution: its score is the expected share of supported claims, and its
argmax the share of claims with P(yes) > 0.5.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from harness.judges.base import Judge, JudgePrompt
from harness.judges.items import JudgeItem
from harness.judges.judgement import Judgement
from harness.judges.rubrics.parsing import parse_claims, parse_yes_no
from harness.judges.rubrics.base import ITEM_PLACEHOLDERS, Rubric, messages_of, plain


class ClaimsRubric(Rubric):
    """Args:
        extract: ``{messages, local_prefix}``: the prompt that lists a text's claims, one per line
            starting with ``- `` (placeholders ``{question}``, ``{answer}``, ``{ground_truth}``,
            ``{expected_answer}``), and the start of the local judge's reply.
        verify: ``{messages, replies}``: the prompt asking whether ``{claim}`` is supported by
            ``{contexts}`` (also ``{question}``), answered ``yes`` or ``no``; ``replies``:
            ``{yes: [...], no: [...]}`` the reply spellings the local judge's probabilities sum over.
        max_claims: claims beyond this many are not verified (the count dropped is recorded).
        column, applies_to, repair, context_item, context_separator: see :class:`Rubric`.
    """

    def __init__(self, *, column: str, applies_to: list[str], extract: Mapping[str, Any],
                 verify: Mapping[str, Any], max_claims: int, repair: str, context_item: str,
                 context_separator: str) -> None:
        super().__init__(column=column, applies_to=applies_to, repair=repair, context_item=context_item,
                         context_separator=context_separator,
                         settings=dict(extract=plain(extract), verify=plain(verify), max_claims=max_claims))
        where = f"rubric {column}"
        extract, verify = plain(extract), plain(verify)
        self.extract_messages = messages_of(extract["messages"], f"{where}: extract.messages")
        self.extract_prefix = str(extract.get("local_prefix") or "")
        self.verify_messages = messages_of(verify["messages"], f"{where}: verify.messages")
        replies = verify["replies"]
        if set(replies) != {"yes", "no"} or not replies["yes"] or not replies["no"]:
            raise ValueError(f"{where}: verify.replies needs non-empty 'yes' and 'no' lists, got {replies}")
        self.yes_replies, self.no_replies = [str(r) for r in replies["yes"]], [str(r) for r in replies["no"]]
        if int(max_claims) < 1:
            raise ValueError(f"{where}: max_claims must be >= 1, got {max_claims}")
        self.max_claims = int(max_claims)
        self.check_templates()

    def templates(self) -> dict[str, tuple[str, set[str]]]:
        extract = set(ITEM_PLACEHOLDERS) - {"contexts"}
        verify = {"question", "contexts", "claim"}
        found = {f"extract.messages[{i}]": (m["content"], extract) for i, m in enumerate(self.extract_messages)}
        found.update({f"verify.messages[{i}]": (m["content"], verify) for i, m in enumerate(self.verify_messages)})
        found["extract.local_prefix"] = (self.extract_prefix, set())
        return found

    def columns(self, target: str) -> list[str]:
        return [self.column_for(target)]

    def values(self, judgement: Judgement, item: JudgeItem) -> dict[str, float | None]:
        column = self.column_for(item.target)
        values: dict[str, float | None] = {column: judgement.score}
        if judgement.spread is not None:
            values[f"{column}_spread"] = judgement.spread
        return values

    def evaluate(self, judge: Judge, items: list[JudgeItem], sample: int = 0) -> list[Judgement]:
        values = [self.item_values(item) for item in items]
        extracted = self.ask(judge, [self.render(self.extract_messages, v) for v in values], parse_claims,
                             sample, prefix=self.extract_prefix)
        judgements: list[Judgement | None] = [None] * len(items)
        checks: list[tuple[int, str]] = []  # (item index, claim)
        for index, asked in enumerate(extracted):
            if asked.missing is not None:
                judgements[index] = Judgement.missing_because(f"claim extraction: {asked.missing}", raw=asked.raw)
                continue
            checks += [(index, claim) for claim in asked.value[:self.max_claims]]
        conversations = [self.render(self.verify_messages, {**values[i], "claim": claim}) for i, claim in checks]
        if judge.reads_distributions:
            verdicts = self._read_probabilities(judge, conversations, sample)
        else:
            verdicts = [(1.0 if a.value else 0.0, a.missing)
                        for a in self.ask(judge, conversations, parse_yes_no, sample)]
        by_item: dict[int, list[tuple[str, float | None, str | None]]] = {}
        for (index, claim), (support, missing) in zip(checks, verdicts):
            by_item.setdefault(index, []).append((claim, support, missing))
        for index, asked in enumerate(extracted):
            if judgements[index] is not None:
                continue
            claims = by_item.get(index, [])
            failed = [m for _, _, m in claims if m is not None]
            detail = {"claims": [{"claim": c, "support": s} for c, s, _ in claims],
                      "claims_dropped": max(0, len(asked.value) - self.max_claims)}
            if failed:
                judgements[index] = Judgement(missing=f"claim verification: {failed[0]}", raw=asked.raw, detail=detail)
                continue
            supports = [s for _, s, _ in claims]
            judgement = Judgement(score=sum(supports) / len(supports), raw=asked.raw, detail=detail)
            judgement.argmax = sum(s > 0.5 for s in supports) / len(supports)
            judgements[index] = judgement
        return judgements  # type: ignore[return-value]

    def _read_probabilities(self, judge: Judge, conversations: list, sample: int) -> list[tuple[float | None, str | None]]:
        candidates = self.yes_replies + self.no_replies
        results: list[tuple[float | None, str | None]] = []
        prompts = [JudgePrompt(tuple(c)) for c in conversations]
        for prompt, probabilities in zip(prompts, judge.probabilities(prompts, candidates) if prompts else []):
            yes = sum(probabilities[:len(self.yes_replies)])
            no = sum(probabilities[len(self.yes_replies):])
            if not yes + no > 0:
                results.append((None, "the judge put no probability on yes or no"))
            elif judge.samples > 1:
                results.append((judge.draw({1.0: yes / (yes + no), 0.0: no / (yes + no)}, prompt, sample), None))
            else:
                results.append((yes / (yes + no), None))
        return results

