"""The harness launcher's queue of a batch's jobs: a worker takes the next round of a configuration
it ran (it continues it on the pipeline it built), else the batch's next job in job order."""

from __future__ import annotations

from harness.workers.batch import Waiting as _Waiting
from harness.workers.rounds import Rounds
from hydra_plugins.harness_racing.racing_sweeper import RacingSweeper

RACE = Rounds(RacingSweeper.round_keys(), RacingSweeper.grid_job)
configuration_of = RACE.configuration_of


def _round(size: int, *configurations: int) -> list[list[str]]:
    return [[f"chunker.size={c}", f"race.questions={size}", f"hydra.sweep.subdir={c}"] for c in configurations]


def test_a_grid_is_taken_in_job_order_by_any_worker():
    waiting = _Waiting([["retriever.top_k=1"], ["retriever.top_k=2"], ["retriever.top_k=3"]], ran={})
    taken = [waiting.take(worker)[0] for worker in ("w1", "w2", "w1")]
    assert taken == [0, 1, 2] and not waiting


def test_each_worker_takes_the_next_round_of_the_configurations_it_ran():
    first = _round(20, 0, 1, 2, 3)
    ran = {configuration_of(job): worker for job, worker in zip(first, ["w1", "w2", "w2", "w1"])}
    waiting = _Waiting(_round(40, 1, 2, 3), ran, RACE)  # 0 was eliminated
    assert waiting.take("w1")[1] == _round(40, 3)[0]
    assert waiting.take("w2")[1] == _round(40, 1)[0]
    assert waiting.take("w1")[1] == _round(40, 2)[0]  # none of its own left: the next in job order
    assert not waiting


def test_a_new_worker_takes_the_jobs_in_order_and_nothing_is_taken_twice():
    ran = {configuration_of(job): "w1" for job in _round(20, 0, 1)}
    waiting = _Waiting(_round(40, 0, 1, 2), ran, RACE)
    assert [waiting.take(w)[0] for w in ("w3", "w1", "w3")] == [0, 1, 2]
    assert not waiting
