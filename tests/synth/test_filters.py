"""Each filter on a constructed case with a known outcome, and passages that retrieve each other."""

from __future__ import annotations

import shutil

import pytest
from hydra.utils import instantiate
from werkzeug import Response

from harness.cache import DiskCache
from harness.cli.compose import compose
from harness.cli.synth import IncompleteSet, synth
from harness.synth import corpus
from harness.synth.answering import AnswerabilityFilter, ContextDependenceFilter
from harness.synth.duplicates import DuplicatesFilter
from harness.synth.pairs import mutual_pairs
from harness.synth.records import Candidate, Tools
from harness.synth.roundtrip import RoundTripFilter
from tests.conftest import TINY, TINY_DATASET_OVERRIDES
from tests.synth.conftest import PATH


@pytest.fixture
def tools(tmp_path):
    """The tiny corpus as whole-document passages, BM25 indexed over them, and the prompt group."""
    cfg = compose([*TINY_DATASET_OVERRIDES, "chunker=none"])
    cache = DiskCache(tmp_path / "cache")
    chunks = corpus.passages(instantiate(cfg.dataset), instantiate(cfg.chunker), cache)
    return Tools(cache=cache, chunks=chunks, prompt=instantiate(cfg.prompt),
                 retriever=corpus.index(instantiate(cfg.retriever), chunks, cache))


def passage(tools: Tools, doc: str):
    return next(chunk for chunk in tools.chunks if chunk.doc_id == doc)


def candidate(tools: Tools, question: str, answer: str, *docs: str) -> Candidate:
    return Candidate(question=question, answer=answer, passages=tuple(passage(tools, d) for d in docs), kind="llm")


def test_round_trip_keeps_a_question_that_finds_its_passage(tools):
    asked = "How many connections does the PgBouncer pool keep per region?"
    own, other = candidate(tools, asked, "100", "database"), candidate(tools, asked, "100", "auth")
    both = candidate(tools, asked, "100", "database", "limits")
    # BM25 ranks database first and limits (which shares "per") second; auth shares no word, so is not found.
    assert RoundTripFilter(True, 1, "passage").score([own, other, both], tools) == [
        {"ranks": [1], "passed": True}, {"ranks": [None], "passed": False}, {"ranks": [1, None], "passed": False}]
    assert RoundTripFilter(True, 3, "document").score([other, both], tools) == [
        {"ranks": [None], "passed": False}, {"ranks": [1, 2], "passed": True}]
    with pytest.raises(ValueError, match="synth.filters.roundtrip.level must be one of"):
        RoundTripFilter(True, 1, "chunk")


def test_answerability_and_context_dependence_read_the_generators_answers(tools, llm_server):
    tools.generator = instantiate(compose(llm_server).generator)
    # The fake model answers with its context's first figure ("3600 seconds" for auth), or does not know.
    right = candidate(tools, "When do tokens expire?", "3600 seconds", "auth")
    wrong = candidate(tools, "How large is the pool?", "100 connections", "auth")
    known = candidate(tools, "What is unknown?", "do not know", "auth")
    answerable = AnswerabilityFilter(True, 0.5).score([right, wrong], tools)
    assert answerable == [{"f1": 1.0, "answer": "3600 seconds", "passed": True},
                          {"f1": 0.0, "answer": "3600 seconds", "passed": False}]
    # F1("I do not know.", "do not know") = 2 * 3/4 * 1 / (3/4 + 1) = 0.8571: answered without the passage.
    assert ContextDependenceFilter(True, 0.5).score([right, known], tools) == [
        {"f1": 0.0, "answer": "I do not know.", "passed": True},
        {"f1": 0.8571, "answer": "I do not know.", "passed": False}]


def test_a_failed_answer_is_a_failure_not_a_removal(tools, llm_server, httpserver):
    httpserver.clear()
    httpserver.expect_request(PATH, method="POST").respond_with_response(Response("down", status=503))
    tools.generator = instantiate(compose(llm_server).generator)
    [score] = AnswerabilityFilter(True, 0.5).score([candidate(tools, "When?", "3600 seconds", "auth")], tools)
    assert score["passed"] is False and score["error"].startswith("InternalServerError: Error code: 503")


def test_the_answer_filters_need_a_generator(tools):
    with pytest.raises(ValueError, match="synth.filters.answerability needs a generator"):
        AnswerabilityFilter(True, 0.5).check(tools)


def test_duplicates_drop_a_question_too_close_to_one_kept_before():
    cfg = compose([])
    duplicates = DuplicatesFilter(True, 0.9, cfg.models.encoder, "cpu", 8)
    questions = ["How long are access tokens valid?", "How long are access tokens valid?",
                 "Which region hosts the backup database?"]
    vectors = duplicates.vectors(questions)
    scores, kept = duplicates.screen(vectors, None)
    assert [s["passed"] for s in scores] == [True, False, True] and len(kept) == 2
    assert scores[0]["max_cosine"] is None and scores[1]["max_cosine"] == pytest.approx(1.0, abs=1e-4)
    assert scores[2]["max_cosine"] < 0.5
    # Against the questions kept by an earlier batch.
    again, _ = duplicates.screen(duplicates.vectors(["How long are the access tokens valid?"]), kept)
    assert again[0]["passed"] is False and again[0]["max_cosine"] > 0.9


def test_a_set_with_duplicates_removed_says_so(settings, tmp_path):
    docs = tmp_path / "docs"
    shutil.copytree(TINY / "docs", docs)
    shutil.copy(docs / "auth.md", docs / "auth_copy.md")
    overrides = [*settings, "dataset=documents", f"dataset.documents={docs}", "synth.filters.duplicates.enabled=true"]
    with pytest.raises(IncompleteSet, match="made 4 of 5 questions: .*duplicates removed 1") as raised:
        synth("cloze", 5, tmp_path / "d.jsonl", overrides)
    summary = raised.value.made.summary
    assert summary["filters"]["duplicates"]["removed"] == 1 and summary["filters"]["duplicates"]["scored"] == 5


def test_mutual_pairs_are_passages_of_two_documents_in_each_others_top_k(tools):
    # BM25 with each document's text as the query: auth finds database and limits, cache finds limits,
    # database finds limits and auth, limits finds database, auth and cache.
    assert mutual_pairs(tools.chunks, tools.retriever, 3) == [(0, 2), (0, 3), (1, 3), (2, 3)]
    assert mutual_pairs(tools.chunks, tools.retriever, 1) == [(2, 3)]
