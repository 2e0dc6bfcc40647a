"""Command-line entry points: the sweep (Hydra) and the subcommands."""
