"""Input validation shared by every public entry point.

Each checker returns the cleaned value and raises an exception from :mod:`privpac.errors` whose
message names the offending parameter. Nothing here looks at data to *choose* anything: it only
accepts or rejects.
"""

from __future__ import annotations

import functools
import math
import numbers
import warnings
from collections.abc import Mapping
from fractions import Fraction

import numpy as np

from .errors import DataError, InvalidParameterError, PreconditionError, UnsafeConfigurationWarning


def module_root(obj) -> str:
    """The top-level package an object's type comes from (``"dask"``, ``"pyspark"``, ``"numpy"``...)."""
    return type(obj).__module__.partition(".")[0]


def is_engine_collection(obj) -> bool:
    """True for data that lives on an engine (Dask, Spark), which validation must not materialise.

    Read from the object's type alone: no engine is imported to answer."""
    root = module_root(obj)
    return root in ("dask", "dask_expr") or (root == "pyspark" and hasattr(obj, "mapInArrow"))


def _is_real_number(x) -> bool:
    kind = type(x)
    if kind is float or kind is int:  # the common case, without the abstract-class check
        return True
    return isinstance(x, numbers.Real) and not isinstance(x, bool)


def check_real(x, name: str, *, low=None, high=None, low_open=False, high_open=False) -> float:
    """Return ``x`` as a finite float in the given range, or raise naming ``name``."""
    if not _is_real_number(x):
        raise InvalidParameterError(f"{name} must be a real number, got {x!r}")
    value = float(x)
    if math.isnan(value) or math.isinf(value):
        raise InvalidParameterError(f"{name} must be finite, got {x!r}")
    if (low is not None and (value < low or (low_open and value == low))) or (
        high is not None and (value > high or (high_open and value == high))
    ):
        interval = (
            f"{'(' if low_open or low is None else '['}{'-inf' if low is None else low}, "
            f"{'inf' if high is None else high}{')' if high_open or high is None else ']'}"
        )
        raise InvalidParameterError(f"{name} must be in {interval}, got {x!r}")
    return value


def check_epsilon(epsilon, name: str = "epsilon") -> float:
    """epsilon must be a finite real number > 0."""
    return check_real(epsilon, name, low=0.0, low_open=True)


#: The smallest total epsilon an estimator or command accepts: below it the noise would exceed 10^9 per
#: count, which no analysis can use and which the exact samplers' integer arithmetic is not meant for.
MIN_EPSILON = 1e-9


def check_budget_epsilon(epsilon, name: str = "epsilon") -> float:
    """A user's total epsilon: a finite real number in ``[MIN_EPSILON, inf)``."""
    value = check_epsilon(epsilon, name)
    if value < MIN_EPSILON:
        raise InvalidParameterError(
            f"{name} must be at least {MIN_EPSILON:g}, got {epsilon!r}: the noise would be too large to be of any use"
        )
    return value


#: Every delta privpac accepts lies below 1/2: (epsilon, delta)-DP with delta >= 1/2 promises nothing, since
#: the release that publishes the whole dataset with probability delta (and nothing otherwise) satisfies it.
MAX_DELTA = 0.5


def check_delta(delta, name: str = "delta", *, allow_zero: bool = True) -> float:
    """delta must lie in ``[0, 1/2)`` (or ``(0, 1/2)`` when ``allow_zero`` is False).

    A delta of 1/2 or more is refused (:data:`MAX_DELTA`): publishing the whole dataset with probability
    delta is (0, delta)-DP, so such a guarantee allows releasing every record half of the time. Deltas
    of at least ``1/n`` are accepted and warned about by the estimators (``UnsafeConfigurationWarning``).
    """
    value = check_real(delta, name)
    if value >= MAX_DELTA:
        raise InvalidParameterError(
            f"{name} must be below 1/2, got {delta!r}: (epsilon, delta)-DP with {name} >= 1/2 promises nothing "
            "(publishing the whole dataset with probability 1/2 satisfies it); choose a delta much smaller than "
            "1/n (1e-6 or below is usual)"
        )
    if value < 0.0 or (value == 0.0 and not allow_zero):  # raises, naming the accepted range
        check_real(delta, name, low=0.0, low_open=not allow_zero, high=MAX_DELTA, high_open=True)
    return value


def check_probability(p, name: str) -> float:
    """An accuracy or confidence parameter in the open interval (0, 1)."""
    return check_real(p, name, low=0.0, low_open=True, high=1.0, high_open=True)


