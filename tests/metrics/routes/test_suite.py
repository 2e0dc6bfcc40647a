"""RouteSuite on hand-built records with the real route tables (conf/routes) and encoder."""

from __future__ import annotations

import pytest
from sentence_transformers import util
from sklearn.metrics import confusion_matrix as sk_confusion_matrix

from harness.chunkers.base import Chunk
from harness.data.records import AnswerCriteria, Question
from harness.generators.base import Generation
from harness.metrics.key_facts import coverage
from harness.metrics.matching import fuzzy_match
from harness.models import load_sentence_transformer
from harness.results.records import QuestionRecord
from harness.metrics.routes.confusion import NO_ROUTE, confusion_matrix
from harness.metrics.routes.scoring import factual_accuracy
from tests.conftest import PROJECT_ROOT
from tests.metrics.routes.conftest import kpi_rag, kpi_rag_suite, single, single_suite  # noqa: F401 (fixtures)

pytestmark = pytest.mark.slow  # loads the packaged encoder

SALES_CONTEXT = "| June 2025 | $1,345,000 | +$74,000 (+5.8%) | 52 | 10 | $5,230 |"
# The demo's whole sales table, as a sales KPI answer's context holds it.
SALES_DOC = (PROJECT_ROOT / "experiments" / "demo" / "docs" / "kpi_sales_2025.md").read_text()


def record(qid="kpi_001", text="What was CloudFlow's revenue in June 2025?", route="sales_kpi",
           answer: str | None = "CloudFlow's revenue in June 2025 was $1,345,000, up 5.8% vs May; growth was "
                                "driven by new customers.",
           predicted="sales_kpi", ground_truth="$1,345,000", key_facts=("$1,345,000",),
           expected_answer="CloudFlow's revenue in June 2025 was $1,345,000, up $74,000 (5.8%) from May.",
           criteria=AnswerCriteria(), context=SALES_CONTEXT, error=None) -> QuestionRecord:
    question = Question(id=qid, text=text, relevant={"kpi_sales_2025": 1}, key_facts=tuple(key_facts),
                        ground_truth=ground_truth, answers=(ground_truth,) if ground_truth else (),
                        expected_answer=expected_answer,
                        route=route, answer_criteria=criteria)
    chunk = Chunk(id="c#0", doc_id="kpi_sales_2025", text=context, start=0, end=len(context))
    generation = None if answer is None else Generation(text=answer, error=error)
    return QuestionRecord(question=question, chunks=[chunk], scores=[1.0], top_k=1, generation=generation,
                          predicted_route=predicted)


def scored(suite, *records):
    suite.prepare(list(records))
    return [suite.score(r) for r in records]


def cosine(suite, a: str, b: str) -> float:
    encoder = load_sentence_transformer(suite.encoder, suite.device)
    return float(util.cos_sim(encoder.encode(a), encoder.encode(b))[0][0])


def test_kpi_answer_every_dimension(kpi_rag_suite):
    rec = record()
    (row,) = scored(kpi_rag_suite, rec)
    base = cosine(kpi_rag_suite, rec.generation.text, rec.question.expected_answer)
    assert row["semantic_base"] == pytest.approx(base, abs=1e-5)
    assert row["semantic_bonus"] == pytest.approx(0.20)  # "vs" and "growth"; under 300 characters
    assert row["semantic_similarity"] == pytest.approx(min(1.0, base + 0.20), abs=1e-5)
    assert row["completeness"] == 1.0 and row["factual_accuracy"] == 1.0 and row["presentation"] == 1.0
    assert row["executive_format"] == pytest.approx(0.80)  # $ figure, "vs", "growth"; no insight term
    expected = (0.15 * row["semantic_similarity"] + 0.25 + 0.35 + 0.10 + 0.15 * 0.80)
    assert row["quality"] == pytest.approx(expected)
    assert row["pass"] == 1.0 and row["success"] == 1.0 and row["routing_correct"] == 1.0
    assert row["two_tier"] == pytest.approx(0.30 + 0.70 * expected)
    assert row["by_route/sales_kpi/quality"] == row["quality"]
    assert not any(k.startswith("by_route/hr_kpi") for k in row)


