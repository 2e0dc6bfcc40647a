"""``hydra/sweeper=racing``: the harness's racing sweeper (README, "Racing and search")."""
