"""MLflow's Overview latency against the questions' own time, on a store the harness wrote (issue 45).

    python benchmarks/trace_latency.py [--uri sqlite:///mlflow.db] [--experiment NAME] [--json FILE]

The experiment Overview of MLflow's UI charts trace latency from the store's ``query_trace_metrics``
(view TRACES, metric ``latency``: each trace's execution time). This asks the store the same
question (p50, p90, p99 and the mean over the experiment's traces) and reads every trace's spans to
compute each question's own time: the sum of its root's child spans (a batch's span counting its
share, as the harness lays them out). Goal: the Overview's p50 within 10% of the median span sum.
Without ``--experiment``, every experiment with traces.
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path

PERCENTILES = (50, 90, 99)
_PAGE = 500


def overview_latency(store, experiment_id: str) -> dict[str, float]:
    """What the Overview charts: the store's latency aggregations over the experiment's traces (ms)."""
    from mlflow.entities.trace_metrics import AggregationType, MetricAggregation, MetricViewType
    from mlflow.tracing.constant import TraceMetricKey

    aggregations = [MetricAggregation(AggregationType.PERCENTILE, float(p)) for p in PERCENTILES]
    aggregations.append(MetricAggregation(AggregationType.AVG))
    points = store.query_trace_metrics([experiment_id], MetricViewType.TRACES, TraceMetricKey.LATENCY, aggregations)
    values = {}
    for point in points:
        values.update(point.values)
    names = {f"P{float(p)}": f"p{p}" for p in PERCENTILES} | {"AVG": "mean"}
    return {names.get(key, key.lower()): round(float(value), 1) for key, value in values.items()}


def span_sums(store, experiment_id: str) -> list[float]:
    """Each trace's own time (ms): the sum of its root's child spans."""
    sums, token = [], None
    while True:
        infos, token = store.search_traces(locations=[experiment_id], max_results=_PAGE, page_token=token)
        ids = [info.trace_id for info in infos]
        for start in range(0, len(ids), 100):
            for trace in store.batch_get_traces(ids[start:start + 100]):
                children = [span for span in trace.data.spans if span.parent_id is not None]
                sums.append(sum(span.end_time_ns - span.start_time_ns for span in children) / 1e6)
        if not token:
            return sums


def measure(uri: str, experiment: str | None) -> list[dict]:
    from mlflow.tracing.client import TracingClient
    from mlflow.tracking import MlflowClient

    store = TracingClient(uri).store
    experiments = MlflowClient(uri).search_experiments()
    report = []
    for found in experiments:
        if experiment and found.name != experiment:
            continue
        own = span_sums(store, found.experiment_id)
        if not own:
            continue
        overview = overview_latency(store, found.experiment_id)
        median = statistics.median(own)
        p50 = overview.get("p50")
        report.append({"experiment": found.name, "traces": len(own), "overview_ms": overview,
                       "median_span_sum_ms": round(median, 1), "mean_span_sum_ms": round(statistics.fmean(own), 1),
                       "p50_over_median_span_sum": round(p50 / median, 3) if p50 is not None and median else None})
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--uri", default="sqlite:///mlflow.db")
    parser.add_argument("--experiment")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    report = {"command": "python benchmarks/trace_latency.py --uri " + args.uri, "experiments": measure(args.uri,
                                                                                                     args.experiment)}
    print(json.dumps(report, indent=2))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