def test_a_wrong_number_lowers_accuracy_and_can_fail_the_threshold(kpi_rag_suite):
    (row,) = scored(kpi_rag_suite, record(answer="Revenue in June 2025 was $1,290,000."))
    assert row["factual_accuracy"] == 0.0 and row["numbers_contradicting"] == 1.0
    assert row["completeness"] == 0.0
    assert row["quality"] < 0.65 and row["pass"] == 0.0 and row["success"] == 0.0
    assert row["two_tier"] == pytest.approx(0.30 + 0.70 * row["quality"])


def test_aprils_revenue_as_junes_fails_with_the_whole_table_in_context(kpi_rag_suite):
    """The sales table holds April's $1,196,000, but on a KPI route that does not make it June's."""
    assert "| April 2025 | $1,196,000 |" in SALES_DOC
    both_figures = "CloudFlow's revenue in June 2025 was $1,345,000, up from $1,196,000 in May."
    right, april, both, docs = scored(
        kpi_rag_suite,
        record(qid="right", context=SALES_DOC,
               answer="CloudFlow's revenue in June 2025 was $1,345,000, up $74,000 (5.8%) vs May; growth was "
                      "driven by new customers."),
        record(qid="april", context=SALES_DOC, answer="CloudFlow's revenue in June 2025 was $1,196,000."),
        record(qid="both", context=SALES_DOC, answer=both_figures),
        # The same answer on the documentation route, where retrieved passages vouch for figures.
        record(qid="docs", context=SALES_DOC, route="rag_docs", predicted="rag_docs", answer=both_figures))
    assert right["factual_accuracy"] == 1.0 and right["numbers_contradicting"] == 0.0 and right["pass"] == 1.0
    assert april["factual_accuracy"] == 0.0 and april["numbers_contradicting"] == 1.0
    assert april["completeness"] == 0.0 and april["pass"] == 0.0
    # The right figure beside April's: one claim right, one figure wrong, 1 / (1 + 1).
    assert both["factual_accuracy"] == 0.5 and both["numbers_contradicting"] == 1.0
    assert docs["factual_accuracy"] == 1.0 and docs["numbers_contradicting"] == 0.0


def test_a_correct_clarification_passes_the_kpi_threshold(kpi_rag_suite):
    """Seed 001's demo question kpi_015 on sales_kpi: asking back is right, so the executive format of
    a KPI report does not apply; quality = (0.15 x 1.0 + 0.10 x 1.0) / 0.25 = 1.0. Answering with a
    figure misses it and is held to the format: (0.15 x 0 + 0.10 x 1.0 + 0.15 x 0.30) / 0.40 = 0.3625."""
    criteria = AnswerCriteria(clarification_expected=True)
    kwargs = dict(text="What were the sales?", ground_truth="Clarification needed", key_facts=(),
                  expected_answer="Which period do you mean?", criteria=criteria, context=SALES_DOC)
    asked, answered = scored(kpi_rag_suite, record(qid="a", answer="Could you clarify which month you mean?", **kwargs),
                             record(qid="b", answer="Sales were $1,345,000.", **kwargs))
    assert "executive_format" not in asked
    assert asked["quality"] == pytest.approx(1.0) and asked["pass"] == 1.0 and asked["success"] == 1.0
    assert answered["executive_format"] == pytest.approx(0.30)
    assert answered["quality"] == pytest.approx(0.3625) and answered["pass"] == 0.0


def test_route_mismatch_scores_zero_two_tier_and_uses_the_predicted_profile(kpi_rag_suite):
    right, wrong = scored(kpi_rag_suite, record(), record(predicted="rag_docs"))
    assert wrong["routing_correct"] == 0.0 and wrong["two_tier"] == 0.0 and wrong["success"] == 0.0
    # Scored as seed 001 does, with the route actually taken: RAG weights, no executive format, no bonus.
    assert "executive_format" not in wrong and wrong["semantic_bonus"] == 0.0
    assert wrong["semantic_base"] == pytest.approx(right["semantic_base"])
    assert wrong["by_route/sales_kpi/routing_correct"] == 0.0
    aggregates = kpi_rag_suite.aggregate([right, wrong])
    assert aggregates["routing_accuracy"] == 0.5
    assert aggregates["by_route/sales_kpi/routing_accuracy"] == 0.5
    assert aggregates["by_route/sales_kpi/questions"] == 2.0 and aggregates["by_route/sales_kpi/answered"] == 2.0
    assert aggregates["two_tier"] == pytest.approx(right["two_tier"] / 2)
    assert aggregates["success_rate"] == 0.5


