"""Real-valued data on public grids, and per-feature bounds by column name.

The lattice map (:class:`privpac.domains.Lattice`) is a per-record, data-independent map: a fit on a
grid is the exact-integer fit on the mapped records, followed by an exact map of the answer back to
the data's units. The tests check both halves through the estimators users call: the same seed gives
the same ledger and the mapped answer of the integer fit (so the privacy of the audited integer path
carries over unchanged), and neighbouring datasets stay neighbours after the map.
"""

from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from privpac.cli import main
from privpac.cli.domain_options import parse_domain
from privpac.domains import FeatureDomains, Grid, IntegerDomain, as_domain, resolve_domain
from privpac.errors import DataError, DomainError, InvalidParameterError
from privpac.estimators import (
    PrivateCenterPoint,
    PrivateFeasibilityHalfspaceClassifier,
    PrivateHalfspaceClassifier,
    PrivateLinearFeasibility,
    PrivateRectangleClassifier,
    PrivateTukeyHalfspaceClassifier,
)
from privpac.learners.center_point import MAX_POINTS_3D
from privpac.learners.halfspace_tukey import max_default_chunks, plan_learn_halfspace

pytestmark = pytest.mark.filterwarnings("ignore::privpac.errors.UtilityWarning")

# -- the lattice map ---------------------------------------------------------------------------------


def test_the_lattice_of_odd_and_even_grids_is_exact_and_invertible():
    lat = Grid([0.0, -1.0], [10.0, 1.0], [11, 4]).lattice()
    assert lat.bounds.tolist() == [5, 3] and lat.B == 5
    assert lat.centre == (Fraction(5), Fraction(0)) and lat.scale == (Fraction(1), Fraction(1, 3))
    X = np.array([[0.0, -1.0], [5.0, -1 / 3], [10.0, 1 / 3], [7.2, 1.0]])  # 7.2 is nearest to the grid point 7
    K = lat.to_lattice(X)
    assert K.dtype == np.int64 and K.tolist() == [[-5, -3], [0, -1], [5, 1], [2, 3]]
    assert lat.point(K[2]) == (Fraction(10), Fraction(1, 3))  # exact rationals of the grid, not float steps
    # a halfspace on the lattice is the same set of points in the data's units
    a, c = (Fraction(2), Fraction(-3)), Fraction(1)
    coef, intercept = lat.halfspace(a, c)
    for k in K:
        x = lat.point(k)
        assert (sum(ai * ki for ai, ki in zip(a, k)) + c >= 0) == (
            sum(ci * xi for ci, xi in zip(coef, x)) + intercept >= 0
        )
    with pytest.raises(DomainError, match=r"X\[1, 1\] = 1.5 lies outside the declared domain \[-1.0, 1.0\]"):
        lat.to_lattice(np.array([[0.0, 0.0], [0.0, 1.5]]))
    clipped = Grid([0.0, -1.0], [10.0, 1.0], [11, 4], clip=True).lattice()
    assert clipped.to_lattice(np.array([[-3.0, 9.0]])).tolist() == [[-5, 3]]


def test_the_lattice_map_is_per_record_so_neighbours_stay_neighbours():
    rng = np.random.default_rng(0)
    lat = Grid(-2.0, 3.0, 51).lattice(3)
    X = rng.uniform(-2.0, 3.0, size=(200, 3))
    X2 = X.copy()
    X2[17] = rng.uniform(-2.0, 3.0, size=3)  # a replace-one neighbour
    K, K2 = lat.to_lattice(X), lat.to_lattice(X2)
    assert np.flatnonzero(np.any(K != K2, axis=1)).tolist() in ([], [17])
    assert np.array_equal(lat.to_lattice(X[:50]), K[:50])  # a record's image ignores the other records


