import math

import numpy as np
import pytest
from scipy import stats

from harness.stats.compare import compare_metric, compare_pair
from harness.stats.comparison import to_rows
from harness.stats.correction import correct
from harness.stats.effect import bootstrap_ci
from harness.stats.paired import MisalignedError, align
from harness.stats.power import achieved_power, required_sample_size_t, required_sample_size_z
from harness.stats.spec import MetricSpec
from harness.stats.sweep import compare_sweep

F1 = MetricSpec("answer/f1", role="primary", margin=0.01)
FAITH = MetricSpec("judge/faithfulness", role="guard", margin=0.01)
RECALL = MetricSpec("retrieval/recall_at_5", role="secondary")
ARGS = {"alpha": 0.05, "test": "t", "resamples": 400, "seed": 7, "power_target": 0.8}
IDS = [f"q{i:03d}" for i in range(60)]


def _scores(values) -> dict[str, float]:
    return dict(zip(IDS, np.asarray(values, dtype=float).tolist()))


def _system(seed: int, f1_shift: float = 0.0, faith_shift: float = 0.0, base: int = 0):
    base_rng, rng = np.random.default_rng(base), np.random.default_rng(seed)
    f1, faith, recall = base_rng.uniform(0.2, 0.8, size=(3, len(IDS)))
    noise = 0.0 if seed == base else 0.1
    return {
        F1.name: _scores(f1 + f1_shift + rng.normal(0, noise, len(IDS))),
        FAITH.name: _scores(faith + faith_shift + rng.normal(0, noise / 5, len(IDS))),
        RECALL.name: _scores(recall + rng.normal(0, noise, len(IDS))),
    }


def test_each_number_matches_its_reference(random_pair):
    champion, challenger = random_pair
    [c] = compare_pair({"m": champion}, {"m": challenger}, [MetricSpec("m", role="primary")], **ARGS)
    a = np.array(list(champion.values()))
    b = np.array(list(challenger.values()))
    d = b - a
    assert (c.n, c.missing) == (len(a), 0)
    assert (c.mean_champion, c.mean_challenger) == pytest.approx((a.mean(), b.mean()))
    assert c.mean_difference == pytest.approx(d.mean())
    if c.t_test.testable:
        assert c.p_value == c.t_test.p_value == pytest.approx(stats.ttest_rel(b, a).pvalue, abs=1e-9)
        assert c.cohens_d == pytest.approx(d.mean() / d.std(ddof=1))
        assert c.achieved_power == pytest.approx(achieved_power(c.cohens_d, len(d), 0.05))
        assert c.n_required_z == required_sample_size_z(c.cohens_d, 0.05, 0.8)
        assert c.n_required_t == math.ceil(required_sample_size_t(c.cohens_d, 0.05, 0.8))
    else:
        assert c.p_value is None and c.reason == c.t_test.reason and c.cohens_d is None
    if c.wilcoxon.testable:
        assert c.wilcoxon.p_value == pytest.approx(stats.wilcoxon(d).pvalue, abs=1e-9)
    assert (c.bootstrap_low, c.bootstrap_high) == pytest.approx(bootstrap_ci(d, 400, 0.05, 7))
    assert c.permutation is None


@pytest.mark.parametrize("test", ["t", "wilcoxon", "permutation"])
def test_selected_test_gives_the_p_value(test):
    [c] = compare_pair(_system(0), _system(1, f1_shift=0.05), [F1], **(ARGS | {"test": test}))
    selected = {"t": c.t_test, "wilcoxon": c.wilcoxon, "permutation": c.permutation}[test]
    assert c.test == test and c.p_value == selected.p_value is not None
    assert (c.permutation is not None) == (test == "permutation")


def test_missing_values_are_dropped_and_counted():
    champion, challenger = _system(0), _system(1)
    champion[F1.name]["q001"] = None
    challenger[F1.name]["q007"] = float("nan")
    [c] = compare_pair(champion, challenger, [F1], **ARGS)
    assert (c.n, c.missing, c.missing_ids) == (58, 2, ("q001", "q007"))
    assert c.to_row()["missing"] == 2


@pytest.mark.parametrize("n", [0, 1])
def test_too_few_pairs_never_crash(n):
    champion = {"m": {"a": None, "b": None} | {f"x{i}": 0.5 for i in range(n)}}
    challenger = {"m": {"a": 1.0, "b": 0.0} | {f"x{i}": 0.7 for i in range(n)}}
    for test in ("t", "wilcoxon", "permutation"):
        [c] = compare_pair(champion, challenger, [MetricSpec("m", role="primary")], **(ARGS | {"test": test}))
        assert c.n == n and c.missing == 2 and c.p_value is None
        assert c.reason == f"not testable: fewer than 2 paired questions (n={n})"
        assert c.bootstrap_low is c.bootstrap_high is c.cohens_d is c.achieved_power is c.n_required_z is c.n_required_t is None
        assert (c.mean_difference is None) == (n == 0)


def test_zero_variance_differences():
    champion = {"m": {"a": 0.2, "b": 0.3, "c": 0.5}}
    challenger = {"m": {"a": 0.3, "b": 0.4, "c": 0.6}}
    spec = [MetricSpec("m", role="primary")]
    [t] = compare_pair(champion, challenger, spec, **ARGS)
    assert t.p_value is None and "zero variance" in t.reason and t.cohens_d is None
    assert t.bootstrap_low == pytest.approx(0.1) and t.bootstrap_high == pytest.approx(0.1)
    sweep = dict(alpha=0.05, resamples=400, seed=7, power_target=0.8, correction="holm")
    [decided] = compare_sweep(champion, {"b": challenger}, spec, test="t", **sweep).challengers[0].metrics
    # no spread to be unsure of: the interval is the one difference, whatever the level
    assert (decided.ci_low, decided.ci_high) == pytest.approx((0.1, 0.1)) and decided.verdict == "better"
    [p] = compare_sweep(champion, {"b": challenger}, spec, test="permutation", **sweep).challengers[0].metrics
    assert p.p_value == pytest.approx(0.25) and p.reason is None  # exact: 2 of 8 sign patterns