def check_int(x, name: str, *, low: int | None = None, high: int | None = None) -> int:
    """An integer (Python or numpy, not bool) within [low, high]; returns a Python int."""
    if type(x) is not int and (isinstance(x, bool) or not isinstance(x, numbers.Integral)):
        raise InvalidParameterError(f"{name} must be an integer, got {x!r}")
    value = int(x)
    if low is not None and value < low:
        raise InvalidParameterError(f"{name} must be >= {low}, got {value}")
    if high is not None and value > high:
        raise InvalidParameterError(f"{name} must be <= {high}, got {value}")
    return value


#: The most elements a user-set size may make privpac allocate at once (int64: 800 MB).
MAX_ELEMENTS = 10**8


def check_size(x, name: str, *, per_item: int = 1, limit: int = MAX_ELEMENTS) -> int:
    """A count a user sets (bins, records to sample, dimensions) that privpac will allocate.

    Refused before anything is allocated when ``x * per_item`` exceeds ``limit`` elements, with the
    size that was asked for.
    """
    value = check_int(x, name, low=1)
    if value * per_item > limit:
        raise InvalidParameterError(
            f"{name} = {value:,} would need {value * per_item:,} values in memory, more than privpac allocates "
            f"at once ({limit:,}); choose a smaller {name}"
        )
    return value


def check_counts(counts, n_rows: int, name: str = "counts", *, allow_all_zero: bool = False) -> np.ndarray:
    """Record multiplicities: one integer >= 0 per row, not all 0, their total within int64 (2^62).

    ``allow_all_zero`` is for one block of a larger dataset (the whole is checked when merged).
    """
    refuse_unsupported(counts, name)
    counts = as_numpy(counts, name)
    arr = np.asarray(counts, dtype=object) if isinstance(counts, list | tuple) else np.asarray(counts)
    if arr.dtype == object:
        if not all(isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in arr.ravel()):
            raise DataError(f"{name} must hold integers")
    elif not np.issubdtype(arr.dtype, np.integer):
        raise DataError(f"{name} must hold integers, got dtype {arr.dtype}")
    if arr.shape != (n_rows,):
        raise DataError(f"{name} must hold one integer multiplicity >= 0 per row of X ({n_rows}), got {arr.shape}")
    if arr.dtype == object:
        values = [int(v) for v in arr.tolist()]
        negative, total = any(v < 0 for v in values), sum(values)
    else:
        negative = bool(arr.size) and int(arr.min()) < 0
        # exact: a float total below 2^61 means the int64 sum cannot overflow
        approx = float(np.sum(arr, dtype=np.float64))
        total = int(np.sum(arr, dtype=np.int64)) if approx < 2.0**61 else sum(int(v) for v in arr.tolist())
    if negative:
        raise DataError(f"{name} must be >= 0")
    if total == 0 and not allow_all_zero:
        raise DataError(f"{name} are all 0: at least one record is needed")
    if total > 2**62:
        raise DataError(f"{name} add up to {total:,} records, more than privpac counts exactly (2^62)")
    return arr.astype(np.int64) if arr.dtype != object else np.asarray(values, dtype=np.int64)


def refuse_below_precondition(refusal: str, warning: str, *, unsafe: bool, stacklevel: int = 3) -> None:
    """The gate of a run with fewer records than its privacy precondition needs (the caller has checked).

    Raises :class:`~privpac.errors.PreconditionError` with ``refusal`` (which names the bound), or,
    when the caller passed ``unsafe_skip_precondition=True`` and so voided the guarantee on purpose,
    warns ``warning`` as an :class:`~privpac.errors.UnsafeConfigurationWarning` at the caller's caller.
    """
    if not unsafe:
        raise PreconditionError(refusal)
    warnings.warn(warning, UnsafeConfigurationWarning, stacklevel=stacklevel)


def renamed_message(owner: str, old: str, new: str) -> str:
    """The refusal of a keyword privpac no longer takes: it names the keyword that replaced it."""
    return f"{owner} no longer takes {old}=: it is called {new}= now (pass {new}=... instead)"


def refuses_renamed_parameters(init):
    """Decorate an estimator's ``__init__``: each former parameter name of ``_renamed_parameters``
    (a class attribute, old -> new) raises :class:`TypeError` naming the new one (never a silent alias).
    The signature stays that of ``__init__`` itself (``functools.wraps``), so scikit-learn's
    ``get_params`` and ``clone`` see the parameters only."""

    @functools.wraps(init)
    def wrapper(self, *args, **kwargs):
        renamed = type(self)._renamed_parameters
        for name in kwargs:
            if name in renamed:
                raise TypeError(renamed_message(type(self).__name__, name, renamed[name]))
        init(self, *args, **kwargs)

    return wrapper


