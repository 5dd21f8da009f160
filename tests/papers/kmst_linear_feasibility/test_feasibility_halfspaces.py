"""LearnHalfSpace and the PAC learner (Kaplan, Mansour, Stemmer, Tsfadia 2020, Fig. 3, Thm 5.1, Thm 5.2).

Spec ``kmst-halfspaces`` 3.5-3.7 and section 8 (items 11, 15, 18, 19, 20): realisable samples are
learned to error ``<= alpha`` at the plan's sufficient size, one-class samples give the constant
hypothesis, non-realisable samples run with the same record, the paper dual's degenerate ``a = 0``
(section 3.5) is a maximiser there and is reported, while the margin-1 dual rules it out, the PAC
constants are the spec's corrected ones, and bad inputs are refused before anything is read.
Privacy through ``fit`` is the registered audit ``halfspace-feasibility``
(``tests/privacy/test_audit_registry.py``, ``tests/privacy/test_mutations.py``).
"""

import math
import warnings
from fractions import Fraction

import numpy as np
import pytest

from privpac.errors import DataError, DomainError, InvalidParameterError, UtilityWarning
from privpac.estimators import MODELS, PrivateFeasibilityHalfspaceClassifier
from privpac.geometry.feasibility import depth
from privpac.io import model_from_dict, model_to_dict
from privpac.learners import feasibility_halfspaces as fh
from privpac.learners import linear_feasibility as lf
from privpac.random import SeededRandom

pytestmark = pytest.mark.filterwarnings("ignore::privpac.errors.UtilityWarning")


def _threshold_sample(m, X, t, seed):
    """``m`` points uniform on ``[[-X, X]]`` labelled 1 iff ``x >= t`` (realisable)."""
    x = np.random.default_rng(seed).integers(-X, X + 1, size=(m, 1))
    return x, (x[:, 0] >= t).astype(int)


def test_registered_under_its_cli_name():
    assert MODELS["halfspace-feasibility"] is PrivateFeasibilityHalfspaceClassifier


# -- utility -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("learner", ["erm", "pac"])
def test_realisable_erm_has_training_error_at_most_alpha_at_the_sufficient_size(learner):
    X, eps, alpha = 4, 20.0, 0.1
    plan = fh.plan_halfspace_learner(10, 1, X, eps, alpha=alpha, learner=learner)
    m = plan.find_deep_point.sufficient_m  # the ERM part of the plan
    for seed in range(3):
        x, y = _threshold_sample(m, X, (-1, 0, 2)[seed], seed)
        est = PrivateFeasibilityHalfspaceClassifier(epsilon=eps, domain=X, alpha=alpha, learner=learner)
        est.set_params(random_state=seed).fit(x, y)
        assert np.mean(est.predict(x) != y) <= (alpha if learner == "erm" else alpha / 10)


def test_pac_margin_1_has_population_error_at_most_alpha_at_the_sufficient_size():
    X, eps, alpha, beta = 4, 20.0, 0.3, 0.5
    plan = fh.plan_halfspace_learner(10, 1, X, eps, alpha=alpha, beta=beta, learner="pac")
    assert plan.sufficient_m == plan.uniform_convergence  # uniform convergence dominates here
    x, y = _threshold_sample(plan.sufficient_m, X, 1, 7)
    est = PrivateFeasibilityHalfspaceClassifier(
        epsilon=eps, domain=X, alpha=alpha, beta=beta, learner="pac", random_state=0
    ).fit(x, y)
    grid = np.arange(-X, X + 1).reshape(-1, 1)  # the population: uniform on the grid
    assert np.mean(est.predict(grid) != (grid[:, 0] >= 1)) <= alpha


@pytest.mark.parametrize("label", [0, 1])
def test_one_class_samples_give_the_constant_hypothesis(label):
    x = np.random.default_rng(1).integers(-3, 4, size=(800, 1))
    y = np.full(800, label)
    est = PrivateFeasibilityHalfspaceClassifier(epsilon=20.0, domain=3, random_state=2).fit(x, y)
    grid = np.arange(-3, 4).reshape(-1, 1)
    assert np.all(est.predict(grid) == label)
    assert not est.degenerate_


def test_non_realisable_samples_run_with_the_same_record():
    x = np.random.default_rng(3).integers(-3, 4, size=(60, 1))
    noisy = np.random.default_rng(4).integers(0, 2, size=60)  # labels unrelated to x
    clean = (x[:, 0] >= 0).astype(int)
    fits = [
        PrivateFeasibilityHalfspaceClassifier(domain=3, mode=mode, learner=learner, random_state=5).fit(x, y)
        for y in (noisy, clean)
        for mode in fh.DUALS
        for learner in fh.LEARNERS
    ]
    for a, b in zip(fits[:4], fits[4:]):
        assert a.ledger_.to_dict() == b.ledger_.to_dict()
        assert a.privacy_record(*a.fit_shape_).to_dict() == a.ledger_.to_dict()


