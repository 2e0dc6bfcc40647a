"""``hydra/launcher=harness``: the harness's launcher, the default of ``harness -m`` (docs/how-to/sweeps.md)."""
