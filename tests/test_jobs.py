"""harness.jobs: a job's parts are built (and their arguments checked) from the real configs."""

from __future__ import annotations

import pytest

from harness.jobs import JobNotValid, build_job
from tests.conftest import TINY_DATASET_OVERRIDES


def test_the_parts_of_a_job_are_built_from_its_config(compose):
    job = build_job(compose([*TINY_DATASET_OVERRIDES, "chunker=recursive", "retriever=hybrid"]))
    assert [q.id for q in job.dataset.questions] == ["t1", "t2", "t3", "t4"]
    assert (job.chunker.size, job.retriever.top_k) == (800, 5)


def test_every_wrong_argument_is_named_with_its_group(compose):
    cfg = compose([*TINY_DATASET_OVERRIDES, "chunker=recursive", "chunker.overlap=900", "retriever.top_k=0",
                   "generation.sample=0"])
    with pytest.raises(JobNotValid) as refused:
        build_job(cfg)
    assert str(refused.value) == ("generation: ValueError: generation.sample must be >= 1 or null, got 0; "
                                  "chunker: ValueError: overlap must be >= 0 and < size (800), got 900; "
                                  "retriever: ValueError: top_k must be >= 1, got 0")


def test_a_dataset_without_its_paths_is_named(compose):
    with pytest.raises(JobNotValid, match=r"^dataset: MissingMandatoryValue: .*dataset.questions"):
        build_job(compose(["dataset=questions_jsonl"]))


def test_questions_with_nothing_to_score_them_against_are_refused_before_the_job_runs(compose, tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "france.md").write_text("Paris is the capital of France.")
    questions = tmp_path / "q.jsonl"
    questions.write_text('{"question": "Capital of France?", "reply": "Paris"}\n')
    overrides = ["dataset=questions_jsonl", f"dataset.questions={questions}", f"dataset.documents={tmp_path / 'docs'}"]
    with pytest.raises(JobNotValid, match=r"dataset: ValueError: dataset 'questions_jsonl': none of its 1 questions "
                                          r"has a gold answer.*nothing to score.*dataset.fields.answers=<column>"):
        build_job(compose(overrides))
    assert build_job(compose([*overrides, "dataset.fields.answers=reply"])).dataset.questions[0].answers == ("Paris",)


def test_a_sweep_composes_each_set_of_group_choices_once_and_hands_out_copies(tmp_path, monkeypatch):
    """The start check, the sweeper's validation and the launcher share one composition per set of
    group choices (harness.config.composition), composed by Hydra's loader (an empty composition
    store: none kept from an earlier run)."""
    from hydra import initialize_config_dir
    from hydra.core.global_hydra import GlobalHydra
    from hydra.types import RunMode

    from harness.config import register
    from harness.config.resolvers import PROJECT_ROOT
    from harness.jobs import check_sweep_jobs, checked_in_this_process, compositions_of_this_process, sweep_job_overrides

    register()
    overrides = [*TINY_DATASET_OVERRIDES, "chunker=fixed_tokens,recursive", "retriever=bm25", "retriever.top_k=2,3"]
    with initialize_config_dir(version_base="1.3", config_dir=str(PROJECT_ROOT / "conf")):
        loader = GlobalHydra.instance().config_loader()
        master = loader.load_configuration("config", overrides, RunMode.MULTIRUN)
        composed: list[tuple[str, ...]] = []
        compose = loader.load_configuration
        loader.load_configuration = lambda **kwargs: composed.append(tuple(kwargs["overrides"])) or compose(**kwargs)
        monkeypatch.setenv("HARNESS_COMPOSITION_CACHE", str(tmp_path / "store"))

        assert check_sweep_jobs(master) == 4
        jobs = sweep_job_overrides(master)
        # each job's own check is skipped in this process: its config is the one checked
        assert checked_in_this_process(str(master.hydra.sweep.dir)) == {tuple(job) for job in jobs}
        service = compositions_of_this_process(str(master.hydra.sweep.dir), loader)
        first = service(master, jobs[0])  # as the harness launcher does
        first.chunker.size = 1
        again = service(master, jobs[0])

    assert sorted(composed) == [("dataset=questions_jsonl", f"chunker={chunker}", "retriever=bm25")
                                for chunker in ("fixed_tokens", "recursive")]
    assert again.chunker._target_.endswith("FixedTokensChunker") and again.chunker.size != 1
    assert (again.retriever.top_k, service(master, jobs[1]).retriever.top_k) == (2, 3)
    assert loader.load_sweep_config is not service  # Hydra's loader itself is left as it is
    assert len(list((tmp_path / "store").glob("*.composition"))) == 2  # kept for the next run


def test_parts_built_for_one_job_of_a_sweep_serve_the_next_with_the_same_results(compose, tmp_path):
    """A sweep's jobs in one process share the parts built from the same config (the start check's
    too); each job's results equal those of a job whose parts were built for it alone."""
    import json

    from harness.cli.sweep import run_from_config
    from harness.jobs import load_dataset, parts_of_this_process
    from tests.conftest import TINY

    predictions = tmp_path / "preds.jsonl"
    questions = [json.loads(line) for line in (TINY / "questions.jsonl").read_text().splitlines() if line.strip()]
    predictions.write_text("".join(json.dumps({"question_id": q["id"], "answer": q["ground_truth"] if n % 2 else "no"})
                                   + "\n" for n, q in enumerate(questions)))
    shared = [*TINY_DATASET_OVERRIDES, "generator=predictions", f"generator.path={predictions}",
              "metrics.answer.bertscore=null", "tracking=none", f"cache.dir={tmp_path}/c"]
    jobs = [compose([*shared, *job]) for job in (["chunker=recursive", "retriever.top_k=2"],
                                                 ["chunker=fixed_tokens", "retriever.top_k=2"],
                                                 ["chunker=recursive", "retriever.top_k=3"])]
    alone = [run_from_config(job) for job in jobs]
    sweep = str(tmp_path / "sweep")
    together = [run_from_config(job, sweep) for job in [*jobs, jobs[0]]]

    assert [r.rows for r in together] == [r.rows for r in [*alone, alone[0]]]
    assert [r.metrics for r in together] == [r.metrics for r in [*alone, alone[0]]]
    parts = parts_of_this_process(sweep)
    built = {group for group, _ in parts}
    assert sum(group == "retriever" for group, _ in parts) == 2 and sum(group == "chunker" for group, _ in parts) == 2
    assert {"dataset", "generator", "metrics", "judge", "router"} <= built
    dataset = next(part for (group, _), part in parts.items() if group == "dataset")
    assert load_dataset(jobs[0], parts) is dataset  # the start check's and the racing sweeper's load
    assert parts_of_this_process(str(tmp_path / "another sweep")) == {}  # another sweep builds afresh
