"""Bad inputs end in a clear error naming the problem, never a traceback, a hang or silent acceptance.

One table for the library (an exception type and the words the message must contain), one for the
command line (a non-zero exit, a one-line message, no traceback), and the valid inputs that must be
accepted: integral floats on an integer domain, a CSV with a byte-order mark.
"""

import json
import warnings

import numpy as np
import pytest
import scipy.sparse
from click.testing import CliRunner
from sklearn.base import is_classifier
from sklearn.exceptions import DataConversionWarning

from model_examples import fit_arguments
from privpac.accountant import BudgetAccountant
from privpac.cli import main
from privpac.domains import Grid, IntegerDomain, as_domain
from privpac.errors import DataError, InvalidParameterError, PrivpacError, UnsafeConfigurationWarning
from privpac.estimators import (
    MODELS,
    PointSanitizer,
    PrivateHalfspaceClassifier,
    PrivateHistogram,
    PrivateMedian,
    PrivateRectangleClassifier,
    PrivateThresholdClassifier,
)
from privpac.formatting import parse_integer
from privpac.io import read_csv
from privpac.sanitizers.database import SanitizedDatabase
from privpac.sanitizers.queries import parse_query

X1 = np.arange(50).reshape(-1, 1)
Y1 = (X1[:, 0] < 20).astype(int)

# (label, call, exception type, words of the message)
LIBRARY_CASES = [
    ("domain dict with lo/hi keys is read", lambda: None, None, ""),
    # a mapping is per-feature bounds by column name: a number in it is refused, naming the key
    ("domain dict with unknown keys", lambda: as_domain({"start": 0, "stop": 10}), InvalidParameterError,
     "give the column's (low, high) bounds"),
    ("grid too wide for floats", lambda: Grid(-1e308, 1e308, 101), InvalidParameterError, "too wide"),
    ("a power too big to build", lambda: parse_integer("2**99999999999"), InvalidParameterError, "bits"),
    ("a decimal literal too long", lambda: parse_integer("9" * 400_000), InvalidParameterError, "bits"),
    (
        "epsilon too small to compute with",
        lambda: PrivateThresholdClassifier(epsilon=1e-300, domain=(0, 99)).fit(X1, Y1),
        InvalidParameterError,
        "epsilon must be at least",
    ),
    (
        "epsilon too small, histogram",
        lambda: PrivateHistogram(epsilon=1e-300, domain=(0, 99)).fit(X1),
        InvalidParameterError,
        "epsilon",
    ),
    (
        "a trillion bins",
        lambda: PrivateHistogram(domain=(0, 99), n_bins=10**12).fit(X1),
        InvalidParameterError,
        "n_bins = 1,000,000,000,000",
    ),
    (
        "a projection to a billion dimensions",
        lambda: PrivateHalfspaceClassifier(domain=1.0, margin=0.3, variant="practical", projection_dim=10**9).fit(
            np.full((10, 3), 0.1), np.arange(10) % 2
        ),
        InvalidParameterError,
        "projection_dim = 1,000,000,000",
    ),
    (
        "sampling a trillion records",
        lambda: SanitizedDatabase.from_weights({1: 2.0}, 10).sample(10**12),
        InvalidParameterError,
        "n = 1,000,000,000,000",
    ),
    ("complex values, median", lambda: PrivateMedian(domain=(0, 99)).fit(X1 + 1j), DataError, "complex"),
    (
        "complex values, histogram on a grid",
        lambda: PrivateHistogram(domain=Grid(0.0, 99.0, 100)).fit(X1 + 1j),
        DataError,
        "complex",
    ),
    (
        "a sparse matrix",
        lambda: PrivateMedian(domain=(0, 99)).fit(scipy.sparse.csr_matrix(X1)),
        TypeError,
        "sparse",
    ),
    (
        "counts beyond exact counting",
        lambda: PointSanitizer(epsilon=1.0, delta=1e-3, domain=(0, 15)).fit([3, 5], counts=[3 * 2**62, 1]),
        DataError,
        "more than privpac counts exactly",
    ),
    (
        "counts beyond exact counting, BNS rectangles",
        lambda: PrivateRectangleClassifier(domain=(0, 7), method="bns").fit(
            np.array([[1, 1], [2, 2]]), np.array([1, 0]), counts=np.array([3 * 2**62, 1], dtype=object)
        ),
        DataError,
        "more than privpac counts exactly",
    ),
    (
        "a non-integral value on an integer domain",
        lambda: PrivateThresholdClassifier(domain=(0, 2**64 - 1)).fit(np.array([[1.5], [2.0]]), [0, 1]),
        DataError,
        "1.5",
    ),
    ("a query bound of 1e999", lambda: parse_query("x<=1e999"), InvalidParameterError, "finite"),
    ("a query set of names", lambda: parse_query("x in {a,b}"), InvalidParameterError, "not a number"),
]