def test_a_linear_system_keeps_its_constraints_on_the_lattice():
    lat = Grid([-1.0, -2.0, -4.0], [1.0, 2.0, 4.0], [21, 5, 9]).lattice()  # columns of A, then b
    z = (Fraction(3, 7), Fraction(-5, 2))
    x = lat.system_solution(z)
    rng = np.random.default_rng(1)
    for _ in range(50):
        a = [Fraction(int(v)) * s for v, s in zip(rng.integers(-10, 11, 2), lat.scale[:2])]
        b = Fraction(int(rng.integers(-4, 5))) * lat.scale[2]
        k = [ai / s for ai, s in zip(a, lat.scale[:2])]
        assert (sum(ai * xi for ai, xi in zip(a, x)) >= b) == (sum(ki * zi for ki, zi in zip(k, z)) >= b / lat.scale[2])


# -- per-feature bounds by column name -----------------------------------------------------------------


def test_bounds_keyed_by_column_resolve_in_column_order():
    dom = {"b": (0.0, 1.0, 11), "a": (0, 10), "c": "-1:1:5"}
    grid = resolve_domain(dom, 3, ["a", "b", "c"])
    assert grid == Grid([0.0, 0.0, -1.0], [10.0, 1.0, 1.0], [11, 11, 5])  # the integer column: a grid of step 1
    assert resolve_domain({"x": (0, 9), "y": "0:9"}, 2, ["y", "x"]) == IntegerDomain(0, 9)  # one shared range
    assert resolve_domain(Grid(0.0, 1.0, 3), 4) == Grid([0.0] * 4, [1.0] * 4, 3)  # a scalar grid broadcast
    # what the command line passes: {column: parse_domain(text)}
    cli = {"x": parse_domain("0:40:401"), "y": parse_domain("-1:1:201"), "n": parse_domain("0:2**10")}
    assert resolve_domain(cli, 3, ["x", "y", "n"]).n_points.tolist() == [401, 201, 1025]
    with pytest.raises(DomainError, match="no bounds for the column.*'c'"):
        resolve_domain({"a": (0, 1), "b": (0, 1)}, 3, ["a", "b", "c"])
    with pytest.raises(DomainError, match="'zz', not a column of X"):
        resolve_domain({"a": (0, 1), "zz": (0, 1)}, 1, ["a"])
    with pytest.raises(DomainError, match="no column names: pass a pandas or polars DataFrame.*Grid\\(low=\\[...\\]"):
        resolve_domain(dom, 3, None)
    with pytest.raises(InvalidParameterError, match=r"domain\['a'\] is a norm bound"):
        FeatureDomains({"a": 2.5, "b": (0, 1)})
    with pytest.raises(InvalidParameterError, match=r"domain\['x'\] is a norm bound"):  # the command line's norm:R
        resolve_domain({"x": parse_domain("norm:2")}, 1, ["x"])
    with pytest.raises(InvalidParameterError, match="needs keys lo and hi.*got keys \\['high', 'lo'\\]"):
        as_domain({"lo": 0, "high": 1})  # a misspelt one-domain mapping, not bounds by name
    with pytest.raises(InvalidParameterError, match="clip=True must hold for every column or none; 'b'"):
        resolve_domain({"a": Grid(0.0, 1.0, 3, clip=True), "b": (0, 4)}, 2, ["a", "b"])
    with pytest.raises(DomainError, match="3 dimensions but X has 2"):
        resolve_domain(Grid([0.0] * 3, [1.0] * 3, 3), 2)
    assert as_domain(as_domain(dom).to_dict()) == as_domain(dom)  # saved and read back


