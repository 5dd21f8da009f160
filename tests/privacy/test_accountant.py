"""The budget accountant: composition across fits, refusal before any data is read, the default
accountant, scikit-learn's clone and model selection, saved models, and every model's fit."""

import copy
import json
import pickle
import threading

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import FitFailedWarning
from sklearn.model_selection import GridSearchCV, cross_val_score

import privpac
from model_examples import fit_arguments, one_d
from privpac import accountant as accountant_module
from privpac.accountant import BudgetAccountant, accounted_release, resolve_accountant
from privpac.accounting import PrivacyLedger
from privpac.errors import BudgetExceededError, DomainError, InvalidParameterError
from privpac.estimators import (
    MODELS,
    PrivateHistogram,
    PrivateThresholdClassifier,
    private_interior_point,
    private_median,
)
from privpac.io import load_model, model_to_dict, save_model

# -- a tiny valid fit per registered model ----------------------------------------------------------

_fit_args = fit_arguments
_one_d = one_d


def _budget(kw, cls):
    params = cls(**kw).get_params()
    return params["epsilon"], params["delta"]


class Untouchable:
    """Data that fails the test if a fit reads it."""

    def __array__(self, *args, **kwargs):
        raise AssertionError("the data was read")

    def __len__(self):
        raise AssertionError("the data was read")

    def __iter__(self):
        raise AssertionError("the data was read")

    def __getitem__(self, item):
        raise AssertionError("the data was read")


@pytest.mark.filterwarnings("ignore::privpac.errors.UtilityWarning")
@pytest.mark.parametrize("name", sorted(MODELS))
def test_every_model_charges_its_accountant(name):
    cls = MODELS[name]
    kw, args, fit_kw = _fit_args(name)
    acc = BudgetAccountant()
    est = cls(**kw, accountant=acc, random_state=0)
    assert est.get_params()["accountant"] is acc
    assert getattr(cls.fit, "private_fit", False), "fit must be decorated with private_fit"
    assert est.fit(*args, **fit_kw) is est
    assert len(acc) == 1 and len(accountant_module.default()) == 0
    (filed,) = acc.releases
    assert filed.name == cls.__name__ and filed.label == est.algorithm_name and not filed.failed
    assert filed.ledger is est.ledger_
    assert (filed.epsilon, filed.delta) == est.privacy_spent_ == acc.spent
    # accountant=None: the default accountant, resolved in fit
    cls(**kw, random_state=0).fit(*args, **fit_kw)
    assert len(accountant_module.default()) == 1 and len(acc) == 1


@pytest.mark.parametrize("name", sorted(MODELS))
def test_every_model_is_refused_before_reading_data(name):
    cls = MODELS[name]
    kw, args, fit_kw = _fit_args(name)
    eps, delta = _budget(kw, cls)
    acc = BudgetAccountant(epsilon=eps / 2, delta=max(delta, 1e-3))
    est = cls(**kw, accountant=acc, random_state=0)
    poisoned = tuple(Untouchable() for _ in args)
    with pytest.raises(BudgetExceededError, match=cls.__name__):
        est.fit(*poisoned, **{k: Untouchable() for k in fit_kw})
    assert len(acc) == 0 and acc.spent == (0.0, 0.0) and acc.reserved == (0.0, 0.0)
    assert not [k for k in vars(est) if k.endswith("_") and not k.startswith("_")]  # nothing fitted


# -- composition, budget, reporting -----------------------------------------------------------------


