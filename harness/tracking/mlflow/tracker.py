"""MLflow tracker: a parent run per sweep, a child run per job, reports as runs of their own, and
reading runs back, all through MlflowClient.

The client API (not the fluent ``mlflow.start_run``) keeps no global active run, so jobs of the
basic launcher sharing one process, and workers of a parallel launcher, never collide.
"""

from __future__ import annotations

import json
import logging
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable

from harness.config.schemas.choices import Traces
from harness.tracking.trace_policy import TraceContent, TracePolicy
from harness.metaeval.labels import FeedbackLabels
from harness.results.records import RunResult
from harness.results.table import FILE_NAME
from harness.tracking.mlflow import labels as mlflow_labels, runs as mlflow_runs
from harness.tracking.mlflow.runs import PARENT_TAG
from harness.tracking.base import ReportRun, RunRef, StoreRefused, Tracker, Written
from harness.tracking.sweep.interruption import KILLED_BY_TAG
from harness.tracking.mlflow.eval_dataset import link_eval_dataset
from harness.tracking.mlflow.inputs import dataset_input, log_dataset_input
from harness.tracking.mlflow import trace_writer as mlflow_trace_writer
from harness.tracking.sweep.naming import metric_name
from harness.tracking.outcome import JobInfo, JobOutcome
from harness.tracking.mlflow.retry import Outage
from harness.tracking.sweep.outage import SweepOutageRecord
from harness.log_filters import FILE_ONLY
from harness.tracking.mlflow.store import (is_server, limit_http_retries, one_line, open_client, probe,
                                    quiet_database_errors, shown)

log = logging.getLogger(__name__)

# MLflow's documented limit of a param's value.
_MAX_PARAM_VALUE = 6000
_TABLE = "per_question_table.json"


