"""The grid sweeper: Hydra's basic sweeper validating its batches from the start check's compositions
(``hydra/sweeper=basic``, the default of every sweep: conf/hydra/sweeper/basic.yaml names it)."""