def test_no_predicted_route_is_a_miss_scored_with_the_fallback(kpi_rag_suite):
    (row,) = scored(kpi_rag_suite, record(predicted=None))
    assert row["routing_correct"] == 0.0 and "executive_format" not in row


def test_questions_without_answers_get_routing_only(kpi_rag_suite):
    rows = scored(kpi_rag_suite, record(answer=None), record(qid="f", answer="", error="timeout"))
    for row in rows:
        assert row == {"routing_correct": 1.0, "by_route/sales_kpi/routing_correct": 1.0}
    aggregates = kpi_rag_suite.aggregate(rows)
    assert aggregates["by_route/sales_kpi/answered"] == 0.0 and "quality" not in aggregates


def test_clarification_expected(kpi_rag_suite):
    criteria = AnswerCriteria(clarification_expected=True)
    kwargs = dict(text="What were the sales?", ground_truth="Clarification needed", key_facts=(),
                  expected_answer="Which period do you mean?", criteria=criteria, context="")
    asked, answered = scored(kpi_rag_suite, record(qid="a", answer="Could you clarify which month you mean?", **kwargs),
                             record(qid="b", answer="Sales were $1,345,000.", **kwargs))
    assert asked["behaviour_detected"] == 1.0 and asked["semantic_similarity"] == 1.0
    assert answered["behaviour_detected"] == 0.0 and answered["semantic_similarity"] == 0.0
    assert "semantic_base" not in asked and "completeness" not in asked
    assert asked["quality"] > answered["quality"]


def test_out_of_scope_and_forbidden_keywords(kpi_rag_suite):
    criteria = AnswerCriteria(out_of_scope=True, forbidden_keywords=("sunny", "°C"))
    kwargs = dict(text="Weather tomorrow?", route="rag_docs", predicted="rag_docs", key_facts=(),
                  ground_truth="Out of scope", expected_answer="That is out of scope.", criteria=criteria, context="")
    declined, invented = scored(kpi_rag_suite,
                                record(qid="a", answer="Sorry, that is out of scope: I only answer CloudFlow questions.",
                                       **kwargs),
                                record(qid="b", answer="Tomorrow will be sunny, 31 °C.", **kwargs))
    assert declined["behaviour_detected"] == 1.0 and declined["hallucination"] == 0.0
    assert "factual_accuracy" not in declined          # nothing to check: absent, not 0
    assert invented["behaviour_detected"] == 0.0 and invented["hallucination"] == 1.0
    assert invented["factual_accuracy"] == 0.0
    assert declined["pass"] == 1.0 and invented["pass"] == 0.0


def test_question_minimum_on_rag_routes(kpi_rag_suite):
    kwargs = dict(route="rag_docs", predicted="rag_docs", answer="Revenue was $1,345,000 in June 2025.")
    plain, strict = scored(kpi_rag_suite, record(qid="a", **kwargs),
                           record(qid="b", criteria=AnswerCriteria(min_semantic_similarity=0.99), **kwargs))
    assert plain["semantic_base"] == pytest.approx(strict["semantic_base"])
    assert strict["semantic_below_minimum"] == 1.0
    assert plain["semantic_below_minimum"] == float(plain["semantic_base"] < 0.75)


