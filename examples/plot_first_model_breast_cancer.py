"""
A first private model on real data
==================================

The README's example with a picture: a private linear classifier on scikit-learn's breast-cancer data
(569 records, 30 features), with public bounds written from the dataset's documentation, never from the
data. Test accuracy over five stratified splits as epsilon grows, against non-private logistic
regression on the same splits.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from privpac import Grid
from privpac.datasets import BREAST_CANCER_DOCUMENTED_RANGES
from privpac.estimators import PrivateHalfspaceClassifier

X, y = load_breast_cancer(return_X_y=True)
low, high = np.array(BREAST_CANCER_DOCUMENTED_RANGES).T  # each feature's documented min and max

epsilons = [0.1, 0.3, 1.0, 3.0]
private = {eps: [] for eps in epsilons}
baseline = []
for split in range(5):
    X_train, X_test, y_train, y_test = train_test_split(X, y, stratify=y, random_state=split)
    for eps in epsilons:
        clf = PrivateHalfspaceClassifier(epsilon=eps, delta=1e-6, domain=Grid(low, high, 2), random_state=split)
        private[eps].append(clf.fit(X_train, y_train).score(X_test, y_test))
    logistic = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)).fit(X_train, y_train)
    baseline.append(logistic.score(X_test, y_test))

for eps in epsilons:
    print(f"epsilon = {eps}: mean test accuracy {np.mean(private[eps]):.3f}")
print(f"logistic regression, not private: {np.mean(baseline):.3f}")
print(clf.ledger_)  # the last fit: every mechanism call and its (epsilon, delta)

fig, ax = plt.subplots(figsize=(6, 4))
ax.semilogx(epsilons, [np.mean(private[e]) for e in epsilons], "o-", label="PrivateHalfspaceClassifier")
ax.axhline(np.mean(baseline), color="grey", ls=":", label="logistic regression (not private)")
ax.axhline(np.mean(y), color="k", lw=0.8, ls="--", label="majority class")
ax.set_xlabel("epsilon (delta = 1e-6)")
ax.set_ylabel("test accuracy (mean of 5 splits)")
ax.set_title("Breast cancer, public bounds from the documentation")
ax.legend(fontsize=8)
fig.tight_layout()
