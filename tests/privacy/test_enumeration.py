"""The exact law of shipped code by enumerating its random choices (privpac.audit.enumeration)."""

import math
import warnings

import numpy as np
import pytest

from privpac.audit.enumeration import NotEnumerable, exact_law
from privpac.errors import InvalidParameterError
from privpac.estimators import PrivateThresholdClassifier
from privpac.mechanisms import (
    adist,
    adist_plan,
    discrete_laplace_pmf,
    exponential_mechanism,
    exponential_mechanism_step,
    exponential_probabilities,
    step_piece_probabilities,
)
from privpac.random import bernoulli, bernoulli_exp, discrete_laplace, gaussian_array, uniform_int
from privpac.stepfunc import StepFunction


def test_small_programs_match_their_closed_forms():
    law = exact_law(lambda src: uniform_int(3, 6, src) + 10 * int(bernoulli(0.25, src)))
    expected = {v + 10 * b: 0.25 * (0.25 if b else 0.75) for v in range(3, 7) for b in (0, 1)}
    assert law.probabilities.keys() == expected.keys() and law.lost == 0.0 and law.paths == 8
    assert all(math.isclose(law.probabilities[k], p) for k, p in expected.items())
    law = exact_law(lambda src: bernoulli_exp(0.5, src))
    assert math.isclose(law.probabilities[True], math.exp(-0.5))


def test_laplace_support_is_truncated_with_the_lost_mass_reported():
    law = exact_law(lambda src: discrete_laplace(2, src), min_probability=1e-9)
    z = np.asarray(sorted(law.probabilities))
    assert np.allclose([law.probabilities[v] for v in z], discrete_laplace_pmf(z, 2.0))
    assert 0 < law.lost < 1e-8 and math.isclose(law.total + law.lost, 1.0, rel_tol=1e-12)


def test_the_mechanisms_laws_are_their_closed_forms():
    scores = [3.0, 1.0, 0.0, 2.0]
    law = exact_law(lambda src: exponential_mechanism(scores, 0.7, rng=src))
    assert np.allclose([law.probabilities[i] for i in range(4)], exponential_probabilities(scores, 0.7))
    f = StepFunction([0, 5, 6, 20], [0, 3, 1, 0], 30)
    law = exact_law(lambda src: exponential_mechanism_step(f, 1.0, rng=src))
    per_piece = step_piece_probabilities(f, 1.0)
    assert math.isclose(law.probabilities[5], per_piece[1]) and math.isclose(law.probabilities[0], per_piece[0] / 5)
    law = exact_law(lambda src: adist([9, 4, 1], 1.0, 1e-3, rng=src))
    assert law.paths == 2 and law.probabilities == pytest.approx(adist_plan([9, 4, 1], 1.0, 1e-3).output_distribution())


def test_an_estimator_fit_is_enumerated_path_by_path():
    X = np.array([[3], [9], [17], [30], [41], [50]])
    y = np.array([1, 1, 1, 0, 0, 0])

    def program(src):
        return (
            PrivateThresholdClassifier(
                epsilon=1.0, domain=(0, 63), method="exponential", orientation="below", random_state=src
            )
            .fit(X, y)
            .threshold_
        )

    law = exact_law(program)
    assert law.paths == 65 and math.isclose(law.total, 1.0)  # every threshold in [0, 64]
    assert max(law.probabilities, key=law.probabilities.get) in range(18, 31)


def test_real_valued_noise_and_huge_ranges_are_refused():
    with pytest.raises(NotEnumerable):
        exact_law(lambda src: float(gaussian_array(1, 1.0, src)[0]))
    with pytest.raises(NotEnumerable, match="max_outcomes"):
        exact_law(lambda src: uniform_int(0, 2**64, src))
    with pytest.raises(NotEnumerable, match="paths"):
        exact_law(lambda src: (uniform_int(0, 99, src), uniform_int(0, 99, src)), max_paths=500)