def test_dataframe_columns_select_their_bounds_in_rectangles_and_halfspaces():
    rng = np.random.default_rng(2)
    X = pd.DataFrame({"age": rng.integers(20, 80, 300), "bmi": rng.uniform(15.0, 40.0, 300)})
    y = ((X["age"] > 40) & (X["bmi"] < 30)).astype(int).to_numpy()
    bounds = {"bmi": (10.0, 50.0, 81), "age": (0, 120)}
    rect = PrivateRectangleClassifier(domain=bounds, method="composition", random_state=0).fit(X, y)
    assert rect.domain_ == Grid([0.0, 10.0], [120.0, 50.0], [121, 81])  # in the frame's column order
    by_array = PrivateRectangleClassifier(domain=rect.domain_, method="composition", random_state=0).fit(
        X.to_numpy(), y
    )
    assert rect.box_ == by_array.box_ and rect.ledger_.to_dict() == by_array.ledger_.to_dict()
    clf = PrivateHalfspaceClassifier(domain=bounds, margin=0.1, fit_intercept=True, random_state=0).fit(X, y)
    same = PrivateHalfspaceClassifier(domain=rect.domain_, margin=0.1, fit_intercept=True, random_state=0)
    # the frame is read row-major (validation.as_numpy): a matrix product's last bit can depend on the order
    assert np.array_equal(clf.coef_, same.fit(np.ascontiguousarray(X.to_numpy()), y).coef_)
    with pytest.raises(DomainError, match="no column names"):
        PrivateHalfspaceClassifier(domain=bounds, margin=0.1).fit(X.to_numpy(), y)


def test_polars_columns_select_their_bounds_as_pandas_columns_do():
    pl = pytest.importorskip("polars")
    rng = np.random.default_rng(5)
    frame = pd.DataFrame({"u": rng.uniform(0.0, 6.0, 40), "v": rng.uniform(-2.0, 0.0, 40)})
    bounds = {"v": (-2.0, 0.0, 9), "u": "0:6:13"}
    ref = PrivateCenterPoint(epsilon=1.0, domain=bounds, random_state=0).fit(frame)
    est = PrivateCenterPoint(epsilon=1.0, domain=bounds, random_state=0).fit(pl.from_pandas(frame))
    assert est.domain_ == ref.domain_ == Grid([0.0, -2.0], [6.0, 0.0], [13, 9])  # in the frame's column order
    assert est.center_ == ref.center_ and est.ledger_.to_dict() == ref.ledger_.to_dict()
    A = pd.DataFrame({"x0": rng.integers(-2, 3, 30).astype(float), "x1": rng.integers(-2, 3, 30).astype(float)})
    rhs = pd.Series(np.zeros(30), name="rhs")
    lf_bounds = {"x0": "-2:2:5", "x1": (-2.0, 2.0, 9), "rhs": "-2:2"}  # b's bounds under b's column name
    ref = PrivateLinearFeasibility(epsilon=1.0, delta=1e-6, domain=lf_bounds, random_state=0).fit(A, rhs)
    est = PrivateLinearFeasibility(epsilon=1.0, delta=1e-6, domain=lf_bounds, random_state=0)
    assert est.fit(pl.from_pandas(A), pl.from_pandas(rhs)).solution_ == ref.solution_
    with pytest.raises(DomainError, match="no bounds for the column.*'b'"):  # an unnamed b is called b
        PrivateLinearFeasibility(epsilon=1.0, delta=1e-6, domain=lf_bounds).fit(A, rhs.to_numpy())
    unnamed = {**{k: v for k, v in lf_bounds.items() if k != "rhs"}, "b": "-2:2"}
    est = PrivateLinearFeasibility(epsilon=1.0, delta=1e-6, domain=unnamed, random_state=0)
    assert est.fit(pl.from_pandas(A), pl.Series(np.zeros(30))).solution_ == ref.solution_  # polars' name ""


def test_a_scaler_rounding_error_is_refused_with_every_digit_and_the_leak_named():
    X = np.array([[0.0, 0.5], [1.0000000000000002, 0.25]] * 20)
    y = np.array([0, 1] * 20)
    every_digit = r"feature 0 of X holds 1.0000000000000002, outside the declared domain \[0.0, 1.0\]"
    with pytest.raises(DomainError, match=every_digit):
        PrivateHalfspaceClassifier(domain=(0.0, 1.0), margin=0.1).fit(X, y)
    with pytest.raises(DomainError, match="scaler fitted on the private data .* leaks them"):
        PrivateRectangleClassifier(domain=Grid(0.0, 1.0, 11), method="composition").fit(X, y)


