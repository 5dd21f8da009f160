"""Exact statistics on every engine: the same counts for any partitioning, the same model on Dask.

The Dask tests run on a real two-worker LocalCluster on 127.0.0.1 (processes, not threads).
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privpac.learners._sample import LabelledCounts
from privpac.sanitizers.database import CountedData

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")
pd = pytest.importorskip("pandas")
distributed = pytest.importorskip("distributed")

# One worker runs this module (pytest --dist loadgroup): one Dask cluster, not one per worker.
pytestmark = pytest.mark.xdist_group("dask-cluster")


def _split(n, cuts):
    edges = sorted({0, n, *[c % (n + 1) for c in cuts]})
    return list(zip(edges[:-1], edges[1:]))


@settings(max_examples=60, deadline=None, derandomize=True)
@given(
    st.lists(st.tuples(st.integers(0, 30), st.integers(0, 1)), min_size=1, max_size=60),
    st.lists(st.integers(0, 100), max_size=6),
    st.booleans(),
)
def test_merged_counts_equal_the_whole_for_any_partitioning(records, cuts, huge):
    offset = 2**70 if huge else 0  # Python ints beyond 64 bits stay exact
    idx = np.empty(len(records), dtype=object) if huge else np.zeros(len(records), dtype=np.int64)
    idx[:] = [v + offset for v, _ in records]
    y = np.array([label for _, label in records])
    size = 2**71 if huge else 31
    whole = LabelledCounts.from_sample(idx, y, size)
    parts = [LabelledCounts.from_sample(idx[a:b], y[a:b], size, allow_empty=True) for a, b in _split(len(idx), cuts)]
    merged = LabelledCounts.merge(parts, size)
    assert merged.values.tolist() == whole.values.tolist()
    assert merged.zeros.tolist() == whole.zeros.tolist() and merged.ones.tolist() == whole.ones.tolist()
    assert merged.n == len(records) and merged.n_ones == int(y.sum())
    counted = CountedData.merge([CountedData.from_indices(idx[a:b], size) for a, b in _split(len(idx), cuts)], size)
    assert counted.values.tolist() == whole.values.tolist()
    assert counted.counts.tolist() == (whole.zeros + whole.ones).tolist()


@pytest.fixture(scope="module")
def cluster():
    from distributed import Client, LocalCluster

    with (
        LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None
        ) as local,
        Client(local) as client,
    ):
        yield client


def _data(n=20000, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 2**40, n, dtype=np.int64)
    return x, (x > 3 * 2**38).astype(np.int64)


def _fits():
    from privpac.estimators import (
        PointSanitizer,
        PrivateHistogram,
        PrivateMedian,
        PrivatePointClassifier,
        PrivateThresholdClassifier,
    )

    dom = (0, 2**40)
    return {
        "threshold": (lambda: PrivateThresholdClassifier(domain=dom, random_state=5), True),
        "threshold-recconcave": (
            lambda: PrivateThresholdClassifier(domain=dom, method="recconcave", random_state=5),
            True,
        ),
        "threshold-above": (
            lambda: PrivateThresholdClassifier(domain=dom, method="exponential", orientation="above", random_state=5),
            True,
        ),
        "point": (lambda: PrivatePointClassifier(domain=dom, delta=1e-6, random_state=5), True),
        "point-em": (lambda: PrivatePointClassifier(domain=dom, method="exponential", random_state=5), True),
        "median": (lambda: PrivateMedian(domain=dom, random_state=5), False),
        "histogram": (lambda: PrivateHistogram(domain=(0, 2**40 - 1), n_bins=16, random_state=5), False),
        "san-points": (
            lambda: PointSanitizer(epsilon=1.0, delta=1e-6, alpha=0.5, domain=(0, 2**40), random_state=5),
            False,
        ),
    }


def _state(est):
    return est._fitted_state(), est.ledger_.lines(), est.n_samples_


@pytest.mark.parametrize("name", sorted(_fits()))
def test_every_engine_gives_the_same_model(cluster, name):
    """Bit-identical fitted state and ledger for a fixed random_state: the statistics are exact
    for every partitioning and all randomness is drawn on the driver, after the merge."""
    make, labelled = _fits()[name]
    x, y = _data()
    if name.startswith("point"):
        y = (x == x[7]).astype(np.int64)
        x[:3000] = x[7]  # a point with enough support to be released
    if name == "san-points":
        x = np.repeat(np.array([5, 7, 2**39], dtype=np.int64), 400000 // 3 + 1)
        y = np.zeros(x.size, dtype=np.int64)
    args = (x.reshape(-1, 1), y) if labelled else (x.reshape(-1, 1),)
    reference = _state(make().fit(*args))
    frame = pd.DataFrame({"x": x, "y": y})
    for chunks in (len(x), 4999, 1234):
        X = da.from_array(x.reshape(-1, 1), chunks=(chunks, 1))
        dask_args = (X, da.from_array(y, chunks=3000)) if labelled else (X,)
        assert _state(make().fit(*dask_args)) == reference, chunks
    df = dd.from_pandas(frame, npartitions=7)
    est = make().fit(df[["x"]], df["y"]) if labelled else make().fit(df[["x"]])
    assert _state(est) == reference
    assert list(est.feature_names_in_) == ["x"]


def test_predict_needs_memory(cluster):
    from privpac.estimators import PrivateThresholdClassifier

    x, y = _data(1000)
    X = da.from_array(x.reshape(-1, 1), chunks=(300, 1))
    clf = PrivateThresholdClassifier(domain=(0, 2**40), random_state=0).fit(X, y)
    assert clf.predict(x.reshape(-1, 1)).shape == (1000,)
    with pytest.raises(Exception, match="predict on NumPy or pandas"):
        clf.predict(X)


def test_bad_values_in_one_partition_are_reported(cluster):
    from privpac.errors import DomainError
    from privpac.estimators import PrivateThresholdClassifier

    x, y = _data(1000)
    x[900] = -5  # outside the public domain, in the last partition
    X = da.from_array(x.reshape(-1, 1), chunks=(300, 1))
    with pytest.raises(DomainError):
        PrivateThresholdClassifier(domain=(0, 2**40), random_state=0).fit(X, da.from_array(y, chunks=300))


def test_cli_fits_a_parquet_dataset_on_the_cluster(cluster, tmp_path):
    import json

    from click.testing import CliRunner

    from privpac.cli import main

    x, y = _data(5000)
    frame = pd.DataFrame({"x": x % 1001, "y": y})
    frame.to_csv(tmp_path / "d.csv", index=False)
    dd.from_pandas(frame, npartitions=4).to_parquet(tmp_path / "pq")
    runner = CliRunner()
    common = ["--label", "y", "--domain", "0:1000", "--seed", "3"]
    states = []
    for data, engine in (("d.csv", []), ("pq", ["--engine", "dask", "--scheduler", cluster.scheduler.address])):
        out = str(tmp_path / f"{data}.json")
        result = runner.invoke(main, ["fit", "threshold", str(tmp_path / data), *common, *engine, "-o", out])
        assert result.exit_code == 0, result.output
        states.append(json.loads((tmp_path / f"{data}.json").read_text())["state"])
    assert states[0] == states[1]
    result = runner.invoke(main, ["fit", "threshold", str(tmp_path / "pq"), *common, "-o", str(tmp_path / "m.json")])
    assert result.exit_code == 1 and "--engine dask" in result.output


def test_cli_median_and_sanitize_on_dask_match_memory(cluster, tmp_path):
    from click.testing import CliRunner

    from privpac.cli import main

    x, _ = _data(4000)
    frame = pd.DataFrame({"x": x % 256, "n": np.full(x.size, 100, dtype=np.int64)})
    frame.to_csv(tmp_path / "d.csv", index=False)
    dd.from_pandas(frame, npartitions=3).to_parquet(tmp_path / "pq")
    runner = CliRunner()
    dask = ["--engine", "dask", "--scheduler", cluster.scheduler.address]
    outputs = []
    for data, engine in (("d.csv", []), ("pq", dask)):
        result = runner.invoke(main, ["median", str(tmp_path / data), "--column", "x", "--domain", "0:255", *engine])
        assert result.exit_code == 0, result.output
        outputs.append(result.output)
    assert outputs[0].replace("\n", "") and outputs[0] != "" and outputs[0].count("median") >= 1
    sanitized = []
    for data, engine in (("d.csv", []), ("pq", dask)):
        out = tmp_path / f"{data}.json"
        args = ["sanitize", "san-points", str(tmp_path / data), "--column", "x", "--counts", "n", "--domain", "0:255"]
        result = runner.invoke(main, [*args, "--alpha", "0.5", "--seed", "2", *engine, "-o", str(out)])
        assert result.exit_code == 0, result.output
        sanitized.append(out.read_text())
    assert sanitized[0] == sanitized[1]
    result = runner.invoke(
        main, ["median", str(tmp_path / "pq"), "--column", "x", "--domain", "0:255", "--interior", *dask]
    )
    assert result.exit_code == 1 and "--engine memory" in result.output


# -- the practical halfspace learner: one gradient sum per step, summed over the partitions ------


def _margin_data(n=20000, d=8, seed=0):
    """Records in the box [-1, 1]^8 with labels of a fixed halfspace (continuous values)."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1.0, 1.0, (n, d))
    return X, (X @ np.arange(1.0, d + 1.0) > 0).astype(np.int64)