def test_single_equals_the_route_less_score(single_suite, kpi_rag_suite):
    """One route: quality is the plain weighted mean of the dimensions, with no routing, bonus,
    minimum rule or executive format; it equals kpi_rag's score on a RAG question. (Factual accuracy
    here reuses scoring.factual_accuracy; test_single_against_hand_worked_dimensions checks every
    dimension against numbers worked out by hand.)"""
    rec = record(route="rag_docs", predicted="all",
                 answer="June 2025 revenue was $1,345,000, vs $1,271,000 in May: strong growth.")
    (row,) = scored(single_suite, rec)
    base = cosine(single_suite, rec.generation.text, rec.question.expected_answer)
    facts = list(rec.question.key_facts)
    dims = {"semantic_similarity": base,
            "completeness": coverage(facts, [rec.generation.text], fuzzy_match),
            "factual_accuracy": factual_accuracy(rec.generation.text, rec.question.ground_truth, facts,
                                                 [rec.question.text, rec.question.expected_answer, SALES_CONTEXT],
                                                 fuzzy_match, single_suite.rules).score,
            "presentation": 1.0}
    weights = {"semantic_similarity": 0.25, "completeness": 0.30, "factual_accuracy": 0.30, "presentation": 0.15}
    assert dict(single_suite.table.profile_of(None).weights) == weights
    assert row["quality"] == pytest.approx(sum(weights[k] * dims[k] for k in weights), abs=1e-6)
    assert row["semantic_similarity"] == pytest.approx(base, abs=1e-5) and row["semantic_bonus"] == 0.0
    assert not {"routing_correct", "two_tier", "success", "executive_format"} & set(row)
    assert not any(k.startswith("by_route/") for k in row)
    assert row["pass"] == float(row["quality"] >= 0.70)
    # kpi_rag's RAG route has the same weights; its minimum rule only floors similarities under 0.3.
    (routed,) = scored(kpi_rag_suite, record(route="rag_docs", predicted="rag_docs", answer=rec.generation.text))
    assert 0.3 <= routed["semantic_base"] < 0.75 and routed["semantic_below_minimum"] == 1.0
    assert routed["quality"] == pytest.approx(row["quality"])
    assert single_suite.artifacts([rec], [row]) == {}


def test_single_against_hand_worked_dimensions(single_suite):
    """routes=single with every dimension worked out by hand (weights 0.25/0.30/0.30/0.15, threshold 0.70).

    The gold figures are $1,345,000 and 52; the answers state $1,345,000 and 48.
    * ``echo``: the answer is the expected answer (cosine 1, no bonus or minimum on a single route);
      completeness 1/2 ("52 new customers" is missing); accuracy 1/2 (48 is vouched for by the
      expected answer, so only 52 is missed); "very" four times fails one of the four presentation
      checks: 0.75. Quality 0.25 + 0.30 x 0.5 + 0.30 x 0.5 + 0.15 x 0.75 = 0.6625.
    * ``unvouched``: no reference (no semantic dimension: its weight leaves the mean); 48 is in
      nothing the question or context holds, so it counts against: accuracy 1 / (2 + 1).
      Quality (0.30 x 0.5 + 0.30 / 3 + 0.15 x 1) / 0.75 = 0.4 / 0.75.
    * ``vouched``: the same with 48 in the retrieved passage (single lets passages vouch): 1/2.
      Quality (0.30 x 0.5 + 0.30 x 0.5 + 0.15) / 0.75 = 0.6.
    """
    facts = ("$1,345,000", "52 new customers")
    echo = "June 2025 revenue was $1,345,000 from 48 new customers, a very very very very good month."
    plain = "Revenue was $1,345,000 and 48 new customers signed."
    common = dict(route=None, predicted="all", key_facts=facts, text="What were CloudFlow's June 2025 sales?")
    rows = scored(single_suite,
                  record(qid="echo", answer=echo, expected_answer=echo, ground_truth="$1,345,000", **common),
                  record(qid="unvouched", answer=plain, expected_answer=None, ground_truth=None,
                         context="| June 2025 | $1,345,000 | 52 |", **common),
                  record(qid="vouched", answer=plain, expected_answer=None, ground_truth=None,
                         context="| June 2025 | $1,345,000 | 52 | 48 |", **common))
    by_hand = [
        {"semantic_similarity": 1.0, "completeness": 0.5, "factual_accuracy": 0.5, "presentation": 0.75,
         "quality": 0.6625, "pass": 0.0, "claims_checked": 2.0, "claims_correct": 1.0, "numbers_contradicting": 0.0},
        {"completeness": 0.5, "factual_accuracy": 1 / 3, "presentation": 1.0, "quality": 0.4 / 0.75, "pass": 0.0,
         "claims_checked": 2.0, "claims_correct": 1.0, "numbers_contradicting": 1.0},
        {"completeness": 0.5, "factual_accuracy": 0.5, "presentation": 1.0, "quality": 0.6, "pass": 0.0,
         "claims_checked": 2.0, "claims_correct": 1.0, "numbers_contradicting": 0.0},
    ]
    for row, expected in zip(rows, by_hand):
        assert {key: row[key] for key in expected} == pytest.approx(expected, abs=1e-6)
        assert not {"routing_correct", "two_tier", "success", "executive_format"} & set(row)
    assert rows[0]["semantic_base"] == pytest.approx(1.0, abs=1e-6) and rows[0]["semantic_bonus"] == 0.0
    assert "semantic_similarity" not in rows[1] and "semantic_similarity" not in rows[2]
    assert single_suite.aggregate(rows)["quality"] == pytest.approx((0.6625 + 0.4 / 0.75 + 0.6) / 3, abs=1e-6)


