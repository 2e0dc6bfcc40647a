"""Meta-evaluation: how far each metric and judge column of a run agrees with human labels."""
