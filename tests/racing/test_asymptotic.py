"""race.test=asymptotic: the boundary against a hand-worked example and two other writings of the same
formula, its mixture, its coverage, and how a race reads it."""

import math

import numpy as np
import pytest
from scipy import integrate, optimize, stats

from harness.racing.asymptotic import Asymptotic, asymptotic_log_e, asymptotic_lower, mixture_rho2, radius
from harness.racing.confseq import betting_lower, difference_lower_bound, log_e_process, running_lower_bound
from harness.racing.elimination import EliminationRule, eliminate
from harness.racing.running_leader import running_leader_log_wealth
from harness.stats.spec import MetricSpec


def test_lower_bound_by_hand():
    # x = [1, 0, 1, 1], alpha = 0.05, tightest at t* = 4; Waudby-Smith et al. (2024), Theorem 2.2:
    # mean_t - sigma_t sqrt(2 (t rho^2 + 1) / (t^2 rho^2) log(sqrt(t rho^2 + 1) / alpha)).
    rho2 = (2 * math.log(20) + math.log(1 + 2 * math.log(20))) / 4  # (5.991465 + 1.944691) / 4
    assert rho2 == pytest.approx(1.984039, abs=1e-6)
    mean4, var4 = 0.75, (3 * 0.25 ** 2 + 0.75 ** 2) / 4  # sigma^2 = 3/16
    half4 = math.sqrt(var4) * math.sqrt(2 * (4 * rho2 + 1) / (16 * rho2) * math.log(math.sqrt(4 * rho2 + 1) / 0.05))
    mean2, var2 = 0.5, 0.25
    half2 = math.sqrt(var2) * math.sqrt(2 * (2 * rho2 + 1) / (4 * rho2) * math.log(math.sqrt(2 * rho2 + 1) / 0.05))
    bounds = asymptotic_lower(np.array([1.0, 0.0, 1.0, 1.0]), 0.05, Asymptotic(4))
    assert bounds[0] == 1.0  # one observation: no variance yet, no width (why the race waits for a burn-in)
    assert bounds[1] == pytest.approx(mean2 - half2, abs=1e-12) and bounds[3] == pytest.approx(mean4 - half4, abs=1e-12)
    # by hand: 0.75 - sqrt(3/16) sqrt(2 * 8.936156 / 31.74462 * (log(8.936156) / 2 + log 20)) = 0.75 - 0.657146
    assert bounds[3] == pytest.approx(0.092854, abs=1e-5)


def test_boundary_is_the_normal_mixture_of_howard_et_al():
    # The same boundary in the parametrisation of Howard et al. (2021) and of the confseq package
    # (TwoSidedNormalMixture): on the sum, sqrt((v + r) (log(1 + v / r) + 2 log(1 / alpha))) at
    # intrinsic time v = t, with r = t* / (2 log(1 / alpha) + log(1 + 2 log(1 / alpha))).
    alpha, t_star = 0.01, 150.0
    r = t_star / (2 * math.log(1 / alpha) + math.log(1 + 2 * math.log(1 / alpha)))
    t = np.arange(1, 1001)
    on_the_sum = np.sqrt((t + r) * (np.log1p(t / r) + 2 * math.log(1 / alpha)))
    assert radius(t, 1.0, alpha, mixture_rho2(t_star, alpha)) == pytest.approx(on_the_sum / t, rel=1e-12)


def test_rho_makes_the_boundary_narrowest_near_t_star():
    # The paper's closed-form rho approximately minimises the width at t*: within 1% of the true minimum.
    alpha, t_star = 0.05, 200
    best = optimize.minimize_scalar(lambda rho2: float(radius(t_star, 1.0, alpha, rho2)), bounds=(1e-5, 1.0),
                                    method="bounded")
    assert float(radius(t_star, 1.0, alpha, mixture_rho2(t_star, alpha))) <= best.fun * 1.01
    widths = radius(np.array([50, 200, 800]), 1.0, alpha, mixture_rho2(t_star, alpha)) * np.sqrt([50, 200, 800])
    assert widths[1] < widths[0] and widths[1] < widths[2]  # in units of 1/sqrt(t): smallest at t*


