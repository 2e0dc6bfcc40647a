"""Tracking at the edge: a Hydra callback hands finished jobs to a tracker (MLflow or none)."""
