"""Parallel jobs logging one dataset at the same instant: every run gets its input, none fails."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time

import pytest
from mlflow import MlflowClient
from mlflow.exceptions import MlflowException

from harness.tracking.mlflow.inputs import dataset_input, log_dataset_input

# One job's logging: waits for a shared instant, then logs the dataset into its own new run.
JOB = textwrap.dedent("""
    import sys, time
    from mlflow import MlflowClient
    from harness.tracking.mlflow.inputs import dataset_input, log_dataset_input
    uri, experiment, start = sys.argv[1], sys.argv[2], float(sys.argv[3])
    client = MlflowClient(uri)
    run = client.create_run(experiment)
    while time.time() < start:
        time.sleep(0.001)
    log_dataset_input(client, run.info.run_id, dataset_input("demo", "ab" * 32, "demo"))
    print(run.info.run_id)
""")


@pytest.mark.slow
def test_four_jobs_logging_one_dataset_at_once_all_succeed(tmp_path):
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    client = MlflowClient(uri)
    experiment = client.create_experiment("race")
    env_start = str(time.time() + 10)  # after the four interpreters have imported MLflow
    jobs = [subprocess.Popen([sys.executable, "-c", JOB, uri, experiment, env_start],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(4)]
    outputs = [job.communicate(timeout=120) for job in jobs]
    assert [job.returncode for job in jobs] == [0] * 4, [err[-2000:] for _, err in outputs]
    for run_id in (out.strip() for out, _ in outputs):
        inputs = client.get_run(run_id).inputs.dataset_inputs
        assert [(i.dataset.name, i.dataset.digest) for i in inputs] == [("demo", ("ab" * 32)[:36])]


class Conflicting:
    """A client whose first ``failures`` calls fail as a concurrent insert of the same dataset does."""

    def __init__(self, failures: int, message: str = "(sqlite3.IntegrityError) UNIQUE constraint failed: "
                                                      "datasets.experiment_id, datasets.name, datasets.digest"):
        self.failures, self.message, self.calls = failures, message, 0

    def log_inputs(self, run_id, datasets):
        self.calls += 1
        if self.calls <= self.failures:
            raise MlflowException(self.message)


def test_a_conflict_is_tried_again_and_other_errors_are_raised_at_once():
    entity = dataset_input("demo", "ab" * 32, "demo")
    client = Conflicting(failures=2)
    log_dataset_input(client, "run", entity)
    assert client.calls == 3
    postgres = Conflicting(failures=1, message='(psycopg2.errors.UniqueViolation) duplicate key value violates '
                                              'unique constraint "dataset_pk"')
    log_dataset_input(postgres, "run", entity)
    assert postgres.calls == 2
    with pytest.raises(MlflowException, match="Run 'x' not found"):
        log_dataset_input(Conflicting(failures=9, message="Run 'x' not found"), "x", entity)
    always = Conflicting(failures=99)
    with pytest.raises(MlflowException, match="UNIQUE constraint"):
        log_dataset_input(always, "run", entity)
    assert always.calls == 5


# One job linking the question set as an evaluation dataset, at a shared instant, into its own new run.
LINK = textwrap.dedent("""
    import sys, time
    from mlflow import MlflowClient
    from harness.results.records import RunResult
    from harness.tracking.mlflow.eval_dataset import link_eval_dataset
    uri, experiment, start = sys.argv[1], sys.argv[2], float(sys.argv[3])
    client = MlflowClient(uri)
    run = client.create_run(experiment)
    rows = [{"question_id": f"q{i}", "question": f"What is {i}?", "gold_doc_ids": [f"d{i}"],
             "gold_answers": [str(i)]} for i in range(20)]
    result = RunResult(dataset="demo", dataset_sha256="cd" * 32, rows=rows, metrics={}, dataset_source="demo")
    while time.time() < start:
        time.sleep(0.001)
    print(run.info.run_id, link_eval_dataset(client, uri, run.info.run_id, experiment, result))
""")


@pytest.mark.slow
def test_four_jobs_linking_one_evaluation_dataset_at_once_all_succeed(tmp_path):
    # Seen on a Ray sweep (2 workers): "the question set was not written as an MLflow evaluation
    # dataset: (raised as a result of Query-invoked autoflush ...)", a UNIQUE constraint of the link.
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    client = MlflowClient(uri)
    experiment = client.create_experiment("race")
    start = str(time.time() + 10)  # after the four interpreters have imported MLflow and the harness
    jobs = [subprocess.Popen([sys.executable, "-c", LINK, uri, experiment, start],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(4)]
    outputs = [job.communicate(timeout=120) for job in jobs]
    assert [job.returncode for job in jobs] == [0] * 4, [err[-2000:] for _, err in outputs]
    assert not any("was not written" in err for _, err in outputs), [err[-2000:] for _, err in outputs]
    linked = [out.split() for out, _ in outputs]
    [dataset] = client.search_datasets(filter_string="tags.harness_dataset_sha256 = '" + "cd" * 32 + "'")
    assert {dataset_id for _, dataset_id in linked} == {dataset.dataset_id}
    for run_id, _ in linked:
        assert dataset.name in [i.dataset.name for i in client.get_run(run_id).inputs.dataset_inputs]
