"""Route tables and suites built from the real YAML (conf/routes, conf/metrics/routes.yaml)."""

from __future__ import annotations

import pytest
from hydra import compose, initialize_config_dir
from hydra.utils import instantiate

from harness.config import register
from tests.conftest import PROJECT_ROOT


def composed(*overrides: str):
    register()
    with initialize_config_dir(version_base="1.3", config_dir=str(PROJECT_ROOT / "conf")):
        return compose("config", overrides=list(overrides))


@pytest.fixture(scope="session")
def kpi_rag_suite():
    return instantiate(composed("routes=kpi_rag").metrics.routes)


@pytest.fixture(scope="session")
def single_suite():
    return instantiate(composed("routes=single").metrics.routes)


@pytest.fixture(scope="session")
def kpi_rag(kpi_rag_suite):
    return kpi_rag_suite.table


@pytest.fixture(scope="session")
def single(single_suite):
    return single_suite.table