# -- the geometric estimators on a grid are the integer fit, mapped ---------------------------------------


def test_center_point_on_a_grid_is_the_integer_fit_mapped_back():
    rng = np.random.default_rng(3)
    K = rng.integers(-3, 4, size=(60, 2))
    centre, step = np.array([10.0, -0.5]), np.array([0.25, 0.125])
    X = centre + step * K
    grid = Grid(centre - 3 * step, centre + 3 * step, 7)
    on_grid = PrivateCenterPoint(epsilon=1.0, domain=grid, random_state=7).fit(X)
    exact = PrivateCenterPoint(epsilon=1.0, domain=3, random_state=7).fit(K)
    assert on_grid.ledger_.to_dict() == exact.ledger_.to_dict()
    assert on_grid.center_ == tuple(Fraction(c) + Fraction(s) * v for c, s, v in zip(centre, step, exact.center_))
    assert on_grid.domain_ == grid.broadcast(2) and "grid 9.25:10.75:7, -0.875:-0.125:7" in on_grid.summary()[-1]
    frame = pd.DataFrame(X, columns=["u", "v"])
    named = PrivateCenterPoint(epsilon=1.0, domain={"v": (-0.875, -0.125, 7), "u": "9.25:10.75:7"}, random_state=7)
    assert named.fit(frame).center_ == on_grid.center_


def test_the_halfspace_classifiers_on_a_grid_are_the_integer_fits_mapped_back():
    rng = np.random.default_rng(4)
    K = rng.integers(-4, 5, size=(400, 1))
    y = (K[:, 0] >= 1).astype(int)
    X = 3.0 + 0.5 * K  # the grid 1.0, 1.5, ..., 5.0: centre 3, step 1/2
    for cls, kw in ((PrivateTukeyHalfspaceClassifier, {}), (PrivateFeasibilityHalfspaceClassifier, {"epsilon": 5.0})):
        on_grid = cls(domain=Grid(1.0, 5.0, 9), random_state=1, **kw).fit(X, y)
        exact = cls(domain=4, random_state=1, **kw).fit(K, y)
        assert on_grid.ledger_.to_dict() == exact.ledger_.to_dict()
        assert np.array_equal(on_grid.predict(X), exact.predict(K))  # the same halfspace, in the data's units
        a, c = exact.coef_exact_[0], exact.intercept_exact_
        assert on_grid.coef_exact_ == (a / Fraction(1, 2),) and on_grid.intercept_exact_ == c - a * 3 / Fraction(1, 2)
    with pytest.raises(InvalidParameterError, match="pass a number of random candidates"):
        PrivateFeasibilityHalfspaceClassifier(domain=Grid(1.0, 5.0, 9), candidates=[[1, 0]]).fit(X, y)