def _halfspace_cases():
    from privpac.estimators import PrivateHalfspaceClassifier

    practical = dict(margin=0.1, variant="practical", n_steps=3, random_state=5)  # a pass per step: few steps
    return {
        "box": lambda: PrivateHalfspaceClassifier(domain=(-1, 1), **practical),
        "intercept": lambda: PrivateHalfspaceClassifier(domain=(-1, 1), fit_intercept=True, **practical),
        "projected": lambda: PrivateHalfspaceClassifier(domain=3.0, projection_dim=4, **practical),
        # the default learner: clipped logistic gradient sums (few steps: one pass each)
        "logistic": lambda: PrivateHalfspaceClassifier(domain=(-1, 1), n_steps=6, random_state=5),
        "logistic-ball": lambda: PrivateHalfspaceClassifier(domain=3.0, margin=0.2, n_steps=6, random_state=5),
    }


def assert_same_halfspace(est, reference, atol=1e-8):
    """Equal up to float rounding of the partition sums (not bit for bit); the ledger is identical."""
    np.testing.assert_allclose(est.coef_, reference.coef_, rtol=0, atol=atol)
    np.testing.assert_allclose(est.projected_coef_, reference.projected_coef_, rtol=0, atol=atol)
    assert abs(est.intercept_ - reference.intercept_) <= atol
    assert est.ledger_.lines() == reference.ledger_.lines()
    assert est.privacy_spent_ == reference.privacy_spent_
    assert est.n_samples_ == reference.n_samples_ and est.n_features_in_ == reference.n_features_in_
    assert est.projection_seed_ == reference.projection_seed_ and est.details_ == reference.details_
    assert list(est.classes_) == list(reference.classes_)


@pytest.mark.parametrize("case", sorted(_halfspace_cases()))
def test_gradient_sum_halfspace_on_dask_agrees_with_memory(cluster, case):
    make = _halfspace_cases()[case]
    X, y = _margin_data()
    reference = make().fit(X, y)
    for chunks in (len(X), 4999, 1234):
        est = make().fit(da.from_array(X, chunks=(chunks, 8)), da.from_array(y, chunks=3000))
        assert_same_halfspace(est, reference)
    frame = dd.from_pandas(pd.DataFrame({**{f"x{j}": X[:, j] for j in range(8)}, "y": y}), npartitions=7)
    est = make().fit(frame[[f"x{j}" for j in range(8)]], frame["y"])
    assert_same_halfspace(est, reference)
    assert list(est.feature_names_in_) == [f"x{j}" for j in range(8)]
    named = pd.DataFrame(X, columns=[f"x{j}" for j in range(8)])
    assert np.mean(est.predict(named) == reference.predict(X)) > 0.999
    if case in ("box", "logistic"):
        assert np.mean(reference.predict(X) == y) > 0.9


def test_halfspace_on_dask_checks_every_block_before_spending(cluster):
    from privpac.accountant import BudgetAccountant
    from privpac.errors import DataError, DomainError
    from privpac.estimators import PrivateHalfspaceClassifier

    X, y = _margin_data(1000)
    X[900, 3] = 1.5  # outside the public box, in the last block
    accountant = BudgetAccountant()
    est = PrivateHalfspaceClassifier(domain=(-1, 1), margin=0.1, random_state=0, accountant=accountant)
    with pytest.raises(DomainError, match="feature 3"):
        est.fit(da.from_array(X, chunks=(300, 8)), da.from_array(y, chunks=300))
    assert accountant.spent == (0.0, 0.0) and len(accountant) == 0  # refused before any noise
    X[900, 3] = 0.5
    y[950] = 7  # outside the public label set
    with pytest.raises(DataError):
        est.fit(da.from_array(X, chunks=(300, 8)), da.from_array(y, chunks=300))
    assert accountant.spent == (0.0, 0.0)


def test_pure_halfspace_on_dask_is_the_in_memory_model(cluster):
    """The pure learner reads one vector of violation counts over its net: integer sums, so the
    fitted model is the in-memory one bit for bit, for any chunking (and a bad block is refused
    before anything is spent)."""
    from privpac.accountant import BudgetAccountant
    from privpac.errors import DomainError
    from privpac.estimators import PrivateHalfspaceClassifier

    X, y = _margin_data(3000, d=2)

    def make(**kw):
        return PrivateHalfspaceClassifier(domain=(-1, 1), margin=0.3, variant="pure", delta=0.0, random_state=4, **kw)

    for kw in ({}, {"fit_intercept": True}):
        reference = make(**kw).fit(X, y)
        assert np.mean(reference.predict(X) == y) > 0.8
        for chunks in (len(X), 1000, 777):
            est = make(**kw).fit(da.from_array(X, chunks=(chunks, 2)), da.from_array(y, chunks=500))
            assert est._fitted_state() == reference._fitted_state()
            assert est.ledger_.lines() == reference.ledger_.lines()
    X[2900, 1] = 1.5
    accountant = BudgetAccountant()
    with pytest.raises(DomainError, match="feature 1"):
        make(accountant=accountant).fit(da.from_array(X, chunks=(700, 2)), da.from_array(y, chunks=700))
    assert accountant.spent == (0.0, 0.0)


