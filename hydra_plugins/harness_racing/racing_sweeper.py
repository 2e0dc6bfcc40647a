"""A Hydra sweeper that races the grid the basic sweeper would run (harness.racing).

Round after round it hands the surviving configurations to the configured launcher as one
batch, each on the first ``n`` questions of one seeded order (``race.questions=n``) and in its
own folder (``<sweep dir>/<configuration number>``, so a configuration keeps one folder and one
tracked run from round to round); then reads each job's per-question table and eliminates the
configurations an anytime-valid test finds worse than the leader, and logs their runs (a round's
jobs log nothing: harness.tracking.sweep.race). It never runs a job itself.
"""

import logging
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

from hydra._internal.core_plugins.basic_sweeper import BasicSweeper
from hydra.core.override_parser.overrides_parser import OverridesParser
from hydra.core.utils import JobReturn, JobStatus
from hydra.plugins.sweeper import Sweeper
from hydra.types import HydraContext, TaskFunction
from hydra.utils import instantiate
from omegaconf import DictConfig, OmegaConf

log = logging.getLogger(__name__)


class RacingSweeper(Sweeper):
    def __init__(self, params: Optional[Dict[str, str]] = None) -> None:
        super().__init__()
        self.params = dict(params or {})
        self.config: Optional[DictConfig] = None
        self.launcher = None
        self.hydra_context: Optional[HydraContext] = None
        self.job_idx = 0

    def setup(self, *, hydra_context: HydraContext, task_function: TaskFunction, config: DictConfig) -> None:
        from hydra.core.plugins import Plugins

        self.hydra_context, self.config = hydra_context, config
        self.launcher = Plugins.instance().instantiate_launcher(
            hydra_context=hydra_context, task_function=task_function, config=config)

    # What a configuration's next round changes in its job's overrides (the launcher asks, through
    # round_keys, to continue a configuration in the worker that ran its round before).
    ROUND_KEYS = frozenset({"race.questions"})
    # What a round adds to a grid job's overrides: the round's keys and the configuration's folder.
    ADDED_KEYS = ROUND_KEYS | {"hydra.sweep.subdir"}

    @classmethod
    def round_keys(cls) -> frozenset[str]:
        """The keys whose values alone differ between two rounds of one configuration."""
        return cls.ROUND_KEYS

    @classmethod
    def grid_job(cls, overrides: Sequence[str]) -> tuple[str, ...]:
        """The grid job a round's job runs: its overrides without what the round added."""
        return tuple(o for o in overrides if o.split("=", 1)[0].strip() not in cls.ADDED_KEYS)

    def validate_batch_is_legal(self, batch: Sequence[Sequence[str]]) -> None:
        from harness.jobs import validate_batch

        assert self.hydra_context is not None and self.config is not None
        validate_batch(self.hydra_context.config_loader, self.config, batch)

    def sweep(self, arguments: List[str]) -> Any:
        from harness.jobs import load_dataset, parts_of_this_process
        from harness.racing.order import first_questions, round_sizes
        from harness.tracking.sweep.naming import sweep_job_name, sweep_naming
        from harness.tracking.sweep.race import RoundLogger

        assert self.config is not None and self.launcher is not None and self.hydra_context is not None
        parser = OverridesParser.create(config_loader=self.hydra_context.config_loader)
        parsed = parser.parse_overrides([f"{k}={v}" for k, v in self.params.items()] + list(arguments))
        jobs = BasicSweeper.split_arguments(parsed, None)[0]
        sweep_dir = Path(self.config.hydra.sweep.dir)
        sweep_dir.mkdir(parents=True, exist_ok=True)
        OmegaConf.save(self.config, sweep_dir / "multirun.yaml")

        settings = self.config.race
        # named as their runs are (harness.tracking.sweep.callback): the keys the race varies
        naming = sweep_naming(list(arguments), self.params, self.config)
        names = [sweep_job_name(job, naming["varied"], naming["path_keys"], naming["labels"]) or str(number)
                 for number, job in enumerate(jobs)]
        if len(set(names)) != len(names):
            raise ValueError(f"racing: configurations must differ in what names their runs: {names}")
        # the dataset the start check loaded (harness.jobs: the parts of this process)
        dataset = load_dataset(self.config, parts_of_this_process(str(self.config.hydra.sweep.dir)))
        total = len(dataset.questions)
        sizes = round_sizes(total, settings.first, settings.step, settings.max_rounds,
                            float(settings.get("growth", 1.0)))
        race = None
        returns: List[Sequence[JobReturn]] = []
        survivors = list(range(len(jobs)))
        tracking = RoundLogger(self.config, sweep_dir)  # logs who left after each round; the rest at the end
        for size in sizes:
            batch = [[*jobs[i], f"race.questions={size}", f"hydra.sweep.subdir={i}"] for i in survivors]
            if size == sizes[0]:  # later rounds change only race.questions, a value
                self.validate_batch_is_legal(batch)
            results = self.launcher.launch(batch, initial_job_idx=self.job_idx)
            self.job_idx += len(batch)
            returns.append(results)
            order = [q.id for q in first_questions(dataset, size, settings.seed, settings.stratify).questions]
            tables, failed = _round_tables(sweep_dir, survivors, names, results, order)
            if race is None and not tables:  # every job failed: nothing to race, the failures are reported
                break
            if race is None:
                race = _new_race(self.config, names, sizes, total, tables)
            record = race.finish_round(_scores(tables, race.rule), failed)
            race.save(sweep_dir)
            for elimination in record.eliminated:
                log.info("race round %d: eliminated %s (%s)", record.number, elimination.name, elimination.reason)
            left = [i for i in survivors if names[i] not in race.survivors]
            survivors = [names.index(name) for name in race.survivors]
            if not race.done:  # at the end every configuration's run is logged by the tracking callback
                tracking.configurations_left([str(i) for i in left])
            if race.done:
                break
        return returns


