"""``hydra/sweeper=racing``: the harness's racing sweeper (docs/how-to/racing-optuna.md)."""