def test_mixture_is_the_gaussian_mixture_integral_and_its_one_sided_reading():
    # M_t(m) = integral of exp(lambda S - lambda^2 t / 2) over lambda ~ N(0, rho^2), S the standardised sum.
    x = np.random.default_rng(2).beta(4, 2, size=60)
    tuning, alpha, m = Asymptotic(30), 0.05, 0.6
    rho2 = mixture_rho2(30, alpha)
    t = 60
    s = t * (x.mean() - m) / x.std()
    integral, _ = integrate.quad(lambda lam: math.exp(lam * s - lam ** 2 * t / 2) * stats.norm.pdf(lam, 0, math.sqrt(rho2)),
                                 -np.inf, np.inf)
    assert x.mean() > m and asymptotic_log_e(x, m, alpha, tuning)[-1] == pytest.approx(math.log(integral), rel=1e-6)
    # Below the null: the mixture's smallest value over the null, 1 / sqrt(t rho^2 + 1).
    assert asymptotic_log_e(x, 0.9, alpha, tuning)[-1] == pytest.approx(-0.5 * math.log(t * rho2 + 1))
    # It reaches 1 / alpha exactly where the lower bound reaches m, at every t (nulls on either side).
    bounds = asymptotic_lower(x, alpha, tuning)
    for null in (0.3, 0.5, 0.6, 0.64):
        assert np.array_equal(asymptotic_log_e(x, null, alpha, tuning) >= math.log(1 / alpha), bounds >= null)


def test_narrower_than_betting_where_the_differences_vary_little_and_wider_than_a_fixed_sample_interval():
    # Differences that vary by 0.05 (sd, on [0, 1]) around 0.6: on 40 to 300 questions the betting
    # bound still pays for the range [0, 1], the asymptotic one only for the variance it sees.
    x = np.clip(0.6 + np.random.default_rng(0).normal(0, 0.05, 3000), 0, 1)
    tuning = Asymptotic(100, burn_in=20)
    for n, margin in ((40, 0.05), (100, 0.02), (300, 0.005)):
        assert running_lower_bound(x[:n], 0.05, tuning) > betting_lower(x[:n], 0.05) + margin
    # On thousands of questions the two meet (within 0.001 here; the betting bound adapts to the variance too).
    assert abs(running_lower_bound(x, 0.05, tuning) - betting_lower(x, 0.05)) < 0.001
    # Valid at every time at once, it is wider at t than the fixed-sample z interval at t.
    t = np.arange(20, 3001)
    z = stats.norm.ppf(1 - 0.05 / 2)
    assert np.all(radius(t, 1.0, 0.05, mixture_rho2(100, 0.05)) > z / np.sqrt(t))


def test_time_uniform_coverage_from_the_burn_in():
    # From question 20 on, the bound stays below the true mean at every time at once in >= 1 - alpha
    # of the streams (an asymptotic guarantee: measured, on Bernoulli(0.3) streams of 400).
    rng = np.random.default_rng(7)
    alpha, mean = 0.2, 0.3
    tuning = Asymptotic(100, burn_in=20)
    misses = sum(running_lower_bound(rng.binomial(1, mean, size=400).astype(float), alpha, tuning) > mean
                 for _ in range(400))
    assert misses / 400 <= alpha
    # read from the first question on, a lucky first answer would already exclude the mean
    assert running_lower_bound(np.array([1.0] + [0.0, 1.0] * 20), alpha, Asymptotic(100)) == 1.0
    assert running_lower_bound(np.array([1.0] + [0.0, 1.0] * 20), alpha, Asymptotic(100, burn_in=20)) < 0.5


