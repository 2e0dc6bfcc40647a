"""``hydra/sweeper=grid``: Hydra's basic sweeper, validating its batches from the start check's compositions (the default of ``harness -m``)."""
