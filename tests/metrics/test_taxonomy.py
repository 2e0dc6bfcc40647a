"""The error taxonomy's decision flow and the badness score (seed 003 section 6)."""

from __future__ import annotations

import pytest

from harness.metrics.taxonomy import CATEGORIES, TaxonomyThresholds, badness, classify, worst

# The seed's thresholds (they live in the suite's YAML; tests spell them out).
SEED = dict(correct_f1=0.8, hallucination_faithfulness=0.5, low_relevance_faithfulness=0.5,
            incomplete_max_tokens=3, incomplete_f1=0.3, verbose_rouge_l=0.4, verbose_f1=0.5, wrong_f1=0.3)
T = TaxonomyThresholds(**SEED)
WEIGHTS = {"f1": 0.5, "faithfulness": 0.3, "em": 0.2}


def run(**overrides):
    """A grounded, retrieved, mid-quality answer (no category fires) with the given changes."""
    values = dict(em=0.0, f1=0.6, rouge_l=0.3, faithfulness=1.0, empty=False, gt_in_contexts=True, n_tokens=8)
    values.update(overrides)
    return classify(**values, thresholds=T)


# --- one example per category, following the flow -----------------------------------------------

def test_correct_via_exact_match_stops_the_flow():
    # Even with every other rule's condition present.
    assert run(em=1.0, f1=1.0, faithfulness=0.0, gt_in_contexts=False, n_tokens=1) == ["correct"]


def test_correct_via_f1_at_the_threshold():
    assert run(f1=0.8) == ["correct"]
    assert run(f1=0.79) != ["correct"]


def test_empty_response_stops_the_flow():
    assert run(f1=0.0, empty=True, faithfulness=None, gt_in_contexts=False, n_tokens=0) == ["empty_response"]


def test_retrieval_failure():
    assert run(gt_in_contexts=False) == ["retrieval_failure"]


def test_hallucination_needs_low_faithfulness_and_some_overlap():
    assert run(f1=0.4, faithfulness=0.2) == ["hallucination"]
    assert "hallucination" not in run(f1=0.0, faithfulness=0.2)
    assert run(f1=0.4, faithfulness=0.5) == ["wrong_answer"]  # 0.5 is not below 0.5: fallback


def test_low_context_relevance():
    # Low faithfulness, zero F1 (so no hallucination), answer present in the contexts.
    assert run(f1=0.0, faithfulness=0.2) == ["low_context_relevance", "wrong_answer"]


def test_incomplete_answer_excludes_wrong_answer():
    assert run(f1=0.2, n_tokens=2) == ["incomplete_answer"]
    assert run(f1=0.2, n_tokens=3) == ["wrong_answer"]  # 3 tokens is not fewer than 3


def test_verbose_answer():
    assert run(f1=0.45, rouge_l=0.45) == ["verbose_answer"]
    assert run(f1=0.5, rouge_l=0.45) == ["wrong_answer"]  # F1 must be below 0.5: fallback
    assert run(f1=0.45, rouge_l=0.4) == ["wrong_answer"]  # ROUGE-L must exceed 0.4: fallback


def test_wrong_answer_rule():
    assert run(f1=0.1, rouge_l=0.1) == ["wrong_answer"]


def test_fallback_is_wrong_answer():
    # F1 between wrong_f1 and correct_f1, grounded, retrieved, not verbose: no rule fires.
    assert run(f1=0.6, rouge_l=0.3) == ["wrong_answer"]


# --- multi-label cases --------------------------------------------------------------------------

def test_retrieval_failure_with_hallucination():
    assert run(f1=0.2, faithfulness=0.3, gt_in_contexts=False) == ["retrieval_failure", "hallucination"]


def test_retrieval_failure_blocks_low_context_relevance():
    assert run(f1=0.0, faithfulness=0.3, gt_in_contexts=False) == ["retrieval_failure", "wrong_answer"]


def test_retrieval_failure_incomplete_and_low_relevance_combinations():
    assert run(f1=0.0, faithfulness=0.0, gt_in_contexts=False, n_tokens=1) == ["retrieval_failure",
                                                                                 "incomplete_answer"]
    assert run(f1=0.0, faithfulness=0.0, n_tokens=1) == ["low_context_relevance", "incomplete_answer"]


def test_hallucination_and_verbose_answer():
    assert run(f1=0.45, rouge_l=0.5, faithfulness=0.1, gt_in_contexts=False) == [
        "retrieval_failure", "hallucination", "verbose_answer"]


def test_verbose_and_wrong_answer():
    assert run(f1=0.25, rouge_l=0.45) == ["verbose_answer", "wrong_answer"]