@pytest.mark.parametrize("label, call, error, words", LIBRARY_CASES, ids=[c[0] for c in LIBRARY_CASES])
def test_library_inputs(label, call, error, words):
    if error is None:
        return
    with pytest.raises(error) as info:
        call()
    assert words in str(info.value)


def test_valid_inputs_are_accepted():
    assert as_domain({"lo": 0, "hi": 10}) == IntegerDomain(0, 10)
    # floats read from a CSV on the 2^64 domain: integral values are exact integers, even >= 2^63
    X = np.array([[3.0], [2.0**63], [2.0**64 - 2048]])
    est = PrivateThresholdClassifier(epsilon=1.0, domain=(0, 2**64 - 1), random_state=0).fit(X, [1, 0, 0])
    assert 0 <= est.threshold_ <= 2**64
    assert parse_integer("2**64-1") == 2**64 - 1 and parse_integer("-2**63") == -(2**63)
    assert parse_query("x<=2**64-1").hi == 2**64 - 1


def test_delta_at_least_one_over_n_warns_in_every_estimator():
    X = np.arange(569).reshape(-1, 1)
    y = (X[:, 0] < 200).astype(int)
    for fit in (
        lambda: PrivateThresholdClassifier(delta=0.01, domain=(0, 999)).fit(X, y),
        lambda: PrivateMedian(delta=0.01, domain=(0, 999)).fit(X),
        lambda: PrivateRectangleClassifier(delta=0.01, domain=(0, 999)).fit(np.hstack([X, X]), y),
    ):
        with pytest.warns(UnsafeConfigurationWarning, match="at least 1/n"):
            fit()


@pytest.mark.parametrize("delta", [0.5, 0.9])
def test_delta_of_one_half_or_more_is_refused_everywhere(delta, tmp_path):
    """(epsilon, delta)-DP with delta >= 1/2 allows publishing the whole dataset half of the time."""
    for name, cls in MODELS.items():
        kw, args, fit_kw = fit_arguments(name)
        with pytest.raises(InvalidParameterError, match="delta must be below 1/2") as info:
            cls(**{**kw, "delta": delta}).fit(*args, **fit_kw)
        assert "promises nothing" in str(info.value), name
    with pytest.raises(InvalidParameterError, match="delta must be below 1/2"):
        BudgetAccountant(epsilon=1.0, delta=delta)
    data = _write(tmp_path, "d.csv", b"x,y\n" + b"".join(f"{i},{int(i < 20)}\n".encode() for i in range(50)))
    args = ["fit", "threshold", str(data), "--label", "y", "--domain", "0:99", "--delta", str(delta)]
    code, output = _run([*args, "-o", str(tmp_path / "m.json")])
    assert code != 0 and "delta must be below 1/2" in output and "Traceback" not in output


# -- DataFrames and Series of pandas, polars and pyarrow ------------------------------------------------

FRAME_LIBRARIES = ["pandas", "polars", "pyarrow"]


def _frame(library, values):
    """``values`` (2-D: a DataFrame with columns x0, x1, ...; 1-D: a Series) of ``library``."""
    lib = pytest.importorskip(library)
    a = np.asarray(values)
    if a.ndim == 2:
        return _table(library, {f"x{j}": a[:, j] for j in range(a.shape[1])})
    return lib.chunked_array([a]) if library == "pyarrow" else lib.Series(a)


def _table(library, columns: dict):
    lib = pytest.importorskip(library)
    return lib.table(columns) if library == "pyarrow" else lib.DataFrame(columns)


@pytest.mark.parametrize("library", FRAME_LIBRARIES)
def test_every_model_fits_frames_as_it_fits_numpy(library):
    """Each model's example fit, with every array argument a DataFrame or Series: the same model and predictions."""
    for name, cls in MODELS.items():
        kw, args, fit_kw = fit_arguments(name)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ref = cls(**kw, random_state=0).fit(*args, **fit_kw)
            est = cls(**kw, random_state=0).fit(
                *(_frame(library, a) for a in args), **{k: _frame(library, v) for k, v in fit_kw.items()}
            )
        assert json.dumps(est._fitted_state(), default=str) == json.dumps(ref._fitted_state(), default=str), name
        assert est.ledger_.lines() == ref.ledger_.lines(), name
        if np.ndim(args[0]) == 2:
            assert list(est.feature_names_in_) == [f"x{j}" for j in range(np.shape(args[0])[1])], name
        if hasattr(est, "predict"):
            np.testing.assert_array_equal(est.predict(_frame(library, args[0])), ref.predict(args[0]), err_msg=name)