def renamed_keywords(**renamed: str):
    """A function decorator: each ``old=new`` keyword raises :class:`TypeError` naming ``new`` when passed."""

    def decorate(func):
        owner = f"{func.__name__}()"

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            for name in kwargs:
                if name in renamed:
                    raise TypeError(renamed_message(owner, name, renamed[name]))
            return func(*args, **kwargs)

        wrapper.renamed_keywords = dict(renamed)
        return wrapper

    return decorate


#: The argument types a cached plan is keyed on: equal values of one of these types behave alike.
_PLAN_KEY_TYPES = frozenset({int, float, str, bool, type(None)})


def _plain_plan_argument(x) -> bool:
    kind = type(x)
    if kind is float:  # -0.0 equals 0.0 but prints apart; nan equals nothing
        return x == x and (x != 0.0 or math.copysign(1.0, x) > 0.0)
    return kind in _PLAN_KEY_TYPES


def cached_plan(maxsize: int = 256):
    """A decorator for the planners (pure functions of public parameters): calls whose arguments are
    all plain scalars (``int``, ``float``, ``str``, ``bool``, ``None``) share one result, held in a
    bounded ``functools.lru_cache`` keyed on the values and their types; any other call (a public
    candidate set, a numpy scalar) runs the planner. A planner's result must be immutable (a frozen
    dataclass of scalars and tuples) and its refusals are raised again on every call (exceptions are
    not cached). Never for a function that reads data: the key would hold it.
    """

    def decorate(func):
        cached = functools.lru_cache(maxsize=maxsize, typed=True)(func)

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            if all(map(_plain_plan_argument, args)) and all(map(_plain_plan_argument, kwargs.values())):
                return cached(*args, **kwargs)
            return func(*args, **kwargs)

        wrapper.cache_info = cached.cache_info
        wrapper.cache_clear = cached.cache_clear
        return wrapper

    return decorate


class RenamedFields:
    """A mixin for the public plans and results: reading a field under its former name raises
    :class:`AttributeError` naming the field that replaced it (``_renamed_fields``: old -> new)."""

    _renamed_fields: Mapping[str, str] = {}

    def __getattr__(self, name: str):
        renamed = type(self)._renamed_fields
        if name in renamed:
            raise AttributeError(f"{type(self).__name__}.{name} is called {renamed[name]} now")
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")


def renamed_attribute(module: str, name: str, renamed: Mapping[str, str]):
    """The body of a module's ``__getattr__``: a name the module no longer defines raises
    :class:`ImportError` naming its replacement (an :class:`AttributeError` would lose the message in
    ``from module import name``); any other unknown name :class:`AttributeError` as usual."""
    if name in renamed:
        raise ImportError(f"{module}.{name} is called {renamed[name]} now (import {renamed[name]} instead)", name=name)
    raise AttributeError(f"module {module!r} has no attribute {name!r}")


def renamed_value_message(name: str, old: str, new: str) -> str:
    """The refusal of a value privpac no longer takes: it names the value that replaced it."""
    return f"{name}={old!r} is called {name}={new!r} now (pass {name}={new!r} instead)"


def check_choice(x, name: str, choices, *, renamed: Mapping[str, str] | None = None) -> str:
    """``x`` if it is one of ``choices``; a former value (a key of ``renamed``, old -> new) raises
    :class:`~privpac.errors.InvalidParameterError` naming its replacement (never a silent alias)."""
    if renamed and isinstance(x, str) and x in renamed:
        raise InvalidParameterError(renamed_value_message(name, x, renamed[x]))
    if x not in choices:
        raise InvalidParameterError(f"{name} must be one of {sorted(choices)}, got {x!r}")
    return x


def as_fraction(x, name: str) -> Fraction:
    """The exact rational value of a finite real number (floats are binary rationals)."""
    if isinstance(x, Fraction):
        return x
    check_real(x, name)
    return Fraction(x)


def _eager_frame(data):
    """``data`` as a narwhals DataFrame or Series when it is an eager frame or series of pandas, polars,
    pyarrow or another library narwhals reads (as scikit-learn reads them); ``None`` otherwise."""
    if data is None or isinstance(data, np.ndarray | list | tuple | str | bytes | numbers.Number):
        return None
    import narwhals.stable.v2 as nw  # scikit-learn's own dependency; imported only when a frame arrives

    frame = nw.from_native(data, eager_only=True, allow_series=True, pass_through=True)
    return None if frame is data else frame


