"""``privpac demo``: a private threshold classifier on real data, beside the non-private stump."""

from __future__ import annotations

import numpy as np
from sklearn.tree import DecisionTreeClassifier

from .datasets import load_breast_cancer_feature
from .estimators import PrivateThresholdClassifier
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
    echo(f"budget: epsilon={epsilon}, delta={delta}")
    echo("")

    private = PrivateThresholdClassifier(
        epsilon=epsilon, delta=delta, domain=data.domain, orientation="above", random_state=rng.spawn()
    ).fit(X_train.reshape(-1, 1), y_train)
    stump = DecisionTreeClassifier(max_depth=1).fit(X_train.reshape(-1, 1), y_train)
    private_acc = float(private.score(X_test.reshape(-1, 1), y_test))
    stump_acc = float(stump.score(X_test.reshape(-1, 1), y_test))
    stump_cut = float(stump.tree_.threshold[0]) if stump.tree_.node_count > 1 else float("nan")
    how = "exponential mechanism" if private.method_ == "em" else f"RecConcave ({private.depth_} levels)"
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
    return {
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
