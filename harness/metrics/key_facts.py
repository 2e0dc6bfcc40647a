"""Key-fact coverage of retrieved chunks (seed 000).

A key fact is a short string expected to appear in the retrieved context.
``match`` is a ``(fact, text) -> bool`` function, usually ``MATCHERS[name]``.

Example:
    >>> chunks = ["Tokens expire after 3600 seconds.", "Refresh via /token."]
    >>> coverage(["3600 seconds", "/token", "rotation"], chunks, exact_match)
    0.6666666666666666
"""

from harness.config.schemas.choices import FactScore, values
from harness.metrics.matching import MATCHERS, Matcher, exact_match, fuzzy_match  # noqa: F401 (re-exported for callers)

FACT_SCORES = values(FactScore)


def _check_args(facts: list[str], match: Matcher) -> None:
    if not facts:
        raise ValueError("facts must not be empty")
    if not callable(match):
        raise TypeError(f"match must be callable, got {match!r}")


def _first_matching_rank(fact: str, chunk_texts: list[str], match: Matcher) -> int | None:
    """0-based rank of the first chunk matching ``fact``, or None."""
    for i, text in enumerate(chunk_texts):
        if match(fact, text):
            return i
    return None


def facts_found(facts: list[str], chunk_texts: list[str], match: Matcher) -> list[bool]:
    """Whether each fact matches the space-joined text of all chunks.

    Example:
        >>> facts_found(["a b", "c"], ["a x", "b"], fuzzy_match)
        [True, False]
    """
    combined_text = " ".join(chunk_texts)
    return [match(fact, combined_text) for fact in facts]


def coverage(facts: list[str], chunk_texts: list[str], match: Matcher) -> float:
    """Fraction of ``facts`` found in the combined chunk text.

    Raises:
        ValueError: if ``facts`` is empty (callers skip such questions).

    Example:
        >>> coverage(["alpha", "beta"], ["Alpha release"], exact_match)
        0.5
    """
    _check_args(facts, match)
    found = facts_found(facts, chunk_texts, match)
    return sum(found) / len(facts)


def position_weighted_coverage(
    facts: list[str],
    chunk_texts: list[str],
    weights: list[float],
    match: Matcher,
    fact_score: str = "first_hit",
) -> float:
    """Mean over facts of a chunk-rank-weighted score.

    ``weights[i]`` is the weight of chunk rank i (0-based); chunks beyond the
    list weigh 0. ``fact_score="first_hit"`` scores a fact with the weight of
    the highest-ranked matching chunk; ``"sum"`` adds the weights of every
    matching chunk (the seed's literal formula, may exceed 1).

    Example:
        >>> chunks = ["x", "y", "x"]
        >>> position_weighted_coverage(["x"], chunks, [1.0, 0.9, 0.7], exact_match)
        1.0
        >>> position_weighted_coverage(["x"], chunks, [1.0, 0.9, 0.7], exact_match, "sum")
        1.7
    """
    _check_args(facts, match)
    if fact_score not in FACT_SCORES:
        raise ValueError(f"fact_score must be one of {FACT_SCORES}, got {fact_score!r}")
    for w in weights:
        if w < 0:
            raise ValueError(f"weights must be >= 0, got {w}")
    weighted = list(zip(chunk_texts, weights))  # truncates chunks beyond weights
    scores = []
    for fact in facts:
        if fact_score == "sum":
            scores.append(sum(w for text, w in weighted if match(fact, text)))
        else:
            rank = _first_matching_rank(fact, chunk_texts, match)
            scores.append(weights[rank] if rank is not None and rank < len(weights) else 0.0)
    return sum(scores) / len(facts)


def rank_banded_recall(
    facts: list[str],
    chunk_texts: list[str],
    bands: list[tuple[int, float]],
    match: Matcher,
) -> float:
    """Mean over facts of the weight of the band holding the fact's first hit.

    ``bands`` are ``(max_rank, weight)`` pairs with 1-based, strictly increasing
    ranks. A fact first matched at rank r scores the weight of the first band
    with ``max_rank >= r``; 0 if not found or beyond every band.

    Example:
        >>> bands = [(1, 1.0), (3, 0.7), (5, 0.5)]
        >>> rank_banded_recall(["x"], ["a", "x"], bands, exact_match)
        0.7
    """
    _check_args(facts, match)
    if not bands:
        raise ValueError("bands must not be empty")
    previous = 0
    for max_rank, weight in bands:
        if max_rank <= previous:
            raise ValueError(
                f"bands ranks must be >= 1 and strictly increasing, got {[b[0] for b in bands]}"
            )
        if weight < 0:
            raise ValueError(f"bands weights must be >= 0, got {weight}")
        previous = max_rank
    # Chunks past the last band can never score, so don't match against them.
    searched = chunk_texts[: bands[-1][0]]
    total = 0.0
    for fact in facts:
        rank = _first_matching_rank(fact, searched, match)
        if rank is not None:
            total += next(w for max_rank, w in bands if max_rank >= rank + 1)
    return total / len(facts)
