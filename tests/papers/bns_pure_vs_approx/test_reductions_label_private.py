import itertools
import json
import math
import warnings

import numpy as np
import pytest
from click.testing import CliRunner
from sklearn.base import clone

from privpac.accounting import PrivacyLedger
from privpac.audit import exact_check
from privpac.cli import main
from privpac.domains import IntegerDomain
from privpac.errors import DataError, InvalidParameterError, PreconditionError, UtilityWarning
from privpac.estimators import KPointSanitizer, LabelPrivateClassifier, PointSanitizer
from privpac.io import load_model, save_model
from privpac.learners.concept_classes import FiniteClass, OracleClass, PointFunctions, Thresholds, brute_force_vc
from privpac.learners.label_private import (
    label_private_distribution,
    label_private_learner,
    label_private_sizes,
    semi_private_learner,
)
from privpac.mechanisms.exponential import exponential_probabilities
from privpac.sanitizers.points import san_points_plan
from privpac.sanitizers.reductions import (
    _pad_or_truncate,
    amplify,
    encode_labelled,
    erm_points,
    erm_thresholds,
    label_class_sanitizer,
    learn_from_sanitizer,
    make_base_sanitizer,
    reduction_sizes,
)

# -- reductions (section 5) -----------------------------------------------------------------------


def _threshold_matrix(n):
    return np.array([[int(x < j) for x in range(n)] for j in range(n + 1)])


def _point_matrix(n):
    return np.eye(n, dtype=int)


def _label_matrix(mat):
    """C^label over X_{d+1} encoded as 2x + y: c^label(x o y) = c(x) XOR y."""
    n = mat.shape[1]
    out = np.zeros((mat.shape[0], 2 * n), dtype=int)
    for x, y in itertools.product(range(n), (0, 1)):
        out[:, 2 * x + y] = mat[:, x] ^ y
    return out


def test_label_class_identity_and_claim_5_2():
    rng = np.random.default_rng(0)
    for mat in (_threshold_matrix(6), _point_matrix(6)):
        lab = _label_matrix(mat)
        x = rng.integers(0, 6, 30)
        y = rng.integers(0, 2, 30)
        z = encode_labelled(x, y, 6)
        for c in range(mat.shape[0]):
            assert np.mean(lab[c, z.astype(int)]) == np.mean(mat[c, x] != y)  # Q_{c^label}(S) = error_S(c)
        vc, vc_label = brute_force_vc(mat), brute_force_vc(lab)
        assert vc <= vc_label <= 2 * vc


def test_padding_and_truncation_keep_neighbours_neighbours():
    rng = np.random.default_rng(1)
    for _ in range(300):
        s = rng.integers(0, 20, rng.integers(1, 12))
        t = s.copy()
        t[rng.integers(0, t.size)] = rng.integers(0, 20)
        for target in range(0, 15):
            a = _pad_or_truncate(np.sort(s), target, 0)
            b = _pad_or_truncate(np.sort(t), target, 0)
            diff = sum(abs(np.sum(a == v) - np.sum(b == v)) for v in range(20))
            assert diff <= 2  # one replacement
    # a record removed (relabelled): padding adds one filler in its place
    s = np.array([3, 5, 9])
    assert (
        sum(abs(np.sum(_pad_or_truncate(s, 4, 0) == v) - np.sum(_pad_or_truncate(s[:2], 4, 0) == v)) for v in range(10))
        == 2
    )


def test_reduction_sizes_show_the_blow_up():
    sizes = reduction_sizes(100, 0.1, 0.1, 1.0)
    assert sizes.M == 100 * math.ceil(180 * math.log(200) * 1.01)
    assert sizes.t == 600 * sizes.M and 5e5 < sizes.t / sizes.m < 6e5  # spec 7.4: ~5.7e5
    assert 415 <= math.ceil(sizes.q_min) <= 416


def _easy_data(seed, target_fn, m=16000, size=16):
    rng = np.random.default_rng(seed)
    x = rng.integers(0, size, m)
    return x, target_fn(x).astype(int)


