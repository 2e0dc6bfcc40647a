"""Answer metrics against the official SQuAD v1.1 script, rouge-score and seed 003's worked examples."""

from __future__ import annotations

import re
import string
from collections import Counter

import pytest
from rouge_score import rouge_scorer

from harness.metrics.answer import (answer_in_contexts, exact_match, f1, local_faithfulness, max_over_golds,
                                    normalize_answer, rouge_l)


# --- The official SQuAD v1.1 evaluation script (evaluate-v1.1.py), verbatim, as the reference ---

def squad_normalize_answer(s):
    def remove_articles(text):
        return re.sub(r'\b(a|an|the)\b', ' ', text)

    def white_space_fix(text):
        return ' '.join(text.split())

    def remove_punc(text):
        exclude = set(string.punctuation)
        return ''.join(ch for ch in text if ch not in exclude)

    def lower(text):
        return text.lower()

    return white_space_fix(remove_articles(remove_punc(lower(s))))


def squad_f1_score(prediction, ground_truth):
    prediction_tokens = squad_normalize_answer(prediction).split()
    ground_truth_tokens = squad_normalize_answer(ground_truth).split()
    common = Counter(prediction_tokens) & Counter(ground_truth_tokens)
    num_same = sum(common.values())
    if num_same == 0:
        return 0
    precision = 1.0 * num_same / len(prediction_tokens)
    recall = 1.0 * num_same / len(ground_truth_tokens)
    f1 = (2 * precision * recall) / (precision + recall)
    return f1


def squad_exact_match_score(prediction, ground_truth):
    return (squad_normalize_answer(prediction) == squad_normalize_answer(ground_truth))


PAIRS = [
    ("Beyonce grew up in Houston, Texas.", "Houston, Texas"),
    ("The Cat!", "cat"),
    ("the the the", "the"),
    ("An apple a day", "apple day"),
    ("theater", "the ater"),  # "the" inside a word is not an article
    ("Anne and Andy", "anne andy"),
    ("U.S.A.", "USA"),
    ("U.S. Army", "us army"),
    ("rock-and-roll", "rock and roll"),
    ("  spaced\tout \n text ", "spaced out text"),
    ("", ""),
    ("", "something"),
    ("something", ""),
    ("3,600 seconds", "3600 seconds"),
    ("It's 42.", "its 42"),
    ("Ünïcode Café", "ünïcode café"),
    ("“Quoted” — dash", "quoted dash"),  # curly quotes and em dash are not string.punctuation
    ("the a an The A AN", ""),
    ("blue blue red", "blue red red"),
    ("New York City", "new york"),
    ("Paris, France", "the city of Paris"),
    ("(a) first; (b) second", "first second"),
]


@pytest.mark.parametrize("prediction, gold", PAIRS)
def test_normalization_em_and_f1_equal_the_official_squad_script(prediction, gold):
    assert normalize_answer(prediction) == squad_normalize_answer(prediction)
    assert exact_match(prediction, gold) == float(squad_exact_match_score(prediction, gold))
    assert f1(prediction, gold) == pytest.approx(squad_f1_score(prediction, gold), abs=1e-12)


def test_normalization_order_matters_as_in_the_official_script():
    # Punctuation goes before articles: "the." loses its dot and then the article.
    assert normalize_answer("The. A, an!") == ""
    assert normalize_answer("The Cat!") == "cat"


def test_seed_003_exact_match_examples():
    assert exact_match("The Cat!", "cat") == 1.0
    assert exact_match("Beyonce grew up in Houston, Texas.", "Houston, Texas") == 0.0


def test_seed_003_f1_worked_example():
    # tokens(pred) = 6, overlap = 2: P = 1/3, R = 1, F1 = 0.5.
    assert f1("Beyonce grew up in Houston, Texas.", "Houston, Texas") == pytest.approx(0.5)
    assert f1("six", "6") == 0.0
    assert f1("", "anything") == 0.0


def test_seed_003_rouge_l_worked_example_against_rouge_score():
    prediction, gold = "Beyonce became famous in the late 1990s", "late 1990s"
    reference = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=False).score(gold, prediction)["rougeL"]
    assert reference.precision == pytest.approx(2 / 7)
    assert reference.recall == pytest.approx(1.0)
    assert rouge_l(prediction, gold) == pytest.approx(reference.fmeasure)
    assert round(rouge_l(prediction, gold), 3) == 0.444


@pytest.mark.parametrize("prediction, gold", PAIRS)
def test_rouge_l_is_rouge_scores_f_measure(prediction, gold):
    reference = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=False).score(gold, prediction)["rougeL"]
    assert rouge_l(prediction, gold) == reference.fmeasure


def test_rouge_l_rewards_order_that_f1_ignores():
    assert f1("mat cat on", "cat on mat") == 1.0
    assert rouge_l("mat cat on", "cat on mat") == pytest.approx(2 / 3)


def test_max_over_golds_takes_the_best_gold():
    golds = ["NYC", "New York City", "the Big Apple"]
    assert max_over_golds(exact_match, "new york city", golds) == 1.0
    assert max_over_golds(f1, "New York", golds) == pytest.approx(0.8)
    assert max_over_golds(rouge_l, "big apple", golds) == pytest.approx(rouge_l("big apple", "the Big Apple"))
    with pytest.raises(ValueError, match="golds"):
        max_over_golds(f1, "x", [])


def test_local_faithfulness_uses_sets_of_normalized_tokens():
    contexts = ["Beyoncé was raised in Houston.", "Texas is a state."]
    assert local_faithfulness("Houston, Texas", contexts) == 1.0
    # "grew" and "up" are not in the contexts; "in" is; repeated tokens count once.
    assert local_faithfulness("grew up in Houston Houston Houston", contexts) == pytest.approx(2 / 4)
    assert local_faithfulness("Forbes magazine", ["Forbes listed her first."]) == 0.5
    assert local_faithfulness("Paris", []) == 0.0


def test_local_faithfulness_is_none_for_an_answer_without_tokens():
    assert local_faithfulness("", ["context"]) is None
    assert local_faithfulness("  The. ", ["context"]) is None


def test_answer_in_contexts_matches_normalized_substrings():
    assert answer_in_contexts(["Houston, Texas"], ["She grew up in HOUSTON TEXAS!"])
    assert answer_in_contexts(["nowhere", "3600 seconds"], ["a", "expires after 3600 seconds."])
    assert not answer_in_contexts(["Dallas"], ["She grew up in Houston."])
    assert not answer_in_contexts(["Dallas"], [])
    # A gold that normalizes to nothing would match everything; it is ignored.
    assert not answer_in_contexts(["The."], ["any text"])