def test_linear_feasibility_on_a_symmetric_grid_rescales_the_solution():
    rng = np.random.default_rng(5)
    KA = rng.integers(-2, 3, size=(60, 2))
    Kb = np.clip(KA @ np.array([1, -1]) - rng.integers(0, 2, 60), -2, 2)
    sA, sb = np.array([0.5, 0.25]), 0.1  # steps of the columns of A and of b
    A, b = KA * sA, Kb * sb
    grid = Grid(-2 * np.array([*sA, sb]), 2 * np.array([*sA, sb]), 5)
    on_grid = PrivateLinearFeasibility(epsilon=2.0, domain=grid, random_state=3).fit(A, b)
    exact = PrivateLinearFeasibility(epsilon=2.0, domain=2, random_state=3).fit(KA, Kb)
    assert on_grid.ledger_.to_dict() == exact.ledger_.to_dict()
    x = on_grid.solution_
    assert x == tuple(Fraction(sb) * z / Fraction(s) for z, s in zip(exact.solution_, sA))
    exact_A = [[Fraction(v) for v in row] for row in A]  # the constraints hold exactly where z's do
    sat = [sum(a * xi for a, xi in zip(row, x)) >= Fraction(bi) for row, bi in zip(exact_A, b)]
    sat_z = [sum(int(k) * z for k, z in zip(row, exact.solution_)) >= int(kb) for row, kb in zip(KA, Kb)]
    assert sat == sat_z
    frame = pd.DataFrame(A, columns=["p", "q"])
    named = {"q": (-0.5, 0.5, 5), "p": (-1.0, 1.0, 5), "rhs": (-0.2, 0.2, 5)}
    assert (
        PrivateLinearFeasibility(epsilon=2.0, domain=named, random_state=3)
        .fit(frame, pd.Series(b, name="rhs"))
        .solution_
        == x
    )
    with pytest.raises(InvalidParameterError, match="symmetric about 0 in every column.*linear, not affine"):
        PrivateLinearFeasibility(domain=Grid(0.0, 1.0, 5)).fit(A, b)
    with pytest.raises(InvalidParameterError, match="domain must be symmetric about 0"):
        PrivateLinearFeasibility(domain=(0, 3)).fit(KA, Kb)
    with pytest.raises(InvalidParameterError, match="pass a number of random candidates"):
        PrivateLinearFeasibility(domain=grid, candidates=[[0, 0]]).fit(A, b)
    with pytest.raises(DomainError, match=r"b\[0, 0\] = 0.5 lies outside the declared domain \[-0.2, 0.2\]"):
        PrivateLinearFeasibility(domain=grid).fit(A, np.full(60, 0.5))


def test_grids_fit_on_dask_as_in_memory():
    dd = pytest.importorskip("dask.dataframe")
    rng = np.random.default_rng(6)
    X = rng.uniform(-1.0, 1.0, size=(900, 1))
    y = (X[:, 0] >= 0.3).astype(int)
    frame = pd.DataFrame({"x": X[:, 0], "y": y})
    ddf = dd.from_pandas(frame, npartitions=3)
    grid = Grid(-1.0, 1.0, 21)
    memory = PrivateTukeyHalfspaceClassifier(domain=grid, random_state=2).fit(frame[["x"]], y)
    engine = PrivateTukeyHalfspaceClassifier(domain={"x": "-1:1:21"}, random_state=2).fit(ddf[["x"]], ddf["y"])
    assert engine.coef_exact_ == memory.coef_exact_ and engine.intercept_exact_ == memory.intercept_exact_
    bad = ddf.assign(x=ddf["x"] * 2)
    with pytest.raises(DomainError, match="outside the declared domain"):
        PrivateTukeyHalfspaceClassifier(domain=grid).fit(bad[["x"]], bad["y"])
    centre = PrivateCenterPoint(domain=grid, random_state=2).fit(ddf[["x"]])
    assert centre.center_ == PrivateCenterPoint(domain=grid, random_state=2).fit(frame[["x"]]).center_


def test_the_command_line_takes_grids_for_the_center_point_and_feasibility(tmp_path):
    rng = np.random.default_rng(7)
    pts = tmp_path / "pts.csv"
    X = np.round(rng.normal(0.3, 0.2, size=(300, 2)), 2)
    pts.write_text("u,v\n" + "\n".join(f"{a},{b}" for a, b in np.clip(X, -1, 1)) + "\n")
    res = CliRunner().invoke(main, ["centerpoint", str(pts), "--domain", "-1:1:21", "--seed", "1"])
    assert res.exit_code == 0 and "private center point of (u, v)" in res.output, res.output
    sys_csv = tmp_path / "sys.csv"
    A = rng.integers(-2, 3, size=(100, 2)) * 0.5
    b = np.clip(A @ np.array([0.5, -0.5]) - 0.5, -1.0, 1.0)
    sys_csv.write_text("a1,a2,b\n" + "\n".join(f"{r[0]},{r[1]},{v}" for r, v in zip(A, b)) + "\n")
    res = CliRunner().invoke(main, ["feasibility", str(sys_csv), "--domain", "-1:1:5", "--epsilon", "4", "--seed", "1"])
    assert res.exit_code == 0 and "private feasible point (a1, a2)" in res.output, res.output
    res = CliRunner().invoke(main, ["feasibility", str(sys_csv), "--domain", "0:1:5"])
    assert res.exit_code == 1 and "symmetric about 0" in res.output