def _round_tables(sweep_dir: Path, survivors: list[int], names: list[str], results: Sequence[JobReturn],
                  order: list[str]) -> tuple[dict[str, list[dict]], dict[str, str]]:
    """Each finished job's per-question rows in race order; each failed job's reason."""
    from harness.results.table import read_table

    tables, failed = {}, {}
    for number, result in zip(survivors, results, strict=True):
        name = names[number]
        outcome = result.return_value if result.status == JobStatus.COMPLETED else None
        if outcome is None or getattr(outcome, "failed", True):
            failed[name] = getattr(outcome, "message", None) or repr(result._return_value)
            continue
        rows = {row["question_id"]: row for row in read_table(sweep_dir / str(number))}
        if set(rows) != set(order):
            failed[name] = f"its per-question table holds {len(rows)} questions, not the round's {len(order)}"
            continue
        tables[name] = [rows[qid] for qid in order]
    return tables, failed


def _new_race(config: DictConfig, names: list[str], sizes: list[int], total: int, tables: dict):
    from harness.racing.elimination import EliminationRule
    from harness.racing.race import Race

    stats = instantiate(config.stats)
    if not hasattr(stats, "primary_for"):
        raise ValueError("racing compares configurations on stats.primary: use stats=paired")
    settings = config.race
    low, high = (float(v) for v in settings.bounds)
    rule = EliminationRule(primary=stats.primary_for(tables), guards=tuple(stats.guards), alpha=settings.alpha,
                           test=str(settings.test), low=low, high=high, min_questions=settings.min_questions,
                           configurations=len(names), evidence=str(settings.evidence),
                           tightest_at=settings.get("tightest_at"), decide=str(settings.decide))
    return Race(names, sizes, rule, total)


def _scores(tables: dict[str, list[dict]], rule) -> dict[str, dict[str, list]]:
    metrics = [rule.primary.name, *(g.name for g in rule.guards)]
    return {name: {m: [row.get(m) for row in rows] for m in metrics if any(m in row for row in rows)}
            for name, rows in tables.items()}