def test_missing_faithfulness_fires_no_faithfulness_rule():
    # "..." is not blank but has no normalized token.
    assert run(f1=0.0, faithfulness=None, n_tokens=0) == ["incomplete_answer"]


def test_categories_come_in_flow_order():
    assert CATEGORIES == ("correct", "empty_response", "retrieval_failure", "hallucination",
                          "low_context_relevance", "incomplete_answer", "verbose_answer", "wrong_answer")


def test_thresholds_come_from_the_arguments():
    lenient = TaxonomyThresholds(**{**SEED, "correct_f1": 0.5, "incomplete_max_tokens": 5})
    assert classify(em=0.0, f1=0.5, rouge_l=0.0, faithfulness=1.0, empty=False, gt_in_contexts=True,
                    n_tokens=8, thresholds=lenient) == ["correct"]
    assert classify(em=0.0, f1=0.2, rouge_l=0.0, faithfulness=1.0, empty=False, gt_in_contexts=True,
                    n_tokens=4, thresholds=lenient) == ["incomplete_answer"]


def test_thresholds_from_a_mapping_name_missing_and_unknown_keys():
    assert TaxonomyThresholds.from_mapping(SEED) == T
    with pytest.raises(ValueError, match="correct_f1"):
        TaxonomyThresholds.from_mapping({k: v for k, v in SEED.items() if k != "correct_f1"})
    with pytest.raises(ValueError, match="corect_f1"):
        TaxonomyThresholds.from_mapping({**SEED, "corect_f1": 0.8})


# --- badness ------------------------------------------------------------------------------------

def test_badness_is_the_seeds_weighted_sum():
    assert badness(0.5, 1.0, 0.0, WEIGHTS) == pytest.approx(0.5 * 0.5 + 0.3 * 1.0 + 0.2 * 0.0)
    assert badness(1.0, 1.0, 1.0, WEIGHTS) == pytest.approx(1.0)
    assert badness(0.0, 0.0, 0.0, WEIGHTS) == 0.0
    assert badness(0.2, 0.7, 0.0, WEIGHTS) == pytest.approx(0.1 + 0.21)


def test_badness_counts_missing_faithfulness_as_zero_and_uses_given_weights():
    assert badness(0.4, None, 0.0, WEIGHTS) == pytest.approx(0.2)
    assert badness(0.4, 1.0, 1.0, {"f1": 1.0, "faithfulness": 0.0, "em": 0.0}) == pytest.approx(0.4)
    with pytest.raises(ValueError, match="faithfulness"):
        badness(0.4, 1.0, 1.0, {"f1": 1.0, "em": 0.0})


def test_worst_returns_the_lowest_badness_first():
    rows = [{"id": "a", "badness": 0.7}, {"id": "b", "badness": 0.1}, {"id": "c"},
            {"id": "d", "badness": 0.1}, {"id": "e", "badness": 0.4}]
    assert [r["id"] for r in worst(rows, 3)] == ["b", "d", "e"]
    assert [r["id"] for r in worst(rows, 10)] == ["b", "d", "e", "a"]
    assert worst(rows, 0) == []
    assert [r["id"] for r in worst([{"id": "x", "answer/badness": 0.2}], 1, key="answer/badness")] == ["x"]
    with pytest.raises(ValueError):
        worst(rows, -1)


def test_shipped_yaml_holds_seed_003s_thresholds_and_badness_weights():
    """Seed 003 section 6: correct F1 >= 0.8; faithfulness < 0.5 (hallucination, low relevance);
    < 3 tokens and F1 < 0.3 (incomplete); ROUGE-L > 0.4 and F1 < 0.5 (verbose); F1 < 0.3 (wrong);
    badness = 0.5 F1 + 0.3 faithfulness + 0.2 EM; the 20 worst kept."""
    from omegaconf import OmegaConf

    from harness.config.resolvers import PROJECT_ROOT

    shipped = OmegaConf.load(PROJECT_ROOT / "conf" / "metrics" / "answer.yaml")
    assert OmegaConf.to_container(shipped.taxonomy) == {
        "correct_f1": 0.8, "hallucination_faithfulness": 0.5, "low_relevance_faithfulness": 0.5,
        "incomplete_max_tokens": 3, "incomplete_f1": 0.3, "verbose_rouge_l": 0.4, "verbose_f1": 0.5,
        "wrong_f1": 0.3}
    assert OmegaConf.to_container(shipped.badness_weights) == {"f1": 0.5, "faithfulness": 0.3, "em": 0.2}
    assert shipped.worst_n == 20
