"""The same exact statistics on Spark: a real local[2] session, the same model as in memory.

No test sets PYSPARK_PYTHON: privpac's jobs choose the workers' Python themselves (privpac.backends.spark_setup).
"""

import itertools
import json
import os
import subprocess
import sys
import zipfile

import numpy as np
import pytest

pyspark = pytest.importorskip("pyspark")
pd = pytest.importorskip("pandas")

# One worker runs this module (pytest --dist loadgroup): one Spark session, not one per worker.
pytestmark = pytest.mark.xdist_group("spark")


#: The test JVMs run short jobs on tiny data: the client compiler only, and one garbage-collector
#: thread (measured on this module: the test session's JVM from about 47 s to 22 s CPU).
_SHORT_JOBS_JAVA = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"


def _without_spark_settings() -> dict:
    return {k: v for k, v in os.environ.items() if k not in ("PYSPARK_PYTHON", "PYSPARK_DRIVER_PYTHON")}


def test_cli_fits_on_spark_from_a_fresh_environment(tmp_path):
    """privpac fit --engine spark in a process without PYSPARK_PYTHON: its own local session, the
    workers' Python chosen by privpac, the in-memory model. The box learner counts on Spark's Python
    workers (a one-dimensional sample this small is counted on the driver). (First in the module: its
    JVM runs before the module's session starts.)"""
    rng = np.random.default_rng(0)
    x = rng.integers(0, 1001, (2000, 2))
    data = tmp_path / "d.csv"
    data.write_text("a,b,y\n" + "".join(f"{a},{b},{int(a > 400 and b > 300)}\n" for a, b in x))
    from click.testing import CliRunner

    from privpac.cli import main

    common = ["fit", "rectangle", str(data), "--label", "y", "--domain", "0:1000", "--seed", "3"]
    common += ["--set", "method=composition"]
    in_memory = CliRunner().invoke(main, [*common, "-o", str(tmp_path / "memory.json")])  # in this process
    assert in_memory.exit_code == 0, in_memory.output
    result = subprocess.run(
        [sys.executable, "-m", "privpac.cli", *common, "--engine", "spark", "--scheduler", "local[2]"]
        + ["-o", str(tmp_path / "spark.json")],
        env={**_without_spark_settings(), "SPARK_SUBMIT_OPTS": _SHORT_JOBS_JAVA},  # no PySpark settings
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    states = [json.loads((tmp_path / f"{name}.json").read_text())["state"] for name in ("memory", "spark")]
    assert states[0] == states[1]


def test_spark_without_java_is_one_line(tmp_path):
    """No JAVA_HOME and no java on PATH: refused before Spark tries to start, in one line."""
    env = {**_without_spark_settings(), "PATH": str(tmp_path)}
    env.pop("JAVA_HOME", None)
    data = tmp_path / "d.csv"
    data.write_text("x,y\n1,0\n5,1\n")
    fit = ["fit", "threshold", str(data), "--label", "y", "--domain", "0:10", "--engine", "spark", "-o", "m.json"]
    result = subprocess.run(
        [sys.executable, "-m", "privpac.cli", *fit], env=env, capture_output=True, text=True, cwd=tmp_path
    )
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines() == [
        "Error: Spark needs Java 17 or later and none was found (no JAVA_HOME, no java on PATH): install a JDK "
        "(e.g. apt install openjdk-17-jre-headless) or set JAVA_HOME"
    ]


class _Context:
    """What privpac reads of a SparkContext to set up its workers."""

    applications = itertools.count()

    def __init__(self, master="local[2]", python="python3"):
        self.master, self.pythonExec, self.shipped = master, python, []
        self.applicationId = f"test-application-{next(self.applications)}"

    def addPyFile(self, path):
        self.shipped.append(path)


def test_worker_setup_chooses_python_ships_privpac_and_explains_what_is_missing(monkeypatch, tmp_path):
    from privpac import __version__
    from privpac.backends import spark_setup
    from privpac.errors import EngineError

    monkeypatch.delenv("PYSPARK_PYTHON", raising=False)
    assert spark_setup._worker_python(_Context()) == sys.executable  # local: this interpreter, not PATH's python3
    assert spark_setup._worker_python(_Context(python="/opt/py/bin/python")) == "/opt/py/bin/python"  # chosen
    assert spark_setup._worker_python(_Context(master="yarn")) == "python3"  # a cluster's workers: theirs
    monkeypatch.setenv("PYSPARK_PYTHON", "python3")
    assert spark_setup._worker_python(_Context()) == "python3"  # asked for by name

    answers = []
    monkeypatch.setattr(spark_setup, "_run_probe", lambda sc: answers.pop(0))
    sc = _Context(master="spark://host:7077")
    answers[:] = [("missing", "privpac", "/w/python"), ("ok", __version__, "/w/python")]
    spark_setup._check_spark_workers(sc)
    assert len(sc.shipped) == 1 and not answers  # privpac shipped once, then found
    spark_setup._check_spark_workers(sc)  # probed once per application and worker Python
    with zipfile.ZipFile(sc.shipped[0]) as zf:
        shipped = {"privpac/__init__.py", "privpac/backends/spark_setup.py", "privpac/estimators/base.py"}
        assert shipped <= set(zf.namelist())
    result = subprocess.run(  # the shipped zip is the package a worker imports
        [sys.executable, "-c", "import privpac.backends as b; print(b.__file__)"],
        env={**os.environ, "PYTHONPATH": sc.shipped[0]},
        capture_output=True,
        text=True,
    )
    assert result.stdout.strip().startswith(sc.shipped[0]), result.stderr
    for answer, message in [
        (("missing", "sklearn", "/w/python"), "/w/python, which cannot import sklearn: .* set PYSPARK_PYTHON"),
        (("ok", "0.0.1", "/w/python"), "import privpac 0.0.1, this driver runs"),
    ]:
        answers[:] = [answer]
        with pytest.raises(EngineError, match=message):
            spark_setup._check_spark_workers(_Context(master="yarn"))


@pytest.fixture(scope="module")
def spark():
    from pyspark.sql import SparkSession

    session = (  # built as a user builds one: privpac's jobs set up the workers themselves
        SparkSession.builder.master("local[2]")
        .appName("privpac-tests")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.ui.enabled", "false")
        # two cores: two shuffle partitions (a task per core), Arrow to move pandas frames in and out,
        # the Python workers (and the modules they imported) kept from one job to the next
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.default.parallelism", "2")
        .config("spark.sql.execution.arrow.pyspark.enabled", "true")
        .config("spark.python.worker.reuse", "true")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.execution.arrow.maxRecordsPerBatch", "3000")
        .config("spark.driver.extraJavaOptions", _SHORT_JOBS_JAVA)
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def _frame(spark, x, y=None, partitions=5):
    data = {"x": x} if y is None else {"x": x, "y": y}
    return spark.createDataFrame(pd.DataFrame(data)).repartition(partitions)


def test_range_by_range_levels_read_the_counts_held_on_the_executors(spark, monkeypatch):
    """Above ``DRIVER_ROWS`` rows, the records are read and counted once: their counts are cached on
    the executors, and the count pass and every level of the range-by-range draw read the cached
    counts (the driver's budget is made small here). The model is the in-memory one, and the cache
    is released with the fit's last reference to it."""
    import gc

    import privpac.learners.exponential as em
    from privpac.accountant import BudgetAccountant
    from privpac.backends import spark_engine
    from privpac.backends.spark_engine import HeldPartitions, SparkBackend
    from privpac.estimators import PrivateThresholdClassifier

    monkeypatch.setattr(em, "FLAT_MAX_RECORDS", 64)
    monkeypatch.setattr(spark_engine, "DRIVER_ROWS", 0)
    rng = np.random.default_rng(2)
    x = rng.integers(0, 2**24, 300, dtype=np.int64)  # 2^24 points: levels of 4096 ranges
    y = (x > 2**22).astype(np.int64)
    passes, holds = [], []
    original = SparkBackend.map_merge, SparkBackend.map_merge_keyed, SparkBackend.hold_blocks
    monkeypatch.setattr(SparkBackend, "map_merge", lambda self, *a: passes.append(type(a[2])) or original[0](self, *a))
    monkeypatch.setattr(
        SparkBackend, "map_merge_keyed", lambda self, *a: passes.append(type(a[4])) or original[1](self, *a)
    )
    monkeypatch.setattr(
        SparkBackend, "hold_blocks", lambda self, *a: holds.append(len(passes)) or original[2](self, *a)
    )
    make = lambda: PrivateThresholdClassifier(domain=(0, 2**24 - 1), random_state=3)  # noqa: E731
    cached = spark.sparkContext._jsc.getPersistentRDDs().size()
    est = make().fit(_frame(spark, x, y, partitions=3), "y")
    assert holds == [0]  # once, before every pass
    assert passes == [HeldPartitions] * len(passes) and len(passes) >= 1 + 2  # the count pass, then the levels
    assert est._fitted_state() == make().fit(x.reshape(-1, 1), y)._fitted_state()
    gc.collect()
    assert spark.sparkContext._jsc.getPersistentRDDs().size() == cached
    bad = x.copy()
    bad[-1] = -1  # outside the public domain, in the last partition: refused before anything is spent
    accountant = BudgetAccountant()
    with pytest.raises(Exception, match="outside the domain"):  # raised in a task, reported by Spark
        PrivateThresholdClassifier(domain=(0, 2**24 - 1), accountant=accountant).fit(_frame(spark, bad, y, 3), "y")
    assert accountant.spent == (0.0, 0.0) and len(accountant) == 0


def test_every_one_dimensional_estimator_gives_the_same_model_on_spark(spark, monkeypatch):
    """Both ways Spark reads a one-dimensional sample give the in-memory model: up to
    ``DRIVER_ROWS`` rows (public) are collected and counted on the driver, with no pass on the
    Python workers; above it the workers count them (the limit is made 0 here)."""
    from privpac.backends import spark_engine
    from privpac.backends.spark_engine import SparkBackend
    from privpac.estimators import (
        PointSanitizer,
        PrivateHistogram,
        PrivateMedian,
        PrivatePointClassifier,
        PrivateThresholdClassifier,
    )

    rng = np.random.default_rng(0)
    x = rng.integers(0, 2**40, 20000, dtype=np.int64)
    y = (x > 3 * 2**38).astype(np.int64)
    dom = (0, 2**40)
    cases = [
        (lambda: PrivateThresholdClassifier(domain=dom, random_state=5), True),
        (
            lambda: PrivateThresholdClassifier(domain=dom, method="exponential", orientation="above", random_state=5),
            True,
        ),
        (lambda: PrivatePointClassifier(domain=dom, method="exponential", random_state=5), True),
        (lambda: PrivateMedian(domain=dom, random_state=5), False),
        (lambda: PrivateHistogram(domain=(0, 2**40 - 1), n_bins=16, random_state=5), False),
    ]
    passes, driver_rows = [], spark_engine.DRIVER_ROWS
    for name in ("map_merge", "map_merge_keyed"):
        original = getattr(SparkBackend, name)
        monkeypatch.setattr(SparkBackend, name, lambda *a, _o=original, **k: passes.append(1) or _o(*a, **k))
    frames = {}  # one frame per (labelled, partitions), cached: every fit reads the same partitions
    for i, (make, labelled) in enumerate(cases):
        reference = make().fit(x.reshape(-1, 1), y) if labelled else make().fit(x.reshape(-1, 1))
        # each pass is a Spark job: one partitioning past the first
        for partitions, on_driver in [(7, True), *(((1, False), (7, False)) if i == 0 else ((7, False),))]:
            monkeypatch.setattr(spark_engine, "DRIVER_ROWS", x.size if on_driver else 0)
            if (labelled, partitions) not in frames:
                frames[labelled, partitions] = _frame(spark, x, y if labelled else None, partitions).cache()
            frame = frames[labelled, partitions]
            passes.clear()
            est = make().fit(frame, "y") if labelled else make().fit(frame)
            assert (not passes) == on_driver, (type(est).__name__, partitions, len(passes))
            assert est._fitted_state() == reference._fitted_state(), (type(est).__name__, partitions)
            assert est.ledger_.lines() == reference.ledger_.lines()
            assert list(est.feature_names_in_) == ["x"] and est.n_features_in_ == 1
    monkeypatch.setattr(spark_engine, "DRIVER_ROWS", driver_rows)  # the library's limit for what follows
    values = np.repeat(np.array([5, 7, 2**39], dtype=np.int64), 400000 // 3 + 1)
    make = lambda: PointSanitizer(epsilon=1.0, delta=1e-6, alpha=0.5, domain=dom, random_state=5)  # noqa: E731
    assert make().fit(_frame(spark, values, partitions=3))._fitted_state() == make().fit(values)._fitted_state()
    distinct, counts = np.unique(values, return_counts=True)  # the same records, a counts column named as y is
    on_spark = make().fit(_frame(spark, distinct, counts, partitions=2), counts="y")
    assert on_spark._fitted_state() == make().fit(values)._fitted_state()
    assert list(on_spark.feature_names_in_) == ["x"] and on_spark.fit_shape_ == (values.size, 1)


def test_the_driver_collect_reads_arrow_on_every_supported_pyspark(spark):
    """``toArrow`` exists from pyspark 4.0; before it the same table comes from ``_collect_as_arrow``."""
    from types import SimpleNamespace

    from privpac.backends.spark_engine import _arrow_table

    frame = _frame(spark, np.arange(50, dtype=np.int64), np.arange(50) % 2, partitions=3)
    older = SimpleNamespace(_collect_as_arrow=frame._collect_as_arrow)
    assert _arrow_table(older).to_pydict() == _arrow_table(frame).to_pydict()
    assert sorted(_arrow_table(frame).to_pydict()["x"]) == list(range(50))


def test_spark_workers_freeze_their_imports_and_the_driver_is_left_alone(spark):
    """PySpark's daemon runs a full gc.collect() in a reused worker after every task: privpac's worker
    functions freeze the imported modules first (most of a small pass's CPU time otherwise); the
    driver's collector is never touched."""
    import gc

    from privpac.backends.spark_engine import SparkBackend

    before = gc.get_freeze_count()
    counts = SparkBackend().map_merge(
        lambda X: [gc.get_freeze_count()], lambda parts: sum(parts, []), _frame(spark, np.arange(100), partitions=3)
    )
    assert len(counts) == 3 and min(counts) > 10000, counts  # numpy, pandas, pyarrow, privpac: 10^4 and more
    assert gc.get_freeze_count() == before


def test_spark_labels_are_a_column(spark):
    from privpac.errors import DataError
    from privpac.estimators import PrivateThresholdClassifier

    x = np.arange(100, dtype=np.int64)
    frame = _frame(spark, x, (x > 50).astype(np.int64))
    with pytest.raises(DataError, match="name of a column of X"):
        PrivateThresholdClassifier(domain=(0, 99), random_state=0).fit(frame, "label")


def test_gradient_sum_halfspaces_on_spark_agree_with_memory(spark):
    """One gradient sum per step, summed over the partitions with treeReduce: equal to the in-memory
    fit up to float rounding (not bit for bit), with the identical ledger."""
    from privpac.estimators import PrivateHalfspaceClassifier

    rng = np.random.default_rng(0)
    X = rng.uniform(-1.0, 1.0, (20000, 8))
    y = (X @ np.arange(1.0, 9.0) > 0).astype(np.int64)
    names = [f"x{j}" for j in range(8)]
    practical = dict(margin=0.1, variant="practical", n_steps=3, random_state=5)
    cases = [
        lambda: PrivateHalfspaceClassifier(domain=(-1, 1), **practical),
        lambda: PrivateHalfspaceClassifier(domain=(-1, 1), fit_intercept=True, **practical),
        lambda: PrivateHalfspaceClassifier(domain=3.0, projection_dim=4, **practical),
        lambda: PrivateHalfspaceClassifier(domain=(-1, 1), n_steps=3, random_state=5),  # the logistic default
    ]
    frame = spark.createDataFrame(pd.DataFrame({**{n: X[:, j] for j, n in enumerate(names)}, "y": y}))
    frame = frame.repartition(7).cache()  # each fit is a Spark job per gradient step: one partitioning, read once
    for make in cases:
        reference = make().fit(X, y)
        est = make().fit(frame, "y")
        np.testing.assert_allclose(est.coef_, reference.coef_, rtol=0, atol=1e-8)
        np.testing.assert_allclose(est.projected_coef_, reference.projected_coef_, rtol=0, atol=1e-8)
        assert abs(est.intercept_ - reference.intercept_) <= 1e-8
        assert est.ledger_.lines() == reference.ledger_.lines()
        assert est.n_samples_ == 20000 and list(est.feature_names_in_) == names
        assert est.projection_seed_ == reference.projection_seed_ and est.details_ == reference.details_
    bad = X.copy()
    bad[123, 0] = 2.0
    frame = spark.createDataFrame(pd.DataFrame({**{n: bad[:, j] for j, n in enumerate(names)}, "y": y}))
    with pytest.raises(Exception, match="outside the declared domain"):  # raised in a task, reported by Spark
        PrivateHalfspaceClassifier(domain=(-1, 1), margin=0.1, random_state=5).fit(frame.repartition(3), "y")


def test_pure_halfspace_on_spark_is_the_in_memory_model(spark):
    """One pass of integer violation counts over the net: the in-memory model bit for bit."""
    from privpac.estimators import PrivateHalfspaceClassifier

    rng = np.random.default_rng(1)
    X = rng.uniform(-1.0, 1.0, (3000, 2))
    y = (X @ np.array([1.0, 2.0]) > 0).astype(np.int64)
    make = lambda: PrivateHalfspaceClassifier(  # noqa: E731
        domain=(-1, 1), margin=0.3, variant="pure", delta=0.0, random_state=4
    )
    reference = make().fit(X, y)
    frame = spark.createDataFrame(pd.DataFrame({"x0": X[:, 0], "x1": X[:, 1], "y": y}))
    for partitions in (7,):  # one partition is covered by the primitives' tests
        est = make().fit(frame.repartition(partitions), "y")
        assert est._fitted_state() == reference._fitted_state()
        assert est.ledger_.lines() == reference.ledger_.lines()


def _ordered_frame(spark, columns: dict, partitions: int):
    """A DataFrame whose rows keep the order of ``columns`` in ``partitions`` consecutive ranges
    (no shuffle): positions are the data's own order."""
    from pyspark.sql.types import DoubleType, LongType, StructField, StructType

    frame = pd.DataFrame(columns)
    schema = StructType(
        [StructField(c, LongType() if frame[c].dtype.kind == "i" else DoubleType()) for c in frame.columns]
    )

    def rows(batches):
        for batch in batches:
            yield frame.iloc[batch["id"].to_numpy()].reset_index(drop=True)

    # This data source is the test's own Python function, not one of privpac's jobs: like any user's
    # function it runs on the Python the session names, set here for it alone.
    # Cached: the source runs once, and every pass of a fit reads the same partitions in the same
    # order (a cache keeps the rows of each partition and its index; its plan has no shuffle).
    sc, default = spark.sparkContext, spark.sparkContext.pythonExec
    sc.pythonExec = sys.executable
    try:
        return spark.range(0, len(frame), numPartitions=partitions).mapInPandas(rows, schema).cache()
    finally:
        sc.pythonExec = default


def test_map_chunks_and_row_positions_on_spark(spark):
    from privpac.backends.memory import NumpyBackend
    from privpac.backends.spark_engine import SparkBackend
    from privpac.errors import DataError

    rng = np.random.default_rng(1)
    x = rng.integers(0, 1000, 2000)
    y = (x > 400).astype(np.int64)

    def summary(X_chunk, y_chunk):
        v = np.asarray(X_chunk).ravel()
        return int(v.sum()), int(np.asarray(y_chunk).sum()), int(v.size), int(v[0])

    frames = {partitions: _ordered_frame(spark, {"x": x, "y": y}, partitions) for partitions in (1, 7)}
    for chunk_size in (37, 1000):
        expected = NumpyBackend().map_chunks(summary, chunk_size, 2000, x.reshape(-1, 1), y)
        for partitions, frame in frames.items():
            assert SparkBackend().map_chunks(summary, chunk_size, 2000, frame, "y") == expected, partitions
    with pytest.raises(DataError, match="has a shuffle"):
        SparkBackend().map_chunks(summary, 37, 2000, _frame(spark, x, y, 3), "y")

    # map_merge_rows: every block at its position (the partitions' rows counted in the JVM, empty
    # partitions included), with offsets counted once or by the pass itself
    def positions(start, X_block, y_block):
        v = np.asarray(X_block).ravel()
        return [(start, v.tolist())] if v.size else []

    def merge(parts):
        return sorted(p for part in parts for p in part)

    few = _ordered_frame(spark, {"x": x[:10], "y": y[:10]}, 13)  # more partitions than rows: some are empty
    head = set(x[:5].tolist())  # a filter (no shuffle) that empties the last partitions
    trailing = few.where(few["x"].isin(sorted(head)))
    kept = np.array([v for v in x[:10] if v in head])
    for frame, rows in ((frames[7], x), (few, x[:10]), (trailing, kept)):
        offsets = SparkBackend().row_offsets(frame, "y")
        assert offsets[0] == 0 and offsets[-1] == rows.size
        for kw in ({}, {"offsets": offsets}):
            blocks = SparkBackend().map_merge_rows(positions, merge, frame, "y", **kw)
            assert [v for _, b in blocks for v in b] == rows.tolist()
            assert all(rows[s] == b[0] for s, b in blocks)
    with pytest.raises(Exception, match="changed between passes"):
        moved = [0, 1, *SparkBackend().row_offsets(frames[7], "y")[2:]]
        SparkBackend().map_merge_rows(positions, merge, frames[7], "y", offsets=moved)
    with pytest.raises(DataError, match="partition offsets"):
        SparkBackend().map_merge_rows(positions, merge, frames[7], "y", offsets=[0, 2000])


def test_row_positions_refuse_several_files(spark, tmp_path):
    """Spark orders the splits of several files by size (content-dependent): positions refuse it."""
    from privpac.backends.spark_engine import SparkBackend
    from privpac.errors import DataError

    x = np.arange(100, dtype=np.int64)
    for i in range(2):
        pd.DataFrame({"x": x[50 * i : 50 * (i + 1)], "y": x[50 * i : 50 * (i + 1)] % 2}).to_parquet(
            tmp_path / f"part-{i}.parquet"
        )
    with pytest.raises(DataError, match="orders the splits of the 2 files"):
        SparkBackend().map_chunks(len, 10, 100, spark.read.parquet(str(tmp_path)), "y")
    one = spark.read.parquet(str(tmp_path / "part-0.parquet"))
    assert SparkBackend().map_chunks(lambda X, y: int(X["x"].sum()), 10, 50, one, "y") == [
        int(x[a : a + 10].sum()) for a in range(0, 50, 10)
    ]


def test_rectangles_and_label_private_give_the_same_model_on_spark(spark):
    import warnings

    from privpac.estimators import LabelPrivateClassifier, PrivateRectangleClassifier

    rng = np.random.default_rng(0)
    X = rng.integers(0, 2**20, size=(20000, 2), dtype=np.int64)
    y = (X.max(axis=1) < 3 * 2**18).astype(np.int64)
    cases = [  # at seven partitions (RandMargins runs a Spark job per round)
        (lambda: PrivateRectangleClassifier(domain=(0, 2**20 - 1), random_state=5), X, None),
        (lambda: PrivateRectangleClassifier(method="composition", domain=(0, 2**20 - 1), random_state=5), X, None),
        (lambda: LabelPrivateClassifier(domain=(0, 2**20), n_unlabelled=1500, random_state=5), X[:, :1], None),
        (lambda: LabelPrivateClassifier(domain=(0, 2**20), concept="points", random_state=5), X[:, :1], "public"),
    ]
    frames = {}  # the two rectangle cases share one frame, the two label-private cases another
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for make, features, public in cases:
            extra = {"X_public": np.arange(0, 2**20, 2**10)} if public == "public" else {}
            reference = make().fit(features, y, **extra)
            names = [f"x{j}" for j in range(features.shape[1])]
            for partitions in (7,):  # one partition is covered by the primitives' tests
                if (len(names), partitions) not in frames:
                    columns = {**{c: features[:, j] for j, c in enumerate(names)}, "y": y}
                    frames[len(names), partitions] = _ordered_frame(spark, columns, partitions)
                frame = frames[len(names), partitions]
                est = make().fit(frame, "y", **extra)
                assert est._fitted_state() == reference._fitted_state(), (type(est).__name__, partitions)
                assert est.ledger_.lines() == reference.ledger_.lines()
                assert list(est.feature_names_in_) == names


def test_map_chunks_stops_at_a_public_prefix_on_spark(spark):
    from privpac.backends.memory import NumpyBackend
    from privpac.backends.spark_engine import SparkBackend

    x = np.arange(2000, dtype=np.int64) * 7 % 1000
    y = (x > 400).astype(np.int64)

    def summary(X_chunk, y_chunk):
        v = np.asarray(X_chunk).ravel()
        return int(v.sum()), int(np.asarray(y_chunk).sum()), int(v.size), int(v[0])

    for partitions in (1, 7):
        frame = _ordered_frame(spark, {"x": x, "y": y}, partitions)
        for stop in (0, 999, 1998):
            expected = NumpyBackend().map_chunks(summary, 37, 2000, x.reshape(-1, 1), y, stop=stop)
            assert SparkBackend().map_chunks(summary, 37, 2000, frame, "y", stop=stop) == expected, (partitions, stop)
    few = _ordered_frame(spark, {"x": x[:10], "y": y[:10]}, 13)  # more partitions than rows: some are empty
    assert SparkBackend().map_chunks(summary, 3, 10, few, "y", stop=8) == [
        summary(x[a : min(a + 3, 8)], y[a : min(a + 3, 8)]) for a in range(0, 8, 3)
    ]


def _geometric_cases():
    from privpac.domains import Grid
    from privpac.estimators import (
        PrivateCenterPoint,
        PrivateFeasibilityHalfspaceClassifier,
        PrivateLinearFeasibility,
        PrivateTukeyHalfspaceClassifier,
    )

    rng = np.random.default_rng(3)
    x = rng.integers(-4, 5, size=(3000, 1))
    grid = np.arange(-8, 9).repeat(20).reshape(-1, 1)
    x3 = rng.integers(-4, 5, size=(600, 3))
    return {
        "tukey": (
            lambda: PrivateTukeyHalfspaceClassifier(domain=4, random_state=5),
            x,
            (x[:, 0] >= 1).astype(np.int64),
        ),
        "center-point": (lambda: PrivateCenterPoint(domain=3, random_state=5), rng.integers(-3, 4, (500, 2)), None),
        "linear-feasibility": (
            lambda: PrivateLinearFeasibility(domain=2, random_state=5),
            np.array([[1, 0], [0, 1], [-1, -1]] * 100),
            np.array([0, 0, -2] * 100),
        ),
        "halfspace-feasibility": (
            lambda: PrivateFeasibilityHalfspaceClassifier(epsilon=5.0, domain=8, random_state=5),
            grid,
            (grid[:, 0] >= 3).astype(np.int64),
        ),
        "halfspace-feasibility-candidates": (  # d = 3 over public candidates: only their depths travel
            lambda: PrivateFeasibilityHalfspaceClassifier(epsilon=5.0, domain=4, candidates=200, random_state=5),
            x3,
            (x3 @ np.array([1, -1, 2]) >= 1).astype(np.int64),
        ),
        # real values on a public grid: each partition maps its own rows to the grid's lattice
        "tukey-grid": (
            lambda: PrivateTukeyHalfspaceClassifier(domain=Grid(-1.0, 3.0, 9), random_state=5),
            1.0 + 0.5 * x,
            (x[:, 0] >= 1).astype(np.int64),
        ),
        "halfspace-feasibility-candidates-grid": (
            lambda: PrivateFeasibilityHalfspaceClassifier(
                epsilon=5.0, domain=Grid(-0.4, 0.4, 9), candidates=200, random_state=5
            ),
            0.1 * x3,
            (x3 @ np.array([1, -1, 2]) >= 1).astype(np.int64),
        ),
    }


def _fit(make, X, y, **kwargs):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return make(**kwargs).fit(X) if y is None else make(**kwargs).fit(X, y)


def _columns(X, y):
    return {**{f"x{j}": X[:, j] for j in range(X.shape[1])}, **({} if y is None else {"y": y})}


@pytest.mark.parametrize("name", sorted(_geometric_cases()))
def test_geometric_estimators_give_the_same_model_on_spark(spark, name):
    make, X, y = _geometric_cases()[name]
    reference = _fit(make, X, y)
    for partitions in (7,):  # one partition is covered by the primitives' tests
        est = _fit(make, _ordered_frame(spark, _columns(X, y), partitions), None if y is None else "y")
        assert est._fitted_state() == reference._fitted_state(), partitions
        assert est.ledger_.lines() == reference.ledger_.lines()
        assert list(est.feature_names_in_) == [f"x{j}" for j in range(X.shape[1])]


@pytest.mark.parametrize("name", ["tukey", "center-point", "halfspace-feasibility-candidates"])
def test_geometric_estimators_report_a_bad_value_in_one_partition_on_spark(spark, name):
    make, X, y = _geometric_cases()[name]
    bad = X.copy()
    bad[len(X) - 5, 0] = 9  # outside the public box, in the last partition
    with pytest.raises(Exception) as in_memory:
        _fit(make, bad, y)
    message = str(in_memory.value)
    assert f"X[{len(X) - 5}, 0] = 9 lies outside" in message
    with pytest.raises(Exception, match=message.replace("[", "\\[").replace("]", "\\]")):
        _fit(make, _ordered_frame(spark, _columns(bad, y), 7), None if y is None else "y")


def test_above_the_envelope_spark_data_is_refused_before_collection(spark, monkeypatch):
    from privpac.backends.spark_engine import SparkBackend
    from privpac.errors import InvalidParameterError
    from privpac.estimators import PrivateCenterPoint, PrivateLinearFeasibility
    from privpac.learners.center_point import MAX_POINTS_3D_SOLID
    from privpac.learners.linear_feasibility import MAX_CONSTRAINTS_3D

    def collect(*args, **kwargs):
        raise AssertionError("the rows were collected before the envelope was checked")

    monkeypatch.setattr(SparkBackend, "map_chunks", collect)
    rng = np.random.default_rng(0)
    points = _ordered_frame(spark, _columns(rng.integers(-3, 4, (MAX_POINTS_3D_SOLID + 1, 3)), None), 3)
    with pytest.raises(InvalidParameterError, match="MAX_POINTS_3D_SOLID"):
        PrivateCenterPoint(domain=3).fit(points)
    m = MAX_CONSTRAINTS_3D + 1
    system = _ordered_frame(spark, _columns(rng.integers(-2, 3, (m, 3)), rng.integers(-2, 3, m)), 3)
    with pytest.raises(InvalidParameterError, match=f"exact up to m = {MAX_CONSTRAINTS_3D} constraints"):
        PrivateLinearFeasibility(domain=2).fit(system, "y")
    with pytest.raises(AssertionError, match="collected"):  # within the envelope, the rows are collected
        PrivateCenterPoint(domain=3).fit(points.limit(MAX_POINTS_3D_SOLID))


def test_take_rows_on_spark(spark, tmp_path):
    """The rows at the positions asked for, in that order (repeats too), for one and seven
    partitions and more partitions than rows; the positional refusals of every positional pass."""
    from privpac.backends.spark_engine import SparkBackend
    from privpac.errors import DataError

    rng = np.random.default_rng(2)
    x = rng.integers(0, 1000, 2000)
    y = (x > 400).astype(np.int64)
    positions = np.array([5, 1999, 0, 5, 700, 1000, 999, 1000, 1500, 1500])
    for partitions in (1, 7):
        frame = _ordered_frame(spark, {"x": x, "y": y}, partitions)
        for kw in ({}, {"offsets": SparkBackend().row_offsets(frame, "y")}) if partitions == 7 else ({},):
            X_rows, y_rows = SparkBackend().take_rows(positions, frame, "y", **kw)
            assert list(X_rows.columns) == ["x"], partitions
            assert X_rows["x"].tolist() == x[positions].tolist() and y_rows.tolist() == y[positions].tolist()
    few = _ordered_frame(spark, {"x": x[:10], "y": y[:10]}, 13)  # some partitions are empty
    X_rows, _ = SparkBackend().take_rows(np.array([9, 0, 4, 9]), few, "y")
    assert X_rows["x"].tolist() == x[[9, 0, 4, 9]].tolist()
    X_rows, y_rows = SparkBackend().take_rows(np.array([], dtype=np.int64), few, "y")
    assert list(X_rows.columns) == ["x"] and len(X_rows) == 0 and len(y_rows) == 0
    with pytest.raises(DataError, match="must lie in"):
        SparkBackend().take_rows(np.array([10]), few, "y")
    with pytest.raises(DataError, match="has a shuffle"):
        SparkBackend().take_rows(positions, _frame(spark, x, y, 3), "y")
    for i in range(2):
        pd.DataFrame({"x": x[50 * i : 50 * (i + 1)], "y": y[50 * i : 50 * (i + 1)]}).to_parquet(
            tmp_path / f"part-{i}.parquet"
        )
    with pytest.raises(DataError, match="orders the splits of the 2 files"):
        SparkBackend().take_rows(positions[:3], spark.read.parquet(str(tmp_path)), "y")


def _faithful(variant, optimizer, **kw):
    from privpac.estimators import PrivateHalfspaceClassifier

    return lambda: PrivateHalfspaceClassifier(
        domain=(-1, 1), margin=0.3, variant=variant, optimizer=optimizer, n_steps=3, random_state=5, **kw
    )


def _quiet_fit(est, *args):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # utility (faithful) and privacy (paper-literal) warnings
        return est.fit(*args)


@pytest.mark.parametrize("variant, optimizer", [("faithful", "bst14"), ("paper-literal", "dpgd")])
def test_faithful_halfspace_on_spark_is_the_in_memory_model(spark, variant, optimizer):
    """BST14 gathers its records by position: the in-memory model and ledger bit for bit. Noisy GD
    sums gradients with treeReduce: equal up to float rounding, the same ledger (seven partitions
    only: a Spark job per gradient step)."""
    rng = np.random.default_rng(0)
    X = rng.uniform(-1.0, 1.0, (40, 3))
    y = (X @ np.array([1.0, 2.0, 3.0]) > 0).astype(np.int64)
    make = _faithful(variant, optimizer)
    reference = _quiet_fit(make(), X, y)
    for partitions in (1, 7) if optimizer == "bst14" else (7,):
        frame = _ordered_frame(spark, {"x0": X[:, 0], "x1": X[:, 1], "x2": X[:, 2], "y": y}, partitions)
        est = _quiet_fit(make(), frame, "y")
        assert est.ledger_.lines() == reference.ledger_.lines()
        if optimizer == "bst14":
            assert est._fitted_state() == reference._fitted_state(), partitions
        else:
            np.testing.assert_allclose(est.projected_coef_, reference.projected_coef_, rtol=0, atol=1e-8)
            np.testing.assert_allclose(est.coef_, reference.coef_, rtol=0, atol=1e-8)
            assert est.details_ == reference.details_ and est.n_samples_ == 40


def test_faithful_halfspace_on_spark_checks_every_partition_before_spending(spark):
    from privpac.accountant import BudgetAccountant

    rng = np.random.default_rng(0)
    X = rng.uniform(-1.0, 1.0, (40, 3))
    y = (X @ np.array([1.0, 2.0, 3.0]) > 0).astype(np.int64)
    X[38, 1] = 1.5  # outside the public box, in the last partition
    accountant = BudgetAccountant()
    frame = _ordered_frame(spark, {"x0": X[:, 0], "x1": X[:, 1], "x2": X[:, 2], "y": y}, 7)
    with pytest.raises(Exception, match="outside the declared domain"):  # raised in a task, reported by Spark
        _quiet_fit(_faithful("faithful", "bst14", accountant=accountant)(), frame, "y")
    assert accountant.spent == (0.0, 0.0) and len(accountant) == 0