def test_repeated_fits_compose_and_a_total_budget_stops_them():
    X = np.arange(50)
    acc = BudgetAccountant(epsilon=2.0, label="study")
    est = PrivateHistogram(epsilon=0.75, domain=(0, 49), accountant=acc, random_state=0)
    est.fit(X)
    est.fit(X)
    assert acc.spent == (1.5, 0.0) and acc.remaining == (0.5, 0.0) and len(acc) == 2
    assert est.privacy_spent_ == (0.75, 0.0)  # one fit's release, not the total
    with pytest.raises(BudgetExceededError, match="spent or reserved"):
        est.fit(X)
    assert acc.spent == (1.5, 0.0) and len(acc) == 2
    assert acc.check(0.5) is True
    PrivateHistogram(epsilon=0.5, domain=(0, 49), accountant=acc).fit(X)
    assert acc.spent[0] == pytest.approx(2.0) and acc.remaining == (0.0, 0.0)
    lines = acc.lines()
    assert lines[0] == "accountant 'study': 3 release(s)"
    assert lines[1].startswith("  PrivateHistogram [private histogram (discrete Laplace)]: epsilon=0.75")
    assert lines[-1] == "total spent: epsilon=2, delta=0 (budget epsilon=2, delta=0)"
    detail = acc.lines(detail=True)
    assert "      bin counts [discrete Laplace" in "\n".join(detail) and str(acc) == "\n".join(lines)


def test_delta_budget_zero_admits_pure_releases_only():
    X, y = _one_d()
    acc = BudgetAccountant(epsilon=5.0)
    with pytest.raises(BudgetExceededError, match="delta budget is 0"):
        PrivateThresholdClassifier(domain=(0, 199), accountant=acc).fit(X, y)
    PrivateThresholdClassifier(domain=(0, 199), delta=0.0, accountant=acc).fit(X, y)
    assert acc.spent == (1.0, 0.0)


def test_check_spend_and_budget_validation():
    acc = BudgetAccountant(epsilon=1.0, delta=1e-6)
    assert acc.check(1.0, 1e-6)
    filed = acc.spend(0.25, label="a query made with another library")
    assert filed.name == "spend" and filed.ledger.entries[0].label == "a query made with another library"
    with pytest.raises(BudgetExceededError):
        acc.check(0.8)
    with pytest.raises(BudgetExceededError):
        acc.spend(0.5, 2e-6)
    assert acc.spent == (0.25, 0.0)
    unbounded = BudgetAccountant()
    assert unbounded.remaining is None and unbounded.check(1e9, 0.4)
    with pytest.raises(InvalidParameterError, match="delta must be below 1/2"):
        unbounded.check(1.0, 0.5)  # a release with delta >= 1/2 promises nothing, budget or not
    with pytest.raises(InvalidParameterError, match="epsilon"):
        BudgetAccountant(epsilon=0)
    with pytest.raises(InvalidParameterError, match="delta"):
        BudgetAccountant(epsilon=1.0, delta=1.0)
    with pytest.raises(InvalidParameterError, match="epsilon"):
        acc.check(-1.0)


def test_running_releases_count_against_the_budget():
    acc = BudgetAccountant(epsilon=1.0)
    running = acc.reserve(0.75, name="running")
    assert acc.reserved == (0.75, 0.0) and acc.remaining == (0.25, 0.0) and acc.spent == (0.0, 0.0)
    assert "1 release(s) running: reserved epsilon=0.75" in str(acc)
    with pytest.raises(BudgetExceededError, match="spent or reserved"):
        acc.check(0.5)
    assert running.abandon() is None and running.file() is None  # nothing charged: released, once
    assert acc.check(1.0) and len(acc) == 0