@pytest.mark.parametrize("concept,target,truth", [("thresholds", lambda x: x < 7, 7), ("points", lambda x: x == 5, 5)])
def test_learn_from_sanitizer_end_to_end(concept, target, truth):
    for seed in range(3):
        x, y = _easy_data(seed, target)
        ledger = PrivacyLedger(6.0, 0.0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UtilityWarning)
            j, d = learn_from_sanitizer(
                x,
                y,
                concept=concept,
                base="histogram",
                epsilon=6.0,
                delta=0.0,
                domain_size=16,
                alpha=0.25,
                beta=0.25,
                block_size=400,
                granularity=800,
                output_size=200,
                ledger=ledger,
                rng=seed,
            )
        assert j == truth
        assert ledger.spent == (6.0, 0.0) and len(ledger.entries) == 4
        assert all(mh % 800 == 0 and mh >= 0 for mh in d.m_hat)


def test_label_sanitizer_warns_below_t_and_erm_handles_empty_parts():
    x = np.arange(40) % 8
    with pytest.warns(UtilityWarning, match="t = "):
        d = label_class_sanitizer(
            x,
            np.zeros(40, dtype=int),
            make_base_sanitizer("histogram", alpha=0.25, beta=0.25),
            epsilon=6.0,
            delta=0.0,
            domain_size=8,
            alpha=0.25,
            beta=0.25,
            block_size=20,
            granularity=20,
            output_size=30,
            rng=0,
        )
    # every label is 0: the positive part is empty, and the ERM handles it
    assert d.m_hat == (40, 0) and d.positives is None and d.negatives is not None
    assert erm_thresholds(d) == 0  # predict 1 nowhere
    errors = [d.negatives.point(i) for i in range(8)]  # a point function errs on the negatives at its point
    assert errors[erm_points(d)] == min(errors)


def test_reduction_bad_inputs():
    base = make_base_sanitizer("histogram", alpha=0.25, beta=0.25)
    with pytest.raises(DataError, match="multiple"):
        amplify(np.arange(7), base, block_size=3, output_size=5, epsilon=1.0, delta=0.0, domain_size=8)
    with pytest.raises(InvalidParameterError, match="granularity"):
        label_class_sanitizer(
            np.arange(8), np.zeros(8, dtype=int), base, epsilon=1.0, delta=0.0, domain_size=8, alpha=0.25,
            beta=0.25, block_size=3, granularity=4,
        )  # fmt: skip
    with pytest.raises(DataError, match="labels"):
        label_class_sanitizer(
            np.arange(8), np.full(8, 2), base, epsilon=1.0, delta=0.0, domain_size=8, alpha=0.25, beta=0.25,
            block_size=4, granularity=4,
        )  # fmt: skip
    with pytest.raises(InvalidParameterError, match="base"):
        make_base_sanitizer("nope", alpha=0.1, beta=0.1)
    with pytest.raises(InvalidParameterError, match="concept"):
        learn_from_sanitizer(
            np.arange(4), np.zeros(4, dtype=int), concept="boxes", base="histogram", epsilon=1.0, delta=0.0,
            domain_size=4, alpha=0.25, beta=0.25, block_size=4,
        )  # fmt: skip


# -- label privacy (section 6) --------------------------------------------------------------------


def test_label_private_sizes():
    paper = label_private_sizes(0.1, 0.1, 1.0, 1, "paper")
    assert paper.n == 3470 and 1_169_000 < paper.m_required < 1_169_400  # spec 8.1: 3,470 and 1,169,321
    tuned = label_private_sizes(0.1, 0.1, 1.0, 1, "tuned")
    assert tuned.n == math.ceil(640 * (math.log(1280) + math.log(80))) and tuned.m_required < 9000


def test_concept_class_projections():
    assert Thresholds(10).projections([7, 2, 2]) == [0, 3, 8]
    assert sorted(PointFunctions(10).projections([0, 1, 3])) == [0, 1, 2, 3]
    assert PointFunctions(2).projections([0, 1]) == [0, 1]  # no point outside B
    mat = np.array([[0, 0, 1], [1, 1, 0], [0, 1, 1], [0, 0, 1]])
    F = FiniteClass(mat)
    assert F.projections([0, 2]) == [0, 1] and F.vc_dim == 1
    x, y = np.array([0, 1, 2]), np.array([0, 1, 1])
    for cls in (Thresholds(3), PointFunctions(3), F):
        H = cls.projections([0, 1, 2])
        assert np.array_equal(cls.scores(H, x, y), [np.sum(cls.predict(h, x) == y) for h in H])
    with pytest.raises(InvalidParameterError):
        FiniteClass([[0, 2]])


