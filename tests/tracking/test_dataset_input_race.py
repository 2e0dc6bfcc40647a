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
