"""``router=keyword``: rules in YAML, each a route and its keywords.

A question goes to the route with the most distinct keywords in it (ties: the rule listed
first); a question matching no keyword goes to ``default_route``. Keywords match
case-insensitively, as whole words unless ``whole_words`` is false.

Example:
    >>> router = KeywordRouter([{"route": "hr_kpi", "keywords": ["headcount", "attrition"]}], "rag_docs")
    >>> router.route_text("What was the attrition rate in May?"), router.route_text("What is RS256?")
    ('hr_kpi', 'rag_docs')
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from harness.cache import DiskCache
from harness.results.records import QuestionRecord
from harness.routers.base import Router


class KeywordRouter(Router):
    """Args:
        rules: ``[{route, keywords}]``, in priority order.
        default_route: the route of a question no rule matches.
        whole_words: match keywords as whole words (else as substrings).
    """

    def __init__(self, rules: Sequence[Mapping[str, Any]], default_route: str, whole_words: bool = True) -> None:
        if not rules:
            raise ValueError("router.rules must list at least one {route, keywords} rule")
        self.rules: list[tuple[str, list[re.Pattern]]] = []
        for index, rule in enumerate(rules):
            route, keywords = rule.get("route"), list(rule.get("keywords") or [])
            if not route or not keywords or any(not isinstance(k, str) or not k.strip() for k in keywords):
                raise ValueError(f"router.rules[{index}] needs a route and a non-empty list of non-empty keywords, "
                                 f"got {dict(rule)}")
            bound = r"\b" if whole_words else ""
            self.rules.append((str(route), [re.compile(bound + re.escape(k.strip()) + bound, re.IGNORECASE)
                                            for k in keywords]))
        self.default_route = default_route

    def route_text(self, text: str) -> str:
        best, best_hits = self.default_route, 0
        for route, patterns in self.rules:
            hits = sum(1 for pattern in patterns if pattern.search(text))
            if hits > best_hits:
                best, best_hits = route, hits
        return best

    def route(self, records: list[QuestionRecord], cache: DiskCache | None = None) -> list[str | None]:
        return [self.route_text(record.question.text) for record in records]

    def routes(self) -> set[str]:
        return {route for route, _ in self.rules} | {self.default_route}
