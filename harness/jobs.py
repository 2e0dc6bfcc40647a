"""A job's parts built from its config, and the check of every job of a sweep before it starts.

Components validate their arguments in their constructors (``top_k >= 1``, ``overlap < size``,
``generation.sample >= 1``...) and load nothing heavy there, so building a job's parts is cheap:
the sweep builds every job's parts up front, and the same constructors check again in the job.

Within a sweep, a part is built once per process (and thread) for each config it is built from
(:func:`parts_of_this_process`): the start check's parts serve the jobs of the basic launcher, a
worker of the harness (the default), joblib or Ray launcher keeps what its earlier jobs built (the
harness launcher's for the whole sweep: harness/workers), and a race's next round
finds its configuration's parts (with the models they loaded and the index they hold) built. A
part is only ever run by one job at a time, and its per-run methods (``index``, ``prepare``,
``answer``, ``run``) start from the run's own inputs. Another sweep builds its parts afresh (its
files may have changed since).
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from typing import Any

from hydra._internal.core_plugins.basic_sweeper import BasicSweeper
from hydra.core.global_hydra import GlobalHydra
from hydra.core.override_parser.overrides_parser import OverridesParser
from hydra.utils import instantiate
from omegaconf import DictConfig, OmegaConf

from harness.config.checks import check_config
from harness.config.composition import ComposedByChoices
from harness.config.lru import LeastRecentlyUsed
from harness.data.records import Dataset
from harness.racing.order import first_questions
from harness.stages.answering import Answering
from harness.stages.judging import Judging

BASIC_SWEEPER = f"{BasicSweeper.__module__}.{BasicSweeper.__name__}"
# Sweepers that run the basic sweeper's grid (the racing sweeper runs it round by round), whose
# every job can be checked before the sweep starts.
GRID_SWEEPERS = (BASIC_SWEEPER, "hydra_plugins.harness_grid.grid_sweeper.GridSweeper",
                 "hydra_plugins.harness_racing.racing_sweeper.RacingSweeper")
# Parts kept per process and thread: every configuration of a large race or sweep, with room to spare.
PARTS_KEPT = 4096


@dataclass
class JobParts:
    dataset: Dataset
    chunker: Any
    retriever: Any
    reranker: Any
    suites: dict[str, Any]
    answering: Answering
    judging: Judging
    router: Any
    app: Any = None


class JobNotValid(ValueError):
    """Parts of a job cannot be built; every one is named with its config group."""


class SweepNotValid(ValueError):
    """One or more jobs of a sweep cannot run; every one of them is named."""


def build_job(cfg: DictConfig, built: dict[tuple[str, str], Any] | None = None, checked: bool = False) -> JobParts:
    """Checks the config, then instantiates every part.

    Args:
        built: parts already built for other jobs of a sweep, by config group and resolved config;
            a sweep's jobs mostly share their dataset, metrics and judge, which are then built once.
        checked: this very config passed :func:`check_config` in this process (the start check of
            its sweep, :func:`checked_in_this_process`): it is not checked again.

    Raises:
        JobNotValid: naming every part that could not be built and why.
    """
    if not checked:
        check_config(cfg)
    problems: list[BaseException] = []
    reasons: list[str] = []

    def part(group: str, make, node=None):
        key = (group, _resolved(node)) if built is not None and node is not None else None
        if key in (built or {}):
            return built[key]
        try:
            made = make()
        except Exception as err:  # noqa: BLE001 - every part's reason is collected, then raised together
            problems.append(err)
            reasons.append(f"{group}: {_root_cause(err)}")
            return None
        if key is not None:
            built[key] = made
        return made

    dataset = part("dataset", lambda: instantiate(cfg.dataset), cfg.dataset)
    if dataset is not None and not dataset.questions:  # dataset=documents: a corpus to write questions from
        dataset = part("dataset", lambda: _no_questions(dataset))
    race = cfg.get("race")
    if dataset is not None and race is not None and race.questions is not None:  # a round of a race
        dataset = part("race", lambda: first_questions(dataset, race.questions, race.seed, race.stratify))
    generator = part("generator", lambda: instantiate(cfg.generator), cfg.generator)
    if dataset is not None and generator is not None:
        part("generator", lambda: generator.check_questions({question.id for question in dataset.questions}))
    prompt = part("prompt", lambda: instantiate(cfg.prompt), cfg.prompt)
    generation = cfg.generation
    answering = part("generation", lambda: Answering(
        generator=generator, prompt=prompt, conditions=list(generation.conditions), contexts=generation.contexts,
        sample=generation.sample, stratify=generation.stratify, seed=generation.seed,
        max_failed_fraction=generation.max_failed_fraction, ttft_sample=generation.get("ttft_sample") or 0,
        on_failure=generation.get("on_failure") or "miss"))
    judge = part("judge", lambda: instantiate(cfg.judge), cfg.judge)
    rubrics = part("rubric", lambda: {name: instantiate(rubric) for name, rubric in cfg.rubrics.items()}, cfg.rubrics)
    judging = part("judge", lambda: Judging(judge=judge, rubrics=rubrics)) if judge and rubrics is not None else None
    reranker = part("reranker", lambda: instantiate(cfg.reranker), cfg.reranker)
    app = part("app", lambda: instantiate(cfg.app), cfg.app) if cfg.get("app") is not None else None
    if app is not None and app.enabled:
        part("app", lambda: _alone(generator, reranker))
    job = JobParts(dataset=dataset, chunker=part("chunker", lambda: instantiate(cfg.chunker), cfg.chunker),
                   retriever=part("retriever", lambda: instantiate(cfg.retriever), cfg.retriever),
                   reranker=reranker,
                   suites=part("metrics", lambda: {name: instantiate(suite) for name, suite in cfg.metrics.items()},
                               cfg.metrics),
                   answering=answering, judging=judging,
                   router=part("router", lambda: instantiate(cfg.router), cfg.router), app=app)
    if dataset is not None and dataset.questions and not (judging is not None and judging.judge.enabled):
        part("dataset", lambda: _something_to_score(dataset))
    if problems:
        raise JobNotValid("; ".join(reasons)) from problems[0]
    return job


def load_dataset(cfg: DictConfig, built: dict[tuple[str, str], Any] | None = None) -> Dataset:
    """The dataset of ``cfg``: from ``built`` (:func:`parts_of_this_process`) when it holds it,
    else loaded, and kept there (the key :func:`build_job` gives it)."""
    key = ("dataset", _resolved(cfg.dataset))
    if built is not None and key in built:
        return built[key]
    dataset = instantiate(cfg.dataset)
    if built is not None:
        built[key] = dataset
    return dataset


def check_sweep_jobs(config: DictConfig) -> int:
    """Composes and builds every job of a grid sweep (basic or racing sweeper); returns how many
    were checked (0 for a search sweeper, whose jobs are not known in advance).

    Raises:
        SweepNotValid: naming each job that cannot run (its overrides) and why.
    """
    jobs = sweep_job_overrides(config)
    # the sweeper's validation and the harness launcher reuse these compositions
    composed = compositions_of_this_process(str(config.hydra.sweep.dir), GlobalHydra.instance().config_loader())
    built = parts_of_this_process(str(config.hydra.sweep.dir))
    checked = checked_in_this_process(str(config.hydra.sweep.dir))
    shared = set.intersection(*(set(job) for job in jobs)) if len(jobs) > 1 else set()
    problems = []
    for number, overrides in enumerate(jobs):
        try:
            build_job(composed.shared(config, overrides), built)
            checked.add(tuple(overrides))
        except Exception as err:  # noqa: BLE001 - every job's reason is collected, then raised together
            problems.append(f"job {number} ({' '.join(o for o in overrides if o not in shared)}): "
                            f"{err if isinstance(err, JobNotValid) else _root_cause(err)}")
    if problems:
        raise SweepNotValid(f"{len(problems)} of {len(jobs)} job(s) cannot run:\n" + "\n".join(problems))
    return len(jobs)


def validate_batch(loader, config: DictConfig, batch) -> None:
    """What Hydra's ``Sweeper.validate_batch_is_legal`` checks (every job of the batch composes), from
    the compositions the start check made (:func:`compositions_of_this_process`): a job it composed
    costs nothing, another one its value overrides."""
    composed = compositions_of_this_process(str(config.hydra.sweep.dir), loader)
    for overrides in batch:
        composed.shared(config, list(overrides))


def sweep_job_overrides(config: DictConfig) -> list[list[str]]:
    """Each job's overrides, in the order Hydra's basic sweeper launches them ([] for a sweeper
    that does not run a grid)."""
    if OmegaConf.select(config, "hydra.sweeper._target_") not in GRID_SWEEPERS:
        return []
    params = OmegaConf.select(config, "hydra.sweeper.params") or {}
    arguments = [f"{key}={value}" for key, value in params.items()] + list(config.hydra.overrides.task)
    parsed = OverridesParser.create().parse_overrides(arguments)
    return [list(job) for batch in BasicSweeper.split_arguments(parsed, None) for job in batch]


_THIS_THREAD = threading.local()  # a launcher that runs jobs in threads never shares a part between them


def parts_of_this_process(sweep: str) -> dict[tuple[str, str], Any]:
    """The parts built in this process and thread for the sweep in folder ``sweep`` (or the single
    run in that folder), by config group and resolved config (see the module's docstring);
    :func:`build_job` takes them as ``built``. Those of an earlier sweep are dropped."""
    _this_sweep(sweep)
    return _THIS_THREAD.parts


def checked_in_this_process(sweep: str) -> set[tuple[str, ...]]:
    """The jobs of the sweep in folder ``sweep`` (their overrides; a single run's, in its folder) that
    passed the start check in this process and thread: composed from the same cached composition, the job's own config is
    the one checked, so the job need not check it again (a third of building its parts)."""
    _this_sweep(sweep)
    return _THIS_THREAD.checked


def compositions_of_this_process(sweep: str, loader) -> ComposedByChoices:
    """The jobs' configs of the sweep in folder ``sweep``, composed in this process and thread from
    ``loader`` (the Hydra run's config loader) once per set of group choices
    (:class:`~harness.config.composition.ComposedByChoices`): the start check's, which the
    harness's sweepers' validation and the harness launcher reuse."""
    _this_sweep(sweep)
    if _THIS_THREAD.composed is None or _THIS_THREAD.composed.loader is not loader:
        _THIS_THREAD.composed = ComposedByChoices(loader)
    return _THIS_THREAD.composed


def _this_sweep(sweep: str) -> None:
    if getattr(_THIS_THREAD, "sweep", None) != sweep:
        _THIS_THREAD.sweep, _THIS_THREAD.parts, _THIS_THREAD.checked = sweep, LeastRecentlyUsed(PARTS_KEPT), set()
        _THIS_THREAD.composed = None


def _resolved(node) -> str:
    """A part's config, resolved, as a key (JSON: a third of the time YAML took)."""
    return json.dumps(OmegaConf.to_container(node, resolve=True, enum_to_str=True), sort_keys=True, default=str)


def _alone(generator, reranker) -> None:
    """An app answers in place of the harness's reranker and generator, so neither may be configured."""
    clashing = [name for name, part in (("generator", generator), ("reranker", reranker))
                if part is not None and part.enabled]
    if clashing:
        raise ValueError(f"the app answers the questions itself: {' and '.join(clashing)} would not run "
                         f"(use generator=none reranker=none with an app)")


def _no_questions(dataset: Dataset):
    raise ValueError(f"dataset '{dataset.name}' has no questions to score (write some from its documents with "
                     f"`harness synth`, then score them with dataset=questions_jsonl)")


def _something_to_score(dataset: Dataset) -> None:
    """Without a judge, a metric needs a gold answer, gold document, key fact or route of some question."""
    if not any(q.relevant or q.key_facts or q.answers or q.ground_truth or q.expected_answer or q.route
               for q in dataset.questions):
        raise ValueError(f"dataset '{dataset.name}': none of its {len(dataset.questions)} questions has a gold "
                         f"answer, gold document, key fact or route, and no judge is configured: nothing to score "
                         f"(name their columns with dataset.fields.answers=<column> or dataset.fields.relevant=<column>, "
                         f"or set judge=<a judge>)")


def _root_cause(err: BaseException) -> str:
    while err.__cause__ is not None:
        err = err.__cause__
    return f"{type(err).__name__}: {err}"
