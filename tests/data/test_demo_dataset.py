"""Content checks on the bundled CloudFlow demo dataset (experiments/demo)."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from harness.data.questions_jsonl import load_questions_jsonl
from harness.data.records import Dataset, Document

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "experiments" / "demo"


@pytest.fixture(scope="module")
def demo() -> Dataset:
    return load_questions_jsonl(name="demo", questions=str(DEMO / "questions.jsonl"),
                                documents=str(DEMO / "docs"))


@pytest.fixture(scope="module")
def docs(demo: Dataset) -> dict[str, Document]:
    return {doc.id: doc for doc in demo.documents}


def test_size(demo):
    assert len(demo.documents) >= 25
    assert len(demo.questions) >= 60


def test_difficulty_mix(demo):
    counts = Counter(q.difficulty for q in demo.questions)
    total = len(demo.questions)
    assert set(counts) == {"easy", "medium", "hard"}
    assert 0.35 <= counts["easy"] / total <= 0.45
    assert 0.35 <= counts["medium"] / total <= 0.45
    assert 0.15 <= counts["hard"] / total <= 0.25


def answerable(demo: Dataset) -> list:
    """Questions with an answer in the documents (not seed 001's clarification/out-of-scope ones)."""
    return [q for q in demo.questions
            if not (q.answer_criteria.clarification_expected or q.answer_criteria.out_of_scope)]


def test_every_question_has_one_needle_and_key_facts(demo):
    for question in answerable(demo):
        assert len(question.relevant) == 1, question.id
        assert list(question.relevant.values()) == [1], question.id
        assert question.key_facts, question.id


def test_every_key_fact_is_in_its_needle_document(demo, docs):
    missing = []
    for question in answerable(demo):
        (needle,) = question.relevant
        text = docs[needle].text.lower()
        missing += [(question.id, fact) for fact in question.key_facts if fact.lower() not in text]
    assert missing == []


def test_question_ids_unique_and_documents_titled(demo):
    ids = [q.id for q in demo.questions]
    assert len(ids) == len(set(ids))
    assert all(doc.title and doc.text.strip() for doc in demo.documents)


def test_table_of_contents_is_a_distractor_without_values(demo, docs):
    assert "table_of_contents" in docs
    assert all("table_of_contents" not in q.relevant for q in demo.questions)
    digits = re.findall(r"\d", docs["table_of_contents"].text)
    assert digits == []


def test_jwt_lifetime_in_seconds_and_cached_definitions_in_hours(demo, docs):
    jwt = [q for q in demo.questions if "JWT" in q.text and "valid before it expires" in q.text]
    assert len(jwt) == 1
    (needle,) = jwt[0].relevant
    assert needle == "authentication"
    assert "3600 seconds" in docs[needle].text
    assert "1 hour" in docs["caching"].text
    # The caching doc phrases the definition TTL in hours: a lexical trap for "3600 seconds" queries.
    assert "TTL of 1 hour" in docs["caching"].text


def test_database_holds_both_connection_numbers(docs):
    text = docs["database"].text
    assert "100 connections" in text
    assert "2,000 concurrent connections" in text
    assert "2,000 concurrent connections" in docs["scaling_and_architecture"].text


def test_api_reference_auth_sentence_is_deep_in_the_document(demo, docs):
    sentence = "API Keys, OAuth 2.0, and JWT Tokens"
    text = docs["api_reference"].text
    position = text.find(sentence)
    assert position != -1
    assert len(text[:position].split()) >= 400
    asking = [q for q in demo.questions if sentence in q.key_facts]
    assert asking and all(q.relevant == {"api_reference": 1} for q in asking)


def test_routes_of_seed_001(demo):
    """Documentation questions take the RAG route; the KPI part has sales and HR questions whose
    answers are numbers, plus one clarification-expected and one out-of-scope question."""
    routes = Counter(q.route for q in demo.questions)
    assert set(routes) == {"rag_docs", "sales_kpi", "hr_kpi"}
    assert routes["sales_kpi"] >= 6 and routes["hr_kpi"] >= 6
    kpi = [q for q in answerable(demo) if q.route in ("sales_kpi", "hr_kpi")]
    assert len(kpi) >= 12
    assert all(re.search(r"\d", q.ground_truth) for q in kpi)
    assert {next(iter(q.relevant)) for q in kpi} == {"kpi_sales_2025", "kpi_hr_2025"}
    behaviour = [q for q in demo.questions if q not in answerable(demo)]
    assert sorted((q.answer_criteria.clarification_expected, q.answer_criteria.out_of_scope) for q in behaviour) == [
        (False, True), (True, False)]
    assert all(not q.relevant and not q.key_facts for q in behaviour)


def test_kpi_figures_add_up(docs):
    """The KPI tables are consistent: quarterly totals and headcount flows follow from the months."""
    sales = docs["kpi_sales_2025"].text
    months = [int(v.replace(",", "")) for v in re.findall(r"^\| [A-Z][a-z]+ 2025 \| \$([\d,]+) \|", sales, re.M)]
    assert len(months) == 6
    assert f"${sum(months[:3]):,}" in sales and f"${sum(months[3:]):,}" in sales and f"${sum(months):,}" in sales
    assert f"${round(sum(months) / 6):,}" in sales
    hr = docs["kpi_hr_2025"].text
    rows = [tuple(map(int, row)) for row in re.findall(r"^\| [A-Z][a-z]+ 2025 \| (\d+) \| (\d+) \| (\d+) \|", hr, re.M)]
    headcount = 404
    for closing, hires, leavers in rows:
        headcount += hires - leavers
        assert headcount == closing
    assert headcount == 461 and sum(r[2] for r in rows) == 24
