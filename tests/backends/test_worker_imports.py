"""What an engine worker imports to run privpac's kernels.

Dask and Spark pickle a pass's kernel and merge with cloudpickle: a function defined at the top of a
module travels by reference, and the worker imports that module (and its package) to unpickle it.
The counting kernels of the one-dimensional, box and label-private estimators must not pull
scikit-learn or SciPy into every new worker process (about 0.9 s of CPU each before; issue 22): the
kernels live in modules below the estimators' scikit-learn classes, and the packages import their
modules on first use (:mod:`privpac.exports`).
"""

import pickle
import subprocess
import sys

import numpy as np
import pytest

cloudpickle = pytest.importorskip("cloudpickle")
pd = pytest.importorskip("pandas")

PASSES = ("map_merge", "map_merge_keyed", "hold_blocks", "map_merge_rows", "map_chunks")


def _shipped(monkeypatch) -> list[tuple[str, bytes]]:
    """The kernels and merges of in-memory fits, pickled as an engine pickles them (the same objects
    a Dask or Spark fit ships: in memory the whole input is one block of the same code path)."""
    from privpac.backends.memory import NumpyBackend
    from privpac.estimators import (
        LabelPrivateClassifier,
        PrivateHistogram,
        PrivatePointClassifier,
        PrivateRectangleClassifier,
        PrivateThresholdClassifier,
        PrivateTukeyHalfspaceClassifier,
    )

    shipped = []
    for name in PASSES:
        original = getattr(NumpyBackend, name)

        def capture(self, *args, _original=original, _name=name, **kwargs):
            functions = [a for a in args if callable(a) and not isinstance(a, (np.ndarray, pd.Series, pd.DataFrame))]
            shipped.append((_name, cloudpickle.dumps(functions)))
            return _original(self, *args, **kwargs)

        monkeypatch.setattr(NumpyBackend, name, capture)
    rng = np.random.default_rng(0)
    x = pd.DataFrame({"x": rng.integers(0, 1000, 400)})
    y = pd.Series((x["x"] > 300).astype(int))
    X2 = pd.DataFrame(rng.uniform(0, 1, (300, 2)), columns=["a", "b"])
    y2 = pd.Series((X2["a"] > 0.4).astype(int))
    grid = {"a": (0.0, 1.0, 16), "b": (0.0, 1.0, 16)}
    PrivateThresholdClassifier(domain=(0, 999), random_state=1).fit(x, y)
    PrivatePointClassifier(domain=(0, 999), random_state=1).fit(x, y)
    PrivateHistogram(domain=(0, 999), random_state=1).fit(x)
    for method in ("randmargins", "composition"):  # "bns" refuses a sample this small after its count pass
        PrivateRectangleClassifier(domain=grid, method=method, random_state=1).fit(X2, y2)
    LabelPrivateClassifier(domain=(0, 999), n_unlabelled=100, random_state=1).fit(x, y)
    PrivateTukeyHalfspaceClassifier(domain=grid, random_state=1).fit(X2, y2)
    return shipped


@pytest.mark.filterwarnings("ignore::privpac.errors.UtilityWarning")
def test_counting_kernels_unpickle_without_scikit_learn_or_scipy(monkeypatch, tmp_path):
    shipped = _shipped(monkeypatch)
    assert {name for name, _ in shipped} >= {"map_merge", "map_merge_rows", "map_chunks"}
    path = tmp_path / "kernels.pkl"
    path.write_bytes(pickle.dumps(shipped))
    script = (
        "import pickle, sys\n"
        f"for name, blob in pickle.loads(open({str(path)!r}, 'rb').read()):\n"
        "    pickle.loads(blob)\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'sklearn', 'scipy', 'matplotlib'}))\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]", result.stdout
