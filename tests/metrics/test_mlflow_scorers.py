"""The harness's metrics as MLflow scorers: ``mlflow.genai.evaluate`` over question traces (the
harness's trace contract, with their expectations) gives, row by row, the values the harness's own
suites compute for the same questions."""

from __future__ import annotations

import pytest
from hydra.utils import instantiate

from harness.chunkers.base import Chunk
from harness.data.records import Question
from harness.generators.base import Generation
from harness.metrics.mlflow_scorers import (AnswerBertScore, AnswerExactMatch, AnswerF1, AnswerRougeL,
                                            KeyFactCoverage, RetrievalScorer)
from harness.results.records import QuestionRecord
from tests.tracking.contract_traces import global_tracking_uri, write_question_traces

# (id, question, answer, gold answers, retrieved (doc, text) in rank order, gold documents, key facts)
ROWS = [
    ("q1", "Where is the Louvre?", "Paris, France", ("the city of Paris", "Paris"),
     [("d1", "The Louvre is in Paris."), ("d2", "Rome has the Colosseum."), ("d1", "It opened in 1793.")],
     ("d1",), ("Paris", "1793", "Mona Lisa")),
    ("q2", "Who wrote it?", "It was written by Bob Smith", ("Bob Smith",),
     [("d3", "Nothing here."), ("d4", "Bob Smith wrote the report"), ("d5", "Alice read it.")],
     ("d4", "d9"), ("report author", "Bob Smith")),
    ("q3", "When did it end?", "In 1990", ("1989",),
     [("d6", "The war ended."), ("d7", "Peace came in 1989.")], ("d8",), ("1989",)),
]


def record(qid, text, answer, golds, chunks, gold_docs, facts) -> QuestionRecord:
    question = Question(id=qid, text=text, relevant={doc: 1 for doc in gold_docs}, key_facts=facts, answers=golds)
    built = QuestionRecord(question=question, scores=[1.0 / (i + 1) for i in range(len(chunks))], top_k=10,
                           chunks=[Chunk(f"{doc}#{i}", doc, body, 0, len(body)) for i, (doc, body) in enumerate(chunks)])
    built.generation = Generation(text=answer)
    return built


@pytest.fixture
def evaluated(tmp_path, monkeypatch, compose):
    """mlflow.genai.evaluate over the ROWS' traces with every scorer: {question id: {name: value}}."""
    import mlflow
    from mlflow import MlflowClient

    monkeypatch.chdir(tmp_path)
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    encoder = compose().models.encoder
    scorers = [AnswerExactMatch(), AnswerF1(), AnswerRougeL(), AnswerBertScore(model=encoder, num_layers=6),
               KeyFactCoverage(), KeyFactCoverage(matcher="fuzzy"), RetrievalScorer(metric="map"),
               RetrievalScorer(metric="context_precision"), RetrievalScorer(metric="mrr")]
    scorers += [RetrievalScorer(metric=m, k=k) for m in ("hit", "mrr", "recall", "ndcg") for k in (1, 3)]
    with global_tracking_uri(uri, monkeypatch):
        client = MlflowClient(uri)
        experiment = client.create_experiment("scorers")
        run_id = client.create_run(experiment).info.run_id
        traces = write_question_traces(uri, experiment, run_id, [
            {"question_id": qid, "question": text, "answer": answer, "chunks": chunks}
            for qid, text, answer, _, chunks, _, _ in ROWS])
        for qid, _, _, golds, _, gold_docs, facts in ROWS:
            mlflow.log_expectation(trace_id=traces[qid], name="expected_response", value=list(golds))
            mlflow.log_expectation(trace_id=traces[qid], name="expected_retrieved_context",
                                   value=[{"doc_uri": doc} for doc in gold_docs])
            mlflow.log_expectation(trace_id=traces[qid], name="expected_facts", value=list(facts))
        mlflow.set_experiment(experiment_id=experiment)
        data = mlflow.search_traces(locations=[experiment], filter_string=f"metadata.`mlflow.sourceRun` = '{run_id}'")
        result = mlflow.genai.evaluate(data=data, scorers=scorers)
    by_trace = {trace: qid for qid, trace in traces.items()}
    names = [s.name for s in scorers]
    return {by_trace[row["trace_id"]]: {n: row[f"{n}/value"] for n in names} for _, row in result.result_df.iterrows()}


def test_evaluate_with_the_scorers_gives_the_harness_values(evaluated, compose):
    cfg = compose(["metrics=[answer,retrieval,key_facts]", "metrics.retrieval.ks=[1,3]"])
    suites = {name: instantiate(node) for name, node in cfg.metrics.items()}
    for row in ROWS:
        built = record(*row)
        expected = {f"{name}/{key}": value for name, suite in suites.items() for key, value in suite.score(built).items()}
        got = evaluated[row[0]]
        assert set(got) <= set(expected), set(got) - set(expected)
        assert got == pytest.approx({name: expected[name] for name in got}, abs=1e-6), row[0]
    # hand-worked: q2's gold documents d4 (retrieved second) and d9 (never): nDCG@3 = (1/log2 3) / (1 + 1/log2 3)
    assert evaluated["q2"]["retrieval/ndcg_at_3"] == pytest.approx(0.6309298 / 1.6309298, abs=1e-6)
    assert evaluated["q1"]["key_facts/coverage_exact"] == pytest.approx(2 / 3)
    assert evaluated["q2"]["key_facts/coverage_fuzzy"] == 0.5 and evaluated["q2"]["key_facts/coverage_exact"] == 0.5


def test_rows_without_what_a_metric_needs_get_no_value():
    assert AnswerF1()(outputs="Paris", expectations={}) is None
    assert AnswerF1()(outputs={"answer": "Paris"}, expectations={"expected_response": "paris"}) == 1.0
    assert RetrievalScorer(metric="ndcg", k=5)(trace=None, expectations={"expected_retrieved_context": [{"doc_uri": "d"}]}) is None
    with pytest.raises(ValueError, match="needs a cut-off k"):
        RetrievalScorer(metric="ndcg")
    assert RetrievalScorer(metric="ndcg", k=5).name == "retrieval/ndcg_at_5"