def test_recconcave_per_coordinate_runs():
    x, y = _threshold_sample(50, 3, 1, 0)
    est = PrivateFeasibilityHalfspaceClassifier(
        epsilon=1.0, delta=1e-6, domain=3, one_d_optimizer="recconcave", random_state=0
    ).fit(x, y)
    assert est.privacy_spent_.delta == pytest.approx(1e-6) and len(est.coef_exact_) == 1


# -- the duals and the degenerate output (spec 3.5, 3.7 item 1) ----------------------------------------


def _section_3_5_example():
    """Positives at ``x >= 5``, negatives at ``x <= 3`` on ``[[-8, 8]]`` (spec 3.5)."""
    x = np.array([[5], [6], [8], [7], [3], [0], [-8], [2]])
    return x, np.array([1, 1, 1, 1, -1, -1, -1, -1])


def test_the_paper_dual_has_the_origin_as_a_maximiser_and_margin_1_excludes_it():
    x, y = _section_3_5_example()
    m = len(y)
    A, b = fh.dual_system(x, y, "paper")
    assert depth((0, 0), A, b) == m  # the origin satisfies every homogeneous constraint
    R = lf.bounding_box_radius(2, 8)
    top = lf.level_intervals(lf.system_levels(A, b, R), (), 2)[m - 1]
    assert top[0] == 0  # Q_1(a) is maximal on [0, R]: a* = 0 is an optimal first coordinate
    A1, b1 = fh.dual_system(x, y, "margin-1")
    assert np.array_equal(A1, A) and np.all(b1 == 1)
    for w in range(-R, R + 1):  # a = 0 satisfies one class at most: never (1 - alpha) m of them
        assert depth((0, w), A1, b1) <= 4
    top1 = lf.level_intervals(lf.system_levels(A1, b1, R), (), 2)[m - 1]
    assert top1[0] > 0  # every maximiser has a > 0


def test_a_returned_zero_is_reported_in_paper_mode(monkeypatch):
    x, y = _section_3_5_example()
    y01 = (y > 0).astype(int)

    def zero(A, b, X, *args, **kwargs):
        return lf.FindDeepPointResult((Fraction(0), Fraction(0)), None)

    monkeypatch.setattr(fh._fdp, "find_deep_point", zero)
    with pytest.warns(UtilityWarning, match="returned a = 0"):
        est = PrivateFeasibilityHalfspaceClassifier(domain=8, mode="paper", random_state=0).fit(x, y01)
    assert est.degenerate_ and est.coef_exact_ == (0,) and np.all(est.predict(x) == 1)
    assert any("degenerate" in line for line in est.summary())
    assert model_to_dict(est)["state"]["degenerate"] is True
    with warnings.catch_warnings():
        warnings.simplefilter("error", UtilityWarning)
        warnings.filterwarnings("ignore", "PrivateFeasibilityHalfspaceClassifier: error", UtilityWarning)
        est = PrivateFeasibilityHalfspaceClassifier(domain=8, random_state=0).fit(x, y01)
    assert not est.degenerate_  # margin-1: (0, w) is a constant hypothesis, not a degenerate one


def test_margin_1_learns_the_section_3_5_example():
    x, y = _section_3_5_example()
    x, y = np.repeat(x, 100, axis=0), np.repeat((y > 0).astype(int), 100)
    for seed in range(3):
        est = PrivateFeasibilityHalfspaceClassifier(epsilon=10.0, domain=8, random_state=seed).fit(x, y)
        assert est.coef_exact_[0] > 0 and np.all(est.predict(x) == y)


# -- the PAC learner's constants (spec 3.6 [FLAW] (i)-(iii)) -------------------------------------------


def test_pac_noise_constants_are_the_corrected_ones():
    noise = fh.pac_noise(10, 1, 3, 0.1)
    assert noise.x_prime == 2 * 3  # 2 d^2 (d!)^(d^3) X^(d^6)
    assert noise.delta_n == 200  # ceil(2 d s^d / beta), not d s^d / (2 beta)
    assert noise.delta_prime == 2 * 200 * 6 * 1  # an integer: ceil(sqrt d) = 1
    assert noise.grid == noise.delta_prime * 3 + 200
    two = fh.pac_noise(7, 2, 2, 0.3)
    assert two.x_prime == 2 * 4 * 2**8 * 2**64
    assert two.delta_n == math.ceil(Fraction(2 * 2 * 49) / Fraction(0.3))
    assert two.delta_prime == 2 * two.delta_n * two.x_prime * 2  # ceil(sqrt 2) = 2
    # the noise keeps the sample realisable: sqrt(d) Delta_n / Delta' <= 1/(2 X') < 1/X'
    assert Fraction(2 * two.delta_n, two.delta_prime) <= Fraction(1, 2 * two.x_prime)


