"""The closed sets of values that config fields choose from.

Enum-typed schema fields make Hydra reject a typo (``stats.correction=hlom``) when the config is
composed, naming the key and the valid values. They are ``StrEnum``s whose names equal their
values, so the instantiated objects still compare, format and serialise as plain strings.
"""

from __future__ import annotations

from enum import StrEnum


class Direction(StrEnum):
    """Which way a metric improves."""

    higher = "higher"
    lower = "lower"


class StatTest(StrEnum):
    """Paired significance tests of ``stats`` (seed 003, section 7)."""

    t = "t"
    wilcoxon = "wilcoxon"
    permutation = "permutation"


class Correction(StrEnum):
    """Multiple-comparison corrections (``bh``: Benjamini-Hochberg)."""

    holm = "holm"
    bonferroni = "bonferroni"
    bh = "bh"
    none = "none"


class Traces(StrEnum):
    """Which questions of a job get an MLflow trace: ``auto`` (every one up to ``tracking.traces_max``,
    then a sample and the questions a person opens first: :mod:`harness.tracking.trace_policy`), every
    one, those answered, or none."""

    auto = "auto"
    all = "all"
    answered = "answered"
    none = "none"


class CacheMode(StrEnum):
    """``refresh`` recomputes and overwrites; ``off`` neither reads nor writes."""

    on = "on"
    refresh = "refresh"
    off = "off"


class Stratum(StrEnum):
    """Question fields a generation sample can be stratified by."""

    route = "route"
    difficulty = "difficulty"


class MatcherName(StrEnum):
    """Key-fact matchers (``harness.metrics.matching``)."""

    exact = "exact"
    fuzzy = "fuzzy"


class FactScore(StrEnum):
    """How a key fact found at several ranks is weighted: its first hit, or the sum of hits."""

    first_hit = "first_hit"
    sum = "sum"


class OnMissing(StrEnum):
    """What a predictions file lacking some questions does: refuse, score only the others, or score
    the missing ones as wrong (``zero``, as the official SQuAD script does)."""

    error = "error"
    skip = "skip"
    zero = "zero"


class RubricOutput(StrEnum):
    """A rubric's reply format: one number, or a JSON object of score fields."""

    number = "number"
    json = "json"


class Role(StrEnum):
    """Chat message roles."""

    system = "system"
    user = "user"
    assistant = "assistant"


class SampleStrategy(StrEnum):
    """How ``harness annotate export`` picks questions."""

    stratified = "stratified"
    worst = "worst"
    random = "random"


def values(choice: type[StrEnum]) -> tuple[str, ...]:
    """The plain string values of a choice, in declaration order, for components that check their
    arguments when built without Hydra (tests, the Python API) and name the options in messages.

    >>> values(Direction)
    ('higher', 'lower')
    """
    return tuple(member.value for member in choice)


class Fusion(StrEnum):
    """How a reranker's scores enter the final order (``harness.rerankers.fusion``)."""

    replace = "replace"
    interpolate = "interpolate"
    rrf = "rrf"


class LlmRerankMode(StrEnum):
    """What the ``llm`` reranker reads: P("yes") to a relevance question, or the query's likelihood (UPR)."""

    yes_no = "yes_no"
    query_likelihood = "query_likelihood"


class ApiRerankMode(StrEnum):
    """Pointwise relevance grades per passage, or a listwise (RankGPT) permutation per window."""

    pointwise = "pointwise"
    listwise = "listwise"


class IndexKind(StrEnum):
    """Vector indexes of dense retrieval (``retriever.index``)."""

    exact = "exact"
    hnsw = "hnsw"
    ivf = "ivf"


class EncodingKind(StrEnum):
    """Engines that embed a corpus (``retriever.encoding``)."""

    local = "local"
    ray = "ray"


class ConsoleMode(StrEnum):
    """How much the end of a sweep prints: one screen (``brief``) or every table (``full``)."""

    brief = "brief"
    full = "full"


class OnFailure(StrEnum):
    """What a failed question scores (``app.on_failure``, ``generation.on_failure``): a miss on every
    quality metric, or nothing (out of every run's paired comparison)."""

    miss = "miss"
    exclude = "exclude"


class Duplicates(StrEnum):
    """A question without an id asked twice: two questions, one (merged), or an error."""

    keep = "keep"
    merge = "merge"
    error = "error"