def test_label_private_exact_privacy_over_all_label_neighbours():
    x = np.array([1, 4, 6, 9, 2, 3, 5, 7, 8, 9, 11])
    y = (x < 6).astype(np.int8)
    for cls in (Thresholds(12), PointFunctions(12)):
        P = label_private_distribution(x, y, cls, epsilon=0.7, n_unlabelled=4)
        for i in range(x.size):
            z = y.copy()
            z[i] ^= 1
            Q = label_private_distribution(x, z, cls, epsilon=0.7, n_unlabelled=4)
            assert exact_check(P, Q, 0.7, 0.0).passed
            if i < 4:
                assert P == Q  # labels of S1 are ignored
        # the check can fail: claiming a smaller epsilon than the mechanism's is flagged
        z = y.copy()
        z[9] ^= 1  # x = 9 is a candidate point and threshold boundary
        assert not exact_check(P, label_private_distribution(x, z, cls, epsilon=0.7, n_unlabelled=4), 0.1, 0.0).passed


def test_semi_private_exact_privacy_for_whole_records():
    public = np.array([0, 3, 5, 8, 10])
    x = np.array([1, 2, 4, 6, 7, 9])
    y = (x < 5).astype(np.int8)
    cls = Thresholds(12)
    H = cls.projections(public)

    def dist(xx, yy):
        return dict(zip(H, exponential_probabilities(cls.scores(H, xx, yy), 1.0).tolist()))

    base = dist(x, y)
    for i in range(x.size):
        for v, lab in itertools.product(range(12), (0, 1)):
            x2, y2 = x.copy(), y.copy()
            x2[i], y2[i] = v, lab
            assert exact_check(base, dist(x2, y2), 1.0, 0.0).passed


def test_label_private_utility_at_the_tuned_size():
    size = 2**32
    sizes = label_private_sizes(0.1, 0.1, 1.0, 1, "tuned")
    m = math.ceil(sizes.m_required)
    successes = 0
    for seed in range(20):
        rng = np.random.default_rng(seed)
        target = int(rng.integers(0, size))
        x = rng.integers(0, size, m)
        res = label_private_learner(x, (x < target).astype(int), Thresholds(size), epsilon=1.0, rng=seed)
        successes += abs(res.hypothesis - target) / size <= 0.1  # exact error under the uniform law
        assert res.ledger.spent == (1.0, 0.0)
    assert successes >= 19


def test_label_private_points_and_oracle_class():
    rng = np.random.default_rng(5)
    x = rng.integers(0, 40, 9000)
    res = label_private_learner(x, (x == 13).astype(int), PointFunctions(2**20), epsilon=1.0, rng=1)
    assert res.hypothesis == 13
    oracle = OracleClass(1, Thresholds(40).projections, Thresholds(40).predict)
    res = label_private_learner(x, (x < 21).astype(int), oracle, epsilon=1.0, rng=2)
    assert abs(res.hypothesis - 21) <= 1
    with pytest.warns(UtilityWarning, match="public points"):
        res = semi_private_learner(np.arange(40), x, (x < 21).astype(int), Thresholds(40), epsilon=1.0, rng=3)
    assert res.hypothesis == 21  # 9000 labelled records: the exponential mechanism finds the exact threshold


def test_label_private_bad_inputs():
    cls = Thresholds(10)
    with pytest.raises(DataError, match="more than n"):
        label_private_learner(np.arange(10), np.zeros(10, dtype=int), cls, epsilon=1.0)
    with pytest.raises(DataError):
        label_private_learner(np.arange(10), np.zeros(9, dtype=int), cls, epsilon=1.0)
    with pytest.raises(DataError, match="0 or 1"):
        label_private_learner(np.arange(10), np.full(10, 3), cls, epsilon=1.0, n_unlabelled=2)
    with pytest.raises(InvalidParameterError, match="epsilon"):
        label_private_learner(np.arange(10), np.zeros(10, dtype=int), cls, epsilon=0.0)
    with pytest.warns(UtilityWarning):
        label_private_learner(np.arange(10), np.zeros(10, dtype=int), cls, epsilon=1.0, n_unlabelled=3, rng=0)
    with pytest.raises(DataError, match="public_x"):
        semi_private_learner([], np.arange(3), np.zeros(3, dtype=int), cls, epsilon=1.0)


