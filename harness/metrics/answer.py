"""Answer metrics against gold answers (seed 003 sections 2 and 4): EM, F1, ROUGE-L, local faithfulness.

EM and F1 are the official SQuAD v1.1 evaluation script's functions; ROUGE-L is Google's
``rouge-score``. Several accepted gold answers are handled with :func:`max_over_golds`.

Example:
    >>> f1("Beyonce grew up in Houston, Texas.", "Houston, Texas")
    0.5
    >>> max_over_golds(exact_match, "The Cat!", ["dog", "cat"])
    1.0
"""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Callable, Iterable
from functools import lru_cache

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCTUATION = frozenset(string.punctuation)


def normalize_answer(s: str) -> str:
    """Lower text and remove punctuation, articles and extra whitespace (SQuAD v1.1, in its order).

    Example:
        >>> normalize_answer("The  Cat, a (tiny) one!")
        'cat tiny one'
    """
    lowered = s.lower()
    no_punctuation = "".join(ch for ch in lowered if ch not in _PUNCTUATION)
    no_articles = _ARTICLES.sub(" ", no_punctuation)
    return " ".join(no_articles.split())


def answer_tokens(s: str) -> list[str]:
    """The normalized tokens every metric here counts."""
    return normalize_answer(s).split()


def exact_match(prediction: str, gold: str) -> float:
    """1.0 when the normalized strings are equal, else 0.0."""
    return float(normalize_answer(prediction) == normalize_answer(gold))


def f1(prediction: str, gold: str) -> float:
    """Token-level F1 of the normalized bags of tokens (0.0 without any common token).

    Example:
        >>> round(f1("Paris, France", "the city of Paris"), 4)
        0.4
    """
    prediction_tokens = answer_tokens(prediction)
    gold_tokens = answer_tokens(gold)
    common = Counter(prediction_tokens) & Counter(gold_tokens)
    num_same = sum(common.values())
    if num_same == 0:
        return 0.0
    precision = num_same / len(prediction_tokens)
    recall = num_same / len(gold_tokens)
    return 2 * precision * recall / (precision + recall)


@lru_cache(maxsize=1)
def _rouge_l_scorer():
    from rouge_score import rouge_scorer

    return rouge_scorer.RougeScorer(["rougeL"], use_stemmer=False)


def rouge_l(prediction: str, gold: str) -> float:
    """ROUGE-L F-measure (longest common subsequence) from ``rouge-score``, no stemming.

    Example:
        >>> round(rouge_l("Beyonce became famous in the late 1990s", "late 1990s"), 3)
        0.444
    """
    return float(_rouge_l_scorer().score(gold, prediction)["rougeL"].fmeasure)


def max_over_golds(fn: Callable[[str, str], float], prediction: str, golds: Iterable[str]) -> float:
    """The best score of ``prediction`` against any accepted gold answer.

    Raises:
        ValueError: if there is no gold answer.
    """
    scores = [fn(prediction, gold) for gold in golds]
    if not scores:
        raise ValueError("golds must not be empty")
    return max(scores)


def local_faithfulness(prediction: str, contexts: Iterable[str]) -> float | None:
    """Share of the prediction's distinct normalized tokens that occur in the contexts.

    ``|set(pred) & set(contexts)| / |set(pred)|`` (seed 003 section 4); None when the
    prediction has no token, since an empty answer is neither grounded nor ungrounded.

    Example:
        >>> local_faithfulness("Forbes magazine", ["Forbes listed her in 2009."])
        0.5
    """
    predicted = set(answer_tokens(prediction))
    if not predicted:
        return None
    context_tokens: set[str] = set()
    for context in contexts:
        context_tokens.update(answer_tokens(context))
    return len(predicted & context_tokens) / len(predicted)


def answer_in_contexts(golds: Iterable[str], contexts: Iterable[str]) -> bool:
    """Whether any normalized gold answer is a substring of a normalized context.

    Golds that normalize to nothing (``"The."``) are ignored: they would match any text.
    The match is a plain substring, as the seed's check (``"1" in "1990s"`` counts).

    Example:
        >>> answer_in_contexts(["Houston, Texas"], ["She was raised in houston texas."])
        True
    """
    normalized_golds = [g for g in (normalize_answer(gold) for gold in golds) if g]
    normalized_contexts = [normalize_answer(context) for context in contexts]
    return any(gold in context for gold in normalized_golds for context in normalized_contexts)
