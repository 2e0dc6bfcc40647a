"""The harness's worker processes: long-lived interpreters that run a sweep's jobs one after another
and keep what they built (indexes, encoders, models) for its later jobs and a race's later rounds.

- :mod:`.process`: one worker seen from the launching process (start, talk to, see it die, stop);
- :mod:`.pool`: the workers of this process (:class:`~.pool.WorkerPool`: the one started early
  for a sweep about to start, and every live one, stopped at exit at the latest);
- :mod:`.batch`: a batch of jobs run on a launcher's workers (which worker takes which job; a
  worker that dies fails only its job);
- :mod:`.loop` and :mod:`.job`: inside a worker, its loop and one job, run by Hydra's ``run_job``.

Hydra's side is the thin launcher ``hydra/launcher=harness`` (hydra_plugins/harness_launcher),
which hands its batches to :mod:`.batch`; nothing here imports it.
"""

from harness.workers.pool import WorkerPool, runs_in_workers, shared_pool

__all__ = ["WorkerPool", "runs_in_workers", "shared_pool"]
