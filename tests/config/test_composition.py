"""harness.config.composition: a job's config built from its group choices' composition equals Hydra's own."""

from __future__ import annotations

import pytest
from hydra import initialize_config_dir
from hydra.core.global_hydra import GlobalHydra
from hydra.errors import ConfigCompositionException
from hydra.types import RunMode
from omegaconf import OmegaConf

from harness.config import register
from harness.config.composition import ComposedByChoices
from harness.config.resolvers import PROJECT_ROOT


@pytest.fixture
def loader():
    register()
    with initialize_config_dir(version_base="1.3", config_dir=str(PROJECT_ROOT / "conf")):
        yield GlobalHydra.instance().config_loader()


SWEEPS = [
    (["retriever.top_k=5,6"], [["retriever.top_k=7"], ["retriever.top_k=8"]]),
    # group choices, values, additions, a race round's folder (a hydra override) in the job's own order
    (["chunker=fixed_tokens,recursive", "hydra/launcher=basic"],
     [["chunker=recursive", "chunker.size=100", "+extra.note=1", "race.questions=20", "hydra.sweep.subdir=3"],
      ["retriever.top_k=3", "~judge", "chunker.size=90"],
      ["judge=local", "rubric=[likelihood_correctness]", "generator=predictions", "generator.path=x.jsonl",
       "hydra.job.env_copy=[HOME]", "generation.conditions=[with_context,no_context]"]]),
]


@pytest.mark.parametrize("master_overrides, jobs", SWEEPS)
def test_every_job_config_equals_hydras_composition(loader, master_overrides, jobs):
    master = loader.load_configuration("config", master_overrides, RunMode.MULTIRUN)
    composed = ComposedByChoices(loader)
    for job in jobs:
        expected, got = loader.load_sweep_config(master, job), composed(master, job)
        assert OmegaConf.to_yaml(got) == OmegaConf.to_yaml(expected)
        assert got.hydra.overrides.task == expected.hydra.overrides.task  # the job's own order
        assert (got._get_flag("struct"), got.hydra._get_flag("readonly")) == (True, False)


def test_jobs_with_the_same_choices_share_one_composition_and_get_copies(loader):
    master = loader.load_configuration("config", ["retriever.top_k=5,6"], RunMode.MULTIRUN)
    composed = ComposedByChoices(loader)
    asked: list[list[str]] = []
    hydra_compose = composed.compose
    composed.compose = lambda cfg, overrides: asked.append(overrides) or hydra_compose(cfg, overrides)
    first = composed(master, ["retriever=bm25", "retriever.top_k=5"])
    first.retriever.top_k = 99  # as the launcher sets a job's id on its copy
    second = composed(master, ["retriever=bm25", "retriever.top_k=6"])
    again = composed(master, ["retriever=bm25", "retriever.top_k=5"])
    assert asked == [["retriever=bm25"]]
    assert (second.retriever.top_k, again.retriever.top_k) == (6, 5)


def test_the_start_checks_config_goes_to_the_first_caller_and_a_new_one_to_the_next(loader):
    # the start check reads the kept config; Hydra's sweeper validates the batch, then the launcher
    # asks again and sets the job's id on what it gets
    master = loader.load_configuration("config", ["retriever.top_k=5,6"], RunMode.MULTIRUN)
    composed = ComposedByChoices(loader)
    job = ["retriever=bm25", "retriever.top_k=5"]
    checked = composed.shared(master, job)
    assert composed.shared(master, job) is checked
    validated = composed(master, job)
    assert validated is checked and not composed.jobs
    launched = composed(master, job)
    assert launched is not checked and OmegaConf.to_yaml(launched) == OmegaConf.to_yaml(checked)
    launched.hydra.job.id = 3
    assert OmegaConf.to_yaml(composed(master, job)) == OmegaConf.to_yaml(checked)


@pytest.mark.parametrize("job, message", [
    (["retriever.no_such_key=1"], "Could not override 'retriever.no_such_key'"),
    (["retriever.top_k=1,2"], "Ambiguous value for argument 'retriever.top_k=1,2'"),
    (["chunker=no_such_chunker"], "Could not find 'chunker/no_such_chunker'"),
])
def test_a_job_hydra_refuses_is_refused_with_hydras_message(loader, job, message):
    master = loader.load_configuration("config", ["retriever.top_k=5,6"], RunMode.MULTIRUN)
    for compose in (loader.load_sweep_config, ComposedByChoices(loader)):
        with pytest.raises(ConfigCompositionException) as refused:
            compose(master, job)
        assert message in str(refused.value) + str(refused.value.__cause__)



def test_a_worker_adopts_the_compositions_of_the_launchers_process(loader):
    """The harness launcher ships the start check's compositions to its worker: the worker's copy of
    the loader builds each job from them, equal to Hydra's own, without composing again."""
    import pickle

    master = loader.load_configuration("config", ["retriever=bm25,dense"], RunMode.MULTIRUN)
    composer = ComposedByChoices(loader)
    for choice in ("bm25", "dense"):
        composer.shared(master, [f"retriever={choice}", "retriever.top_k=5"])
    kept = composer.compositions(master)
    assert set(kept) == {("retriever=bm25",), ("retriever=dense",)}
    worker_master, worker_loader, shipped = pickle.loads(pickle.dumps((master, loader, kept)))
    worker = ComposedByChoices(worker_loader)
    worker.adopt(worker_master, shipped)
    calls = []
    compose = worker.compose
    worker.compose = lambda *args: calls.append(args) or compose(*args)
    job = ["retriever=dense", "retriever.top_k=7"]
    assert OmegaConf.to_yaml(worker(worker_master, job)) == OmegaConf.to_yaml(composer.compose(master, job))
    assert calls == []