# -- the faithful and paper-literal variants: BST14's records gathered by position, the selection's
# total losses summed over the partitions ---------------------------------------------------------


def _faithful(variant, optimizer, **kw):
    from privpac.estimators import PrivateHalfspaceClassifier

    return lambda **more: PrivateHalfspaceClassifier(
        domain=(-1, 1), margin=0.3, variant=variant, optimizer=optimizer, n_steps=3, random_state=5, **kw, **more
    )


def _fit_quietly(est, *args):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the faithful variants warn about utility; paper-literal about privacy
        return est.fit(*args)


@pytest.mark.parametrize("optimizer", ["bst14", "dpgd"])
@pytest.mark.parametrize("variant", ["faithful", "paper-literal"])
def test_faithful_halfspace_on_dask_is_the_in_memory_model(cluster, variant, optimizer):
    """BST14 reads the records at positions drawn on the driver (one gather pass): without a
    projection the runs, the pick and so the model and ledger are the in-memory ones bit for bit.
    Noisy GD reads gradient sums: equal up to float rounding. Two chunkings (one uneven, with
    empty partitions) and a DataFrame."""
    X, y = _margin_data(40, d=3)
    make = _faithful(variant, optimizer)
    reference = _fit_quietly(make(), X, y)
    assert reference.details_["k"] == 7 and reference.details_["optimizer"] == optimizer
    frame = dd.from_pandas(pd.DataFrame({"x0": X[:, 0], "x1": X[:, 1], "x2": X[:, 2], "y": y}), npartitions=3)
    fits = [
        _fit_quietly(make(), da.from_array(X, chunks=(chunks, 3)), da.from_array(y, chunks=16))
        for chunks in ((40,), (7, 0, 20, 13, 0))
    ]
    fits.append(_fit_quietly(make(), frame[["x0", "x1", "x2"]], frame["y"]))
    for est in fits:
        if optimizer == "bst14":
            assert est._fitted_state() == reference._fitted_state()
            assert est.ledger_.lines() == reference.ledger_.lines()
        else:
            assert_same_halfspace(est, reference)


def test_faithful_halfspace_with_the_net_optimizer_on_dask_is_the_in_memory_model(cluster):
    """optimizer="net" (NUZ Algorithm 2 as the DP-ERM) reads integer violation counts: exact sums."""
    X, y = _margin_data(40, d=2)
    for variant in ("faithful", "paper-literal"):
        make = _faithful(variant, "net")
        reference = _fit_quietly(make(), X, y)
        est = _fit_quietly(make(), da.from_array(X, chunks=((11, 0, 29), 2)), da.from_array(y, chunks=16))
        assert est._fitted_state() == reference._fitted_state()
        assert est.ledger_.lines() == reference.ledger_.lines()


def test_faithful_halfspace_on_dask_with_a_projection_and_an_intercept(cluster):
    """With a projection the gathered records are projected on the driver, the in-memory ones all at
    once: the float32 products may differ in their last bits, so the model agrees to 1e-6 (here
    it is identical); the public intercept map runs in every block as in memory."""
    X, y = _margin_data(40, d=6)
    for kw in ({"projection_dim": 3}, {"fit_intercept": True}):
        make = _faithful("faithful", "bst14", **kw)
        reference = _fit_quietly(make(), X, y)
        est = _fit_quietly(make(), da.from_array(X, chunks=((11, 0, 29), 6)), da.from_array(y, chunks=16))
        assert_same_halfspace(est, reference, atol=1e-6)


def test_bst14_gathers_are_grouped_without_changing_the_draws(cluster, monkeypatch):
    """steps_per_pass groups whole chunks of draws into one gather: the number of passes changes,
    the draws (noise, then picks, chunk by chunk) and so the result do not."""
    from privpac.backends.dask_engine import DaskBackend
    from privpac.learners.dp_erm import MappedSample, MarginHingeLoss, noisy_sgd_bst14
    from privpac.learners.jl_projection import normalize_rows

    X, y = _margin_data(40, d=3)
    Z, labels = normalize_rows(X), 2.0 * y - 1.0
    loss = MarginHingeLoss(0.3)
    reference = noisy_sgd_bst14(Z, labels, loss, 1.0, 1e-6, runs=3, rng=9, chunk=100)
    calls = []
    original = DaskBackend.take_rows

    def counted(self, positions, *columns, **kw):
        calls.append(len(positions))
        return original(self, positions, *columns, **kw)

    monkeypatch.setattr(DaskBackend, "take_rows", counted)
    sample = MappedSample(
        DaskBackend(), da.from_array(Z, chunks=((9, 0, 31), 3)), da.from_array(labels, chunks=20), _pair, 40, 3
    )
    for per_pass, passes in ((100, 16), (300, 6), (None, 1)):
        calls.clear()
        W = noisy_sgd_bst14(
            None, None, loss, 1.0, 1e-6, runs=3, rng=9, chunk=100, sample=sample, steps_per_pass=per_pass
        )
        assert np.array_equal(W, reference) and len(calls) == passes, per_pass
        assert all(size <= 40 for size in calls)  # each distinct record travels once per pass


def _pair(Z, y):
    return np.asarray(Z, dtype=np.float64), np.asarray(y, dtype=np.float64)


def test_faithful_halfspace_on_dask_checks_every_block_before_spending(cluster):
    from privpac.accountant import BudgetAccountant
    from privpac.errors import DataError, DomainError

    X, y = _margin_data(40, d=3)
    X[38, 2] = 1.5  # outside the public box, in the last block
    for variant in ("faithful", "paper-literal"):
        accountant = BudgetAccountant()
        est = _faithful(variant, "bst14")(accountant=accountant)
        with pytest.raises(DomainError, match="feature 2"):
            _fit_quietly(est, da.from_array(X, chunks=(15, 3)), da.from_array(y, chunks=15))
        assert accountant.spent == (0.0, 0.0) and len(accountant) == 0  # refused before any noise
    X[38, 2] = 0.5
    y[39] = 7  # outside the public label set
    accountant = BudgetAccountant()
    with pytest.raises(DataError):
        _fit_quietly(_faithful("faithful", "dpgd")(accountant=accountant), da.from_array(X, chunks=(15, 3)), y)
    assert accountant.spent == (0.0, 0.0)


def test_a_gather_by_value_is_caught(cluster, monkeypatch):
    """A mutant gather that returns the rows asked for in the order of their values, not of the
    positions, gives another model: the agreement with the in-memory fit above pins the positions."""
    from privpac.backends.dask_engine import DaskBackend

    X, y = _margin_data(40, d=3)
    make = _faithful("faithful", "bst14")
    reference = _fit_quietly(make(), X, y)
    original = DaskBackend.take_rows

    def sorted_rows(self, positions, *columns, **kw):  # the rows asked for, put in the order of their values
        X_rows, y_rows = original(self, positions, *columns, **kw)
        order = np.argsort(np.asarray(X_rows)[:, 0], kind="stable")
        return np.asarray(X_rows)[order], np.asarray(y_rows)[order]

    monkeypatch.setattr(DaskBackend, "take_rows", sorted_rows)
    est = _fit_quietly(make(), da.from_array(X, chunks=(15, 3)), da.from_array(y, chunks=15))
    assert est._fitted_state() != reference._fitted_state()


