"""Per-question ranking metrics on lists of relevance grades.

``grades`` is the ranked list of relevance grades of the retrieved documents
(position 0 = rank 1; 0 = not relevant, > 0 = relevant). ``judged_grades``
holds the grades of every judged document of the query (from qrels), retrieved
or not. Conventions follow trec_eval, so results match ``pytrec_eval``.

Example:
    >>> qrels = {"d1": 2, "d2": 0, "d4": 1}
    >>> ranked = rank_by_score({"d1": 0.2, "d2": 0.9, "d3": 0.2})  # d2, d3, d1
    >>> reciprocal_rank([qrels.get(d, 0) for d in ranked])
    0.3333333333333333
"""

import math


def _check_k(k: int | None, allow_none: bool = False) -> None:
    if k is None and allow_none:
        return
    if isinstance(k, bool) or not isinstance(k, int):
        raise TypeError(f"k must be an int, got {k!r}")
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")


def _check_grades(grades: list[int], name: str) -> None:
    for g in grades:
        if g < 0:
            raise ValueError(f"{name} must be >= 0, got {g}")


def _num_relevant(grades: list[int]) -> int:
    return sum(1 for g in grades if g > 0)


def _sum_precision_at_hits(grades: list[int]) -> float:
    """Sum of precision@i over the ranks i holding a relevant grade."""
    hits = 0
    total = 0.0
    for rank, g in enumerate(grades, start=1):
        if g > 0:
            hits += 1
            total += hits / rank
    return total


def rank_by_score(scores: dict[str, float]) -> list[str]:
    """Order document ids the way trec_eval does.

    Score descending; ties broken by id descending (string comparison), unlike
    ranx, which breaks ties ascending.

    Example:
        >>> rank_by_score({"a": 1.0, "b": 1.0, "c": 2.0})
        ['c', 'b', 'a']
    """
    return sorted(scores, key=lambda doc_id: (scores[doc_id], doc_id), reverse=True)


def hit_at_k(grades: list[int], k: int) -> float:
    """1.0 if any of the first ``k`` grades is relevant, else 0.0.

    Example:
        >>> hit_at_k([0, 0, 1], 2), hit_at_k([0, 0, 1], 3)
        (0.0, 1.0)
    """
    _check_k(k)
    _check_grades(grades, "grades")
    return 1.0 if any(g > 0 for g in grades[:k]) else 0.0


def reciprocal_rank(grades: list[int], k: int | None = None) -> float:
    """1 / rank of the first relevant grade within the first ``k`` (all if None).

    Example:
        >>> reciprocal_rank([0, 2, 1]), reciprocal_rank([0, 2, 1], k=1)
        (0.5, 0.0)
    """
    _check_k(k, allow_none=True)
    _check_grades(grades, "grades")
    for rank, g in enumerate(grades[:k], start=1):
        if g > 0:
            return 1.0 / rank
    return 0.0


def recall_at_k(grades: list[int], judged_grades: list[int], k: int) -> float:
    """Relevant documents in the first ``k`` over all relevant judged documents.

    Returns 0.0 when no judged document is relevant (trec_eval convention).

    Example:
        >>> recall_at_k([1, 0, 3], [1, 3, 2, 0], k=2)
        0.3333333333333333
    """
    _check_k(k)
    _check_grades(grades, "grades")
    _check_grades(judged_grades, "judged_grades")
    num_rel = _num_relevant(judged_grades)
    if num_rel == 0:
        return 0.0
    return _num_relevant(grades[:k]) / num_rel


def _dcg(grades: list[int]) -> float:
    return sum(g / math.log2(rank + 1) for rank, g in enumerate(grades, start=1) if g > 0)


def ndcg_at_k(grades: list[int], judged_grades: list[int], k: int) -> float:
    """nDCG@k with linear gain (gain = grade) and log2(rank + 1) discount.

    The ideal ranking sorts ``judged_grades`` descending and cuts it at ``k``.
    Returns 0.0 when the ideal DCG is 0 (no relevant judged document).

    Example:
        >>> round(ndcg_at_k([0, 2], [2, 1], k=2), 4)
        0.4796
    """
    _check_k(k)
    _check_grades(grades, "grades")
    _check_grades(judged_grades, "judged_grades")
    idcg = _dcg(sorted(judged_grades, reverse=True)[:k])
    if idcg == 0:
        return 0.0
    return _dcg(grades[:k]) / idcg


def average_precision(
    grades: list[int], judged_grades: list[int], k: int | None = None
) -> float:
    """trec_eval average precision, optionally cut at ``k`` (``map_cut_k``).

    Sum of precision@i over relevant ranks i <= k, divided by the number of
    relevant judged documents (not by min(k, #relevant)). 0.0 if none relevant.

    Example:
        >>> round(average_precision([1, 0, 1], [1, 1, 1, 0]), 4)
        0.5556
    """
    _check_k(k, allow_none=True)
    _check_grades(grades, "grades")
    _check_grades(judged_grades, "judged_grades")
    num_rel = _num_relevant(judged_grades)
    if num_rel == 0:
        return 0.0
    return _sum_precision_at_hits(grades[:k]) / num_rel


def context_precision(relevances: list[int]) -> float:
    """RAGAS-style context precision, exactly as the spec writes it.

    ``CP@K = (1/K) * sum_{k=1..K} Precision@k * rel(k)`` with K = len(relevances)
    and rel(k) = 1 if the grade at rank k is > 0. An empty list gives 0.0.

    Example:
        >>> round(context_precision([1, 0, 1]), 4)
        0.5556
    """
    _check_grades(relevances, "relevances")
    if not relevances:
        return 0.0
    return _sum_precision_at_hits(relevances) / len(relevances)
