"""The route suite (seed 001): routing accuracy, route-aware answer quality and the two-tier score.

Per question (namespaced ``routes/...`` by the pipeline):

* ``routing_correct``: 1/0, predicted route == expected route (tables with more than one route).
* the quality dimensions, each in [0, 1]: ``semantic_similarity`` (cosine of the answer and the
  expected answer with the packaged encoder, ``semantic_base``, plus the route's bonuses
  ``semantic_bonus`` and its minimum rule, ``semantic_below_minimum``), ``completeness``
  (key-fact coverage of the answer), ``factual_accuracy`` (numbers and key facts against the
  ground truth; ``numbers_contradicting`` counts made-up figures, ``hallucination`` flags a
  forbidden keyword), ``presentation`` and, where the route weighs it, ``executive_format``;
* ``quality`` (the route's weighted mean), ``pass`` (quality >= the route's threshold),
  ``success`` (pass on the right route) and ``two_tier`` (0.30 routing + 0.70 quality);
* ``by_route/<expected route>/...``: the same routing/quality/pass/success/two_tier values
  under the question's expected route, so per-route means and paired tests come for free.

The profile that scores an answer is the predicted route's, as seed 001 scores with
``actual_route``; the dimensions are computed by :mod:`harness.metrics.routes.dimensions`. A
clarification-expected or out-of-scope question scores its semantic dimension by whether the
answer asks back / declines, and an answer that does so is not held to the dimensions the table's
``behaviour.not_applicable_when_detected`` names (the executive format of a KPI report). Whether
retrieved passages vouch for an answer's figures is the profile's ``contexts_support`` (off on
KPI routes, whose context is the whole data table). Questions without an answer (no
generator, unsampled, failed generation) get routing scores only: answer dimensions are absent,
never 0. Aggregates: means (``routing_accuracy``, ``pass_rate``, ``success_rate``...) overall
and per route, with ``by_route/<route>/questions`` and ``answered`` counts; the artifact
``route_confusion.csv`` is the confusion matrix.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

import numpy as np

from harness.cache import ARRAY, DiskCache, content_key
from harness.metrics import key_facts as kf
from harness.metrics import sentence_vectors
from harness.metrics.suites import MetricSuite, Scores, mean_by_key
from harness.models import load_sentence_transformer, model_fingerprint
from harness.results.records import QuestionRecord
from harness.metrics.routes import dimensions, scoring
from harness.metrics.routes.confusion import confusion_matrix
from harness.metrics.routes.report import print_route_pivot, print_route_summary
from harness.metrics.routes.table import RouteTable

log = logging.getLogger(__name__)

PER_ROUTE_KEYS = ("routing_correct", "quality", "pass", "success", "two_tier")
COUNT_KEYS = frozenset({"claims_checked", "claims_correct", "numbers_contradicting"})
RENAMED = {"routing_correct": "routing_accuracy", "pass": "pass_rate", "success": "success_rate"}
CONFUSION_FILE = "route_confusion.csv"


class RouteSuite(MetricSuite):
    """Args:
        table: the route table (``routes`` config group).
        encoder: sentence-transformers model for semantic similarity (``${models.encoder}``).
        device: ``auto``, ``cpu``, ``cuda``...
        batch_size: encoding batch size.
        fact_matcher: key-fact matcher for completeness and accuracy (``exact`` or ``fuzzy``).
        numbers: ``{relative_tolerance, max_relative_rounding, ignore_years}``. Whether figures in
            the retrieved passages count as supported is the route profile's ``contexts_support``.
    """

    def __init__(self, table: RouteTable, encoder: str, device: str = "auto", batch_size: int = 64,
                 fact_matcher: str = "fuzzy", numbers: Mapping[str, Any] | None = None) -> None:
        if not isinstance(table, RouteTable):
            raise TypeError(f"table must be a RouteTable (the routes config group), got {type(table).__name__}")
        if fact_matcher not in kf.MATCHERS:
            raise ValueError(f"fact_matcher: unknown {fact_matcher!r}; choose from {sorted(kf.MATCHERS)}")
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        numbers = dict(numbers or {})
        years = numbers.get("ignore_years")
        if years is not None and (len(years) != 2 or years[0] > years[1]):
            raise ValueError(f"numbers.ignore_years must be [first, last] or null, got {list(years)}")
        self.table = table
        self.encoder, self.device, self.batch_size = encoder, device, batch_size
        self.match = kf.MATCHERS[fact_matcher]
        self.rules = scoring.NumberRules(
            relative_tolerance=float(numbers.get("relative_tolerance", 0.0)),
            max_relative_rounding=float(numbers.get("max_relative_rounding", 0.0)),
            ignore_years=None if years is None else (int(years[0]), int(years[1])))
        self._similarity: dict[str, tuple[str, float]] = {}

    @classmethod
    def sweep_summary(cls, summaries: list[dict[str, Any]], title: str, console=None, brief: bool = False) -> None:
        """The per-route table: routing accuracy, quality and pass rates per job and route
        (``brief``: pivoted, one row per job)."""
        if brief:
            print_route_pivot(summaries, title)
        else:
            print_route_summary(summaries, title, console)

    # --- batch work ---------------------------------------------------------------------------

    def prepare(self, records: list[QuestionRecord], cache: DiskCache | None = None) -> None:
        """Checks the route labels and embeds every answer with its reference in one batch."""
        self._check_routes(records)
        todo = [(r, reference) for r in records if _answered(r) and not dimensions.expects_behaviour(r.question)
                and (reference := dimensions.reference(r.question)) is not None]
        self._similarity = {}
        if not todo:
            return
        # Each distinct text once: an answer often equals its reference (SQuAD extractive answers).
        texts = list(dict.fromkeys([r.generation.text for r, _ in todo] + [reference for _, reference in todo]))

        def encode():
            # The texts BERTScore encoded at this model's last layer already have their vector
            # (harness.metrics.sentence_vectors): only the others go through the encoder.
            known = sentence_vectors.recall(self.encoder, texts)
            rest = [text for text in texts if text not in known]
            if rest:
                encoder = load_sentence_transformer(self.encoder, self.device)
                known.update(zip(rest, encoder.encode(rest, batch_size=self.batch_size, normalize_embeddings=True,
                                                      convert_to_numpy=True, show_progress_bar=False)))
            return np.stack([known[text] for text in texts]).astype(np.float32, copy=False)

        # Cached like the retrievers' embeddings: a re-run of the same answers loads no encoder.
        key = content_key(model_fingerprint(self.encoder), "distinct", texts)
        embedded = cache.get_or_build("route_similarity", key, encode, ARRAY) if cache is not None else encode()
        row = {text: i for i, text in enumerate(texts)}
        answers = embedded[[row[r.generation.text] for r, _ in todo]]
        references = embedded[[row[reference] for _, reference in todo]]
        cosines = np.einsum("ij,ij->i", answers, references).tolist()
        self._similarity = {r.question.id: (r.generation.text, float(c)) for (r, _), c in zip(todo, cosines)}

    def _check_routes(self, records: list[QuestionRecord]) -> None:
        if not self.table.routed:
            return
        unknown = sorted({(r.question.id, r.question.route) for r in records
                          if r.question.route is not None and r.question.route not in self.table.routes})
        if unknown:
            shown = ", ".join(f"'{qid}' ({route})" for qid, route in unknown[:10])
            raise ValueError(f"routes: {len(unknown)} question(s) are labelled with a route the route table does not "
                             f"have: {shown}; the table's routes are {sorted(self.table.routes)} (fix the 'route' "
                             f"field of the questions file or choose another routes option)")
        strays = sorted({r.predicted_route for r in records
                         if r.predicted_route is not None and r.predicted_route not in self.table.routes})
        if strays:
            log.warning("routes: predicted route(s) %s are not in the route table %s; they count as routing misses "
                        "and are scored with the fallback profile", strays, sorted(self.table.routes))

    # --- per question -------------------------------------------------------------------------

    def score(self, record: QuestionRecord) -> Scores:
        table = self.table
        expected = table.expected_route(record.question.route)
        scores: Scores = {}
        correct: bool | None = None
        if table.routed and expected is not None:
            correct = record.predicted_route == expected
            scores["routing_correct"] = float(correct)
        quality = None
        if _answered(record):
            profile = table.profile_of(record.predicted_route)
            dims, details = dimensions.answer_dimensions(
                record.question, record.generation.text, record.contexts or [], profile, table,
                self._base_similarity(record), self.match, self.rules)
            scores.update(details)
            scores.update({name: value for name, value in dims.items() if value is not None})
            quality = scoring.weighted_quality(dims, profile.weights)
            if quality is not None:
                scores["quality"] = quality
                scores["pass"] = float(quality >= profile.quality_threshold)
                if correct is not None:
                    scores["success"] = float(correct and quality >= profile.quality_threshold)
        two_tier = scoring.two_tier(correct, quality, table.two_tier.routing, table.two_tier.quality,
                                    table.two_tier.wrong_route)
        if two_tier is not None:
            scores["two_tier"] = two_tier
        if table.routed and expected is not None:
            scores.update({f"by_route/{expected}/{key}": scores[key] for key in PER_ROUTE_KEYS if key in scores})
        return scores

    def _base_similarity(self, record: QuestionRecord) -> float | None:
        """The answer's cosine with its reference, as embedded by ``prepare``."""
        question = record.question
        if dimensions.expects_behaviour(question) or dimensions.reference(question) is None:
            return None
        cached = self._similarity.get(question.id)
        if cached is None or cached[0] != record.generation.text:
            raise RuntimeError(f"question '{question.id}': no semantic similarity; call prepare(records) first")
        return cached[1]

    # --- aggregates and artifacts -------------------------------------------------------------

    def aggregate(self, rows: list[Scores]) -> Scores:
        means = mean_by_key(rows, skip=COUNT_KEYS)
        aggregates = {_renamed(key): value for key, value in means.items()}
        for route in self.table.routes if self.table.routed else ():
            prefix = f"by_route/{route}/"
            asked = [row for row in rows if prefix + "routing_correct" in row]
            if asked:
                aggregates[prefix + "questions"] = float(len(asked))
                aggregates[prefix + "answered"] = float(sum(prefix + "quality" in row for row in asked))
        return aggregates

    def artifacts(self, records: list[QuestionRecord], rows: list[Scores]) -> dict[str, str]:
        if not self.table.routed:
            return {}
        labelled = [(self.table.expected_route(r.question.route), r.predicted_route) for r in records]
        labelled = [(expected, predicted) for expected, predicted in labelled if expected is not None]
        if not labelled:
            return {}
        matrix = confusion_matrix([e for e, _ in labelled], [p for _, p in labelled], list(self.table.routes))
        return {CONFUSION_FILE: matrix.to_csv(index_label="expected \\ predicted")}


def _answered(record: QuestionRecord) -> bool:
    return record.generation is not None and not record.generation.failed


def _renamed(key: str) -> str:
    head, _, last = key.rpartition("/")
    last = RENAMED.get(last, last)
    return f"{head}/{last}" if head else last
