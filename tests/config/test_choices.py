"""Choice fields are Enums: a typo fails at compose time, naming the key and the valid values."""

from __future__ import annotations

import pytest
from hydra.errors import ConfigCompositionException
from hydra.utils import instantiate

from harness.config.schemas.choices import CacheMode, Correction, StatTest


@pytest.mark.parametrize("override, key", [
    ("stats.correction=hlom", "correction"),
    ("stats.test=ttest", "test"),
    ("stats.primary.direction=up", "direction"),
    ("stats.guards=[{name:answer/f1,direction:upward,margin:0.1}]", "direction"),
    ("judge=local judge.cache=yes", "cache"),
    ("generation.stratify=topic", "stratify"),
    ("metrics.key_facts.matchers=[exact,fuzy]", "matchers"),
    ("metrics.key_facts.position_fact_score=max", "position_fact_score"),
    ("generator=predictions generator.on_missing=ignore", "on_missing"),
    ("human.sample.strategy=best", "strategy"),
    ("rubric=[likert] rubrics.likert.output=xml", "output"),
])
def test_a_choice_typo_fails_at_compose_time_naming_the_key(compose, override, key):
    with pytest.raises(ConfigCompositionException) as err:
        compose(override.split(" "))
    message = str(err.value) + str(err.value.__cause__)
    assert key in message
    assert "Invalid value" in message  # Hydra/OmegaConf's Enum message lists the valid names


def test_valid_choices_compose_and_reach_the_objects_as_plain_strings(compose):
    cfg = compose(["stats.correction=bh", "stats.test=wilcoxon", "judge=local", "judge.cache=refresh"])
    assert cfg.stats.correction is Correction.bh and cfg.stats.test is StatTest.wilcoxon
    assert cfg.judge.cache is CacheMode.refresh
    stats = instantiate(cfg.stats)
    # StrEnum members are str: equal to, formatted and hashed as their value.
    assert stats.correction == "bh" and f"p_{stats.correction}" == "p_bh" and stats.test == "wilcoxon"
    assert {"bh": 1}[stats.correction] == 1


def test_every_enum_member_is_named_by_its_value():
    # Hydra converts YAML strings to members by name; the objects compare by value. Both must agree.
    from harness.config.schemas import choices

    for enum in vars(choices).values():
        if isinstance(enum, type) and issubclass(enum, str) and enum is not str:
            assert all(member.name == member.value for member in enum), enum
