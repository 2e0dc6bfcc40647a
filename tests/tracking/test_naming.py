"""Run names: what tells a sweep's jobs apart; a single run's groups and a short hash."""

from __future__ import annotations

from harness.tracking.sweep.naming import path_labels, single_run_name, sweep_job_name, unique_names, varied_keys


def test_analysis_only_settings_never_enter_run_names(compose):
    hydra = compose(return_hydra_config=True).hydra
    exclude = list(hydra.job.config.override_dirname.exclude_keys)
    overrides = ["retriever=bm25", "chunker=recursive", "chunker.size=400"]
    analysis = ["stats.correction=bh", "stats.test=wilcoxon",
                "stats.guards=[{name: key_facts/coverage_exact, direction: higher, margin: 0.02}]",
                "report.headline=[answer/f1]", "human.confidence=0.9", "+gates.min_f1=0.6", "resume=true",
                "cache.dir=/tmp/x", "tracking.tracking_uri=sqlite:///a.db"]
    name = single_run_name(overrides, exclude, ["retriever", "chunker"], "demo")
    assert name == single_run_name([*overrides, *analysis], exclude, ["retriever", "chunker"], "demo")
    assert name.startswith("chunker=recursive,retriever=bm25 #")
    assert single_run_name(["chunker.size=300", *overrides[:2]], exclude, ["retriever", "chunker"], "demo") != name
    assert single_run_name([], exclude, [], "demo") == "demo"


def test_only_whole_keys_are_excluded():
    assert varied_keys(["statsd.port=1,2", "stats.test=t,wilcoxon"], {}, ["stats"]) == ["statsd.port"]


def test_a_sweep_names_its_jobs_by_the_varied_keys_paths_by_stem():
    sweep = ["dataset=questions_jsonl", "generator=predictions", "generator.path=/r/x/a.jsonl,/r/y/a.jsonl,/r/b.jsonl"]
    varied = varied_keys(sweep, {"retriever": "bm25,dense", "chunker": "none"}, [])
    assert varied == ["generator.path", "retriever"]
    labels = {"generator.path": path_labels(["/r/x/a.jsonl", "/r/y/a.jsonl", "/r/b.jsonl"])}
    names = [sweep_job_name(["dataset=questions_jsonl", "generator=predictions", f"generator.path={path}",
                             f"retriever={retriever}"], varied, ["generator.path"], labels)
             for path in ("/r/x/a.jsonl", "/r/y/a.jsonl", "/r/b.jsonl") for retriever in ("bm25", "dense")]
    assert names[:3] == ["generator.path=x/a,retriever=bm25", "generator.path=x/a,retriever=dense",
                         "generator.path=y/a,retriever=bm25"]
    assert names[-1] == "generator.path=b,retriever=dense"
    assert len(set(names)) == len(names)


def test_names_several_jobs_share_get_their_job_number():
    assert unique_names(["x", "y", "x"], [0, 1, 2]) == ["x #0", "y", "x #2"]
