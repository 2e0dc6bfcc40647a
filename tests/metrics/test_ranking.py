"""Tests for harness.metrics.ranking, cross-checked against pytrec_eval and ranx."""

import random
import warnings

import pytest
import pytrec_eval
import ranx

from harness.metrics.ranking import (
    average_precision,
    context_precision,
    hit_at_k,
    ndcg_at_k,
    rank_by_score,
    recall_at_k,
    reciprocal_rank,
)
from tests.shared import once

CUTOFFS = (1, 3, 5, 10)
SEEDS = range(50)
TOL = 1e-9


def _random_case(seed: int, ties: bool, graded: bool):
    """Random qrels and run; every query is in both, some have no relevant doc."""
    rng = random.Random(seed)
    qrels, run = {}, {}
    for q in range(rng.randint(2, 6)):
        qid = f"q{q}"
        pool = [f"d{rng.randint(0, 60):02d}" for _ in range(40)]
        retrieved = list(dict.fromkeys(pool))[: rng.randint(1, 30)]
        if ties:
            run[qid] = {d: round(rng.random(), 1) for d in retrieved}
        else:
            run[qid] = {d: rng.random() for d in retrieved}
        # Judge some retrieved docs and some never-retrieved ones; explicit 0s too.
        judged = rng.sample(retrieved, rng.randint(0, len(retrieved)))
        judged += [f"u{q}_{i}" for i in range(rng.randint(0, 5))]
        top = 3 if graded else 1
        qrels[qid] = {d: rng.randint(0, top) for d in judged}
        if not qrels[qid]:
            qrels[qid] = {"never_retrieved": 0}
    return qrels, run


def _our_metrics(qrels, run):
    out = {}
    for qid, scores in run.items():
        grades = [qrels[qid].get(d, 0) for d in rank_by_score(scores)]
        judged = list(qrels[qid].values())
        m = {"recip_rank": reciprocal_rank(grades), "map": average_precision(grades, judged)}
        for k in CUTOFFS:
            m[f"ndcg_cut_{k}"] = ndcg_at_k(grades, judged, k)
            m[f"recall_{k}"] = recall_at_k(grades, judged, k)
            m[f"map_cut_{k}"] = average_precision(grades, judged, k)
            m[f"success_{k}"] = hit_at_k(grades, k)
            m[f"mrr_{k}"] = reciprocal_rank(grades, k)
        out[qid] = m
    return out


@pytest.mark.parametrize("graded", [False, True])
@pytest.mark.parametrize("seed", SEEDS)
def test_matches_pytrec_eval_with_ties(seed, graded):
    qrels, run = _random_case(seed, ties=True, graded=graded)
    cut = ",".join(map(str, CUTOFFS))
    measures = {"recip_rank", "map", f"ndcg_cut_{cut}", f"recall_{cut}",
                f"map_cut_{cut}", f"success_{cut}"}
    expected = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    ours = _our_metrics(qrels, run)
    assert expected.keys() == ours.keys()
    for qid, exp in expected.items():
        for name, value in exp.items():
            assert ours[qid][name] == pytest.approx(value, abs=TOL), (qid, name)


RANX_MAPPING = {"ndcg": "ndcg_cut", "recall": "recall", "mrr": "mrr", "hit_rate": "success", "map": "map_cut"}
RANX_METRICS = [f"{m}@{k}" for m in RANX_MAPPING for k in CUTOFFS]


@pytest.fixture(scope="session")
def ranx_results(tmp_path_factory) -> dict[str, dict]:
    """ranx's per-query values and query order for every case, computed in one test process: numba
    compiles ranx's functions in each process that calls it (about 50 CPU s, more than all these
    comparisons together), so the other xdist workers read the values instead of compiling again."""

    def build(_folder) -> dict[str, dict]:
        results = {}
        for seed in SEEDS:
            for graded in (False, True):
                qrels, run = _random_case(seed, ties=False, graded=graded)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # numba type-safety noise
                    expected = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), RANX_METRICS, return_mean=False)
                    order = list(ranx.Run(run).keys())
                results[f"{seed}-{graded}"] = {"order": order,
                                               "values": {m: [float(v) for v in expected[m]] for m in RANX_METRICS}}
        return results

    return once(tmp_path_factory, "ranx_ranking", build)


@pytest.mark.slow
@pytest.mark.parametrize("graded", [False, True])
@pytest.mark.parametrize("seed", SEEDS)
def test_matches_ranx_without_ties(seed, graded, ranx_results):
    qrels, run = _random_case(seed, ties=False, graded=graded)
    for scores in run.values():
        assert len(set(scores.values())) == len(scores)
    qids = sorted(run)
    expected = ranx_results[f"{seed}-{graded}"]
    ours = _our_metrics(qrels, run)
    # ranx orders queries by id; make sure that assumption holds.
    assert expected["order"] == qids
    for metric in RANX_METRICS:
        name, k = metric.split("@")
        for qid, value in zip(qids, expected["values"][metric]):
            assert ours[qid][f"{RANX_MAPPING[name]}_{k}"] == pytest.approx(value, abs=TOL), (qid, metric)