# -- estimators and commands ----------------------------------------------------------------------


def _sanitizer_data():
    plan = san_points_plan(0.5, 0.1, 1.0, 1e-3)
    m = math.ceil(plan.min_size) + 100
    return np.concatenate([np.full(m // 2, 1000), np.full(m - m // 2, 7)])


def test_point_sanitizer_estimator(tmp_path):
    X = _sanitizer_data()
    est = PointSanitizer(epsilon=1.0, delta=1e-3, alpha=0.5, domain=(0, 2**16 - 1), random_state=0)
    assert clone(est).get_params() == est.get_params()
    assert est.fit(X) is est
    assert abs(est.answer("x==1000") - 0.5) < 0.05 and est.covers("x==7") and not est.covers("x<=7")
    s = est.sample(100, random_state=1)
    assert s.shape == (100,) and set(s.tolist()) <= set(range(2**16))
    loaded = load_model(save_model(est, tmp_path / "s.json"))
    assert loaded.answer("x==1000") == est.answer("x==1000") and loaded.privacy_spent_ == est.privacy_spent_
    k = KPointSanitizer(epsilon=1.0, delta=1e-3, alpha=0.9, k=2, domain=(0, 2**16 - 1), random_state=0)
    with pytest.raises(PreconditionError, match="precondition|m >="):
        k.fit(X[:50])


def test_label_private_classifier(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.integers(0, 1000, 9000).reshape(-1, 1)
    y = np.where(X[:, 0] < 400, "yes", "no")
    est = LabelPrivateClassifier(domain=IntegerDomain(0, 999), labels=("no", "yes"), random_state=0)
    est.fit(X, y)
    assert abs(est.hypothesis_ - 400) <= 20 and est.privacy_unit_ == "labels"
    assert np.mean(est.predict(X) == y) > 0.95
    loaded = load_model(save_model(est, tmp_path / "lp.json"))
    assert np.array_equal(loaded.predict(X), est.predict(X))
    semi = LabelPrivateClassifier(domain=(0, 999), labels=("no", "yes"), random_state=1)
    with pytest.warns(UtilityWarning, match="public points"):
        semi.fit(X[:2000], y[:2000], X_public=np.arange(0, 1000, 3))
    assert semi.privacy_unit_ == "labelled records" and abs(semi.hypothesis_ - 400) <= 20
    with pytest.raises(InvalidParameterError, match="concept"):
        LabelPrivateClassifier(domain=(0, 9), concept="boxes").fit([[1]], [0])
    with pytest.raises(DataError):
        LabelPrivateClassifier(domain=(0, 9)).fit([[1], [2]], [0, 5])


def test_cli_sanitize_and_query(tmp_path):
    X = _sanitizer_data()
    data = tmp_path / "d.csv"
    data.write_text("x\n" + "\n".join(str(v) for v in X) + "\n")
    runner = CliRunner()
    out = tmp_path / "s.json"
    common = ["--domain", "0:2**16-1", "--alpha", "0.5", "--delta", "1e-3", "--seed", "1"]
    res = runner.invoke(main, ["sanitize", "san-points", str(data), *common, "-o", str(out)])
    assert res.exit_code == 0, res.output
    assert json.loads(out.read_text())["model"] == "san-points"
    res = runner.invoke(main, ["query", str(out), "x==7", "x<=1000"])
    assert res.exit_code == 0 and "x==7\t0.5" in res.output and "outside the accuracy guarantee" in res.output
    csv = tmp_path / "s.csv"
    res = runner.invoke(main, ["sanitize", "san-points", str(data), *common, "--size", "25", "-o", str(csv)])
    assert res.exit_code == 0 and len(csv.read_text().splitlines()) == 26
    res = runner.invoke(main, ["sanitize", "san-points", str(data), "--domain", "0:2**16-1", "-o", str(out)])
    assert res.exit_code != 0 and "precondition" in res.output
    res = runner.invoke(main, ["sanitize", "nope", str(data), "--domain", "0:9", "-o", str(out)])
    assert res.exit_code != 0 and "unknown sanitizer" in res.output
    res = runner.invoke(main, ["query", str(out), "y<3"])
    assert res.exit_code != 0