def test_before_the_burn_in_nothing_is_read():
    x = np.ones(10)
    assert running_lower_bound(x, 0.05, Asymptotic(50, burn_in=11)) == -math.inf
    assert np.all(log_e_process(x * 0.9, 0.5, 0.05, Asymptotic(50, burn_in=11)) == -math.inf)
    assert difference_lower_bound([0.9] * 10, [0.1] * 10, 0.0, 1.0, 0.05, Asymptotic(50, burn_in=5)) == pytest.approx(0.8)


def test_needs_its_tuning():
    with pytest.raises(ValueError, match="race.tightest_at"):
        running_lower_bound([0.5, 0.6], 0.05, "asymptotic")
    with pytest.raises(ValueError, match="race.tightest_at"):
        EliminationRule(MetricSpec("answer/f1", "higher", "primary"), (), 0.05, "asymptotic", 0.0, 1.0, 10, 3)
    with pytest.raises(ValueError, match="race.tightest_at"):
        Asymptotic(0)


def test_running_leader_reads_the_mixture_over_the_stitched_differences():
    own = [0.2, 0.2, None, 0.2, 0.2, 0.3]
    a = [0.9, 0.9, 0.1, 0.1, 0.1, 0.1]   # leads before questions 1-4
    b = [0.5, 0.5, 0.9, 0.9, 0.9, 0.9]   # leads before questions 5-6
    tuning = Asymptotic(4, burn_in=2)
    wealth = running_leader_log_wealth("own", {"own": own, "a": a, "b": b}, True, 0.0, 1.0, 0.05, tuning)
    # question 3 has no value of its own: no difference, the evidence carries over
    stitched = np.array([0.9 - 0.2, 0.9 - 0.2, 0.1 - 0.2, 0.9 - 0.2, 0.9 - 0.3])
    expected = log_e_process((stitched + 1) / 2, 0.5, 0.05, tuning)
    assert wealth.tolist() == pytest.approx([expected[0], expected[1], expected[1], *expected[2:]])
    assert wealth[0] == -math.inf


@pytest.mark.parametrize("evidence", ["leader", "pairwise"])
def test_a_race_round_with_the_asymptotic_test(evidence):
    rng = np.random.default_rng(0)
    good = rng.uniform(0.6, 1.0, 200)
    scores = {"a": {"answer/f1": list(good)}, "b": {"answer/f1": list(good - 0.1 + rng.normal(0, 0.05, 200).clip(-0.1, 0.1))},
              "c": {"answer/f1": list(np.clip(good + rng.normal(0, 0.01, 200), 0, 1))}}
    rule = EliminationRule(MetricSpec("answer/f1", "higher", "primary"), (), 0.05, "asymptotic", 0.0, 1.0,
                           min_questions=20, configurations=3, evidence=evidence, tightest_at=100)
    leader, gone = eliminate(scores, rule, round_number=3)
    assert leader in ("a", "c") and [e.name for e in gone] == ["b"]
    assert "(asymptotic confidence sequence, level" in gone[0].reason
    assert "tightest at 100 questions" in rule.describe()
    # a trailing 0.1 with little spread: the betting bound cannot tell after 200 questions, the asymptotic can
    betting = EliminationRule(MetricSpec("answer/f1", "higher", "primary"), (), 0.05, "betting", 0.0, 1.0,
                              min_questions=20, configurations=3, evidence=evidence)
    assert not eliminate({k: {"answer/f1": v["answer/f1"][:40]} for k, v in scores.items()}, betting, 1)[1]
    assert eliminate({k: {"answer/f1": v["answer/f1"][:40]} for k, v in scores.items()}, rule, 1)[1]


def test_the_sweeper_passes_its_tuning(compose):
    from hydra_plugins.harness_racing.racing_sweeper import _new_race

    config = compose(["race.test=asymptotic", "race.tightest_at=60", "stats.primary.name=answer/f1"])
    race = _new_race(config, ["a", "b"], [20, 40], 40, {"a": [{"answer/f1": 1.0}], "b": [{"answer/f1": 0.0}]})
    assert race.rule.sequence == Asymptotic(60.0, burn_in=config.race.min_questions)