def _run_by_hydra(config):
    """What a finished job leaves of its config: Hydra's node read-only (HydraConfig.set_config), and
    the task's config, a copy without it (as run_job makes it)."""
    import copy

    from omegaconf import open_dict, read_write

    OmegaConf.set_readonly(config.hydra, True)
    task = copy.deepcopy(config)
    with read_write(task), open_dict(task):
        del task["hydra"]
    return task


def test_a_race_rounds_config_continued_in_place_equals_hydras_composition(loader):
    """A race's next round of a configuration (only race.questions changes) continues the config of
    the round before in place: the job's config and the task's equal Hydra's own composition of the round."""
    from harness.config.composition import next_round

    master = loader.load_configuration("config", ["chunker.size=12,64"], RunMode.MULTIRUN)
    composed = ComposedByChoices(loader)
    first = ["chunker=recursive", "chunker.size=64", "+extra.note=1", "race.questions=20", "hydra.sweep.subdir=1"]
    second = [*first[:3], "race.questions=40", "hydra.sweep.subdir=1"]
    config = composed(master, first)
    task = _run_by_hydra(config)
    assert next_round(config, task, first, second, frozenset({"race.questions"}))
    expected = loader.load_sweep_config(master, second)
    OmegaConf.set_readonly(expected.hydra, True)
    assert OmegaConf.to_yaml(config) == OmegaConf.to_yaml(expected)
    assert list(config.hydra.overrides.task) == list(expected.hydra.overrides.task)
    assert config.hydra.job.override_dirname == expected.hydra.job.override_dirname
    assert "race.questions=40" in config.hydra.job.override_dirname
    assert OmegaConf.to_yaml(task) == OmegaConf.to_yaml(_run_by_hydra(expected))
    assert task.race.questions == 40 and isinstance(task.race.questions, int)


def test_a_grid_jobs_config_continued_in_place_equals_hydras_composition(loader):
    """The harness launcher's worker changes the config of its last job of the same group choices
    into the next job's (harness.workers.job): what it and the task get equals Hydra's composition."""
    from harness.config.composition import next_job

    master = loader.load_configuration("config", ["retriever.top_k=2,5"], RunMode.MULTIRUN)
    first = ["chunker=recursive", "retriever.top_k=2", "chunker.size=64", "hydra.sweep.subdir=0"]
    second = ["chunker=recursive", "retriever.top_k=5", "chunker.size=32", "hydra.sweep.subdir=0"]
    composed = ComposedByChoices(loader)
    config = composed(master, first)
    _run_by_hydra(config)
    assert next_job(config, first, second, composed.group_overrides(master, first))
    expected = loader.load_sweep_config(master, second)
    OmegaConf.set_readonly(expected.hydra, True)
    assert OmegaConf.to_yaml(config) == OmegaConf.to_yaml(expected)
    assert list(config.hydra.overrides.task) == list(expected.hydra.overrides.task)
    assert config.hydra.job.override_dirname == expected.hydra.job.override_dirname
    assert OmegaConf.to_yaml(_run_by_hydra(config)) == OmegaConf.to_yaml(_run_by_hydra(expected))


@pytest.mark.parametrize("second", [
    ["chunker=fixed_tokens", "retriever.top_k=5", "hydra.sweep.subdir=0"],  # a group choice
    ["chunker=recursive", "retriever.top_k=5", "hydra.sweep.subdir=1"],  # a value of Hydra's node
    ["chunker=recursive", "+retriever.top_k=5", "hydra.sweep.subdir=0"],  # not a plain change
    ["chunker=recursive", "hydra.sweep.subdir=0"],  # another number of overrides
])
def test_a_grid_job_that_differs_otherwise_is_not_continued_and_nothing_changes(loader, second):
    from harness.config.composition import next_job

    master = loader.load_configuration("config", [], RunMode.MULTIRUN)
    first = ["chunker=recursive", "retriever.top_k=2", "hydra.sweep.subdir=0"]
    composed = ComposedByChoices(loader)
    config = composed(master, first)
    _run_by_hydra(config)
    before = OmegaConf.to_yaml(config)
    assert composed.group_overrides(master, first) == ("chunker=recursive",)
    assert not next_job(config, first, second, ("chunker=recursive",))
    assert OmegaConf.to_yaml(config) == before


@pytest.mark.parametrize("second", [
    ["chunker=fixed_tokens", "chunker.size=64", "race.questions=40"],  # a group choice
    ["chunker=recursive", "chunker.size=32", "race.questions=40"],  # another value than the round's
    ["chunker=recursive", "chunker.size=64", "+race.questions=40"],  # not a plain change
    ["chunker=recursive", "chunker.size=64"],  # another number of overrides
])
def test_a_job_that_differs_otherwise_is_not_continued_and_nothing_changes(loader, second):
    from harness.config.composition import next_round

    master = loader.load_configuration("config", [], RunMode.MULTIRUN)
    first = ["chunker=recursive", "chunker.size=64", "race.questions=20"]
    config = ComposedByChoices(loader)(master, first)
    task = _run_by_hydra(config)
    before = (OmegaConf.to_yaml(config), OmegaConf.to_yaml(task))
    assert not next_round(config, task, first, second, frozenset({"race.questions"}))
    assert (OmegaConf.to_yaml(config), OmegaConf.to_yaml(task)) == before
