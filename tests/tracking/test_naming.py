"""Run names: Hydra's override_dirname without the keys under an excluded one."""

from __future__ import annotations

from harness.tracking.naming import run_name


def test_analysis_only_settings_never_enter_run_names(compose):
    hydra = compose(return_hydra_config=True).hydra
    exclude = list(hydra.job.config.override_dirname.exclude_keys)
    overrides = ["retriever=bm25", "stats.correction=bh", "stats.test=wilcoxon",
                 "stats.guards=[{name: key_facts/coverage_exact, direction: higher, tolerance: 0.02}]",
                 "report.headline=[answer/f1]", "human.confidence=0.9", "+gates.min_f1=0.6", "resume=true",
                 "chunker=recursive", "chunker.size=400", f"cache.dir=/tmp/x", "tracking.tracking_uri=sqlite:///a.db"]
    assert run_name(overrides, exclude) == "chunker.size=400,chunker=recursive,retriever=bm25"


def test_only_whole_keys_are_excluded():
    assert run_name(["statsd.port=1", "stats=none"], ["stats"]) == "statsd.port=1"
