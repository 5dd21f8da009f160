"""
Budgets across fits: the accountant with GridSearchCV
=====================================================

Every fit charges a budget accountant, so fits on the same data add up: a grid search over two
epsilons with three folds is seven fits (six and the refit). An accountant with a total budget, used as
a context manager, records each of them and refuses the fit that would pass the budget before it reads
the data.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.model_selection import GridSearchCV

from privpac import BudgetAccountant
from privpac.estimators import PrivateThresholdClassifier

X = np.arange(1000).reshape(-1, 1)
y = (X[:, 0] < 600).astype(int)
with BudgetAccountant(epsilon=10.0, delta=1e-4) as acc:  # the default accountant inside the block
    grid = {"epsilon": [0.5, 1.0]}
    search = GridSearchCV(PrivateThresholdClassifier(domain=(0, 999), random_state=0), grid, cv=3).fit(X, y)
print(acc)
print("one fit's cost:", search.best_estimator_.privacy_spent_)

# %%
# Each fit's epsilon, and the running total against the budget.

spent = [release.epsilon for release in acc.releases]
fig, ax = plt.subplots(figsize=(6, 3.5))
ax.bar(range(1, len(spent) + 1), spent, label="epsilon of each fit")
ax.step(range(1, len(spent) + 1), np.cumsum(spent), where="mid", color="C1", label="running total")
ax.axhline(acc.budget_epsilon, color="k", ls=":", label="the accountant's budget")
ax.set_xlabel("fit (3 folds x 2 candidates, then the refit)")
ax.set_ylabel("epsilon")
ax.legend(fontsize=8)
fig.tight_layout()

# %%
# A second search, over larger epsilons, would pass the budget: the first fit past it raises
# ``BudgetExceededError`` before it reads the data (scikit-learn turns that into ``nan`` scores unless
# ``error_score="raise"``).

from privpac.errors import BudgetExceededError  # noqa: E402

try:
    with acc:
        grid = {"epsilon": [1.0, 2.0]}
        GridSearchCV(PrivateThresholdClassifier(domain=(0, 999)), grid, cv=3, error_score="raise").fit(X, y)
except BudgetExceededError as error:
    print("refused:", str(error).splitlines()[0])
print(f"spent {acc.spent[0]:g} of {acc.budget_epsilon:g}")
