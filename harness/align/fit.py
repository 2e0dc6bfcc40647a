"""Nested, grouped cross-validation of a ridge combination of columns (scikit-learn).

The model is ``SimpleImputer(mean) -> StandardScaler -> Ridge``: small and inspectable (one
weight per column). Its penalty is chosen by ``GridSearchCV`` over ``GroupKFold`` folds inside
each outer training part, and the outer ``GroupKFold`` folds' predictions are the held-out ones:
no question is ever on both sides of a split, and no held-out label chose anything. In-sample
predictions come from the same search fitted on every row; the gap between the two is the
optimism of reading agreement on the labels the model was fitted to. Each single column goes
through the same procedure alone (so its sign and scale are learnt on training folds too).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from harness.align.design import Design
from harness.align.settings import AlignSettings


@dataclass
class Predictions:
    """Held-out (outer folds) and in-sample predictions of one model for every design row."""

    held_out: np.ndarray
    in_sample: np.ndarray


@dataclass
class Combination:
    """The combination fitted on every row, in the columns' own units:
    ``intercept + sum(weights[c] * value[c])``, a missing value replaced by ``fill[c]``."""

    weights: dict[str, float]
    intercept: float
    fill: dict[str, float]
    alpha: float


def _search(settings: AlignSettings, groups: np.ndarray):
    from sklearn.impute import SimpleImputer
    from sklearn.model_selection import GridSearchCV
    from sklearn.linear_model import Ridge
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    folds = min(settings.inner_folds, len(set(groups)))
    if folds < 2:
        raise ValueError("too few labelled questions for an inner cross-validation (need 2 or more per split)")
    model = make_pipeline(SimpleImputer(strategy="mean", keep_empty_features=True), StandardScaler(), Ridge())
    return GridSearchCV(model, {"ridge__alpha": list(settings.alphas)}, cv=settings.folds(folds, folds),
                        scoring="neg_mean_squared_error")


def predictions(x: np.ndarray, y: np.ndarray, groups: np.ndarray, settings: AlignSettings) -> Predictions:
    """Held-out predictions from the outer grouped folds, and in-sample ones."""
    questions = len(set(groups))
    folds = min(settings.outer_folds, questions)
    if folds < 2 or questions < 2 * 2:
        raise ValueError(f"{questions} labelled questions are too few for nested cross-validation")
    held_out = np.full(len(y), np.nan)
    for train, test in settings.folds(folds, questions).split(x, y, groups):
        search = _search(settings, groups[train]).fit(x[train], y[train], groups=groups[train])
        held_out[test] = search.predict(x[test])
    in_sample = _search(settings, groups).fit(x, y, groups=groups).predict(x)
    return Predictions(held_out=held_out, in_sample=in_sample)


def fit_combination(design: Design, settings: AlignSettings) -> Combination:
    """The search fitted on every row, its ridge weights turned back into the columns' units."""
    best = _search(settings, design.groups).fit(design.x, design.y, groups=design.groups).best_estimator_
    imputer, scaler, ridge = (step for _, step in best.steps)
    weights = ridge.coef_ / scaler.scale_
    intercept = float(ridge.intercept_ - np.sum(weights * scaler.mean_))
    if design.pairwise:
        intercept = 0.0  # fitted on differences B - A: a constant offset would not survive them
    return Combination(weights={c: float(w) for c, w in zip(design.columns, weights)}, intercept=intercept,
                       fill=dict(design.means), alpha=float(best.named_steps["ridge"].alpha))
