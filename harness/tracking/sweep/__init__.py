"""A sweep's life: the Hydra callback, run names, resuming, interruption, liveness of a run's process,
``harness sync``, a race's and a search sweeper's results on the parent run."""
