"""Alignment fixtures: the meta-evaluation's (the real ``meta_eval`` config)."""

from tests.metaeval.conftest import settings_for  # noqa: F401  (a fixture)
