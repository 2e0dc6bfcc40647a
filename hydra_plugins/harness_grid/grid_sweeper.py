"""The grid sweeper (``hydra/sweeper=basic``, the default: conf/hydra/sweeper/basic.yaml): Hydra's basic sweeper.

The same grid in the same batches, handed to the configured launcher; only its check that every
job of a batch composes (``Sweeper.validate_batch_is_legal``, before the batch is launched) takes
the compositions the harness's start check made of the same jobs
(:func:`harness.jobs.validate_batch`). Hydra's own check composes every job from scratch: ~0.3 to
0.9 s a job of CPU on the demo config, before the first job starts.
"""

from typing import Sequence

from hydra._internal.core_plugins.basic_sweeper import BasicSweeper


class GridSweeper(BasicSweeper):
    def validate_batch_is_legal(self, batch: Sequence[Sequence[str]]) -> None:
        from harness.jobs import validate_batch

        assert self.hydra_context is not None and self.config is not None
        validate_batch(self.hydra_context.config_loader, self.config, batch)
