"""Spark without setup: a session, and its workers readied for privpac's jobs.

:func:`spark_session` builds a session (checking Java first, with a one-line
error when it is missing). Whatever built the session, privpac's own Spark jobs make sure the
workers can run them, once per Spark application, before the first job of a fit:

* on a local master (``local``, ``local[4]``, ...) the workers run on this machine, so privpac's
  jobs use this interpreter (``sys.executable``) unless ``PYSPARK_PYTHON`` chose another one;
  PySpark's own default, ``python3`` on the ``PATH``, is often a Python without privpac (a
  virtual environment that is not activated, a console script) and fails deep in a task;
* a one-task probe job asks the workers' Python for privpac and the modules its kernels import
  (numpy, scipy, scikit-learn, pandas, pyarrow, tqdm). If only privpac is missing (a cluster whose
  workers have the dependencies), privpac ships its own pure-Python source to the application
  (``SparkContext.addPyFile``) and probes again; a missing dependency, a different privpac
  version or a worker Python that does not start is an :class:`~privpac.errors.EngineError` saying
  what to set (``PYSPARK_PYTHON``, or ``spark.pyspark.python`` with ``spark-submit``).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
import threading
from pathlib import Path

from ..errors import EngineError

#: What privpac's Spark kernels may import on the workers (mapInArrow batches arrive as pyarrow and are
#: read with pandas). The probe finds each one without importing it: a kernel imports only its own
#: modules (a counting kernel neither SciPy nor scikit-learn), so a new worker does not pay for them.
_WORKER_MODULES = ("numpy", "scipy", "sklearn", "pandas", "pyarrow", "tqdm")


def _java() -> str:
    """The ``java`` Spark will launch (``$JAVA_HOME/bin/java``, else the one on ``PATH``), or an EngineError."""
    home = os.environ.get("JAVA_HOME")
    if home:
        java = Path(home) / "bin" / ("java.exe" if os.name == "nt" else "java")
        if not java.exists():
            raise EngineError(f"JAVA_HOME={home} holds no bin/java: point JAVA_HOME at a Java 17+ installation")
        return str(java)
    java = shutil.which("java")
    if java is None:
        raise EngineError(
            "Spark needs Java 17 or later and none was found (no JAVA_HOME, no java on PATH): install a JDK "
            "(e.g. apt install openjdk-17-jre-headless) or set JAVA_HOME"
        )
    return java


def spark_session(master: str = "local[*]", app_name: str = "privpac", config: dict | None = None):
    """A SparkSession for privpac's fits, from a fresh install: no environment variable needed.

    Parameters
    ----------
    master : str, default="local[*]"
        The Spark master: ``local[*]`` (every core of this machine) or a cluster URL such as
        ``spark://host:7077`` or ``yarn``.
    app_name : str, default="privpac"
        The application name (the Spark UI shows it).
    config : dict or None, default=None
        More Spark settings (``{"spark.executor.memory": "4g"}``).

    Returns
    -------
    pyspark.sql.SparkSession
        ``SparkSession.builder.getOrCreate()``: the active session if there is one (its settings
        stay as they are). On a local master the driver binds to 127.0.0.1 (no hostname lookup).

    Raises
    ------
    privpac.errors.EngineError
        No pyspark, no Java (checked before Spark tries to start), or a Java gateway that does not
        start (an old Java, for example), each in one line.

    Notes
    -----
    Java is looked up first so that a missing one is a one-line error, not PySpark's "Java gateway
    process exited". The workers' Python is taken care of when privpac first runs a job on the
    session, whoever built it (see the module notes): a local master needs nothing; on a cluster the
    workers need a Python with privpac's dependencies, named by ``spark.pyspark.python`` or
    ``PYSPARK_PYTHON`` (docs/scale.md).

    Examples
    --------
    >>> from privpac.backends import spark_session                     # doctest: +SKIP
    >>> spark = spark_session()                                         # doctest: +SKIP
    >>> df = spark.read.parquet("records.parquet")                      # doctest: +SKIP
    >>> PrivateThresholdClassifier(domain=(0, 2**32 - 1)).fit(df, "label")  # doctest: +SKIP
    """
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        raise EngineError("Spark fits need pyspark and pyarrow: pip install 'privpac[spark]'") from None
    java = _java()
    builder = SparkSession.builder.master(master).appName(app_name)
    if master.startswith("local"):
        builder = builder.config("spark.driver.host", "127.0.0.1").config("spark.driver.bindAddress", "127.0.0.1")
    for key, value in (config or {}).items():
        builder = builder.config(key, value)
    try:
        return builder.getOrCreate()
    except Exception as exc:  # PySpark raises its own error types when the JVM does not come up
        if "JAVA_GATEWAY_EXITED" not in str(exc) and "Java gateway" not in str(exc):
            raise
        raise EngineError(
            f"Spark could not start Java ({java}): Spark {_pyspark_version()} needs Java 17 or later; "
            "check `java -version` or set JAVA_HOME"
        ) from None


def _pyspark_version() -> str:
    import pyspark

    return pyspark.__version__


#: Spark applications (``(application id, worker Python)``) whose workers run privpac's jobs.
_SPARK_READY: set = set()
#: Per SparkContext: how many privpac passes run on it, and the worker Python to restore after them.
_SPARK_USERS: dict = {}
_SPARK_LOCK = threading.Lock()


def _worker_python(sc) -> str:
    """The Python privpac's jobs run on: this interpreter on a local master unless PYSPARK_PYTHON chose
    one (PySpark's default, ``python3`` on the PATH, need not have privpac), else the context's."""
    chosen = os.environ.get("PYSPARK_PYTHON")
    if sc.master.startswith("local") and sc.pythonExec == "python3" and chosen in (None, ""):
        return sys.executable
    return sc.pythonExec


def _run_probe(sc) -> tuple:
    """``(status, module or version, worker executable)`` from a one-task job."""
    modules = _WORKER_MODULES

    def probe(_):  # a nested function travels by value: it runs even where privpac cannot be imported
        import importlib
        import importlib.util
        import sys

        for module in modules:
            if importlib.util.find_spec(module) is None:
                return ("missing", module, sys.executable)
        try:
            return ("ok", importlib.import_module("privpac").__version__, sys.executable)
        except ImportError as exc:
            return ("missing", exc.name or "privpac", sys.executable)

    try:
        return sc.parallelize([0], 1).map(probe).collect()[0]
    except Exception as exc:
        first = next((line for line in str(exc).splitlines() if line.strip()), type(exc).__name__)
        raise EngineError(
            f"Spark's workers could not run Python {sc.pythonExec!r} ({first.strip()[:200]}): set PYSPARK_PYTHON "
            "(or spark.pyspark.python) to a Python with privpac installed on every worker"
        ) from None


def _privpac_zip() -> str:
    """privpac's own source as a zip for ``SparkContext.addPyFile`` (pure Python: nothing to build)."""
    import tempfile
    import zipfile

    package = Path(__file__).resolve().parent.parent  # the privpac package
    if any(package.rglob("*.so")) or any(package.rglob("*.pyd")):
        raise EngineError("privpac cannot ship itself to Spark's workers (compiled files): install it on them")
    from .. import __version__

    path = Path(tempfile.mkdtemp(prefix="privpac-spark-")) / f"privpac-{__version__}.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for file in sorted(package.rglob("*.py")):
            zf.write(file, Path("privpac") / file.relative_to(package))
    return str(path)


def _check_spark_workers(sc) -> None:
    """Probe once per application and worker Python; ship privpac if only privpac is missing."""
    from .. import __version__

    key = (sc.applicationId, sc.pythonExec)
    if key in _SPARK_READY:
        return
    status, found, executable = _run_probe(sc)
    if status == "missing" and found.split(".")[0] == "privpac":
        sc.addPyFile(_privpac_zip())
        status, found, executable = _run_probe(sc)
    if status == "missing":
        raise EngineError(
            f"Spark's workers run Python {executable}, which cannot import {found}: privpac's Spark jobs need "
            "numpy, scipy, scikit-learn, pandas, pyarrow and tqdm there; set PYSPARK_PYTHON (or "
            "spark.pyspark.python) to a Python that has them (pip install 'privpac[spark]')"
        )
    if found != __version__:
        raise EngineError(
            f"Spark's workers ({executable}) import privpac {found}, this driver runs {__version__}: install "
            "the same version on the workers"
        )
    _SPARK_READY.add(key)


@contextlib.contextmanager
def _spark_workers(X):
    """privpac's passes on ``X``'s session: the worker Python set (:func:`_worker_python`) and checked
    while any of them runs, then restored (the session's other jobs keep their own)."""
    sc = X.sparkSession.sparkContext
    with _SPARK_LOCK:
        users, saved = _SPARK_USERS.get(id(sc), (0, sc.pythonExec))
        _SPARK_USERS[id(sc)] = (users + 1, saved)
        try:
            sc.pythonExec = _worker_python(sc)  # read when a job's Python function is wrapped for the JVM
            _check_spark_workers(sc)
        except BaseException:
            _leave(sc)
            raise
    try:
        yield
    finally:
        with _SPARK_LOCK:
            _leave(sc)


def _leave(sc) -> None:
    users, saved = _SPARK_USERS.pop(id(sc))
    if users > 1:
        _SPARK_USERS[id(sc)] = (users - 1, saved)
    else:
        sc.pythonExec = saved