def _column_values(column, where: str, labels: bool) -> np.ndarray:
    """One narwhals column as NumPy, refusing missing values and (for features) non-numbers."""
    if column.null_count():
        row = int(np.argmax(np.asarray(column.is_null().to_numpy(), dtype=bool)))
        raise DataError(
            f"{where} has a missing value (NA, null or NaN) at row {row}: privpac needs a value in every record "
            "(drop those records, or fill them with a public value: never one computed from the data)"
        )
    values = column.to_numpy()
    if labels:
        return values
    dtype = column.dtype
    if dtype.is_numeric() or dtype.is_boolean() or values.dtype.kind in "biuf":
        return values  # numbers, booleans, and categories whose values are numbers
    if values.dtype == object and all(_is_real_number(v) for v in values.tolist()):
        return values  # Python ints beyond int64 (huge integer domains), kept exact
    raise TypeError(
        f"{where} holds {dtype} values; privpac needs numbers (encode text or categories as numbers by a public "
        "mapping first)"
    )


def _stack(columns: list, n_rows: int) -> np.ndarray:
    if not columns:
        return np.empty((n_rows, 0))
    kinds = {c.dtype.kind for c in columns}
    if "O" in kinds or ({"i", "u"} <= kinds and any(c.dtype.itemsize == 8 for c in columns if c.dtype.kind == "u")):
        # int64 beside uint64 would promote to float64 and round: keep every value as an exact Python int
        out = np.empty((n_rows, len(columns)), dtype=object)
        for j, c in enumerate(columns):
            out[:, j] = c.tolist()
        return out
    return np.column_stack(columns)


def as_numpy(data, name: str = "X", *, labels: bool = False):
    """``data`` as a NumPy array: the one conversion at privpac's boundary.

    pandas, polars and pyarrow DataFrames and Series (and the other eager frames narwhals reads, as
    scikit-learn reads them) are read column by column:

    * a missing value (pandas ``NA`` or ``NaN``, a polars or pyarrow null) is refused naming its column
      and row, as NaN is: privpac never imputes (an imputed value would be read off the data);
    * feature columns (``labels=False``) must hold numbers or booleans: text, categories of text and
      dates are refused naming the column; label columns (``labels=True``) may hold any type
      (categorical, string, nullable integer, boolean), whose values are then compared with the
      public labels (:func:`check_labels`);
    * columns combine by NumPy's type promotion, except that signed and 64-bit unsigned integers
      combine as exact Python ints (a 2^64 domain's values would round in float64).

    A DataFrame gives a 2-D array (column names are read before, by ``feature_names_in_``); a Series
    a 1-D array. Any other object with ``__array__`` becomes ``np.asarray(data)``; NumPy arrays,
    lists and tuples are returned unchanged (the checks that read them keep huge Python ints exact).
    """
    if is_engine_collection(data):  # read where it lives, by privpac.backends: never materialised here
        return data
    frame = _eager_frame(data)
    if frame is None:
        if isinstance(data, np.ndarray | list | tuple) or not hasattr(data, "__array__"):
            return data
        refuse_unsupported(data, name)
        return np.asarray(data)
    if not hasattr(frame, "columns"):  # a Series
        return _column_values(frame, name, labels)
    columns = [_column_values(frame.get_column(c), f"column {c!r} of {name}", labels) for c in frame.columns]
    return _stack(columns, len(frame))


def ravel_column_vector(y, name: str = "y", *, stacklevel: int = 2):
    """A label array of shape ``(n, 1)`` raveled to ``(n,)`` with scikit-learn's DataConversionWarning
    (as scikit-learn's estimators do); anything else returned unchanged."""
    if getattr(y, "ndim", None) == 2 and y.shape[1] == 1:
        import warnings

        from sklearn.exceptions import DataConversionWarning

        warnings.warn(
            f"A column-vector {name} was passed when a 1d array was expected: read as {name}.ravel() (pass a 1d "
            f"array of shape (n_samples,) to silence this warning)",
            DataConversionWarning,
            stacklevel=stacklevel + 1,
        )
        return y[:, 0]
    return y


def _numpy_dtype(dtype):
    """``dtype`` as a NumPy dtype, or ``None`` for a library's own dtype (pandas, polars, pyarrow)."""
    try:
        return None if dtype is None else np.dtype(dtype)
    except TypeError:
        return None