def test_per_route_aggregates_and_confusion_matrix(kpi_rag_suite):
    hr = dict(route="hr_kpi", ground_truth="461 employees", key_facts=("461 employees",),
              expected_answer="CloudFlow had 461 employees at the end of June 2025.",
              text="What was CloudFlow's headcount at the end of June 2025?", context="| June 2025 | 461 |")
    records = [record(qid="s1"), record(qid="s2", predicted="hr_kpi"), record(qid="s3", answer=None),
               record(qid="h1", answer="461 employees at the end of June 2025.", predicted="hr_kpi", **hr),
               record(qid="h2", answer=None, predicted=None, **hr),
               record(qid="d1", route="rag_docs", predicted="rag_docs", answer=None)]
    rows = scored(kpi_rag_suite, *records)
    aggregates = kpi_rag_suite.aggregate(rows)
    assert aggregates["routing_accuracy"] == pytest.approx(4 / 6)
    assert aggregates["by_route/sales_kpi/questions"] == 3 and aggregates["by_route/sales_kpi/answered"] == 2
    assert aggregates["by_route/hr_kpi/routing_accuracy"] == 0.5
    assert aggregates["by_route/rag_docs/routing_accuracy"] == 1.0
    assert aggregates["by_route/hr_kpi/quality"] == rows[3]["quality"]
    assert aggregates["by_route/sales_kpi/pass_rate"] == pytest.approx((rows[0]["pass"] + rows[1]["pass"]) / 2)
    assert aggregates["pass_rate"] == pytest.approx((rows[0]["pass"] + rows[1]["pass"] + rows[3]["pass"]) / 3)
    csv = kpi_rag_suite.artifacts(records, rows)["route_confusion.csv"].splitlines()
    assert csv[0] == f"expected \\ predicted,sales_kpi,hr_kpi,rag_docs,{NO_ROUTE}"
    assert csv[1:] == ["sales_kpi,2,1,0,0", "hr_kpi,0,1,0,1", "rag_docs,0,0,1,0"]


def test_confusion_matrix_equals_sklearn():
    expected = ["a", "a", "b", "c", "b", "a", "c"]
    predicted = ["a", "b", "b", "a", "b", "c", "c"]
    ours = confusion_matrix(expected, predicted, ["a", "b", "c"])
    assert ours.values.tolist() == sk_confusion_matrix(expected, predicted, labels=["a", "b", "c"]).tolist()
    strays = confusion_matrix(["a", "x"], ["zz", None], ["a", "b"])
    assert list(strays.index) == ["a", "b", "x"] and list(strays.columns) == ["a", "b", "x", "zz", NO_ROUTE]


def test_unknown_route_labels_fail_naming_the_questions(kpi_rag_suite):
    with pytest.raises(ValueError, match=r"'t1' \(docs\).*sales_kpi"):
        kpi_rag_suite.prepare([record(qid="t1", route="docs")])


def test_score_without_prepare_fails_loudly(kpi_rag_suite):
    kpi_rag_suite.prepare([])
    with pytest.raises(RuntimeError, match="call prepare"):
        kpi_rag_suite.score(record(qid="never-prepared"))


def test_answer_embeddings_come_from_the_cache_on_a_re_run(kpi_rag_suite, tmp_path, monkeypatch):
    import harness.metrics.routes.suite as suite_module
    from harness.cache import DiskCache

    rec = record()
    kpi_rag_suite.prepare([rec], DiskCache(tmp_path))
    first = kpi_rag_suite.score(rec)

    def no_model(*args, **kwargs):
        raise AssertionError("the re-run loaded the encoder")

    monkeypatch.setattr(suite_module, "load_sentence_transformer", no_model)
    kpi_rag_suite.prepare([rec], DiskCache(tmp_path))
    assert kpi_rag_suite.score(rec) == first
    with pytest.raises(AssertionError, match="loaded the encoder"):
        kpi_rag_suite.prepare([record(answer="Revenue was $1,345,000.")], DiskCache(tmp_path))