# -- LearnHalfSpace's default chunk count never outgrows FindTukey ---------------------------------------


def test_the_default_chunk_count_is_capped_so_more_data_never_fails():
    assert max_default_chunks(2, 8) == MAX_POINTS_3D
    for s in (10_609, 10_610, 20_000, 10**6):
        plan = plan_learn_halfspace(s, 2, 8, 1.0)
        assert plan.n_chunks == min(MAX_POINTS_3D, int(np.sqrt(s))) and plan.chunk_size == s // plan.n_chunks
    directional = plan_learn_halfspace(10**8, 2, 50, 1.0, depth="directional")  # sqrt(n) = 10^4 chunks: too many
    assert directional.n_chunks == max_default_chunks(2, 50, "directional") == 20_000_000 // 101**2
    with pytest.raises(InvalidParameterError, match=f"MAX_POINTS_3D = {MAX_POINTS_3D}"):  # an explicit count: refused
        plan_learn_halfspace(20_000, 2, 8, 1.0, n_chunks=MAX_POINTS_3D + 1)


def test_empty_and_one_dimensional_inputs_keep_their_messages_on_a_grid():
    with pytest.raises(DataError, match="2-dimensional"):
        PrivateCenterPoint(domain=Grid(0.0, 1.0, 5)).fit(np.array([0.1, 0.2]))
    with pytest.raises(DataError, match="empty"):
        PrivateTukeyHalfspaceClassifier(domain=Grid(0.0, 1.0, 5)).fit(np.zeros((0, 1)), np.zeros(0))
    with pytest.raises(DataError, match="empty"):
        PrivateCenterPoint(domain=Grid(0.0, 1.0, 5)).fit(np.zeros((0, 2)))


def test_the_docs_example_writes_bounds_by_name_from_the_data_dictionary():
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "docs" / "domains.md").read_text()
    start = text.index("```python") + len("```python")
    block = text[start : text.index("```", start)]
    assert "BREAST_CANCER_BOUNDS" in block and "domain=BREAST_CANCER_BOUNDS" in block
    namespace = {}
    exec(compile(block, "docs/domains.md", "exec"), namespace)  # noqa: S102 - the documented example, as written
    clf = namespace["clf"]
    assert list(clf.feature_names_in_) == list(namespace["BREAST_CANCER_BOUNDS"])
    assert clf.domain_.low.tolist() == [low for low, _ in namespace["BREAST_CANCER_BOUNDS"].values()]


def test_utility_warnings_name_the_lattice_of_the_grid():
    from privpac.errors import UtilityWarning

    X = np.linspace(0.0, 1.0, 40).reshape(-1, 1)
    y = (X[:, 0] >= 0.5).astype(int)
    lattice = r"the lattice \[-5, 5\]\^1 of the public grid \(11 points per feature\).*coarser grid"
    for est in (
        PrivateCenterPoint(domain=Grid(0.0, 1.0, 11), random_state=0),
        PrivateTukeyHalfspaceClassifier(domain=Grid(0.0, 1.0, 11), random_state=0),
        PrivateFeasibilityHalfspaceClassifier(domain=Grid(0.0, 1.0, 11), random_state=0),
    ):
        with pytest.warns(UtilityWarning, match=lattice):
            est.fit(X) if isinstance(est, PrivateCenterPoint) else est.fit(X, y)
    with pytest.warns(UtilityWarning, match=r"entries in the lattice \[-10, 10\]\^2 .*\(11 to 21 points"):
        PrivateLinearFeasibility(domain=Grid([-1.0, -1.0], [1.0, 1.0], [21, 11]), random_state=0).fit(X, X[:, 0] - 1)
