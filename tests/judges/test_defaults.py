"""judge=local's default rubrics: the likelihood rubrics, whose self-check passes; any other
rubric stays selectable, and other judges keep the root default."""

from __future__ import annotations


def test_judge_local_defaults_to_the_likelihood_rubrics_and_the_command_line_still_wins(compose):
    assert list(compose(["judge=local"]).rubrics) == ["likelihood_correctness", "likelihood_faithfulness"]
    assert compose(["judge=local"]).rubrics.likelihood_correctness.accuracy_threshold == "auto"
    assert list(compose(["judge=local", "rubric=[answer_score,supported]"]).rubrics) == ["answer_score", "supported"]
    assert list(compose(["judge=openai"]).rubrics) == ["answer_score"]
    assert list(compose(["experiment=demo_sweep"]).rubrics) == ["likelihood_correctness"]
    assert compose(["experiment=demo_sweep"]).metrics.context_delta.threshold == "auto"
