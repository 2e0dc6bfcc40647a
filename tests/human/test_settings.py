"""The ``human`` config group: composes against its schema, carries the seeds' numbers, validates."""

from __future__ import annotations

import math

import pytest
from hydra.errors import ConfigCompositionException
from hydra.utils import instantiate

from harness.human.settings import Dimension, HumanEvalSettings, JudgeColumn
from tests.conftest import PROJECT_ROOT

CONF = PROJECT_ROOT / "conf"


def test_default_config_has_the_seed_rubrics(settings):
    assert isinstance(settings, HumanEvalSettings)
    assert list(settings.dimensions) == ["relevance", "faithfulness", "conciseness", "grade", "verdict"]
    relevance = settings.dimensions["relevance"]
    assert relevance.levels == (1, 2, 3, 4, 5)
    assert relevance.rubric[0].startswith("Completely irrelevant")  # seed 003 section 8.1
    grade = settings.dimensions["grade"]
    assert grade.levels == tuple(range(1, 11))
    assert grade.rubric[9].startswith("Perfect") and grade.rubric[0].startswith("Failed")  # seed 000 section 2
    assert grade.judge == JudgeColumn("judge/manual_grade", 1.0, 10.0)
    assert settings.dimensions["verdict"].levels == ("FAIL", "PARTIAL", "PASS")
    assert settings.target_kappa == 0.6 and settings.confidence == 0.95
    assert settings.sample.strategy == "stratified" and settings.sample.worst_column == "answer/badness"


def test_landis_koch_bands_are_the_1977_table(settings):
    """Landis & Koch (1977), as seed 003 section 8.3 gives them: < 0.00 poor, 0.00-0.20 slight,
    0.21-0.40 fair, 0.41-0.60 moderate, 0.61-0.80 substantial, 0.81-1.00 almost perfect."""
    assert [(band.min, band.label) for band in settings.landis_koch] == [
        (None, "poor"), (0.0, "slight"), (0.21, "fair"), (0.41, "moderate"), (0.61, "substantial"),
        (0.81, "almost perfect")]


@pytest.mark.parametrize("kappa, label", [
    (-1.0, "poor"), (-0.05, "poor"), (-0.001, "poor"), (-0.004999, "poor"),  # these round to -0.00
    (0.0, "slight"), (0.2, "slight"), (0.204, "slight"), (0.2099, "slight"), (0.21, "fair"), (0.4, "fair"),
    (0.41, "moderate"), (0.6, "moderate"), (0.6099, "moderate"), (0.61, "substantial"), (0.8, "substantial"),
    (0.81, "almost perfect"), (1.0, "almost perfect"), (math.nan, "undefined"),
])
def test_landis_koch_bands_as_seed_003_gives_them(settings, kappa, label):
    """Read on the unrounded kappa: a kappa just below 0 is worse than chance, so poor."""
    assert settings.kappa_label(kappa) == label


def test_grade_is_compared_with_a_judge_of_the_same_thing(settings, compose):
    """Seed 000's manual grade (human and Haiku alike) graded the retrieved content; the human
    dimension asks about the retrieved contexts, and its judge column grades the same chunks."""
    grade = settings.dimensions["grade"]
    manual_grade = instantiate(compose(["rubric=[manual_grade]"]).rubrics.manual_grade)
    assert manual_grade.applies_to == ["retrieval"]
    assert grade.judge.column == f"judge/{manual_grade.column_for('retrieval')}"
    assert (grade.judge.min, grade.judge.max) == manual_grade.scales["score"]
    assert "retrieved contexts" in grade.prompt and "ignore the system's answer" in grade.prompt
    assert "RETRIEVED CONTENT" in manual_grade.messages[0]["content"] and "{answer}" not in manual_grade.messages[0]["content"]
    assert "retrieved contexts" in settings.dimensions["verdict"].prompt


def test_unknown_key_and_wrong_type_fail_at_compose_time(compose):
    for override, key in [("human.dimensions.relevance.scale=5", "scale"), ("human.confidence=high", "confidence"),
                          ("human.sample.n=many", "n")]:
        with pytest.raises(ConfigCompositionException) as err:
            compose([override])
        assert key in str(err.value) + str(err.value.__cause__)


def test_unknown_key_in_a_human_yaml_option_fails_naming_it(copied_conf):
    folder, compose = copied_conf
    good = (folder / "human" / "default.yaml").read_text()
    (folder / "human" / "_test_bad_option.yaml").write_text(
        good.replace("    prompt: Does the answer address the query?",
                     "    prompt: Does the answer address the query?\n    scale: 5"))
    with pytest.raises(ConfigCompositionException) as err:
        compose(["human=_test_bad_option"])
    assert "scale" in str(err.value) + str(err.value.__cause__)
    assert not (CONF / "human" / "_test_bad_option.yaml").exists()


def test_overrides_reach_the_settings(compose):
    settings = instantiate(compose(["human.confidence=0.9", "~human.dimensions.verdict", "seed=7"]).human)
    assert settings.confidence == 0.9 and "verdict" not in settings.dimensions and settings.sample.seed == 7


def test_parse_reads_spreadsheet_spellings_and_rejects_off_scale():
    dim = Dimension("relevance", "?", (1, 2, 3, 4, 5), ("a", "b", "c", "d", "e"))
    assert dim.parse(" 4 ") == 4 and dim.parse("4.0") == 4
    for bad in ("6", "0", "4.5", "four", ""):
        with pytest.raises(ValueError, match="not on the scale 1, 2, 3, 4, 5"):
            dim.parse(bad)
    verdict = Dimension("verdict", "?", ("FAIL", "PARTIAL", "PASS"), ("x", "y", "z"))
    assert verdict.parse("pass") == "PASS" and verdict.value("PARTIAL") == 2.0


def test_judge_rescaling_is_linear_and_range_checked():
    grade = Dimension("grade", "?", tuple(range(1, 11)), tuple("abcdefghij"), JudgeColumn("judge/answer_score", 0, 10))
    assert grade.rescale_judge(0) == 1 and grade.rescale_judge(10) == 10 and grade.rescale_judge(5) == pytest.approx(5.5)
    with pytest.raises(ValueError, match=r"judge/answer_score = 11.0 lies outside its configured range \[0, 10\]"):
        grade.rescale_judge(11.0)


@pytest.mark.parametrize("levels, rubric, message", [
    ((1,), ("a",), "at least two levels"),
    ((1, 2, 3), ("a", "b"), "2 descriptions for 3 levels"),
    ((1, "PASS"), ("a", "b"), "mix of numbers and labels"),
    ((3, 2, 1), ("a", "b", "c"), "increasing order"),
    ((1, 1), ("a", "b"), "duplicate level"),
])
def test_bad_dimensions_are_refused_naming_the_key(levels, rubric, message):
    with pytest.raises(ValueError, match=message) as err:
        Dimension("relevance", "?", levels, rubric)
    assert "human.dimensions.relevance" in str(err.value)


def test_bad_settings_are_refused(compose):
    with pytest.raises(Exception, match="human.sample.strategy"):
        instantiate(compose(["human.sample.strategy=best"]).human)
    with pytest.raises(Exception, match="human.confidence"):
        instantiate(compose(["human.confidence=1.5"]).human)
    with pytest.raises(Exception, match="human.landis_koch"):
        instantiate(compose(["human.landis_koch=[{min: 0.0, label: x}]"]).human)
    with pytest.raises(Exception, match="human.kappa_decimals must be >= 0"):
        instantiate(compose(["human.kappa_decimals=-1"]).human)