def test_cli_fits_the_halfspace_classifier_on_the_cluster(cluster, tmp_path):
    import json

    from click.testing import CliRunner

    from privpac.cli import main

    X, y = _margin_data(4000)
    frame = pd.DataFrame({**{f"x{j}": X[:, j] for j in range(8)}, "y": y})
    frame.to_csv(tmp_path / "d.csv", index=False)
    dd.from_pandas(frame, npartitions=4).to_parquet(tmp_path / "pq")
    runner = CliRunner()
    common = ["--label", "y", "--domain", "-1:1", "--seed", "3", "--set", "n_steps=20", "--delta", "1e-9"]
    coefs = []
    for data, engine in (("d.csv", []), ("pq", ["--engine", "dask", "--scheduler", cluster.scheduler.address])):
        out = tmp_path / f"{data}.json"
        result = runner.invoke(
            main, ["fit", "halfspace-margin", str(tmp_path / data), *common, *engine, "-o", str(out)]
        )
        assert result.exit_code == 0, result.output
        coefs.append(json.loads(out.read_text())["state"]["coef"])
    np.testing.assert_allclose(coefs[1], coefs[0], rtol=0, atol=1e-8)


def test_cli_fits_the_faithful_halfspace_classifier_on_the_cluster(cluster, tmp_path):
    import json

    from click.testing import CliRunner

    from privpac.cli import main

    X, y = _margin_data(40, d=3)
    frame = pd.DataFrame({"x0": X[:, 0], "x1": X[:, 1], "x2": X[:, 2], "y": y})
    frame.to_csv(tmp_path / "d.csv", index=False)
    dd.from_pandas(frame, npartitions=3).to_parquet(tmp_path / "pq")
    common = ["--label", "y", "--domain", "-1:1", "--seed", "3", "--set", "margin=0.3", "--set", "variant=faithful"]
    states = []
    for data, engine in (("d.csv", []), ("pq", ["--engine", "dask", "--scheduler", cluster.scheduler.address])):
        out = tmp_path / f"{data}.json"
        result = CliRunner().invoke(
            main, ["fit", "halfspace-margin", str(tmp_path / data), *common, *engine, "-o", str(out)]
        )
        assert result.exit_code == 0, result.output
        states.append(json.loads(out.read_text())["state"])
    assert states[1] == states[0] and states[0]["details"]["variant"] == "faithful"


# -- row positions: map_merge_rows and map_chunks (sample-and-aggregate by row position) ---------


def _chunk_summary(X_chunk, y_chunk):
    x = np.asarray(X_chunk).ravel()
    return int(x.sum()), int(np.asarray(y_chunk).sum()), int(x.size), int(x[0]) if x.size else None


@pytest.mark.parametrize("chunk_size", [1, 37, 1000, 2500])
def test_map_chunks_by_row_position_equals_the_in_memory_chunks(cluster, chunk_size):
    """Chunks of consecutive rows, straddling uneven partitions, assembled exactly and in order."""
    from privpac.backends.dask_engine import DaskBackend
    from privpac.backends.memory import NumpyBackend
    from privpac.backends.rows import chunk_bounds

    x, y = _data(2000)
    expected = [_chunk_summary(x[a:b], y[a:b]) for a, b in chunk_bounds(chunk_size, 2000)]
    assert NumpyBackend().map_chunks(_chunk_summary, chunk_size, 2000, x.reshape(-1, 1), y) == expected
    for chunks in ((2000,), (3, 997, 1, 999), (100,) * 20, (0, 1500, 0, 500)):
        X = da.from_array(x.reshape(-1, 1), chunks=(chunks, 1))
        got = DaskBackend().map_chunks(_chunk_summary, chunk_size, 2000, X, da.from_array(y, chunks=700))
        assert got == expected, chunks
    df = dd.from_pandas(pd.DataFrame({"x": x, "y": y}), npartitions=7)
    assert DaskBackend().map_chunks(_chunk_summary, chunk_size, 2000, df[["x"]], df["y"]) == expected
    with pytest.raises(Exception, match="not the 1999 announced"):
        DaskBackend().map_chunks(_chunk_summary, chunk_size, 1999, df[["x"]], df["y"])


def test_take_rows_gathers_the_rows_at_the_positions_asked_for(cluster):
    """In the order asked, with repeats, across uneven and empty partitions; the offsets of one
    count pass may be reused; positions outside the data and a partition that changed are refused."""
    from privpac.backends.dask_engine import DaskBackend
    from privpac.backends.memory import NumpyBackend
    from privpac.errors import DataError

    x, y = _data(2000)
    positions = np.array([5, 1999, 0, 5, 700, 1000, 999, 1000, 1500, 1500])
    expected_x, expected_y = x[positions], y[positions]
    got = NumpyBackend().take_rows(positions, x.reshape(-1, 1), y)
    assert np.array_equal(got[0].ravel(), expected_x) and np.array_equal(got[1], expected_y)
    assert NumpyBackend().take_rows(positions, x.reshape(-1, 1), None)[1] is None
    df = dd.from_pandas(pd.DataFrame({"x": x, "y": y}), npartitions=7)
    for chunks in ((2000,), (3, 997, 1, 999), (0, 1500, 0, 500)):
        X = da.from_array(x.reshape(-1, 1), chunks=(chunks, 1))
        Xr, yr = DaskBackend().take_rows(positions, X, da.from_array(y, chunks=700))
        assert np.array_equal(Xr.ravel(), expected_x) and np.array_equal(yr, expected_y), chunks
    offsets = DaskBackend().row_offsets(df[["x"]], df["y"])
    assert offsets[0] == 0 and offsets[-1] == 2000 and len(offsets) == 8
    for kw in ({}, {"offsets": offsets}):
        Xr, yr = DaskBackend().take_rows(positions, df[["x"]], df["y"], **kw)
        assert (
            list(Xr.columns) == ["x"] and Xr["x"].tolist() == expected_x.tolist() and yr.tolist() == expected_y.tolist()
        )
    Xr, yr = DaskBackend().take_rows(np.array([], dtype=np.int64), df[["x"]], df["y"])
    assert len(Xr) == 0 and len(yr) == 0
    for bad in ([2000], [-1]):
        with pytest.raises(DataError, match="must lie in \\[0, 2000\\)"):
            DaskBackend().take_rows(np.array(bad), df[["x"]], df["y"])
    moved = [0, 1, *offsets[2:]]  # the first partition no longer has the length of the offsets
    with pytest.raises(DataError, match="changed between passes"):
        DaskBackend().take_rows(np.array([0, 3]), df[["x"]], df["y"], offsets=moved)
    with pytest.raises(DataError, match="partition offsets"):
        DaskBackend().take_rows(positions, df[["x"]], df["y"], offsets=[0, 2000])


