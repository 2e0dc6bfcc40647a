"""An app's replies become the questions' records: contexts placed among the chunks and scored
by the retrieval metrics, the answer by the answer metrics; a failure is scored by neither."""

from __future__ import annotations

import pytest
from hydra.utils import instantiate

from harness.apps.contexts import ContextPlacer
from harness.apps.replies import AppContext
from harness.chunkers.base import Chunk
from harness.cli.sweep import run_from_config
from harness.data.records import Document

EXAMPLE_OVERRIDES = ["dataset=questions_jsonl", "app=python", "app.target=rag_app:answer",
                     "plugins.allowed_targets=[rag_app.answer]", "judge=none"]


def test_contexts_are_placed_among_the_chunks():
    documents = [Document("fr", "# France\nParis is the capital of France. It lies on the Seine."),
                 Document("de", "Berlin is the capital of Germany.")]
    chunks = [Chunk("fr#0", "fr", documents[0].text, 0, len(documents[0].text)),
              Chunk("de#0", "de", documents[1].text, 0, len(documents[1].text))]
    placer = ContextPlacer(documents, chunks, min_overlap=0.8)
    assert placer.chunk(AppContext("ignored", doc_id="de#0")) is chunks[1]  # a chunk id
    assert placer.chunk(AppContext("berlin is the capital of  Germany.")) is chunks[1]  # the same text
    span = placer.chunk(AppContext("Paris is the capital of France."))  # held by a document
    assert (span.doc_id, span.start, span.end) == ("fr", 9, 40)
    named = placer.chunk(AppContext("Some passage.", doc_id="fr"))  # a document id
    assert named.doc_id == "fr" and named.id.startswith("fr@app:")
    lost = placer.chunk(AppContext("Madrid is in Spain."))
    assert lost.doc_id.startswith("unmatched:") and len(placer.added) == 3


def test_the_example_app_runs_as_the_system_under_test(compose, example_on_path, tmp_path):
    cfg = compose([*EXAMPLE_OVERRIDES, f"dataset.questions={example_on_path / 'questions.jsonl'}",
                   f"dataset.documents={example_on_path / 'docs'}", "+app.params.top_k=2",
                   f"cache.dir={tmp_path / 'cache'}"])
    result = run_from_config(cfg)
    rows = {row["question_id"]: row for row in result.rows}
    assert rows["q2"]["answer"] == "The Spree flows through it." and rows["q2"]["answer_error"] is None
    assert rows["q2"]["retrieved_doc_ids"] == ["germany", "spain"] and rows["q2"]["gold_doc_ids"] == ["germany"]
    assert rows["q2"]["retrieval/hit_at_1"] == 1.0 and rows["q3"]["gold_doc_ids"] == ["spain"]
    assert "retrieval/mrr" not in rows["q1"]  # no gold source given: no retrieval metric
    assert rows["q1"]["answer/f1"] > 0 and rows["q1"]["generation/latency_seconds"] >= 0
    assert result.metrics["retrieval/mrr"] == 1.0 and result.metrics["generation/failed_count"] == 0
    assert result.info["failures"]["app"] == {"attempted": 3, "failed": 0, "max_failed_fraction": 0.5, "reasons": {}}
    names = [stage.name for stage in result.stages.stages]
    assert names == ["app", "route", "score"]
    spans = result.stages.stages[0].spans["q2"]
    assert [s.kind for s in spans] == ["retrieval", "generation"] and spans[1].attributes["params"] == {"top_k": 2}
    assert result.stages.passages["germany#0"]["doc_id"] == "germany"


def two_questions(tmp_path) -> list[str]:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "france.md").write_text("Paris is the capital of France.")
    questions = tmp_path / "q.jsonl"
    questions.write_text('{"id": "a", "question": "Capital of France?", "answer": "Paris", "gold_doc_ids": ["france"]}\n'
                         '{"id": "b", "question": "Capital of Spain?", "answer": "Madrid", "gold_doc_ids": ["france"]}\n')
    return ["dataset=questions_jsonl", f"dataset.questions={questions}", f"dataset.documents={tmp_path / 'docs'}",
            "app=python", "plugins.allowed_targets=[tests.apps.apps_for_tests.]", f"cache.dir={tmp_path / 'cache'}"]


def test_a_failed_question_is_excluded_from_every_metric_with_on_failure_exclude(compose, tmp_path):
    cfg = compose([*two_questions(tmp_path), "app.target=tests.apps.apps_for_tests:broken",
                   "app.max_failed_fraction=1.0", "app.on_failure=exclude"])
    result = run_from_config(cfg)
    rows = {row["question_id"]: row for row in result.rows}
    assert rows["a"]["answer_error"] == "KeyError: 'no index loaded'" and rows["a"]["generation/failed"] == 1.0
    assert not any(key.startswith(("retrieval/", "answer/")) for key in rows["a"])
    assert result.metrics["generation/failed_count"] == 2.0
    assert "app: all 2 calls failed" in result.info["failed_because"][0]