def refuse_unsupported(X, name: str = "X", *, text: bool = True) -> None:
    """Raise a clear error for inputs no estimator accepts: sparse matrices, complex numbers, text.

    ``text=False`` lets strings through (labels may be text, such as ``("benign", "malignant")``).
    """
    if hasattr(X, "tocsr") or type(X).__module__.startswith("scipy.sparse"):
        raise TypeError(
            f"{name} is a scipy sparse matrix; privpac's learners read dense data only: pass {name}.toarray() "
            "(the domains here are low-dimensional, so the dense array is small)"
        )
    dtype = _numpy_dtype(getattr(X, "dtype", None))  # a frame's own dtypes are read by as_numpy
    if dtype is not None and dtype.kind == "c":  # complex floating
        raise DataError(f"Complex data not supported: {name} holds complex numbers; privpac needs real values")
    if text and dtype is not None and dtype.kind in "US":  # str_ or bytes_
        raise TypeError(f"{name} holds text ({dtype}); privpac needs numbers")


def check_array(X, name: str = "X", *, ndim: int = 2, allow_empty: bool = False) -> np.ndarray:
    """A finite numeric array of the given dimension.

    A 1-D input is accepted for ``ndim=2`` only when it is unambiguous: it is *not* reshaped
    silently; the error says how to reshape. Object arrays of Python ints (huge domains) are
    kept as they are.
    """
    refuse_unsupported(X, name)
    X = as_numpy(X, name)
    if isinstance(X, np.ndarray) and X.dtype == object:
        arr = X
    else:
        try:
            arr = np.asarray(X)
        except Exception as exc:  # ragged lists and the like
            raise DataError(f"{name} could not be read as an array: {exc}") from exc
        refuse_unsupported(arr, name)
        if arr.dtype == object:
            # Python ints beyond int64 stay exact as an object array.
            if not all(isinstance(v, numbers.Integral) for v in arr.ravel()):
                raise DataError(f"{name} must be numeric")
        elif not np.issubdtype(arr.dtype, np.number) and arr.dtype != bool:
            raise DataError(f"{name} must be numeric, got dtype {arr.dtype}")
    if arr.ndim != ndim:
        hint = " (Reshape your data: X.reshape(-1, 1) for a single feature)" if ndim == 2 and arr.ndim == 1 else ""
        raise DataError(f"{name} must be {ndim}-dimensional, got shape {arr.shape}{hint}")
    if not allow_empty and arr.shape[0] == 0:
        raise DataError(f"{name} is empty: at least one record is needed (0 sample(s), shape={arr.shape})")
    if arr.ndim == 2 and arr.shape[1] == 0:
        raise DataError(f"{name} has 0 feature(s) (shape={arr.shape}) while a minimum of 1 is required.")
    if arr.dtype != object and np.issubdtype(arr.dtype, np.floating):
        if not np.all(np.isfinite(arr)):
            raise DataError(f"{name} contains NaN or infinite values")
    return arr


def check_labels(y, labels, n_samples: int | None = None, name: str = "y") -> np.ndarray:
    """Map labels onto {0, 1} given the *public* label set ``labels = (negative, positive)``.

    The label set is a parameter, never read off the data.
    """
    if y is None:
        raise DataError(f"this classifier requires y to be passed, but the target {name} is None")
    refuse_unsupported(y, name, text=False)
    y = ravel_column_vector(np.asarray(as_numpy(y, name, labels=True)), name, stacklevel=3)
    if y.ndim != 1:
        raise DataError(f"{name} must be 1-dimensional, got shape {y.shape}")
    if n_samples is not None and y.shape[0] != n_samples:
        raise DataError(f"{name} has {y.shape[0]} entries but X has {n_samples} rows")
    if y.shape[0] == 0:
        raise DataError(f"{name} is empty: at least one record is needed")
    if len(labels) != 2:
        raise InvalidParameterError(f"labels must be a pair (negative, positive), got {labels!r}")
    neg, pos = labels
    is_pos = y == pos
    is_neg = y == neg
    bad = ~(is_pos | is_neg)
    if np.any(bad):
        example = y[np.argmax(bad)]
        example = example.item() if isinstance(example, np.generic) else example  # 'M', not np.str_('M')
        kind = "continuous" if np.issubdtype(y.dtype, np.floating) and np.any(y != np.round(y)) else "outside"
        if kind == "continuous":
            raise DataError(
                f"Unknown label type: continuous. {name} must hold the public labels {tuple(labels)!r} of a binary "
                "classifier (privpac does not do regression)"
            )
        several = len(set(y.tolist())) > 2
        raise DataError(
            ("Only binary classification is supported. The type of the target is multiclass: " if several else "")
            + f"{name} contains the label {example!r}, outside the declared labels {tuple(labels)!r} (pass "
            "labels=(negative, positive): the label set is public and is never read off the data)"
        )
    return is_pos.astype(np.int8)