class MLflowTracker(Tracker):
    """Args:
        tracking_uri: e.g. ``sqlite:///mlflow.db`` or ``http://mlflow.internal:5000``.
        experiment_name: MLflow experiment that receives the runs.
        artifact_location: artifact root for a newly created experiment (a local folder is made
            absolute); null leaves it to the server.
        ui_hint: print how to open the results at the end.
        server: for an ``http(s)://`` tracking URI: ``probe_timeout`` (seconds the start-up check
            waits), ``max_retries``, ``backoff_factor`` and ``timeout`` of MLflow's HTTP requests
            (used unless MLFLOW_HTTP_REQUEST_* environment variables set them), ``retry_seconds``
            and ``retry_wait``: how long a write waits for a server that stopped answering, and
            the first wait between tries (:mod:`harness.tracking.mlflow.retry`).
        traces: which questions get a trace in the job's run when it is logged
            (:mod:`harness.tracking.trace_policy`): ``auto`` (every one up to ``traces_max``, then a
            seeded sample and the questions a person opens first), ``all``, ``answered`` (those the
            generator answered) or ``none``; ``harness traces`` writes the others on demand.
        traces_max, traces_worst, traces_seed, traces_primary, traces_primary_direction: ``auto``'s
            numbers (:class:`~harness.tracking.trace_policy.TracePolicy`).
        trace_assessments: the metrics a trace has as Feedback assessments (with every judge's
            score); the other per-question values are one attribute of its root span. None: all.
        trace_passage_chars: a passage's text in a trace is cut at this many characters (0: not cut).
        background_traces_from: in a sweep, a job with at least this many traces has them written
            in a process of their own while the next job computes; fewer are written before the
            next job starts (cheaper than starting that process), unless it already runs.
    """

    records = True

    def __init__(self, tracking_uri: str, experiment_name: str, artifact_location: str | None = None,
                 ui_hint: bool = True, server: dict[str, float] | None = None, traces: str = "all",
                 background_traces_from: int = 0, traces_max: int = 1000, traces_worst: int = 100,
                 traces_seed: int = 0, traces_primary: str | None = None, traces_primary_direction: str = "higher",
                 trace_assessments: list[str] | None = None, trace_passage_chars: int = 0) -> None:
        self.tracking_uri = tracking_uri
        self.traces = Traces(traces)
        self.trace_policy = TracePolicy(self.traces.value, traces_max, traces_worst, traces_seed, traces_primary,
                                        str(traces_primary_direction) == "lower")
        self.trace_content = TraceContent(None if trace_assessments is None else tuple(trace_assessments),
                                          trace_passage_chars)
        self.background_traces_from = background_traces_from
        self.experiment_name = experiment_name
        self.artifact_location = artifact_location
        self.ui_hint = ui_hint
        self.server = dict(server or {})
        if is_server(tracking_uri) and self.server:
            limit_http_retries(*(int(self.server[key]) for key in ("max_retries", "backoff_factor", "timeout")))
        self._client_instance = None
        self._experiment_ids: dict[str, str] = {}
        self._written: dict[str, Written] = {}
        self._outage = Outage(float(self.server.get("retry_seconds", 0)), float(self.server.get("retry_wait", 1)),
                              self._answers, shown(tracking_uri)) if is_server(tracking_uri) else None

    @property
    def _client(self):
        if self._client_instance is None:
            self.check()  # an unreachable server fails here, in seconds and by name
            quiet_database_errors()
            self._client_instance = open_client(self.tracking_uri)
        return self._client_instance

    def _experiment(self, name: str | None = None) -> str:
        """The id of experiment ``name`` (default: this tracker's), created if it does not exist."""
        name = name or self.experiment_name
        if name not in self._experiment_ids:
            found = self._client.get_experiment_by_name(name)
            if found is None:
                location = self.artifact_location
                if location and "://" not in location:
                    location = Path(location).resolve().as_uri()
                try:
                    self._client.create_experiment(name, location)
                except Exception:  # created meanwhile by a parallel worker
                    pass
                found = self._client.get_experiment_by_name(name)
                if found is None:
                    raise LookupError(f"could not create experiment '{name}' in {self.tracking_uri}")
            self._experiment_ids[name] = found.experiment_id
        return self._experiment_ids[name]

    def check(self) -> None:
        if self.server:
            probe(self.tracking_uri, self.server["probe_timeout"])

    def _answers(self) -> bool:
        try:
            self.check()
        except ConnectionError:
            return False
        return True

    @contextmanager
    def _refusals(self, what: str):
        """A failed write raises :class:`StoreRefused` naming the store and the reason; the traceback
        goes to the log file (an unreachable server's ConnectionError is already one line)."""
        try:
            yield
        except (StoreRefused, ConnectionError):
            raise
        except Exception as err:
            log.info("%s failed in %s", what, shown(self.tracking_uri), exc_info=True, extra=FILE_ONLY)
            raise StoreRefused(f"the store {shown(self.tracking_uri)} refused {what}: {one_line(err)}") from None

    def _retrying(self, action, what: str):
        """``action()``, waiting out a server that stopped answering (a store that is no server: once)."""
        return self._outage.run(action, what) if self._outage else action()

    def share_outages(self, sweep_dir: Path) -> None:
        if self._outage is not None:
            self._outage.record = SweepOutageRecord(sweep_dir)

    def written(self, run_id: str) -> Written:
        return self._written.get(run_id, Written())

    def start_sweep(self, name: str, tags: dict[str, str]) -> str:
        with self._refusals("the sweep's parent run"):
            run = self._client.create_run(self._experiment(), run_name=name, tags=tags)
        log.info("MLflow parent run %s (%s)", run.info.run_id, name)
        return run.info.run_id

    def start_job(self, info: JobInfo, parent_id: str | None) -> str:
        tags = dict(info.tags)
        if parent_id:
            tags[PARENT_TAG] = parent_id
        with self._refusals("the run"):
            run_id = self._client.create_run(self._experiment(), run_name=info.name, tags=tags).info.run_id
        _NEW_RUNS.add(run_id)
        return run_id

    def log_job(self, outcome: JobOutcome, info: JobInfo, parent_id: str | None,
                run_id: str | None = None, opened: Callable[[str], None] | None = None) -> str:
        if run_id is None:
            run_id = self._retrying(lambda: self.start_job(info, parent_id), f"opening {info.name}'s run")
            if opened is not None:
                opened(run_id)
        with self._refusals("the results"):
            self._retrying(lambda: self._record_job(run_id, outcome, info), f"logging {info.name}")
        return run_id

    def _record_job(self, run_id: str, outcome: JobOutcome, info: JobInfo) -> None:
        """Logs the job into its run and closes it; again from the start when tried again (metrics
        are logged twice then, the table and files once).

        One ``log_batch`` carries the params, metrics and tags (MLflow splits it at its per-request
        limits), the dataset is one ``log_inputs`` and the run is closed by one more call: three
        writes to the store (each a transaction, an fsync on SQLite) where separate calls for the
        params, metrics, each tag and the table's tag made nine. Files are written beside them.
        """
        client = self._client
        new = run_id in _NEW_RUNS  # nothing logged into it yet: no table, no list of tables to read
        _NEW_RUNS.discard(run_id)  # tried again, the run may hold what the first try wrote
        try:
            params = {f"choice.{group}": option for group, option in info.choices.items()}
            params.update(info.params)
            tags: dict[str, str] = {}
            tables = 0
            client.log_text(run_id, info.config_yaml, "config.yaml")
            if outcome.result is not None:
                result = outcome.result
                tags.update({"dataset.sha256": result.dataset_sha256, "dataset.name": result.dataset})
                if result.info.get("warnings"):  # e.g. an app's contexts that matched no document
                    tags["harness.warnings"] = "\n".join(result.info["warnings"])[:5000]
                for name in [FILE_NAME, *sorted(result.artifacts)]:
                    client.log_artifact(run_id, str(outcome.output_dir / name))
                table_tags, tables = self._log_table(run_id, result.rows, new)
                tags.update(table_tags)
                link_eval_dataset(client, self.tracking_uri, run_id, self._experiment(), result)
                self.log_traces(run_id, result, info.name)
            if outcome.error:
                client.log_text(run_id, outcome.error, "traceback.txt")
                tags["harness.error"] = (outcome.message or "")[:5000]
            metrics = self._log_batch(run_id, params=params, metrics=outcome.result.metrics if outcome.result else {},
                                      extra=self._run_facts(outcome), tags=tags)
            if outcome.result is not None:
                log_dataset_input(client, run_id, dataset_input(result.dataset, result.dataset_sha256,
                                                                result.dataset_source))
            self._written[run_id] = self.written(run_id) + Written(metrics=metrics, tables=tables)
        finally:
            client.set_terminated(run_id, status=outcome.status)

    def log_traces(self, run_id: str, result: RunResult, name: str, fresh: bool = False) -> int | None:
        rows = self.trace_policy.select(result.rows, list(self.trace_content.assessments or ()))
        count = mlflow_trace_writer.log_traces(self.tracking_uri, rows, self.trace_content, self._experiment(), run_id,
                                               result, name, self._retrying, self.background_traces_from, fresh)
        if count:
            self._written[run_id] = self.written(run_id) + Written(traces=count)
        return count

    def write_traces(self, run_id: str, result: RunResult, name: str, question_ids: list[str] | None = None) -> int:
        if question_ids is None:
            rows = self.trace_policy.select(result.rows, list(self.trace_content.assessments or ()))
        else:
            wanted = set(question_ids)
            rows = [row for row in result.rows if row["question_id"] in wanted]
        writer = mlflow_trace_writer.writer_for(self.tracking_uri)
        experiment_id = self._client.get_run(run_id).info.experiment_id  # the run that owns them
        written = writer.write(mlflow_trace_writer.TraceJob(experiment_id, run_id, name, rows, result.stages,
                                                            self._retrying, content=self.trace_content))
        failures = writer.flush()
        if failures:
            raise StoreRefused(failures[-1])
        return written

    def expect_traces(self, questions: int) -> None:
        """Starts the trace writer's process now where the sweep's jobs will use it (each with at
        least ``background_traces_from`` traces; ``answered`` traces an unknown share): its start
        (a new interpreter importing MLflow's store, ~3 CPU s) overlaps the sweep's own instead of
        delaying the first job's traces."""
        mode = self.trace_policy.traces
        if mode in ("all", "auto") and questions >= self.background_traces_from:
            mlflow_trace_writer.writer_for(self.tracking_uri).start()

    def flush(self) -> list[str]:
        return mlflow_trace_writer.pending_failures(self.tracking_uri)

    def running_runs(self, sweep_id: str) -> dict[str, dict[str, str]]:
        runs = self._client.search_runs(
            [self._experiment()], f"tags.`harness.sweep_id` = '{sweep_id}' and attributes.status = 'RUNNING'")
        return {run.info.run_id: run.data.tags for run in runs}

    def mark_killed(self, run_ids: list[str], reason: str) -> None:
        for run_id in run_ids:
            self._client.set_tag(run_id, KILLED_BY_TAG, reason)
            self._client.set_terminated(run_id, status="KILLED")

    def reopen_sweep(self, parent_id: str | None, tags: dict[str, str]) -> None:
        if parent_id is not None:
            self.reopen_run(parent_id, tags)

    def reopen_run(self, run_id: str, tags: dict[str, str]) -> None:
        self._log_batch(run_id, params={}, metrics={}, extra={}, tags=tags)  # one write, not one a tag
        self._client.update_run(run_id, status="RUNNING")

    def run_status(self, run_id: str) -> str | None:
        from mlflow.exceptions import MlflowException

        try:
            run = self._client.get_run(run_id)
        except MlflowException:
            return None
        return run.info.status if run.info.lifecycle_stage == "active" else None

    def log_metrics(self, run_id: str | None, metrics: dict[str, float]) -> None:
        if run_id:
            self._retrying(lambda: self._log_batch(run_id, params={}, metrics=metrics, extra={}), "logging metrics")

    def log_files(self, run_id: str | None, paths: list[Path]) -> None:
        for path in paths if run_id else []:
            self._retrying(lambda: self._client.log_artifact(run_id, str(path)), f"logging {path.name}")

    def end_sweep(self, parent_id: str | None, texts: dict[str, str], jobs: int, failed: int) -> None:
        if parent_id is not None:
            with self._refusals("the sweep's end"):
                self._retrying(lambda: self._end_sweep(parent_id, texts, jobs, failed), "closing the sweep")

    def _end_sweep(self, parent_id: str, texts: dict[str, str], jobs: int, failed: int) -> None:
        client = self._client
        self._log_batch(parent_id, params={}, metrics={},
                        extra={"sweep/jobs": jobs, "sweep/jobs_failed": failed,
                               "sweep/jobs_finished": jobs - failed})
        for name, text in texts.items():
            client.log_text(parent_id, text, name)
        client.set_terminated(parent_id, status="FAILED" if jobs and failed == jobs else "FINISHED")

    def log_report(self, report: ReportRun) -> RunRef:
        experiment_id = report.experiment_id or self._experiment(report.experiment_name)
        tags = {**report.tags, "harness.role": report.role}
        run_id = self._client.create_run(experiment_id, run_name=report.name, tags=tags).info.run_id
        status = "FAILED"
        try:
            self._log_batch(run_id, params=report.params, metrics=report.metrics, extra={})
            self._client.log_artifacts(run_id, str(report.folder))
            status = "FINISHED"
        finally:
            self._client.set_terminated(run_id, status=status)
        return RunRef(run_id=run_id, name=report.name, experiment_id=experiment_id, tags=tags)

    def resolve_run(self, ref: str, experiment: str | None = None) -> RunRef:
        return mlflow_runs.resolve_run(self._client, ref, experiment)

    def finished_runs(self, experiment: str) -> list[RunRef]:
        return mlflow_runs.finished_runs(self._client, experiment)

    def fetch_table(self, run: RunRef, folder: Path) -> Path:
        return mlflow_runs.download_table(self._client, run, folder)

    def fetch_sweep_file(self, runs: list[RunRef], name: str) -> tuple[str | None, str | None]:
        return mlflow_runs.sweep_file(self._client, runs, name)

    def fetch_config(self, run: RunRef) -> str | None:
        return mlflow_runs.download_config(self._client, run)

    def describe(self) -> str:
        return f"mlflow at {self.tracking_uri}"

    def run_metrics(self, run: RunRef) -> dict[str, float]:
        return dict(self._client.get_run(run.run_id).data.metrics)

    def set_tags(self, run_id: str, tags: dict[str, str]) -> None:
        for key, value in tags.items():
            self._retrying(lambda: self._client.set_tag(run_id, key, value), f"tagging {key}")

    def human_feedback(self, run: RunRef, names: list[str]) -> FeedbackLabels:
        return mlflow_labels.human_feedback(self._client, run, names)

    def tag_traces(self, run: RunRef, question_ids: list[str], tag: str, value: str) -> int:
        return mlflow_labels.tag_traces(self._client, run, question_ids, tag, value)

    def where(self) -> str | None:
        if not self.ui_hint:
            return None
        if self.tracking_uri.startswith(("sqlite:", "file:")) or "://" not in self.tracking_uri:
            return f"mlflow ui --backend-store-uri {self.tracking_uri}"
        return f"open {self.tracking_uri} (experiment '{self.experiment_name}')"

    def _run_facts(self, outcome: JobOutcome) -> dict[str, float]:
        if outcome.result is None:
            return {}
        info = outcome.result.info
        facts = {f"run/{key}": float(info[key]) for key in ("questions", "documents", "chunks") if key in info}
        facts.update({f"time/{stage}_seconds": float(s) for stage, s in info.get("seconds", {}).items()})
        facts.update({f"cache/{key.replace('/', '_')}": float(n) for key, n in info.get("cache", {}).items()})
        return facts

    def _log_batch(self, run_id: str, params: dict[str, Any], metrics: dict[str, float],
                   extra: dict[str, float], tags: dict[str, str] | None = None) -> int:
        """One ``log_batch`` call; MLflow's client splits it at the store's per-request limits.
        Returns how many metrics it logged."""
        from mlflow.entities import Metric, Param, RunTag

        now = int(time.time() * 1000)
        param_list = [Param(key, str(value)[:_MAX_PARAM_VALUE]) for key, value in params.items()]
        metric_list = [Metric(metric_name(key), float(value), now, 0)
                       for key, value in {**metrics, **extra}.items() if value is not None]
        tag_list = [RunTag(key, str(value)) for key, value in (tags or {}).items()]
        self._client.log_batch(run_id, metrics=metric_list, params=param_list, tags=tag_list)
        return len(metric_list)

    def _log_table(self, run_id: str, rows: list[dict[str, Any]], new: bool = False) -> tuple[dict[str, str], int]:
        """Writes the per-question table in MLflow's table format, viewable in the UI; returns the tag
        that lists it among the run's tables, for the job's batch ({} when it is listed already),
        and how many tables it wrote (0: the run's table had every question).

        What ``MlflowClient.log_table`` writes (a DataFrame's ``to_json(orient="split")``, then the
        ``mlflow.loggedArtifacts`` tag), done here so that the tag joins the job's one batch instead
        of a write of its own, and a table is read once where MLflow's append read it again; tests
        check the file and tag equal MLflow's. As MLflow does, a table the run already has is
        appended to: a run logged again (a job's logging tried again, or by ``harness sync``) gets
        only the questions its table lacks. A ``new`` run (created by this process,
        nothing logged into it yet) is not read first.
        """
        import io

        import pandas as pd
        from mlflow.utils.mlflow_tags import MLFLOW_LOGGED_ARTIFACTS

        text = None if new else mlflow_runs.logged_table(self._client, run_id, _TABLE)
        logged = _question_ids(json.loads(text)) if text is not None else set()
        rows = [row for row in rows if row.get("question_id") not in logged]
        if rows or text is None:
            frame = pd.DataFrame([{k: ("|".join(map(str, v)) if isinstance(v, list) else v)
                                   for k, v in row.items()} for row in rows])
            if text is not None:
                frame = pd.concat([pd.read_json(io.StringIO(text), orient="split"), frame], ignore_index=True)
            self._client.log_text(run_id, frame.to_json(orient="split", index=False, date_format="iso"), _TABLE)
        # listed even when the table was there: a job's logging tried again after its batch failed
        listed = [] if new else json.loads(self._client.get_run(run_id).data.tags.get(MLFLOW_LOGGED_ARTIFACTS, "[]"))
        entry = {"path": _TABLE, "type": "table"}
        written = int(bool(rows or text is None))
        return ({} if entry in listed else {MLFLOW_LOGGED_ARTIFACTS: json.dumps([*listed, entry])}), written


# Runs this process created (start_job) and has not yet logged a job into: what _log_table need not read.
_NEW_RUNS: set[str] = set()


def _question_ids(table: dict[str, Any]) -> set[str]:
    """The question ids of a table in MLflow's format (``columns``, ``data``)."""
    column = table["columns"].index("question_id") if "question_id" in table["columns"] else None
    return set() if column is None else {str(row[column]) for row in table["data"]}
