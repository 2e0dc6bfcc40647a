"""``hydra/launcher=ray``: hydra-ray-launcher with the harness's console and clean-up (harness/ray_cluster.py)."""