def test_the_plans_split_alpha_and_beta_as_the_theorems_say():
    kw = dict(alpha=0.2, beta=0.1)
    erm = fh.plan_halfspace_learner(100, 1, 4, 1.0, **kw)
    paper = fh.plan_halfspace_learner(100, 1, 4, 1.0, mode="paper", **kw)
    pac = fh.plan_halfspace_learner(100, 1, 4, 1.0, learner="pac", **kw)
    pac_paper = fh.plan_halfspace_learner(100, 1, 4, 1.0, learner="pac", mode="paper", **kw)
    assert (erm.inner_alpha, erm.inner_beta, erm.grid, erm.uniform_convergence) == (0.2, 0.1, 4, 0)
    assert (paper.inner_alpha, paper.inner_beta) == (0.1, 0.1)
    assert (pac.inner_alpha, pac.inner_beta, pac.grid) == (pytest.approx(0.02), 0.05, 4)
    uc = (48 / 0.2) * (10 * 2 * math.log(48 * math.e / 0.2) + math.log(10 / 0.1))
    assert pac.uniform_convergence == math.ceil(uc) and pac.sufficient_m >= pac.uniform_convergence
    assert (pac_paper.inner_alpha, pac_paper.inner_beta) == (pytest.approx(0.005), 0.025)
    assert pac_paper.grid == fh.pac_noise(100, 1, 4, 0.1).grid
    uc_paper = (96 / 0.2) * (10 * 2 * math.log(96 * math.e / 0.2) + math.log(10 / 0.1))
    assert pac_paper.uniform_convergence == math.ceil(uc_paper)


def test_the_noise_is_drawn_per_record_independently_of_the_values():
    noise = fh.pac_noise(30, 1, 2, 0.5)
    a = np.random.default_rng(0).integers(-2, 3, size=(30, 1))
    b = np.random.default_rng(1).integers(-2, 3, size=(30, 1))
    za = fh._noisy_records(a, noise, SeededRandom(9)) - a.astype(object) * noise.delta_prime
    zb = fh._noisy_records(b, noise, SeededRandom(9)) - b.astype(object) * noise.delta_prime
    assert np.array_equal(za, zb)  # the same draws whatever the records
    assert all(abs(v) <= noise.delta_n for v in za.ravel()) and len(set(za.ravel())) > 10


def test_a_noisy_grid_beyond_the_limit_is_refused_from_public_sizes(monkeypatch):
    monkeypatch.setattr(lf, "SUPPORTED_DIMENSIONS", (1, 2, 3))
    with pytest.raises(InvalidParameterError, match="noisy grid"):
        fh.plan_halfspace_learner(100, 2, 2**70, 1.0, learner="pac", mode="paper")


def test_the_dimension_check_is_find_deep_points(monkeypatch):
    assert fh.check_learner_dimension(2) == 2  # FindDeepPoint runs in D = 3
    with pytest.raises(InvalidParameterError, match="D = d \\+ 1 = 4"):
        fh.check_learner_dimension(3)
    monkeypatch.setattr(lf, "SUPPORTED_DIMENSIONS", (1,))
    with pytest.raises(InvalidParameterError, match="D = d \\+ 1 = 2"):
        fh.check_learner_dimension(1)
    monkeypatch.setattr(lf, "SUPPORTED_DIMENSIONS", (1, 2, 3))
    assert fh.check_learner_dimension(2) == 2


# -- the estimator ----------------------------------------------------------------------------------


def test_exact_coefficients_float_views_and_predictions():
    x, y = _threshold_sample(400, 5, 2, 0)
    est = PrivateFeasibilityHalfspaceClassifier(epsilon=10.0, domain=5, labels=("no", "yes"), random_state=1)
    est.fit(x, np.where(y == 1, "yes", "no"))
    a, c = est.coef_exact_[0], est.intercept_exact_
    assert isinstance(a, Fraction) and est.coef_[0] == float(a) and est.intercept_ == float(c)
    grid = np.arange(-5, 6).reshape(-1, 1)
    expected = np.where([a * v + c >= 0 for v in grid[:, 0]], "yes", "no")
    assert np.array_equal(est.predict(grid), expected)
    assert np.allclose(est.decision_function(grid), est.coef_[0] * grid[:, 0] + est.intercept_)
    loaded = model_from_dict(model_to_dict(est))
    assert loaded.coef_exact_ == est.coef_exact_ and np.array_equal(loaded.predict(grid), expected)