def test_identical_systems_are_not_testable():
    [c] = compare_pair(_system(0), _system(0), [F1], **ARGS)
    assert c.reason == "not testable: all differences zero" and c.mean_difference == 0.0


def test_misaligned_metric_is_named():
    challenger = _system(1)
    del challenger[FAITH.name]["q010"]
    with pytest.raises(MisalignedError, match=r"^metric 'judge/faithfulness': .*\['q010'\] only in champion"):
        compare_pair(_system(0), challenger, [F1, FAITH], **ARGS)


def test_absent_metric_is_named():
    challenger = _system(1)
    del challenger[FAITH.name]
    with pytest.raises(ValueError, match="challenger has no values for metric 'judge/faithfulness'"):
        compare_pair(_system(0), challenger, [F1, FAITH], **ARGS)
    with pytest.raises(ValueError, match="champion has no values for metric 'answer/em'"):
        compare_pair(_system(0), _system(1), [MetricSpec("answer/em")], **ARGS)


@pytest.mark.parametrize(
    ("change", "name"),
    [
        ({"test": "z"}, "test"),
        ({"alpha": 0.0}, "alpha"),
        ({"power_target": 1.2}, "power_target"),
        ({"resamples": 0}, "resamples"),
    ],
)
def test_arguments_are_validated(change, name):
    with pytest.raises(ValueError, match=f"^{name} must"):
        compare_pair(_system(0), _system(1), [F1], **(ARGS | change))


def test_duplicate_metrics_are_refused():
    with pytest.raises(ValueError, match="distinct"):
        compare_pair(_system(0), _system(1), [F1, F1], **ARGS)


def test_rows_are_flat():
    rows = to_rows(compare_pair(_system(0), _system(1), [F1, FAITH, RECALL], **(ARGS | {"test": "permutation"})))
    assert [r["metric"] for r in rows] == [F1.name, FAITH.name, RECALL.name]
    for row in rows:
        assert all(v is None or isinstance(v, (str, int, float)) for v in row.values())
        expected = {"p_value", "p_corrected", "ci_low", "cohens_d", "t_p_value", "wilcoxon_p_value", "permutation_p_value"}
        assert expected <= row.keys()


SWEEP = {"alpha": 0.05, "test": "t", "resamples": 300, "seed": 3, "power_target": 0.8}
CHALLENGERS = {
    "better": _system(1, f1_shift=0.1),
    "unsafe": _system(2, f1_shift=0.1, faith_shift=-0.05),
    "worse": _system(3, f1_shift=-0.1),
    "same": _system(0),
    "noise": _system(4),
}


@pytest.mark.parametrize("method", ["holm", "bonferroni", "bh", "none"])
def test_sweep_corrects_every_challenger_and_metric_as_one_family(method):
    result = compare_sweep(_system(0), CHALLENGERS, [F1, FAITH, RECALL], correction=method, **SWEEP)
    family = [m for c in result.challengers for m in c.metrics]
    assert len(family) == 15
    expected = correct([m.p_value for m in family], method)
    assert [m.p_corrected for m in family] == pytest.approx(expected)
    assert [m.p_corrected for m in result.challengers[3].metrics] == [None, None, None]  # "same": untestable


def test_sweep_verdicts():
    result = compare_sweep(_system(0), CHALLENGERS, [F1, FAITH, RECALL], correction="holm", **SWEEP)
    verdicts = {row["challenger"]: row for row in result.verdict_rows() if row["role"] == "primary"}
    assert verdicts["better"]["winner"] == "challenger"
    assert verdicts["unsafe"]["winner"] == "champion"
    assert verdicts["unsafe"]["winner_reason"].startswith("guard judge/faithfulness worse: the interval")
    assert verdicts["worse"]["winner"] == "champion"
    assert verdicts["same"]["winner"] == "none"
    assert verdicts["same"]["winner_reason"] == "answer/f1 equivalent: the interval [+0, +0] lies inside ±0.01"
    assert verdicts["same"]["verdict"] == "equivalent"  # identical answers: an interval of one point, 0
    assert verdicts["noise"]["winner"] == "none" and "paired questions" in verdicts["noise"]["winner_reason"]
    assert verdicts["better"]["verdict"] == "better" and verdicts["worse"]["verdict"] == "worse"
    rows = result.to_rows()
    assert len(rows) == 15 and {r["winner"] for r in rows if r["challenger"] == "better"} == {"challenger"}


def test_sweep_is_reproducible():
    def run():
        return compare_sweep(_system(0), CHALLENGERS, [F1, FAITH], correction="bh", **(SWEEP | {"test": "permutation"}))

    assert run().to_rows() == run().to_rows()


@pytest.mark.parametrize(
    ("metrics", "challengers", "correction", "match"),
    [
        ([FAITH, RECALL], CHALLENGERS, "holm", "exactly one with role 'primary'"),
        ([F1, MetricSpec("x", role="primary")], CHALLENGERS, "holm", "exactly one with role 'primary'"),
        ([F1], {}, "holm", "challengers"),
        ([F1], CHALLENGERS, "sidak", "correction must be one of"),
    ],
)
def test_sweep_arguments_are_validated(metrics, challengers, correction, match):
    with pytest.raises(ValueError, match=match):
        compare_sweep(_system(0), challengers, metrics, correction=correction, **SWEEP)