def test_map_merge_rows_gives_every_block_its_position(cluster):
    from privpac.backends.dask_engine import DaskBackend
    from privpac.backends.memory import NumpyBackend
    from privpac.errors import DataError

    x, y = _data(1000)

    def kernel(start, X_block, y_block):  # the block's rows are at start .. start + len - 1
        return [(start, np.asarray(X_block).ravel().tolist())]

    def merge(parts):
        return sorted(p for part in parts for p in part)

    X = da.from_array(x.reshape(-1, 1), chunks=((3, 400, 597), 1))
    blocks = DaskBackend().map_merge_rows(kernel, merge, X, None)
    assert [s for s, _ in blocks] == [0, 3, 403]
    assert [v for _, b in blocks for v in b] == x.tolist()
    # offsets counted once serve a sequence of passes; offsets of other blocks are refused
    offsets = DaskBackend().row_offsets(X, None)
    assert offsets == [0, 3, 403, 1000]
    assert DaskBackend().map_merge_rows(kernel, merge, X, None, offsets=offsets) == blocks
    with pytest.raises(DataError, match="changed between passes"):
        DaskBackend().map_merge_rows(kernel, merge, X, None, offsets=[0, 4, 403, 1000])
    with pytest.raises(DataError, match="partition offsets"):
        DaskBackend().map_merge_rows(kernel, merge, X, None, offsets=[0, 1000])
    assert NumpyBackend().map_merge_rows(kernel, merge, x, None, offsets=[0, 1000]) == [(0, x.tolist())]
    with pytest.raises(DataError, match="changed between passes"):
        NumpyBackend().map_merge_rows(kernel, merge, x, None, offsets=[0, 999])


def _box_data(n=20000, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2**20, size=(n, 2), dtype=np.int64)
    return X, (X.max(axis=1) < 3 * 2**18).astype(np.int64)


def _engine_fits():
    from privpac.estimators import LabelPrivateClassifier, PrivateRectangleClassifier

    box = dict(domain=(0, 2**20 - 1), random_state=5)
    lp = dict(domain=(0, 2**40), random_state=5, n_unlabelled=1500)
    return {
        "rectangle-randmargins": lambda: PrivateRectangleClassifier(**box),
        "rectangle-randmargins-orthant": lambda: PrivateRectangleClassifier(shape="orthant", tie_break_bits=4, **box),
        "rectangle-composition": lambda: PrivateRectangleClassifier(method="composition", **box),
        "rectangle-composition-recconcave": lambda: PrivateRectangleClassifier(
            method="composition", interior_point="recconcave", **box
        ),
        "label-private-thresholds": lambda: LabelPrivateClassifier(concept="thresholds", **lp),
        "label-private-points": lambda: LabelPrivateClassifier(concept="points", **lp),
    }