def test_points_on_the_hyperplane_are_positive_in_exact_arithmetic():
    est = PrivateFeasibilityHalfspaceClassifier(domain=3, random_state=0).fit(np.array([[1], [-1]]), [1, 0])
    est.coef_exact_, est.intercept_exact_ = (Fraction(1, 3),), Fraction(-1, 3)  # boundary at x = 1
    assert list(est.predict(np.array([[1], [0]]))) == [1, 0]


def test_same_seed_same_model():
    x, y = _threshold_sample(100, 3, 0, 2)
    for learner in fh.LEARNERS:
        for mode in fh.DUALS:
            fits = [
                PrivateFeasibilityHalfspaceClassifier(domain=3, learner=learner, mode=mode, random_state=4).fit(x, y)
                for _ in range(2)
            ]
            assert fits[0].coef_exact_ == fits[1].coef_exact_
            assert fits[0].intercept_exact_ == fits[1].intercept_exact_


class _Untouchable:
    def __array__(self, *args, **kwargs):
        raise AssertionError("the data was read")

    def __len__(self):
        raise AssertionError("the data was read")


def test_bad_inputs_are_refused_before_anything_else():
    x, y = np.array([[1], [-1]]), np.array([1, 0])
    with pytest.raises(DomainError, match="domain"):
        PrivateFeasibilityHalfspaceClassifier().fit(_Untouchable(), _Untouchable())
    for bad in (dict(learner="svm"), dict(mode="margin-2"), dict(one_d_optimizer="x"), dict(alpha=0.0)):
        with pytest.raises(InvalidParameterError):
            PrivateFeasibilityHalfspaceClassifier(domain=2, **bad).fit(_Untouchable(), _Untouchable())
    with pytest.raises(InvalidParameterError, match="delta > 0"):
        PrivateFeasibilityHalfspaceClassifier(domain=2, one_d_optimizer="recconcave").fit(_Untouchable(), y)
    with pytest.raises(DomainError, match=r"X\[1, 0\] = -1.0 lies outside the declared domain \[0.0, 3.0\]"):
        PrivateFeasibilityHalfspaceClassifier(domain=(0, 3)).fit(x, y)  # off centre: runs on its lattice
    with pytest.raises(DomainError, match=r"X\[1, 0\] = 5 lies outside the declared grid \[-2, 2\]"):
        PrivateFeasibilityHalfspaceClassifier(domain=2).fit(np.array([[1], [5]]), y)
    with pytest.raises(DataError, match="integers"):
        PrivateFeasibilityHalfspaceClassifier(domain=2).fit(np.array([[0.5], [1.0]]), y)
    with pytest.raises(DataError, match="outside the declared labels"):
        PrivateFeasibilityHalfspaceClassifier(domain=2).fit(x, np.array([1, 2]))
    with pytest.raises(InvalidParameterError, match="d = 3"):
        PrivateFeasibilityHalfspaceClassifier(domain=2).fit(np.ones((4, 3), dtype=int), np.zeros(4, dtype=int))
    big = lf.MAX_CONSTRAINTS_3D + 1
    with pytest.raises(InvalidParameterError, match=f"up to m = {lf.MAX_CONSTRAINTS_3D}"):  # D = 3: public envelope
        PrivateFeasibilityHalfspaceClassifier(domain=2).fit(np.ones((big, 2), dtype=int), np.zeros(big, dtype=int))
    with pytest.raises(DataError, match="empty"):
        PrivateFeasibilityHalfspaceClassifier(domain=2).fit(np.zeros((0, 1), dtype=int), np.zeros(0, dtype=int))


def test_the_uniform_convergence_sizes_are_the_bound_calculators():
    from privpac.bounds.kmst import kmst_pac_sample_size

    bound = kmst_pac_sample_size(1, 17, 0.1, 0.1, 1.0, 1e-6, "basic")
    pac = fh.plan_halfspace_learner(100, 1, 8, 1.0, learner="pac")
    pac_paper = fh.plan_halfspace_learner(100, 1, 8, 1.0, learner="pac", mode="paper")
    assert pac.uniform_convergence == math.ceil(bound["margin-1 uniform convergence"])
    assert pac_paper.uniform_convergence == math.ceil(bound["paper uniform convergence"])
