"""Per-question records (the unit of truth), a job's results and the per-question table file."""