def test_concurrent_reservations_never_overspend():
    acc = BudgetAccountant(epsilon=5.0)
    outcomes = []

    def one():
        try:
            acc.spend(1.0)
            outcomes.append("spent")
        except BudgetExceededError:
            outcomes.append("refused")

    threads = [threading.Thread(target=one) for _ in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert outcomes.count("spent") == 5 and acc.spent == (5.0, 0.0)


def test_to_dict_round_trip_continues_the_account():
    acc = BudgetAccountant(epsilon=3.0, delta=1e-5, label="saved")
    PrivateHistogram(epsilon=1.0, domain=(0, 9), accountant=acc).fit([1, 2, 3])
    doc = json.loads(json.dumps(acc.to_dict()))
    again = BudgetAccountant.from_dict(doc)
    assert again.spent == acc.spent and again.lines() == acc.lines()
    assert again.releases[0].ledger.lines() == acc.releases[0].ledger.lines()
    again.spend(2.0)
    with pytest.raises(BudgetExceededError):
        again.spend(0.5)


# -- a fit that raises ------------------------------------------------------------------------------


def test_fit_that_raises_before_any_charge_releases_its_reservation():
    acc = BudgetAccountant(epsilon=1.0)
    with pytest.raises(DomainError):
        PrivateHistogram(epsilon=1.0, domain=(0, 9), accountant=acc).fit([1, 20])
    assert len(acc) == 0 and acc.reserved == (0.0, 0.0) and acc.remaining == (1.0, 0.0)


def test_fit_that_raises_after_a_charge_is_charged_its_whole_budget(monkeypatch):
    import privpac.estimators.histogram as histogram

    def charge_then_fail(values, sensitivity, epsilon, ledger=None, label="", rng=None):
        ledger.charge(label, epsilon / 4, 0.0, mechanism="discrete Laplace")
        raise RuntimeError("interrupted after drawing noise")

    monkeypatch.setattr(histogram, "laplace_mechanism", charge_then_fail)
    acc = BudgetAccountant(epsilon=2.0, delta=1e-5)
    est = PrivateHistogram(epsilon=1.0, delta=1e-6, domain=(0, 9), accountant=acc)
    with pytest.raises(RuntimeError, match="interrupted"):
        est.fit([1, 2, 3])
    (filed,) = acc.releases
    assert filed.failed and (filed.epsilon, filed.delta) == (1.0, 1e-6)  # the reservation, not the 0.25 charged
    assert filed.ledger.spent == (0.25, 0.0) and acc.reserved == (0.0, 0.0)
    assert "failed after a charge" in acc.lines()[1]
    assert not hasattr(est, "ledger_")


def test_release_block_settles_by_the_same_rule():
    acc = BudgetAccountant()
    with pytest.raises(ValueError):
        with acc.release("nothing charged", 1.0):
            raise ValueError
    with pytest.raises(ValueError):
        with acc.release("charged", 1.0, 1e-6) as ledger:
            ledger.charge("step", 0.1)
            raise ValueError
    with acc.release("done", 1.0) as ledger:
        ledger.charge("step", 0.5)
    assert [(r.name, r.epsilon, r.failed) for r in acc.releases] == [("charged", 1.0, True), ("done", 0.5, False)]


# -- the default accountant and the context manager ------------------------------------------------


def test_default_accountant_composes_fits_made_without_one():
    X = np.arange(20)
    for _ in range(3):
        PrivateHistogram(epsilon=0.5, domain=(0, 19)).fit(X)
    assert privpac.accountant.default() is BudgetAccountant.default()
    assert privpac.accountant.default().spent == (1.5, 0.0) and len(BudgetAccountant.default()) == 3
    BudgetAccountant.reset_default()
    assert BudgetAccountant.default().spent == (0.0, 0.0)
    mine = BudgetAccountant(epsilon=10.0).set_default()
    PrivateHistogram(domain=(0, 19)).fit(X)
    assert BudgetAccountant.default() is mine and mine.spent == (1.0, 0.0)


def test_context_manager_sets_the_default_inside_the_block():
    X = np.arange(20)
    outer = BudgetAccountant.default()
    with BudgetAccountant(epsilon=1.5) as acc:
        assert BudgetAccountant.default() is acc
        PrivateHistogram(domain=(0, 19)).fit(X)
        with BudgetAccountant() as inner:
            PrivateHistogram(domain=(0, 19)).fit(X)
        assert BudgetAccountant.default() is acc and len(inner) == 1
        with pytest.raises(BudgetExceededError):
            PrivateHistogram(domain=(0, 19)).fit(X)
    assert BudgetAccountant.default() is outer and len(outer) == 0 and acc.spent == (1.0, 0.0)


def test_accountant_parameter_is_validated():
    with pytest.raises(InvalidParameterError, match="accountant"):
        PrivateHistogram(domain=(0, 9), accountant="mine").fit([1])
    with pytest.raises(InvalidParameterError, match="BudgetAccountant"):
        privpac.accountant.set_default(3)


# -- scikit-learn: clone, params, model selection --------------------------------------------------


def test_clone_shares_the_accountant_and_get_params_lists_it():
    acc = BudgetAccountant()
    est = PrivateThresholdClassifier(domain=(0, 9), accountant=acc)
    assert "accountant" in est.get_params() and PrivateThresholdClassifier().get_params()["accountant"] is None
    twin = clone(est)
    assert twin.accountant is acc and clone(PrivateThresholdClassifier()).accountant is None
    assert copy.deepcopy(acc) is acc and copy.copy(acc) is acc
    other = BudgetAccountant()
    assert est.set_params(accountant=other).accountant is other
    assert "accountant=BudgetAccountant(" in repr(est)


def test_grid_search_total_is_visible():
    X, y = _one_d()
    search = GridSearchCV(PrivateThresholdClassifier(domain=(0, 199), random_state=0), {"epsilon": [0.5, 1.0]}, cv=3)
    search.fit(X, y)
    total = privpac.accountant.default()
    assert len(total) == 7  # 2 candidates x 3 folds, and the refit
    assert total.spent[0] == pytest.approx(3 * 0.5 + 3 * 1.0 + search.best_params_["epsilon"])
    assert total.spent[1] == 0.0  # each fit reserved delta = 1e-6; the exponential mechanism spent none
    assert search.best_estimator_.privacy_spent_[0] == search.best_params_["epsilon"]
    assert all(r.name == "PrivateThresholdClassifier" for r in total.releases)


@pytest.mark.filterwarnings("ignore:One or more of the test scores are non-finite")
def test_grid_search_with_a_shared_accountant_is_stopped_by_its_budget():
    X, y = _one_d()
    acc = BudgetAccountant(epsilon=2.8, delta=1e-3)
    est = PrivateThresholdClassifier(domain=(0, 199), accountant=acc, random_state=0)
    grid = {"epsilon": [0.5, 1.0]}
    # error_score="raise": the refusal propagates at once
    with pytest.raises(BudgetExceededError):
        GridSearchCV(est, grid, cv=3, error_score="raise").fit(X, y)
    assert acc.spent[0] == pytest.approx(2.5) and len(acc) == 4
    # the default error_score=nan: scikit-learn scores refused fits nan and warns, then the refit is refused
    acc2 = BudgetAccountant(epsilon=2.8, delta=1e-3)
    with pytest.warns(FitFailedWarning, match="BudgetExceededError"), pytest.raises(BudgetExceededError):
        GridSearchCV(clone(est).set_params(accountant=acc2), grid, cv=3).fit(X, y)
    assert acc2.spent[0] == pytest.approx(2.5) and acc2.spent[0] <= acc2.budget_epsilon


def test_cross_val_score_composes():
    X, y = _one_d()
    with BudgetAccountant() as acc:
        scores = cross_val_score(PrivateThresholdClassifier(domain=(0, 199), random_state=0), X, y, cv=5)
    assert len(scores) == 5 and len(acc) == 5 and acc.spent[0] == pytest.approx(5.0)
    with BudgetAccountant(epsilon=3.0, delta=1e-3) as acc:
        with pytest.warns(FitFailedWarning, match="BudgetExceededError"):
            scores = cross_val_score(PrivateThresholdClassifier(domain=(0, 199)), X, y, cv=5)
    assert np.isnan(scores).sum() == 2 and acc.spent[0] == pytest.approx(3.0)


# -- copies in other processes ----------------------------------------------------------------------


def test_a_pickled_accountant_is_detached_and_refuses_charges():
    acc = BudgetAccountant(epsilon=5.0)
    acc.spend(1.0)
    est = PrivateHistogram(domain=(0, 9), accountant=acc)
    copy_in_worker = pickle.loads(pickle.dumps(est))
    assert copy_in_worker.accountant is not acc and copy_in_worker.accountant.spent == (1.0, 0.0)
    with pytest.raises(InvalidParameterError, match="copy made for another process"):
        copy_in_worker.fit([1, 2])
    with pytest.raises(InvalidParameterError, match="another process"):
        copy_in_worker.accountant.spend(0.1)
    assert acc.spent == (1.0, 0.0)


def test_default_accountant_is_refused_in_a_worker_process(monkeypatch):
    monkeypatch.setattr(accountant_module.multiprocessing, "parent_process", lambda: object())
    with pytest.raises(InvalidParameterError, match="worker process"):
        PrivateHistogram(domain=(0, 9)).fit([1, 2])
    with pytest.raises(InvalidParameterError, match="worker process"):
        private_median([1, 2, 3], (0, 9))
    with BudgetAccountant() as local:  # an accountant set in the worker is that process's account
        PrivateHistogram(domain=(0, 9)).fit([1, 2])
    assert len(local) == 1
    monkeypatch.setattr(accountant_module.os, "getpid", lambda: -1)  # a copy inherited by fork
    with pytest.raises(InvalidParameterError, match="another process"):
        resolve_accountant(local).spend(0.1)


# -- saved models ---------------------------------------------------------------------------------


def test_saved_models_leave_the_accountant_out_and_loading_charges_nothing(tmp_path):
    acc = BudgetAccountant(epsilon=1.0)
    est = PrivateHistogram(domain=(0, 9), accountant=acc, random_state=0).fit([1, 2, 3])
    doc = model_to_dict(est)
    assert "accountant" not in doc["params"] and "accountant" not in json.dumps(doc)
    path = save_model(est, tmp_path / "h.json")
    loaded = load_model(path)
    assert loaded.accountant is None and loaded.privacy_spent_ == est.privacy_spent_
    assert len(acc) == 1 and len(BudgetAccountant.default()) == 0
    # a file carrying an accountant entry still loads, without one
    doc["params"]["accountant"] = "anything"
    path.write_text(json.dumps(doc))
    assert load_model(path).accountant is None and len(BudgetAccountant.default()) == 0


# -- release functions --------------------------------------------------------------------------------


def test_release_functions_charge_the_accountant():
    values = np.arange(100)
    acc = BudgetAccountant(epsilon=1.5, delta=1e-6)
    private_median(values, (0, 99), 1.0, accountant=acc, rng=0)
    (filed,) = acc.releases
    assert filed.name == "private_median" and filed.epsilon == 1.0 and filed.ledger.entries
    with pytest.raises(BudgetExceededError, match="private_interior_point"):
        private_interior_point(Untouchable(), (0, 99), 1.0, accountant=acc)
    private_interior_point(values, (0, 99), 0.5, accountant=acc, rng=0)
    assert [r.name for r in acc.releases] == ["private_median", "private_interior_point"]
    assert acc.spent[0] == pytest.approx(1.5)
    # without accountant=: the default
    private_median(values, (0, 99), 0.25, rng=0)
    assert BudgetAccountant.default().spent == (0.25, 0.0)


def test_release_functions_with_a_ledger_charge_only_that_ledger():
    values = np.arange(100)
    ledger = PrivacyLedger(2.0, label="my analysis")
    private_median(values, (0, 99), 1.0, ledger=ledger, rng=0)
    private_interior_point(values, (0, 99), 1.0, ledger=ledger, rng=0)
    assert ledger.spent == (2.0, 0.0) and len(BudgetAccountant.default()) == 0
    with pytest.raises(InvalidParameterError, match="not both"):
        private_median(values, (0, 99), ledger=PrivacyLedger(1.0), accountant=BudgetAccountant())
    with pytest.raises(InvalidParameterError, match="not both"):
        with accounted_release("x", 1.0, 0.0, ledger=PrivacyLedger(1.0), accountant=BudgetAccountant()):
            pass


def test_parallel_search_in_worker_processes_fails_loudly_and_threads_compose():
    from joblib import parallel_backend

    X, y = _one_d()
    grid = {"epsilon": [0.5, 1.0]}
    for acc in (None, BudgetAccountant()):
        est = PrivateThresholdClassifier(domain=(0, 199), accountant=acc)
        with pytest.raises(ValueError, match="another process|worker process"):
            GridSearchCV(est, grid, cv=3, n_jobs=2).fit(X, y)
    assert len(BudgetAccountant.default()) == 0
    with parallel_backend("threading"), BudgetAccountant() as acc:
        GridSearchCV(PrivateThresholdClassifier(domain=(0, 199)), grid, cv=3, n_jobs=2).fit(X, y)
    assert len(acc) == 7
