"""The YAML options are the only source of defaults: every option composes with no value left
MISSING except the ones a user must give (dataset paths, a predictions file)."""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil

import pytest
from omegaconf import MISSING, OmegaConf

import harness.config.schemas as schemas
from tests.conftest import PROJECT_ROOT

CONF = PROJECT_ROOT / "conf"
# Values the user gives on the command line (``???`` in the YAML).
USER_GIVEN = {"dataset.path", "dataset.questions", "dataset.documents", "dataset.corpus", "generator.path",
              "dataset.evaluation_dataset", "app.target", "app.url"}
GROUPS = ("app", "dataset", "chunker", "retriever", "reranker", "generator", "prompt", "judge", "tracking", "stats", "human",
          "meta_eval", "routes", "router", "gates")


def _options(group: str) -> list[str]:
    return sorted(p.stem for p in (CONF / group).glob("*.yaml"))


@pytest.mark.parametrize("override", [f"{g}={o}" for g in GROUPS for o in _options(g)]
                         + [f"metrics=[{o}]" for o in _options("metrics")]
                         + [f"rubric=[{o}]" for o in _options("rubric")]
                         + [f"experiment={o}" for o in _options("experiment")])
def test_every_option_sets_every_field_its_schema_leaves_missing(compose, override):
    missing = set(OmegaConf.missing_keys(compose([override])))
    assert missing <= USER_GIVEN, sorted(missing - USER_GIVEN)


def _schema_modules():
    for info in pkgutil.iter_modules(schemas.__path__):
        yield importlib.import_module(f"{schemas.__name__}.{info.name}")


def test_schemas_hold_no_scalar_defaults_of_their_own():
    # A literal default in a schema would shadow (or contradict) the YAML; only MISSING, None
    # ("not set") and False for optional flags of list items are allowed.
    # "all": Hydra's _convert_ mode, not a setting; Direction.higher: a gate rule's optional direction.
    from harness.config.schemas.choices import Direction

    allowed = {MISSING, None, False, "all", Direction.higher}
    offenders = []
    for module in _schema_modules():
        for obj in vars(module).values():
            if dataclasses.is_dataclass(obj) and obj.__module__ == module.__name__:
                for f in dataclasses.fields(obj):
                    if f.default is not dataclasses.MISSING and f.default not in allowed:
                        offenders.append(f"{obj.__name__}.{f.name}={f.default!r}")
    assert not offenders, offenders


def test_local_and_api_schemas_share_their_base_blocks():
    from harness.config.schemas.base import ApiClientSchema, LocalModelSchema
    from harness.config.schemas.generator import ApiGeneratorSchema, LocalGeneratorSchema
    from harness.config.schemas.judge import ApiJudgeSchema, LocalJudgeSchema

    assert issubclass(LocalGeneratorSchema, LocalModelSchema) and issubclass(LocalJudgeSchema, LocalModelSchema)
    assert issubclass(ApiGeneratorSchema, ApiClientSchema) and issubclass(ApiJudgeSchema, ApiClientSchema)
