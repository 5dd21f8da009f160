"""``privpac demo``: private classifiers on real data, beside their non-private counterparts.

1. a threshold classifier on one feature (Beimel, Nissim, Stemmer), beside the decision stump;
2. a linear classifier on every feature with a public bound (``PrivateHalfspaceClassifier``'s
   default: private logistic regression on the public box), beside logistic regression.

Each model is a separate release with its own budget ``(epsilon, delta)``; releasing both costs
the sum (basic composition), which the output says.
"""

from __future__ import annotations

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.tree import DecisionTreeClassifier

from .datasets import load_breast_cancer_feature, load_breast_cancer_features
from .estimators import PrivateHalfspaceClassifier, PrivateThresholdClassifier
from .random import as_random_source


def run_demo(epsilon: float = 1.0, delta: float = 1e-6, seed: int | None = None, echo=print) -> dict:
    """Learn "malignant iff mean radius >= t" privately on a train split; compare test accuracy.

    The split is seeded (it is part of the experiment, not of the private algorithm); the private
    learner uses ``seed`` (``None``: secure randomness).
    """
    data = load_breast_cancer_feature("mean radius", n_points=4001)
    X_train, X_test, y_train, y_test = data.split(test_fraction=0.25, rng=0)
    rng = as_random_source(seed)
    echo(f"data: {data.description}")
    echo(
        f"split: {len(y_train)} training records (the count is public: neighbouring datasets replace one "
        f"record), {len(y_test)} test records"
    )
    echo(f"budget of each model: epsilon={epsilon}, delta={delta}")
    echo("")

    private = PrivateThresholdClassifier(
        epsilon=epsilon, delta=delta, domain=data.domain, orientation="above", random_state=rng.spawn()
    ).fit(X_train.reshape(-1, 1), y_train)
    stump = DecisionTreeClassifier(max_depth=1).fit(X_train.reshape(-1, 1), y_train)
    private_acc = float(private.score(X_test.reshape(-1, 1), y_test))
    stump_acc = float(stump.score(X_test.reshape(-1, 1), y_test))
    stump_cut = float(stump.tree_.threshold[0]) if stump.tree_.node_count > 1 else float("nan")
    how = "exponential mechanism" if private.method_ == "exponential" else f"RecConcave ({private.depth_} levels)"
    echo("threshold classifier: malignant iff mean radius >= t")
    echo(f"  {'learner':<34} {'t':>8}  {'test accuracy':>13}")
    echo(f"  {'private (' + how + ')':<34} {private.threshold_value_:8.3f}  {private_acc:13.3f}")
    echo(f"  {'non-private decision stump':<34} {stump_cut:8.3f}  {stump_acc:13.3f}")
    echo("")

    echo("privacy ledger")
    for line in private.ledger_.lines():
        echo(f"  {line}")
    eps_spent, delta_spent = private.privacy_spent_
    kind = "pure differential privacy" if delta_spent == 0.0 else "approximate differential privacy"
    echo(f"  ({kind}: epsilon={eps_spent:.6g}, delta={delta_spent:.3g})")
    echo("")

    linear = _linear_section(epsilon, delta, rng, echo)
    echo("")
    echo(
        f"both releases together: epsilon={eps_spent + linear['epsilon_spent']:.6g}, "
        f"delta={delta_spent + linear['delta_spent']:.3g} (basic composition)"
    )
    return {
        "linear": linear,
        "private_threshold": private.threshold_value_,
        "private_accuracy": private_acc,
        "stump_threshold": stump_cut,
        "stump_accuracy": stump_acc,
        "method": private.method_,
        "epsilon_spent": eps_spent,
        "delta_spent": delta_spent,
        "test_size": int(len(y_test)),
        "n_train": int(len(y_train)),
        "positive_rate_test": float(np.mean(y_test)),
    }


def _linear_section(epsilon, delta, rng, echo) -> dict:
    data = load_breast_cancer_features()
    X_train, X_test, y_train, y_test = data.split(test_fraction=0.25, rng=0)
    d = X_train.shape[1]
    # the defaults: private logistic regression on the public per-feature box (no margin needed)
    private = PrivateHalfspaceClassifier(
        epsilon=epsilon, delta=delta, domain=data.domain, random_state=rng.spawn()
    ).fit(X_train, y_train)
    baseline = LogisticRegression(max_iter=5000).fit(X_train, y_train)
    private_acc = float(private.score(X_test, y_test))
    base_acc = float(baseline.score(X_test, y_test))
    echo(f"linear classifier on {d} features with public bounds (each mapped to [-1, 1] by them: a public map)")
    echo(f"  {'learner':<52} {'test accuracy':>13}")
    echo(f"  {'private logistic regression (noisy gradient descent)':<52} {private_acc:13.3f}")
    echo(f"  {'non-private logistic regression':<52} {base_acc:13.3f}")
    echo(f"  majority class: {max(np.mean(y_test), 1 - np.mean(y_test)):.3f}")
    echo("privacy ledger")
    for line in private.ledger_.lines():
        echo(f"  {line}")
    eps_spent, delta_spent = private.privacy_spent_
    return {
        "private_accuracy": private_acc,
        "logistic_regression_accuracy": base_acc,
        "epsilon_spent": eps_spent,
        "delta_spent": delta_spent,
    }