def _fit_law(make, data, min_probability, monkeypatch=None, key_without_prefix=False):
    """The exact law of the point ``make(src).fit(*data)`` releases, optionally with the reuse changed."""
    from privpac.audit import enumeration

    if monkeypatch is not None:
        if key_without_prefix:  # a wrong key: one prefix's quality serves every prefix
            memo = {}
            wrong = lambda self, key, compute: memo.setdefault(key[:5], compute())  # noqa: E731
            monkeypatch.setattr(enumeration._ScriptedSource, "reuse", wrong)
        else:
            monkeypatch.setattr(enumeration._ScriptedSource, "reuse", lambda self, key, compute: compute())

    def program(src):
        est = make(src).fit(*data)
        return tuple(getattr(est, "center_", None) or est.solution_)

    return exact_law(program, min_probability=min_probability).probabilities  # the same pruning on every side


@pytest.mark.parametrize("model", ["center-point", "linear-feasibility"])
def test_reused_qualities_give_the_law_of_fresh_ones(monkeypatch, model):
    """RandomSource.reuse: the exact law with the geometric qualities reused between paths is the law
    with every quality computed afresh on every path, and a key that misses the prefix changes it."""
    from privpac.estimators import PrivateCenterPoint, PrivateLinearFeasibility

    if model == "center-point":
        data = (np.array([[0, 0], [1, 1], [-1, 1], [1, -1], [0, 1]]),)
        make = lambda src: PrivateCenterPoint(epsilon=1.0, delta=0.0, domain=1, random_state=src)  # noqa: E731
        floor = 1e-14  # about 2,000 paths: the whole law
    else:
        data = (np.array([[1, 0], [0, 1], [1, 1], [-1, 1]]), np.array([-1, -1, 0, -1]))
        make = lambda src: PrivateLinearFeasibility(epsilon=1.0, delta=0.0, domain=1, random_state=src)  # noqa: E731
        floor = 1.5e-4  # about 1,800 paths, 29 % of the mass (the whole law takes a minute)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # below the sufficient size, as the audits' pairs are
        reused = _fit_law(make, data, floor)
        with monkeypatch.context() as m:
            fresh = _fit_law(make, data, floor, m)
        with monkeypatch.context() as m:
            try:
                wrong = _fit_law(make, data, floor, m, key_without_prefix=True)
            except InvalidParameterError:  # an index outside the next coordinate's domain
                wrong = None
    assert reused.keys() == fresh.keys() and all(math.isclose(reused[k], fresh[k]) for k in fresh)
    assert wrong != fresh


@pytest.mark.parametrize("name", ["recconcave", "interior-point"])
def test_reused_recconcave_steps_give_the_law_of_fresh_ones(monkeypatch, name):
    """RecConcave's noise-free steps, the step-function mechanism's preparation and the interior-point
    quality, reused between the paths of an exact law, give the law computed afresh on every path, and
    a block key that misses the recursive output k changes it (the key must name everything read)."""
    from privpac.audit import enumeration, get_case

    case = get_case(name)
    pair = case.pairs(case.epsilon, case.delta)[-1]  # depth 3: the recursion runs twice

    def law():
        release = lambda src: case.release(pair.dataset, src, case.epsilon, case.delta)  # noqa: E731
        return exact_law(release, min_probability=1e-4).probabilities  # the same pruning on every side

    original = enumeration._ScriptedSource.reuse
    reused = law()
    with monkeypatch.context() as m:
        m.setattr(enumeration._ScriptedSource, "reuse", lambda self, key, compute: compute())
        fresh = law()
    with monkeypatch.context() as m:
        # the block key without its last entry, the recursive output k
        m.setattr(
            enumeration._ScriptedSource,
            "reuse",
            lambda self, key, compute: original(self, key[:-1] if "blocks" in key else key, compute),
        )
        wrong = law()
    assert reused == fresh  # the same code on the same inputs: the same floats
    assert wrong != fresh