@pytest.mark.parametrize("library", FRAME_LIBRARIES)
def test_frames_renamed_at_predict_missing_values_and_text_are_refused_naming_the_column(library):
    pytest.importorskip(library)
    X = np.column_stack([np.arange(50), np.arange(50) % 7])
    y = (X[:, 0] < 20).astype(int)
    est = PrivateRectangleClassifier(domain=(0, 99), method="composition", random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(_frame(library, X), _frame(library, y))
    with pytest.raises(DataError, match="feature names"):
        est.predict(_table(library, {"x0": X[:, 0], "area": X[:, 1]}))
    column = [1.0, None] + [2.0] * 48
    with_null = _table(library, {"x0": pd_nullable(column) if library == "pandas" else column})
    with pytest.raises(DataError, match=r"column 'x0' of X has a missing value \(NA, null or NaN\) at row 1"):
        PrivateThresholdClassifier(domain=(0, 99)).fit(with_null, y)
    with pytest.raises(TypeError, match="column 'city' of X holds"):
        PrivateThresholdClassifier(domain=(0, 99)).fit(_table(library, {"city": ["a", "b"] * 25}), y)
    labels = [None] + [1] * 49
    labels_with_null = _table(library, {"y": pd_nullable(labels) if library == "pandas" else labels})["y"]
    with pytest.raises(DataError, match=r"y has a missing value .* at row 0"):
        PrivateThresholdClassifier(domain=(0, 99)).fit(X[:, :1], labels_with_null)


def pd_nullable(values):
    """A pandas column of a nullable dtype (``Float64``, ``Int64``) holding ``None`` as ``NA``."""
    import pandas as pd

    return pd.array(values, dtype="Float64" if any(isinstance(v, float) for v in values) else "Int64")


def test_labels_of_any_dtype_are_compared_with_the_public_labels():
    """Categorical, string, nullable-integer and boolean labels; a label outside the public pair is named."""
    pd = pytest.importorskip("pandas")
    X = np.arange(60).reshape(-1, 1)
    text = np.where(X[:, 0] < 25, "M", "B")
    ref = PrivateThresholdClassifier(domain=(0, 99), labels=("B", "M"), random_state=0).fit(X, text)
    series = [pd.Series(text).astype("category"), pd.Series(text, dtype="string")]
    pl = _optional("polars")
    if pl is not None:
        series += [pl.Series(text, dtype=pl.Categorical), pl.Series(text, dtype=pl.Enum(["B", "M"])), pl.Series(text)]
    pa = _optional("pyarrow")
    if pa is not None:
        series.append(pa.chunked_array([pa.array(text).dictionary_encode()]))
    for labels in series:
        est = PrivateThresholdClassifier(domain=(0, 99), labels=("B", "M"), random_state=0).fit(X, labels)
        assert est.threshold_ == ref.threshold_ and list(est.predict(X)) == list(ref.predict(X)), type(labels)
    for labels in (pd.Series(X[:, 0] < 25, dtype="boolean"), pd.Series((X[:, 0] < 25).astype(int), dtype="Int64")):
        est = PrivateThresholdClassifier(domain=(0, 99), labels=(0, 1), random_state=0).fit(X, labels)
        assert est.threshold_ == ref.threshold_
    for labels in (series[0], series[1]):  # 'M'/'B' against the default labels (0, 1)
        with pytest.raises(DataError, match=r"y contains the label '[BM]', outside the declared labels \(0, 1\)"):
            PrivateThresholdClassifier(domain=(0, 99)).fit(X, labels)


def _optional(module):
    try:
        return __import__(module)
    except ImportError:
        return None


def test_a_column_vector_y_is_raveled_with_one_data_conversion_warning_by_every_classifier():
    for name, cls in MODELS.items():
        if not is_classifier(cls()):
            continue
        kw, (X, y), _ = fit_arguments(name)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            est = cls(**kw, random_state=0).fit(X, np.asarray(y).reshape(-1, 1))
        conversions = [w for w in caught if issubclass(w.category, DataConversionWarning)]
        assert len(conversions) == 1 and "column-vector y" in str(conversions[0].message), name
        assert conversions[0].filename == __file__, name  # points at the caller's fit
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ref = cls(**kw, random_state=0).fit(X, y)
        assert json.dumps(est._fitted_state(), default=str) == json.dumps(ref._fitted_state(), default=str), name


# -- files ---------------------------------------------------------------------------------------------


def _write(tmp_path, name, data: bytes):
    path = tmp_path / name
    path.write_bytes(data)
    return path


def test_csv_files(tmp_path):
    columns = read_csv(_write(tmp_path, "bom.csv", b"\xef\xbb\xbfx,y\n1,0\n2,1\n"))
    assert list(columns) == ["x", "y"] and columns["x"].tolist() == [1, 2]
    big = read_csv(_write(tmp_path, "big.csv", b"x\n18446744073709551615\n1\n"))
    assert big["x"].dtype == np.uint64 and int(big["x"][0]) == 2**64 - 1
    for name, data, words in [
        ("dup.csv", b"x,x,y\n1,2,0\n", "more than once"),
        ("latin1.csv", "x\n\xe9\n".encode("latin-1"), "not UTF-8"),
        ("headerless.csv", b"1,0\n2,1\n", "header row"),
        ("empty-name.csv", b"x,,y\n1,2,3\n", "no name"),
        ("ragged.csv", b"x,y\n1,2\n3\n", "row 3"),
        ("text.csv", b"x\n1\nhello\n", "'hello'"),
        ("inf.csv", b"x\n1\ninf\n", "not a finite number"),
    ]:
        with pytest.raises(InvalidParameterError, match=words):
            read_csv(_write(tmp_path, name, data))


# -- the command line ----------------------------------------------------------------------------------


def _run(args):
    result = CliRunner().invoke(main, args)
    return result.exit_code, result.output


@pytest.fixture
def csv_path(tmp_path):
    return str(_write(tmp_path, "d.csv", b"x,y\n" + b"".join(f"{i},{int(i < 20)}\n".encode() for i in range(50))))


def test_cli_mistakes_end_in_one_line(csv_path, tmp_path):
    model = tmp_path / "m.json"
    bad_model = _write(tmp_path, "bad.json", b"[]")
    no_state = _write(
        tmp_path, "nostate.json", json.dumps({"format": "privpac-model/2", "model": "threshold"}).encode()
    )
    cases = [
        (
            [
                "fit",
                "threshold",
                csv_path,
                "--label",
                "y",
                "--domain",
                "0:99",
                "--set",
                "orientaton=above",
                "-o",
                str(model),
            ],
            "has no parameter 'orientaton'",
        ),  # fmt: skip
        (["fit", "threshold", csv_path, "--label", "y", "--domain", "{not json", "-o", str(model)], "not valid JSON"),
        (["fit", "threshold", csv_path, "--label", "y", "--domain", "0:2**99999999999", "-o", str(model)], "bits"),
        (
            ["fit", "threshold", csv_path, "--label", "y", "--domain", '{"lo": 0, "x": 1}', "-o", str(model)],
            "lo and hi",
        ),  # fmt: skip
        (
            ["fit", "threshold", csv_path, "--label", "y", "--domain", "0:99", "--epsilon", "1e-300", "-o", str(model)],
            "epsilon must be at least",
        ),  # fmt: skip
        (["bounds", "bns-learn-thresholds"], "needs --domain-size"),
        (["bounds", "bns-learn-thresholds", "--domain-size", "2**99999999999"], "bits"),
        (["show", str(bad_model)], "not a privpac model"),
        (["show", str(no_state)], "lacks"),
        (
            [
                "sanitize",
                "san-points",
                csv_path,
                "--column",
                "x",
                "--domain",
                "0:99",
                "--size",
                str(10**12),
                "-o",
                str(tmp_path / "s.csv"),
            ],
            "1,000,000,000,000",
        ),  # fmt: skip
    ]
    for args, words in cases:
        code, output = _run(args)
        assert code != 0, (args, output)
        assert "Traceback" not in output and words in output, (args, output)
        assert len([line for line in output.splitlines() if line.startswith("Error")]) == 1


def test_cli_help_names_the_models_and_their_keys():
    code, output = _run(["fit", "--help"])
    assert code == 0 and "threshold" in output and "orientation" in output and "Total privacy budget" in output


def test_cli_bounds_table_keeps_small_numbers():
    from privpac.cli.output import _fmt_number

    assert _fmt_number(0.0123) == "0.0123" and _fmt_number(1234.5) == "1,234.5" and _fmt_number(3e12) == "3.000e+12"


def test_library_errors_are_library_exceptions_or_value_and_type_errors():
    # every error above is either privpac's own (a ValueError) or a TypeError: nothing else leaks
    for label, _call, error, _ in LIBRARY_CASES:
        if error is not None:
            assert issubclass(error, PrivpacError | TypeError), label


def test_renamed_dataframe_columns_are_refused_at_predict():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"radius": np.arange(50), "texture": np.arange(50) % 7})
    y = (frame["radius"] < 20).astype(int)
    est = PrivateRectangleClassifier(domain=(0, 99), method="composition", random_state=0).fit(frame, y)
    assert list(est.feature_names_in_) == ["radius", "texture"] and est.n_features_in_ == 2
    assert est.predict(frame).shape == (50,)
    with pytest.raises(DataError, match="feature names"):
        est.predict(frame.rename(columns={"radius": "area"}))
    one = PrivateThresholdClassifier(domain=(0, 99), random_state=0).fit(frame[["radius"]], y)
    with pytest.raises(DataError, match="feature names"):
        one.predict(frame[["texture"]])