def test_rank_by_score_breaks_ties_by_id_descending():
    assert rank_by_score({"a": 0.5, "c": 0.5, "b": 0.9, "d10": 0.1, "d9": 0.1}) == [
        "b", "c", "a", "d9", "d10"]
    assert rank_by_score({}) == []


@pytest.mark.parametrize(
    "grades, rr, hit1, hit5",
    [
        ([1, 0, 0, 0, 0], 1.0, 1.0, 1.0),    # found at rank 1
        ([0, 0, 1, 0, 0], 1 / 3, 0.0, 1.0),  # found at rank 3
        ([0, 0, 0, 0, 2], 0.2, 0.0, 1.0),    # found at rank 5
        ([0, 0, 0, 0, 0], 0.0, 0.0, 0.0),    # not found
        ([0, 0, 0, 0, 0, 1], 1 / 6, 0.0, 0.0),
    ],
)
def test_seed_002_mrr_and_hit(grades, rr, hit1, hit5):
    assert reciprocal_rank(grades) == pytest.approx(rr)
    assert hit_at_k(grades, 1) == hit1
    assert hit_at_k(grades, 5) == hit5


def test_seed_002_mean_reciprocal_rank():
    ranks_found = [[1, 0, 0], [0, 1, 0], [0, 0, 0]]
    mrr = sum(reciprocal_rank(g) for g in ranks_found) / len(ranks_found)
    assert mrr == pytest.approx((1 + 0.5 + 0) / 3)


def test_reciprocal_rank_cutoff():
    assert reciprocal_rank([0, 0, 1], k=2) == 0.0
    assert reciprocal_rank([0, 0, 1], k=3) == pytest.approx(1 / 3)


def test_hand_worked_ndcg_recall_ap():
    grades, judged = [0, 2, 1], [2, 1, 3]
    dcg = 2 / 1.584962500721156 + 1 / 2
    idcg = 3 + 2 / 1.584962500721156 + 1 / 2
    assert ndcg_at_k(grades, judged, 3) == pytest.approx(dcg / idcg)
    assert recall_at_k(grades, judged, 2) == pytest.approx(1 / 3)
    assert average_precision(grades, judged) == pytest.approx((1 / 2 + 2 / 3) / 3)
    assert average_precision(grades, judged, k=2) == pytest.approx((1 / 2) / 3)


def test_no_relevant_judged_gives_zero():
    for judged in ([], [0, 0]):
        assert recall_at_k([0, 0], judged, 2) == 0.0
        assert ndcg_at_k([0, 0], judged, 2) == 0.0
        assert average_precision([0, 0], judged) == 0.0


def test_context_precision_seed_examples():
    assert context_precision([1, 0, 1]) == pytest.approx((1 / 3) * (1 + 0 + 2 / 3))
    assert context_precision([1, 0, 1]) == pytest.approx(0.5555555555555556)
    assert context_precision([0, 0, 1, 1, 1]) == pytest.approx(
        (1 / 5) * (1 / 3 + 2 / 4 + 3 / 5))
    assert context_precision([0, 0, 1, 1, 1]) == pytest.approx(0.2866666666666667)
    assert context_precision([0, 0, 3, 2, 1]) == context_precision([0, 0, 1, 1, 1])
    assert context_precision([]) == 0.0
    assert context_precision([0, 0]) == 0.0
    assert context_precision([1, 1]) == 1.0


@pytest.mark.parametrize(
    "call",
    [
        lambda: hit_at_k([1], 0),
        lambda: reciprocal_rank([1], k=0),
        lambda: recall_at_k([1], [1], -1),
        lambda: ndcg_at_k([1], [1], 0),
        lambda: average_precision([1], [1], k=0),
    ],
)
def test_k_must_be_positive(call):
    with pytest.raises(ValueError, match=r"k must be >= 1, got -?\d"):
        call()


@pytest.mark.parametrize("k", [1.5, "3", True])
def test_k_must_be_int(k):
    with pytest.raises(TypeError, match="k must be an int"):
        hit_at_k([1], k)


def test_negative_grades_rejected():
    with pytest.raises(ValueError, match="grades must be >= 0"):
        hit_at_k([0, -1], 1)
    with pytest.raises(ValueError, match="judged_grades must be >= 0"):
        ndcg_at_k([1], [1, -1], 1)
    with pytest.raises(ValueError, match="relevances must be >= 0"):
        context_precision([-1])
