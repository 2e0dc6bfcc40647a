"""The route table (``routes`` config group): which routes exist and how each one is scored.

Each route points to a profile; a profile holds seed 001's per-route numbers: dimension
weights, the quality threshold, the minimum semantic similarity with its floor, the semantic
bonuses, the executive-format checks, and whether the retrieved passages vouch for an answer's
figures. The table also holds what all routes share: the two-tier weights, the presentation
checks, how clarification and out-of-scope answers are recognised (and which dimensions do not
apply to them), and what a forbidden keyword does to factual accuracy.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from harness.metrics.routes.checks import TextCheck, build_checks

DIMENSIONS = ("semantic_similarity", "completeness", "factual_accuracy", "presentation", "executive_format")
# Weights must add up to 1 within this (YAML decimals such as 0.15 + 0.25 + ... are not exact).
_WEIGHT_SUM_SLACK = 1e-9


@dataclass(frozen=True)
class RouteProfile:
    """How answers on a route are scored (one row of seed 001's section 2.3 table, plus 2.1/2.2)."""

    name: str
    weights: dict[str, float]
    quality_threshold: float
    min_semantic_similarity: float | None = None
    below_minimum_floor: float | None = None
    minimum_from_question: bool = False
    semantic_bonuses: tuple[TextCheck, ...] = ()
    executive_format: tuple[TextCheck, ...] | None = None
    # Figures found in the retrieved passages count as supported (not made up) in factual accuracy.
    contexts_support: bool = False

    def __post_init__(self) -> None:
        where = f"routes: profile '{self.name}'"
        unknown = sorted(set(self.weights) - set(DIMENSIONS))
        if unknown:
            raise ValueError(f"{where}: unknown dimensions {unknown} in weights; choose from {list(DIMENSIONS)}")
        if not self.weights or any(w < 0 for w in self.weights.values()):
            raise ValueError(f"{where}: weights must be a non-empty map of non-negative numbers, got {self.weights}")
        if abs(sum(self.weights.values()) - 1.0) > _WEIGHT_SUM_SLACK:
            raise ValueError(f"{where}: weights must add up to 1, got {sum(self.weights.values())}")
        if not 0 <= self.quality_threshold <= 1:
            raise ValueError(f"{where}: quality_threshold must be in [0, 1], got {self.quality_threshold}")
        if self.min_semantic_similarity is not None and self.below_minimum_floor is None:
            raise ValueError(f"{where}: min_semantic_similarity needs below_minimum_floor (seed 001: 0.3)")
        if self.executive_format is not None and not self.executive_format:
            raise ValueError(f"{where}: executive_format must be null (not applicable) or a non-empty list of checks")

    @classmethod
    def from_mapping(cls, name: str, spec: Mapping[str, Any]) -> "RouteProfile":
        spec = dict(spec)
        return cls(
            name=name,
            weights={str(k): float(v) for k, v in dict(spec["weights"]).items()},
            quality_threshold=float(spec["quality_threshold"]),
            min_semantic_similarity=_optional_float(spec.get("min_semantic_similarity")),
            below_minimum_floor=_optional_float(spec.get("below_minimum_floor")),
            minimum_from_question=bool(spec.get("minimum_from_question", False)),
            semantic_bonuses=build_checks(spec.get("semantic_bonuses") or [], f"routes: profile '{name}' semantic_bonuses"),
            executive_format=build_checks(spec.get("executive_format"), f"routes: profile '{name}' executive_format"),
            contexts_support=bool(spec.get("contexts_support", False)),
        )


@dataclass(frozen=True)
class TwoTier:
    routing: float
    quality: float
    wrong_route: float | None

    def __post_init__(self) -> None:
        if self.routing < 0 or self.quality < 0 or abs(self.routing + self.quality - 1) > _WEIGHT_SUM_SLACK:
            raise ValueError(f"routes: two_tier routing and quality weights must be >= 0 and add up to 1, "
                             f"got {self.routing} + {self.quality}")


@dataclass(frozen=True)
class Behaviour:
    """Recognising the expected behaviour of clarification-expected and out-of-scope questions."""

    clarification: tuple[re.Pattern, ...]
    out_of_scope: tuple[re.Pattern, ...]
    detected: float
    missed: float
    # Dimensions that do not apply to an answer showing the expected behaviour (absent, not 0).
    not_applicable_when_detected: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        unknown = sorted(set(self.not_applicable_when_detected) - set(DIMENSIONS))
        if unknown:
            raise ValueError(f"routes: behaviour.not_applicable_when_detected: unknown dimensions {unknown}; "
                             f"choose from {list(DIMENSIONS)}")

    @classmethod
    def from_mapping(cls, spec: Mapping[str, Any]) -> "Behaviour":
        return cls(clarification=_patterns(spec["clarification_patterns"], "clarification_patterns"),
                   out_of_scope=_patterns(spec["out_of_scope_patterns"], "out_of_scope_patterns"),
                   detected=float(spec["detected"]), missed=float(spec["missed"]),
                   not_applicable_when_detected=tuple(str(d) for d in spec.get("not_applicable_when_detected") or ()))


class RouteTable:
    """Routes, their profiles and the shared scoring settings.

    Args:
        routes: route name -> profile name.
        profiles: profile name -> its settings (see :class:`RouteProfile`).
        default_route: where a router sends what it cannot place (the ``fixed`` router's route).
        fallback_profile: scores answers whose predicted route is missing or not in the table
            (seed 001: "If actual_route=None, uses RAG weights (safe fallback)").
        two_tier: ``{routing, quality, wrong_route}``; seed 001: 0.30 routing + 0.70 quality.
        presentation: the presentation checks (each with a weight).
        behaviour: ``{clarification_patterns, out_of_scope_patterns, detected, missed,
            not_applicable_when_detected}``.
        forbidden_keyword_accuracy: factual accuracy of an answer holding a forbidden keyword.

    With a single route there is nothing to route: every question belongs to it and no routing
    score is computed.
    """

    def __init__(self, routes: Mapping[str, str], profiles: Mapping[str, Mapping[str, Any]], default_route: str,
                 fallback_profile: str, two_tier: Mapping[str, Any], presentation: Sequence[Mapping[str, Any]],
                 behaviour: Mapping[str, Any], forbidden_keyword_accuracy: float) -> None:
        self.profiles = {name: spec if isinstance(spec, RouteProfile) else RouteProfile.from_mapping(name, spec)
                         for name, spec in dict(profiles).items()}
        self.routes = {str(route): str(profile) for route, profile in dict(routes).items()}
        if not self.routes:
            raise ValueError("routes: the table needs at least one route")
        for route, profile in self.routes.items():
            if profile not in self.profiles:
                raise ValueError(f"routes: route '{route}' names profile '{profile}', not one of {sorted(self.profiles)}")
        if default_route not in self.routes:
            raise ValueError(f"routes: default_route '{default_route}' is not a route of {sorted(self.routes)}")
        if fallback_profile not in self.profiles:
            raise ValueError(f"routes: fallback_profile '{fallback_profile}' is not one of {sorted(self.profiles)}")
        self.default_route = default_route
        self.fallback = self.profiles[fallback_profile]
        self.two_tier = TwoTier(routing=float(two_tier["routing"]), quality=float(two_tier["quality"]),
                                wrong_route=_optional_float(two_tier.get("wrong_route")))
        self.presentation = build_checks(presentation, "routes: presentation")
        if not self.presentation or sum(c.weight for c in self.presentation) <= 0:
            raise ValueError("routes: presentation needs at least one check with a positive weight")
        self.behaviour = Behaviour.from_mapping(behaviour)
        self.forbidden_keyword_accuracy = float(forbidden_keyword_accuracy)

    @property
    def routed(self) -> bool:
        """Whether there is a routing decision to score (more than one route)."""
        return len(self.routes) > 1

    def profile_of(self, route: str | None) -> RouteProfile:
        """The profile answers on ``route`` are scored with; the fallback for None/unknown routes."""
        if not self.routed:
            return self.profiles[self.routes[self.default_route]]
        name = self.routes.get(route) if route is not None else None
        return self.profiles[name] if name is not None else self.fallback

    def expected_route(self, labelled: str | None) -> str | None:
        """The route a question should take: its label, or the only route of a one-route table."""
        return self.default_route if not self.routed else labelled


def _optional_float(value: Any) -> float | None:
    return None if value is None else float(value)


def _patterns(patterns: Sequence[str], key: str) -> tuple[re.Pattern, ...]:
    compiled = []
    for pattern in patterns:
        try:
            compiled.append(re.compile(pattern, re.IGNORECASE))
        except re.error as err:
            raise ValueError(f"routes: behaviour.{key}: invalid pattern {pattern!r}: {err}") from err
    return tuple(compiled)