@pytest.mark.parametrize("name", sorted(_engine_fits()))
def test_rectangles_and_label_private_give_the_same_model_on_dask(cluster, name):
    """Bit-identical fitted state and ledger: the composition baseline reads the positives' top
    keys per direction, the label-private learner the distinct features of the first n rows and
    the candidates' scores, all exact and merged; the noise is drawn once on the driver."""
    import warnings

    make = _engine_fits()[name]
    if name.startswith("rectangle"):
        X, y = _box_data()
    else:
        x, y = _data()
        X = x.reshape(-1, 1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reference = _state(make().fit(X, y))
        for chunks in (len(X), 4999, 1234):
            est = make().fit(da.from_array(X, chunks=(chunks, -1)), da.from_array(y, chunks=3000))
            assert _state(est) == reference, chunks
        names = [f"x{j}" for j in range(X.shape[1])]
        df = dd.from_pandas(pd.DataFrame({**{c: X[:, j] for j, c in enumerate(names)}, "y": y}), npartitions=7)
        est = make().fit(df[names], df["y"])
        assert _state(est) == reference and list(est.feature_names_in_) == names
        if name.startswith("label-private"):  # the semi-private learner: candidates from public points
            public = np.arange(0, 2**40, 2**29)
            reference = _state(make().fit(X, y, X_public=public))
            assert _state(make().fit(df[names], df["y"], X_public=public)) == reference


@pytest.mark.parametrize("model", ["label-private", "threshold", "point"])
def test_an_empty_partition_is_read_as_no_records(cluster, model):
    """A labelled one-dimensional sample with an empty block gives the in-memory model (the block's
    labels are not checked as a sample of their own: an empty partition holds no records)."""
    from privpac.estimators import LabelPrivateClassifier, PrivatePointClassifier, PrivateThresholdClassifier

    make = {
        "label-private": lambda: LabelPrivateClassifier(domain=(0, 999), n_unlabelled=500, random_state=1),
        "threshold": lambda: PrivateThresholdClassifier(domain=(0, 999), method="exponential", random_state=1),
        "point": lambda: PrivatePointClassifier(domain=(0, 999), method="exponential", random_state=1),
    }[model]
    x = np.random.default_rng(0).integers(0, 1000, 3000)
    y = (x > 400).astype(np.int64)
    blocks = (0, 1000, 2000)
    est = make().fit(da.from_array(x.reshape(-1, 1), chunks=(blocks, (1,))), da.from_array(y, chunks=(blocks,)))
    assert _state(est) == _state(make().fit(x.reshape(-1, 1), y))


def test_bns_rectangles_with_counts_on_dask():
    """Theorem-size data held as multiplicities: the per-axis counts merged across blocks."""
    from privpac.estimators import PrivateRectangleClassifier

    X = np.tile(np.array([[3, 5], [7, 9], [12, 1]], dtype=np.int64), (10, 1))
    y = np.tile(np.array([1, 1, 0]), 10)
    counts = np.tile(np.array([5 * 10**9, 5 * 10**9, 10**9], dtype=np.int64), 10)
    make = lambda: PrivateRectangleClassifier(domain=(0, 15), method="bns", random_state=4)  # noqa: E731
    reference = _state(make().fit(X, y, counts=counts))
    for chunks in (30, 7, 4):
        est = make().fit(da.from_array(X, chunks=(chunks, 2)), da.from_array(y, chunks=5), counts=counts)
        assert _state(est) == reference, chunks
    assert reference[2] == int(counts.sum())


def test_randmargins_on_dask_checks_every_block_before_spending(cluster):
    """RandMargins reads one window per round (an alive count and the top keys, the deletions
    replayed where the rows live); the count pass before it checks every record, so a bad value
    in the last block is refused with nothing spent."""
    from privpac.accountant import BudgetAccountant
    from privpac.errors import DomainError
    from privpac.estimators import PrivateRectangleClassifier

    X, y = _box_data(1000)
    X[950, 1] = 2**20  # outside the public domain, in the last block
    accountant = BudgetAccountant(epsilon=10.0, delta=1e-3)
    with pytest.raises(DomainError):
        PrivateRectangleClassifier(domain=(0, 2**20 - 1), accountant=accountant).fit(
            da.from_array(X, chunks=(300, 2)), da.from_array(y, chunks=300)
        )
    assert accountant.spent == (0.0, 0.0) and accountant.reserved == (0.0, 0.0)


def test_label_private_on_dask_ignores_the_labels_of_the_first_n_rows(cluster):
    """The first n rows by position give the candidates from their features only: flipping their
    labels leaves the fit unchanged, flipping one label after them changes the scores it reads."""
    import warnings

    from privpac.estimators import LabelPrivateClassifier

    x, y = _data(6000)
    make = lambda: LabelPrivateClassifier(domain=(0, 2**40), n_unlabelled=2500, random_state=7)  # noqa: E731
    flipped = y.copy()
    flipped[:2500] = 1 - flipped[:2500]
    X = da.from_array(x.reshape(-1, 1), chunks=((1000, 1499, 2, 3499), 1))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fits = [make().fit(X, da.from_array(labels, chunks=1000)) for labels in (y, flipped)]
        assert _state(fits[0]) == _state(fits[1]) == _state(make().fit(x.reshape(-1, 1), y))
        from privpac.backends.dask_engine import DaskBackend
        from privpac.estimators.label_private import _scores
        from privpac.learners.concept_classes import Thresholds

        domain, cls = fits[0].domain_, Thresholds(2**40 + 1)
        H = [0, int(x[2500]) + 1, 2**40]
        changed = y.copy()
        changed[2500] = 1 - changed[2500]
        scores = [
            _scores(DaskBackend(), domain, (0, 1), X, da.from_array(labels, chunks=1000), cls, H, skip=2500)
            for labels in (y, changed)
        ]
        assert scores[0].tolist() == cls.scores(H, x[2500:], y[2500:]).tolist()
        assert np.abs(scores[0] - scores[1]).tolist() == [1, 1, 1]


def test_cli_fits_the_composition_box_on_the_cluster(cluster, tmp_path):
    import json

    from click.testing import CliRunner

    from privpac.cli import main

    X, y = _box_data(5000)
    frame = pd.DataFrame({"x0": X[:, 0], "x1": X[:, 1], "y": y})
    frame.to_csv(tmp_path / "d.csv", index=False)
    dd.from_pandas(frame, npartitions=4).to_parquet(tmp_path / "pq")
    common = ["--label", "y", "--domain", f"0:{2**20 - 1}", "--seed", "3", "--set", "method=composition"]
    states = []
    for data, engine in (("d.csv", []), ("pq", ["--engine", "dask", "--scheduler", cluster.scheduler.address])):
        out = str(tmp_path / f"{data}.json")
        result = CliRunner().invoke(main, ["fit", "rectangle", str(tmp_path / data), *common, *engine, "-o", out])
        assert result.exit_code == 0, result.output
        states.append(json.loads((tmp_path / f"{data}.json").read_text())["state"])
    assert states[0] == states[1]


@pytest.mark.parametrize("stop", [0, 1, 999, 1998, 2000])
def test_map_chunks_stops_at_a_public_prefix(cluster, stop):
    """``stop``: only the rows before it are chunked, on uneven and empty partitions alike."""
    from privpac.backends.dask_engine import DaskBackend
    from privpac.backends.memory import NumpyBackend
    from privpac.backends.rows import chunk_bounds

    x, y = _data(2000)
    expected = [_chunk_summary(x[a:b], y[a:b]) for a, b in chunk_bounds(37, stop)]
    assert NumpyBackend().map_chunks(_chunk_summary, 37, 2000, x.reshape(-1, 1), y, stop=stop) == expected
    for chunks in ((3, 997, 1, 999), (0, 1500, 0, 500)):
        X = da.from_array(x.reshape(-1, 1), chunks=(chunks, 1))
        got = DaskBackend().map_chunks(_chunk_summary, 37, 2000, X, da.from_array(y, chunks=700), stop=stop)
        assert got == expected, chunks
    with pytest.raises(Exception, match="stop"):
        NumpyBackend().map_chunks(_chunk_summary, 37, 2000, x.reshape(-1, 1), y, stop=2001)


# -- the geometric estimators: chunk points where the data lives, or the rows to the driver --------


def _geometric_data(name):
    """A tiny sample for each geometric estimator: (features, second column or None)."""
    rng = np.random.default_rng(3)
    if name.startswith("tukey"):
        d = 2 if name == "tukey-2d" else 1
        X = rng.integers(-4, 5, size=(600 if d == 2 else 3000, d))
        return X, (X @ np.arange(1, d + 1) >= 1).astype(np.int64)
    if name == "center-point":
        return rng.integers(-3, 4, size=(500, 2)), None
    if name == "linear-feasibility":
        return np.array([[1, 0], [0, 1], [-1, -1]] * 100), np.array([0, 0, -2] * 100)
    if name == "linear-feasibility-candidates":  # D = 4, beyond the exact oracle
        A = rng.integers(-2, 3, size=(300, 4))
        return A, np.clip(A @ np.array([1, 0, -1, 1]), -2, 2)
    if name == "halfspace-feasibility-candidates":  # d = 2 on [-8, 8]^2
        X = rng.integers(-8, 9, size=(400, 2))
        return X, (X @ np.array([1, -2]) >= 1).astype(np.int64)
    X = np.arange(-8, 9).repeat(20).reshape(-1, 1)
    return X, (X[:, 0] >= 3).astype(np.int64)


def _geometric_fits():
    from privpac.estimators import (
        PrivateCenterPoint,
        PrivateFeasibilityHalfspaceClassifier,
        PrivateLinearFeasibility,
        PrivateTukeyHalfspaceClassifier,
    )

    return {
        "tukey": lambda: PrivateTukeyHalfspaceClassifier(domain=4, random_state=5),
        "tukey-2d": lambda: PrivateTukeyHalfspaceClassifier(domain=4, n_chunks=12, random_state=5),
        "center-point": lambda: PrivateCenterPoint(domain=3, random_state=5),
        "linear-feasibility": lambda: PrivateLinearFeasibility(domain=2, random_state=5),
        "halfspace-feasibility": lambda: PrivateFeasibilityHalfspaceClassifier(epsilon=5.0, domain=8, random_state=5),
        "halfspace-feasibility-pac": lambda: PrivateFeasibilityHalfspaceClassifier(
            epsilon=5.0, domain=8, learner="pac", dual="paper", random_state=5
        ),
        # over public candidates the records stay in their partitions: one pass sums the candidate depths
        "linear-feasibility-candidates": lambda: PrivateLinearFeasibility(
            domain=2, candidates=300, candidate_bound=1, random_state=5
        ),
        "halfspace-feasibility-candidates": lambda: PrivateFeasibilityHalfspaceClassifier(
            epsilon=5.0, domain=8, candidates=300, random_state=5
        ),
    }


def _fit(make, X, y):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return make().fit(X) if y is None else make().fit(X, y)


@pytest.mark.parametrize("name", sorted(_geometric_fits()))
def test_geometric_estimators_give_the_same_model_on_dask(cluster, name, monkeypatch):
    """Bit-identical fitted state and ledger: the Tukey classifier's chunk points are exact integers
    computed where the chunks live; the exact learners run on the same rows in the same order."""
    import privpac.learners.halfspace_tukey as lht

    make = _geometric_fits()[name]
    X, y = _geometric_data(name)
    reference = _state(_fit(make, X, y))
    if name.startswith("tukey"):  # groups of whole chunks that straddle the partitions
        monkeypatch.setattr(lht, "GROUP_ROWS", 3 * reference[0]["chunk_size"] + 1)
    n = len(X)
    for chunks in ((n // 3, 1, 0, n - n // 3 - 1), 97):
        Xd = da.from_array(X, chunks=(chunks, -1))
        yd = None if y is None else da.from_array(y, chunks=50)
        assert _state(_fit(make, Xd, yd)) == reference, chunks
    names = [f"x{j}" for j in range(X.shape[1])]
    frame = pd.DataFrame({c: X[:, j] for j, c in enumerate(names)})
    if y is not None:
        frame["y"] = y
    df = dd.from_pandas(frame, npartitions=7)
    est = _fit(make, df[names], None if y is None else df["y"])
    assert _state(est) == reference and list(est.feature_names_in_) == names


@pytest.mark.parametrize("name", ["linear-feasibility-candidates", "halfspace-feasibility-candidates"])
def test_candidate_fits_never_bring_records_to_the_driver(cluster, name, monkeypatch):
    """Over public candidates only the candidates' depths travel: a collecting pass fails the fit."""
    from privpac.backends.dask_engine import DaskBackend

    def collect(*args, **kwargs):
        raise AssertionError("records were brought to the driver")

    monkeypatch.setattr(DaskBackend, "map_chunks", collect)
    X, y = _geometric_data(name)
    est = _fit(_geometric_fits()[name], da.from_array(X, chunks=(97, -1)), da.from_array(y, chunks=97))
    assert est.n_samples_ == len(X)


def test_tukey_chunk_points_on_dask_equal_the_in_memory_chunks(cluster, monkeypatch):
    """Only the chunk points travel: H0 from the engine equals the in-memory scan of every chunk,
    the dropped tail included (it reaches no kernel)."""
    import privpac.learners.halfspace_tukey as lht

    X, y = _geometric_data("tukey")
    X[-1, 0] = 4  # the dropped tail differs: no effect on the chunk points
    plan = lht.plan_learn_halfspace(len(X), 1, 4, 1.0, n_chunks=40)
    expected = lht.chunk_halfspaces(X, y, 40, 4)
    monkeypatch.setattr(lht, "GROUP_ROWS", 2 * plan.chunk_size + 3)
    Xd = da.from_array(X, chunks=((1000, 0, 7, 1993), 1))
    yd = da.from_array(y, chunks=300)
    assert np.array_equal(lht.sample_chunk_points(Xd, yd, plan), expected)
    assert np.array_equal(lht.sample_chunk_points(X, y, plan), expected)
    from privpac.backends.dask_engine import DaskBackend

    original = DaskBackend.map_chunks

    def by_value(self, kernel, *args, **kwargs):  # a mutant: chunks formed from sorted values
        def sorted_kernel(X_rows, y_rows):
            order = np.argsort(np.asarray(X_rows)[:, 0], kind="stable")
            return kernel(np.asarray(X_rows)[order], np.asarray(y_rows)[order])

        return original(self, sorted_kernel, *args, **kwargs)

    monkeypatch.setattr(DaskBackend, "map_chunks", by_value)
    assert not np.array_equal(lht.sample_chunk_points(Xd, yd, plan), expected)  # the check above catches it


@pytest.mark.parametrize("name", ["tukey", "center-point", "halfspace-feasibility", "halfspace-feasibility-candidates"])
def test_geometric_estimators_report_a_bad_value_as_in_memory(cluster, name):
    from privpac.accountant import BudgetAccountant

    make = _geometric_fits()[name]
    X, y = _geometric_data(name)
    X = X.astype(np.float64)
    for row, value in ((len(X) - 5, 9.0), (len(X) // 2, 0.5)):  # outside the domain; not an integer
        bad = X.copy()
        bad[row, 0] = value
        with pytest.raises(Exception) as in_memory:
            _fit(make, bad, y)
        accountant = BudgetAccountant()
        with pytest.raises(type(in_memory.value)) as on_dask:
            est = make().set_params(accountant=accountant)
            args = (da.from_array(bad, chunks=(97, -1)),) + (() if y is None else (da.from_array(y, chunks=97),))
            est.fit(*args)
        assert str(on_dask.value) == str(in_memory.value)
        assert f"X[{row}, 0]" in str(on_dask.value) and accountant.spent == (0.0, 0.0)


def _refused_above_the_envelope():
    """Engine samples just above an estimator's envelope (tiny: the two engine caps are lowered in
    the test), with the error each raises."""
    from privpac.learners.center_point import MAX_POINTS_3D_SOLID
    from privpac.learners.linear_feasibility import MAX_CONSTRAINTS_3D

    rng = np.random.default_rng(0)
    return {
        "center-point": (rng.integers(-3, 4, size=(MAX_POINTS_3D_SOLID + 1, 3)), None, "MAX_POINTS_3D_SOLID"),
        "center-point-2d": (rng.integers(-3, 4, size=(41, 2)), None, "ENGINE_MAX_POINTS\\[2\\] = 40"),
        "linear-feasibility": (
            rng.integers(-2, 3, size=(MAX_CONSTRAINTS_3D + 1, 3)),
            rng.integers(-2, 3, MAX_CONSTRAINTS_3D + 1),
            f"exact up to m = {MAX_CONSTRAINTS_3D} constraints",
        ),
        "linear-feasibility-2d": (rng.integers(-2, 3, (41, 2)), rng.integers(-2, 3, 41), "CONSTRAINTS\\[2\\] = 40"),
        "halfspace-feasibility": (rng.integers(-8, 9, (41, 1)), rng.integers(0, 2, 41), "CONSTRAINTS\\[2\\] = 40"),
    }


@pytest.fixture
def small_engine_caps(monkeypatch):
    import privpac.estimators.center_point as cp
    import privpac.estimators.linear_feasibility as lf

    monkeypatch.setattr(cp, "ENGINE_MAX_POINTS", {1: 40, 2: 40})
    monkeypatch.setattr(lf, "ENGINE_MAX_CONSTRAINTS", {1: 40, 2: 40})


@pytest.mark.parametrize("name", sorted(_refused_above_the_envelope()))
def test_above_the_envelope_engine_data_is_refused_before_collection(cluster, name, monkeypatch, small_engine_caps):
    """The count comes first and the refusal before any row leaves its partition: collecting
    (map_chunks) raises in this test, and nothing is spent."""
    from privpac.accountant import BudgetAccountant
    from privpac.backends.dask_engine import DaskBackend
    from privpac.errors import InvalidParameterError
    from privpac.estimators import PrivateCenterPoint, PrivateFeasibilityHalfspaceClassifier, PrivateLinearFeasibility

    def collect(*args, **kwargs):
        raise AssertionError("the rows were collected before the envelope was checked")

    monkeypatch.setattr(DaskBackend, "map_chunks", collect)
    X, y, message = _refused_above_the_envelope()[name]
    accountant = BudgetAccountant()
    make = {
        "center-point": lambda: PrivateCenterPoint(domain=3, accountant=accountant),
        "linear-feasibility": lambda: PrivateLinearFeasibility(domain=2, accountant=accountant),
        "halfspace-feasibility": lambda: PrivateFeasibilityHalfspaceClassifier(domain=8, accountant=accountant),
    }[name.removesuffix("-2d")]
    args = (da.from_array(X, chunks=(13, -1)),) + (() if y is None else (da.from_array(y, chunks=13),))
    with pytest.raises(InvalidParameterError, match=message):
        make().fit(*args)
    assert accountant.spent == (0.0, 0.0) and accountant.reserved == (0.0, 0.0)
    with pytest.raises(AssertionError, match="collected"):  # within the envelope, the rows are collected
        make().fit(*(a[:40] for a in args))


def test_cli_fits_the_grid_halfspace_classifiers_and_the_center_point_on_the_cluster(cluster, tmp_path):
    import json

    from click.testing import CliRunner

    from privpac.cli import main

    X, y = _geometric_data("tukey")
    frame = pd.DataFrame({"x": X[:, 0], "y": y})
    frame.to_csv(tmp_path / "d.csv", index=False)
    dd.from_pandas(frame, npartitions=4).to_parquet(tmp_path / "pq")
    dask = ["--engine", "dask", "--scheduler", cluster.scheduler.address]
    runner = CliRunner()
    for model in ("halfspace-tukey", "halfspace-feasibility"):
        states = []
        for data, engine in (("d.csv", []), ("pq", dask)):
            out = str(tmp_path / f"{model}-{data}.json")
            args = ["fit", model, str(tmp_path / data), "--label", "y", "--domain", "-4:4", "--seed", "3"]
            result = runner.invoke(main, [*args, "--epsilon", "5", *engine, "-o", out])
            assert result.exit_code == 0, result.output
            states.append(json.loads((tmp_path / f"{model}-{data}.json").read_text())["state"])
        assert states[0] == states[1], model
    points = pd.DataFrame(_geometric_data("center-point")[0], columns=["a", "b"])
    points.to_csv(tmp_path / "p.csv", index=False)
    dd.from_pandas(points, npartitions=3).to_parquet(tmp_path / "ppq")
    outputs = []
    for data, engine in (("p.csv", []), ("ppq", dask)):
        result = runner.invoke(main, ["centerpoint", str(tmp_path / data), "--domain", "-3:3", "--seed", "4", *engine])
        assert result.exit_code == 0, result.output
        outputs.append(result.output)
    assert outputs[0] == outputs[1] and "private center point of (a, b)" in outputs[0]


@pytest.mark.parametrize("fan_out", [4, 4096])
def test_keyed_range_statistics_on_dask_are_the_in_memory_bits(cluster, fan_out):
    """The range statistics of a grouped exponential mechanism: each key's exact counts merged on the
    workers, the local sums computed there, the same bits as in memory for any chunking."""
    from privpac.domains import IntegerDomain
    from privpac.estimators._one_d import labelled_ranges_of
    from privpac.mechanisms.base2 import exp_base
    from privpac.mechanisms.exponential_grouped import grouping_widths, range_edges

    x, y = _data(5000, seed=2)
    x[:700] = x[3]  # a value shared by every chunk
    domain = IntegerDomain(0, 2**40)
    width = grouping_widths(2**40 + 1, fan_out)[0]
    edges = range_edges(0, 2**40 + 1, width)

    def stats(sample):
        st = sample.range_stats(edges, ("plus", "minus", "spike"), exp_base(0.8))
        local = [st.local[k].exponent.tobytes() + st.local[k].mantissa.tobytes() for k in sorted(st.local)]
        return st.zeros.tolist(), st.ones.tolist(), st.below, local

    reference = stats(labelled_ranges_of(domain, (0, 1), x.reshape(-1, 1), y))
    for chunks in (1234, 5000):
        X = da.from_array(x.reshape(-1, 1), chunks=(chunks, 1))
        assert stats(labelled_ranges_of(domain, (0, 1), X, da.from_array(y, chunks=700))) == reference


@pytest.mark.parametrize(
    "domain, n, flat",
    [((0, 63), 300, True), ((0, 2**64 - 1), 50, True), ((0, 2**64 - 1), 300, False)],
    ids=["domain-within-budget", "records-within-budget", "neither"],
)
def test_engine_passes_follow_public_sizes(cluster, monkeypatch, domain, n, flat):
    """The records are read and counted once. On a domain within the driver's budget, by the count
    pass, which brings the counts. Otherwise their counts are held on the workers before the
    count pass, which reads the held counts and brings the label totals, and the counts too when
    min(n, |X|) is within the driver's budget (the flat draw: one pass in all); else the
    range-by-range draw, one pass per level, every level reading the held counts. Public sizes
    decide (the budget is made small here), and the model is the in-memory one."""
    import privpac.learners.exponential as em
    from privpac.backends.dask_engine import DaskBackend, HeldBlocks
    from privpac.estimators import PrivateThresholdClassifier
    from privpac.learners._sample import LabelledCounts

    monkeypatch.setattr(em, "FLAT_MAX_RECORDS", 64)
    rng = np.random.default_rng(2)
    x = rng.integers(domain[0], domain[1], n, dtype=np.uint64, endpoint=True)
    y = (x > domain[1] // 3).astype(np.int64)
    passes, brought, holds, read = [], [], [], []
    original = DaskBackend.map_merge, DaskBackend.map_merge_keyed, DaskBackend.hold_blocks

    totals = []

    def merged(self, kernel, merge, *columns):
        out = original[0](self, kernel, merge, *columns)
        passes.append("merge")
        brought.append(type(out))
        totals.append(out)
        read.append(type(columns[0]))
        return out

    def keyed(self, *args):
        passes.append("level")
        read.append(type(args[4]))  # the first column: (kernel, merge, finish, n_keys, *columns)
        return original[1](self, *args)

    def hold(self, *args):
        holds.append(len(passes))
        return original[2](self, *args)

    monkeypatch.setattr(DaskBackend, "map_merge", merged)
    monkeypatch.setattr(DaskBackend, "map_merge_keyed", keyed)
    monkeypatch.setattr(DaskBackend, "hold_blocks", hold)
    make = lambda: PrivateThresholdClassifier(domain=domain, random_state=3)  # noqa: E731
    est = make().fit(da.from_array(x.reshape(-1, 1), chunks=(40, 1)), da.from_array(y, chunks=40))
    if domain[1] < em.FLAT_MAX_RECORDS:  # no level can follow: the records are read by the count pass
        assert holds == [] and passes == ["merge"] and isinstance(totals[0][2], LabelledCounts)
        assert _state(est) == _state(make().fit(x.reshape(-1, 1), y))
        return
    assert holds == [0]  # once, before every pass
    assert read == [HeldBlocks] * len(passes)  # the records are read only by the held blocks
    assert brought[0] is tuple  # the label totals, with the counts when the flat draw wants them
    if flat:
        assert passes == ["merge"] and isinstance(totals[0][2], LabelledCounts)
    else:
        assert totals[0][2] is None
        assert passes[0] == "merge" and passes[1:] == ["level"] * (len(passes) - 1) and len(passes) >= 1 + 6
    assert _state(est) == _state(make().fit(x.reshape(-1, 1), y))
