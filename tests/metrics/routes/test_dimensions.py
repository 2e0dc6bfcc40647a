"""Per-route dimension rules of conf/routes: which passages vouch for figures, and which dimensions
a rightly asking-back or declining answer is not held to. Real demo data, no encoder."""

from __future__ import annotations

import pytest

from harness.data.records import AnswerCriteria, Question
from harness.metrics.matching import fuzzy_match
from harness.metrics.routes.dimensions import answer_dimensions
from harness.metrics.routes.scoring import NumberRules
from harness.metrics.routes.table import Behaviour
from tests.conftest import PROJECT_ROOT
from tests.metrics.routes.conftest import kpi_rag, kpi_rag_suite  # noqa: F401 (fixtures)

# The demo's sales table: every month's revenue is in the context of a sales KPI answer.
SALES_DOC = (PROJECT_ROOT / "experiments" / "demo" / "docs" / "kpi_sales_2025.md").read_text()
# Demo question kpi_001.
JUNE = Question(id="kpi_001", text="What was CloudFlow's revenue in June 2025?", key_facts=("$1,345,000",),
                ground_truth="$1,345,000", answers=("$1,345,000",), route="sales_kpi",
                expected_answer="CloudFlow's revenue in June 2025 was $1,345,000, up $74,000 (5.8%) from May and "
                                "the highest month of the first half of 2025.")
# Demo question kpi_015.
SALES = Question(id="kpi_015", text="What were the sales?", route="sales_kpi",
                 ground_truth="Clarification needed: which period (a month or a quarter) and which sales figure?",
                 expected_answer="Could you clarify which period and which sales figure you mean?",
                 answer_criteria=AnswerCriteria(clarification_expected=True))
RULES = NumberRules(relative_tolerance=0.0, max_relative_rounding=0.05, ignore_years=(1900, 2100))


def dims(table, question, answer, route, contexts=(SALES_DOC,)):
    return answer_dimensions(question, answer, list(contexts), table.profile_of(route), table, None,
                             fuzzy_match, RULES)


def test_context_support_is_per_route_in_the_yaml(kpi_rag):
    assert [kpi_rag.profile_of(r).contexts_support for r in ("sales_kpi", "hr_kpi", "rag_docs", None)] == [
        False, False, True, True]


def test_the_sales_doc_holds_aprils_figure():
    assert "| April 2025 | $1,196,000 |" in SALES_DOC


@pytest.mark.parametrize("answer, accuracy, contradicting", [
    # April's revenue beside the right figure: made free by the table before, now 1 / (1 + 1).
    ("CloudFlow's revenue in June 2025 was $1,345,000, up from $1,196,000 in May.", 0.5, 1.0),
    # April's revenue given as June's: nothing right, and the wrong figure is counted.
    ("CloudFlow's revenue in June 2025 was $1,196,000.", 0.0, 1.0),
    # The right figure, with the change the expected answer states.
    ("CloudFlow's revenue in June 2025 was $1,345,000, up $74,000 (5.8%) from May.", 1.0, 0.0),
    ("June 2025 revenue: $1.35M.", 1.0, 0.0),
])
def test_a_wrong_figure_from_the_table_counts_against_kpi_accuracy(kpi_rag, answer, accuracy, contradicting):
    scores, details = dims(kpi_rag, JUNE, answer, "sales_kpi")
    assert scores["factual_accuracy"] == accuracy
    assert details["numbers_contradicting"] == contradicting and details["claims_checked"] == 1.0


def test_on_a_documentation_route_the_retrieved_passages_vouch_for_figures(kpi_rag):
    answer = "CloudFlow's revenue in June 2025 was $1,345,000, up from $1,196,000 in May."
    with_doc, _ = dims(kpi_rag, JUNE, answer, "rag_docs")
    without_doc, _ = dims(kpi_rag, JUNE, answer, "rag_docs", contexts=())
    assert with_doc["factual_accuracy"] == 1.0 and without_doc["factual_accuracy"] == 0.5


def test_a_correct_clarification_is_not_held_to_the_executive_format(kpi_rag):
    assert kpi_rag.behaviour.not_applicable_when_detected == ("executive_format",)
    asked, details = dims(kpi_rag, SALES, "Could you clarify which month you mean?", "sales_kpi")
    assert details["behaviour_detected"] == 1.0
    assert asked == {"semantic_similarity": 1.0, "completeness": None, "factual_accuracy": None,
                     "presentation": 1.0}
    # A missed clarification is still a KPI answer and is held to it: "$" figure, 0.30.
    answered, details = dims(kpi_rag, SALES, "Sales were $1,345,000.", "sales_kpi")
    assert details["behaviour_detected"] == 0.0
    assert answered["semantic_similarity"] == 0.0 and answered["executive_format"] == pytest.approx(0.30)


def test_a_correct_decline_is_not_held_to_the_executive_format(kpi_rag):
    weather = Question(id="kpi_016", text="What will the weather be in Kuala Lumpur tomorrow?", route="rag_docs",
                       ground_truth="Out of scope", answer_criteria=AnswerCriteria(out_of_scope=True))
    declined, _ = dims(kpi_rag, weather, "Sorry, that is out of scope for me.", "sales_kpi")
    assert "executive_format" not in declined and declined["semantic_similarity"] == 1.0


def test_not_applicable_dimensions_must_be_dimensions():
    with pytest.raises(ValueError, match=r"not_applicable_when_detected: unknown dimensions \['format'\]"):
        Behaviour(clarification=(), out_of_scope=(), detected=1.0, missed=0.0, not_applicable_when_detected=("format",))