@pytest.mark.parametrize("on_failure, hit, f1", [("miss", 0.5, 0.5), ("exclude", 1.0, 1.0)])
def test_a_failed_question_scores_as_a_miss_by_default(compose, tmp_path, on_failure, hit, f1):
    cfg = compose([*two_questions(tmp_path), "app.target=tests.apps.apps_for_tests:fails_on_spain",
                   f"app.on_failure={on_failure}"])
    assert cfg.app.on_failure == on_failure
    result = run_from_config(cfg)
    rows = {row["question_id"]: row for row in result.rows}
    assert rows["b"]["answer_error"] == "RuntimeError: HTTP 500" and rows["a"]["retrieval/hit_at_1"] == 1.0
    if on_failure == "miss":  # no context and no answer: the worst of every retrieval and answer metric
        assert rows["b"]["retrieval/hit_at_1"] == rows["b"]["retrieval/mrr"] == rows["b"]["retrieval/ndcg_at_1"] == 0.0
        assert rows["b"]["answer/em"] == rows["b"]["answer/f1"] == rows["b"]["answer/rouge_l"] == 0.0
        assert rows["b"]["answer/bertscore_f1"] < rows["a"]["answer/bertscore_f1"]  # BERTScore of no answer
    else:
        assert not any(key.startswith(("retrieval/", "answer/")) for key in rows["b"])
    assert result.metrics["retrieval/hit_at_1"] == hit and result.metrics["answer/f1"] == f1
    assert result.metrics["generation/failed_count"] == 1.0 and result.metrics["generation/answered"] == 1.0


def test_an_app_with_a_generator_or_reranker_is_refused(compose):
    from harness.jobs import JobNotValid, build_job

    cfg = compose(["app=python", "app.target=tests.apps.apps_for_tests:echo", "generator=openai",
                   "plugins.allowed_targets=[tests.apps.apps_for_tests.]"])
    import pytest

    with pytest.raises(JobNotValid, match="the app answers the questions itself: generator would not run"):
        build_job(cfg)


def test_tokens_and_cost_the_app_reports_are_recorded(compose, tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "france.md").write_text("Paris is the capital of France.")
    questions = tmp_path / "q.jsonl"
    questions.write_text('{"question": "Capital of France?", "answer": "Paris", "gold_doc_ids": ["france"]}\n')
    cfg = compose(["dataset=questions_jsonl", f"dataset.questions={questions}", f"dataset.documents={tmp_path / 'docs'}",
                   "app=python", "app.target=tests.apps.apps_for_tests:echo", "app.version=1",
                   "plugins.allowed_targets=[tests.apps.apps_for_tests.]", f"cache.dir={tmp_path / 'cache'}"])
    (row,) = run_from_config(cfg).rows
    assert (row["generation/input_tokens"], row["generation/output_tokens"]) == (12.0, 4.0)
    assert row["generation/cost_usd"] == 0.001 and row["retrieval/hit_at_1"] == 1.0
    again = run_from_config(cfg)  # the second run asks nothing: every reply from the cache
    assert again.metrics["app/cached_replies"] == 1.0 and again.rows[0]["generation/cached"] == 1.0


def test_a_context_is_placed_by_any_name_its_framework_gave_and_by_its_text_when_none_matches():
    documents = [Document("france", "Paris is the capital of France."), Document("eu/spain", "Madrid is in Spain.")]
    placer = ContextPlacer(documents, [], min_overlap=0.8)
    by_path = placer.chunk(AppContext("Some passage.", names=("/srv/app/docs/france.md",)))
    by_later_name = placer.chunk(AppContext("Other.", names=("3f2a-uuid", "/x/docs/eu/spain.md")))
    by_text = placer.chunk(AppContext("Madrid is in Spain.", names=("3cece8c9131050bef83b6b",)))
    assert (by_path.doc_id, by_later_name.doc_id, by_text.doc_id) == ("france", "eu/spain", "eu/spain")
    assert placer.report() is None and (placer.placed, placer.matched) == (3, 3)


def test_contexts_that_match_no_document_are_said_with_the_names_they_gave(compose, tmp_path, caplog):
    cfg = compose([*two_questions(tmp_path), "app.target=tests.apps.apps_for_tests:foreign_sources"])
    with caplog.at_level("WARNING", logger="harness.stages.app"):
        result = run_from_config(cfg)
    (warning,) = result.info["warnings"]
    assert "none of the app's 2 contexts matched a document" in warning and "'s3://bucket/kb/42.pdf'" in warning
    assert "'france'" in warning and warning.removeprefix("app: ") in caplog.text
    assert result.metrics["app/unmatched_contexts"] == 2.0 and result.metrics["retrieval/mrr"] == 0.0
