"""The exponential mechanism, sampled exactly: over a finite list, over pieces, and over a step
function on ``[0, T]``.

McSherry and Talwar (2007); Beimel, Nissim, Stemmer, section 2.5.2 and Prop 2.25; the base-2
exponential mechanism of Ilvento, "Implementing the Exponential Mechanism with Base-2 Differential
Privacy" (CCS 2020). The exact sampler these forms share (the base ``eta``, the envelopes, the
rejection sampler and its law) is :mod:`privpac.mechanisms.base2`; the same mechanism over ``[0, T]``
drawn range by range, from statistics computed where the data lives, is
:mod:`privpac.mechanisms.exponential_grouped`.

The mechanism
-------------
A quality ``q(S, h)`` with integer values and integer sensitivity ``Delta`` (replace-one
neighbours move every ``q(S, h)`` by at most ``Delta``) and a data-independent base measure
``mu(h)`` (1 over a finite list; the piece length over a step function, so every *point* of
``[0, T]`` counts once). Output ``h`` with probability ``w_S(h) / Z_S``,

    ``w_S(h) = mu(h) 2^(eta q(S, h))``,  ``eta = K / 2^M``,

a dyadic rational rounded **down** from ``epsilon / (2 Delta ln 2)`` (with a rational upper
bound of ``ln 2``, so the rounding is proven): ``eta ln 2 <= epsilon / (2 Delta)``.

Privacy: each weight moves by a factor at most ``2^(eta Delta) <= e^(epsilon/2)`` between
neighbours, and so does ``Z_S``, so ``Pr[h | S] <= e^epsilon Pr[h | S']``: (epsilon, 0)-DP. The
mechanism spends ``2 Delta eta ln 2 <= epsilon``; the ledger entry charges ``epsilon`` and states
``eta`` (:meth:`ExpBase.describe`). Utility is the textbook one at ``epsilon' = 2 Delta eta ln 2``,
within a factor ``1 - 2^-15`` of ``epsilon``: ``Pr[q <= max q - t] <= (points) e^(-epsilon' t / (2 Delta))``.

Which qualities are integers is decided by the *dtype* of the values (code, never data: a value
test would let neighbours take different paths). Integer dtypes with an integer sensitivity are
used as they are. Real-valued qualities (float dtypes: RecConcave's recursive qualities, the
boosted selection's losses) are rounded down on a grid of ``sensitivity / DISCRETISATION``:
``q' = floor(q c)`` with ``c = fl(DISCRETISATION / Delta)``. If ``|q - q~| <= Delta`` then
``|q c - q~ c| <= DISCRETISATION (1 + 2^-52)`` and the computed products differ from the exact
ones by at most ``2^-52 |q c|``, which is below ``1/4`` once ``|q| c < 2^50`` (checked), so the
floors differ by at most ``DISCRETISATION + 1``: an integer quality of sensitivity
``DISCRETISATION + 1``, exact from there on. Floors beyond ``2^40`` in size (counts of 10^11
records) are replaced by ``max(q', max q' - L) - max q'`` with ``L = 2^40 - 1``: a maximum of two
qualities of that sensitivity, less a constant common to every candidate (which changes no
probability), so the mechanism keeps its privacy; only candidates more than ``L`` grid steps below
the best, of weight below ``2^(-eta L)``, are drawn with that weight instead. Floating-point
inputs are the caller's; the draw from them is exact.

Audits and laws
---------------
On an enumerating source (:mod:`privpac.audit.enumeration`) each form hands the source the exact
law of its output (``"exponential"``: the integer deficits, lengths and ``eta``), computed by the
same functions as the float views :func:`exponential_probabilities` and
:func:`step_piece_probabilities`; the test harness ``tests/mechanisms/test_exact_sampling.py`` enumerates the
attempts' random draws and checks, in rationals, that the samplers realise that law.
"""

from __future__ import annotations

import numpy as np

from ..accounting import PrivacyLedger, charge
from ..errors import InvalidParameterError
from ..formatting import fmt_int
from ..random import as_random_source, uniform_array, uniform_int
from ..stepfunc import StepFunction
from .base2 import ExpBase, _flat_draw, _flat_plan, _law, _StepLengths, exp_base, integer_qualities

__all__ = [
    "exponential_mechanism",
    "exponential_probabilities",
    "exponential_weights",
    "exponential_mechanism_step",
    "exponential_mechanism_pieces",
    "step_piece_probabilities",
    "sample_log_weights",
]


def _base_for(values, epsilon: float, sensitivity) -> tuple[np.ndarray, ExpBase]:
    q, sens, disc = integer_qualities(values, sensitivity)
    return q, exp_base(epsilon, sens, discretised=disc)


def _check_scores(scores) -> np.ndarray:
    scores = np.asarray(scores)
    if scores.ndim != 1 or scores.size == 0:
        raise InvalidParameterError("scores must be a non-empty 1-D array")
    numeric = np.issubdtype(scores.dtype, np.number) and not np.issubdtype(scores.dtype, np.complexfloating)
    if scores.dtype == object or not numeric:
        scores = scores.astype(np.float64)
    if np.issubdtype(scores.dtype, np.floating) and not np.all(np.isfinite(scores)):
        raise InvalidParameterError("scores must be finite")
    return scores


def exponential_probabilities(scores, epsilon: float, sensitivity: float = 1.0) -> np.ndarray:
    """The output law of :func:`exponential_mechanism` (floats: a view of the exact law)."""
    q, base = _base_for(_check_scores(scores), epsilon, sensitivity)
    return _law(q - q.max(), np.ones(q.size, dtype=np.int64), base)


def exponential_weights(scores, epsilon: float, sensitivity: float = 1.0) -> np.ndarray:
    """The weights ``2^(eta (q - max q))`` of :func:`exponential_mechanism` (floats; for laws of
    composite algorithms whose candidates' weights are compared across draws)."""
    q, base = _base_for(_check_scores(scores), epsilon, sensitivity)
    return np.exp2(float(base.eta) * (q - q.max()).astype(np.float64))


def exponential_mechanism(
    scores,
    epsilon: float,
    *,
    sensitivity: float = 1.0,
    ledger: PrivacyLedger | None = None,
    label: str = "exponential mechanism",
    over: str | None = None,
    rng=None,
) -> int:
    """Pick an index of ``scores`` with probability proportional to ``2^(eta q)``, exactly.

    Parameters
    ----------
    scores : 1-D array
        The qualities: integers (an integer dtype) of sensitivity ``sensitivity``, or reals
        (a float dtype), rounded down on the grid ``sensitivity / DISCRETISATION`` (module docstring).
    epsilon : float
        The budget: ``eta <= epsilon / (2 sensitivity ln 2)`` (:func:`exp_base`). (epsilon, 0)-DP.
    sensitivity : float, default=1.0
        How far one changed record moves any score.
    ledger, label : PrivacyLedger or None, str
        Charged ``epsilon`` before anything is drawn; the entry states ``eta``.
    over : str or None, default=None
        Describes the candidates in the ledger entry (default: their number); callers whose
        candidate list is built from data describe it in public terms.
    rng : None, int or RandomSource, default=None
        ``None``: secure randomness.

    Returns
    -------
    int
        The chosen index.
    """
    q, base = _base_for(_check_scores(scores), epsilon, sensitivity)
    desc = f"exponential mechanism over {over or f'{q.size} candidates'}; {base.describe()}"
    charge(ledger, label, epsilon, 0.0, desc)
    src = as_random_source(rng)
    d = q - q.max()
    ones = np.ones(q.size, dtype=np.int64)
    if src.enumerates:
        return src.choose("exponential", d, ones, base)
    return _flat_draw(_flat_plan(q, ones, base), src)


def _step_parts(f: StepFunction, epsilon: float, sensitivity) -> tuple[np.ndarray, np.ndarray | None, ExpBase]:
    if not isinstance(f, StepFunction):
        raise InvalidParameterError("the quality must be a privpac.stepfunc.StepFunction")
    values = f.values
    candidate = None
    if np.issubdtype(values.dtype, np.floating):
        # -inf marks points that are not candidates (StepFunction.keep_only); they get weight 0.
        finite = np.isfinite(values)
        if not np.all(finite | np.isneginf(values)) or not finite.any():
            raise InvalidParameterError(
                "step-function values must be finite, or -inf for points that are not candidates"
            )
        candidate = None if finite.all() else finite
    q, base = _base_for(values, epsilon, sensitivity)
    return q, candidate, base


def step_piece_probabilities(f: StepFunction, epsilon: float, sensitivity: float = 1.0) -> np.ndarray:
    """Probability that :func:`exponential_mechanism_step` lands in each piece of ``f`` (floats: a
    view of the exact law). A point inside piece ``t`` then has probability ``p[t] / length[t]``."""
    q, candidate, base = _step_parts(f, epsilon, sensitivity)
    lengths = f.lengths()
    if candidate is None:
        return _law(q - q.max(), lengths, base)
    out = np.zeros(q.size)
    out[candidate] = _law(q[candidate] - q[candidate].max(), lengths[candidate], base)
    return out


def _law_params(q: np.ndarray, lengths: np.ndarray, candidate: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """The deficits and lengths an enumerating source is handed (non-candidates: length 0)."""
    keep = np.ones(q.size, dtype=bool) if candidate is None else candidate
    law_d = np.where(keep, q - q[keep].max(), 0)
    law_len = (
        np.where(keep, lengths, 0)
        if lengths.dtype != object
        else np.asarray([v if k else 0 for v, k in zip(lengths.tolist(), keep.tolist())], dtype=object)
    )
    return law_d, law_len


def _draw_pieces(q: np.ndarray, lengths: np.ndarray, base: ExpBase, candidate: np.ndarray | None, src) -> int:
    """A piece index with probability proportional to ``length 2^(eta q)`` (``candidate``: a mask)."""
    if src.enumerates:
        return src.choose("exponential", *_law_params(q, lengths, candidate), base)
    return _flat_draw(_flat_plan(q, lengths, base, candidate), src)


def exponential_mechanism_pieces(
    q,
    lengths,
    epsilon: float,
    *,
    sensitivity: int = 1,
    ledger: PrivacyLedger | None = None,
    label: str = "exponential mechanism",
    over: str = "",
    rng=None,
) -> int:
    """The exponential mechanism over pieces of integer quality ``q`` and positive integer
    ``lengths`` (int64, uint64 or Python ints): a piece index ``t`` with probability proportional
    to ``lengths[t] 2^(eta q[t])``, exactly (:mod:`privpac.mechanisms.base2`). The caller draws the point inside
    the piece (:func:`~privpac.random.uniform_int`) and describes the candidates in ``over`` in
    public terms. (epsilon, 0)-DP when ``q`` has sensitivity ``sensitivity`` point-wise.
    """
    q = np.asarray(q)
    if not np.issubdtype(q.dtype, np.integer) or q.ndim != 1 or q.size == 0:
        raise InvalidParameterError("q must be a non-empty 1-D array of integers")
    base = exp_base(epsilon, sensitivity)
    charge(ledger, label, epsilon, 0.0, f"exponential mechanism over {over}; {base.describe()}")
    return _draw_pieces(q.astype(np.int64, copy=False), np.asarray(lengths), base, None, as_random_source(rng))


def exponential_mechanism_step(
    f: StepFunction,
    epsilon: float,
    *,
    sensitivity: float = 1.0,
    ledger: PrivacyLedger | None = None,
    label: str = "exponential mechanism (step function)",
    over: str | None = None,
    rng=None,
) -> int:
    """The exponential mechanism over every point of ``[0, f.T]`` with quality ``f``, exactly.

    A piece is drawn with probability proportional to ``length 2^(eta q)`` (the exact sampler of
    :mod:`privpac.mechanisms.base2`), then a uniform point inside it (:func:`~privpac.random.uniform_int`): the
    point-wise mechanism on ``[0, T]``. Cost ``O(k)`` for ``k`` pieces, whatever ``T`` is.
    (epsilon, 0)-DP when ``f`` has sensitivity ``sensitivity`` point-wise; the values' dtype says
    whether they are integers (see :func:`exponential_mechanism`). Returns a Python int in ``[0, T]``.

    ``over`` describes the candidate range in the ledger entry (default ``[0, T]``); callers whose
    range follows a private output (RecConcave's chosen blocks) describe it in public terms.
    """
    src = as_random_source(rng)
    if src.enumerates and isinstance(f, StepFunction):
        # An exact audit runs this once per random path: the pure preparation is shared between
        # paths with the same quality and budget (RandomSource.reuse; the key names all it reads).
        key = ("exponential_mechanism_step", f._reuse_key(), epsilon, sensitivity)
        base, law = src.reuse(key, lambda: _step_law_params(f, epsilon, sensitivity))
        _charge_step(f, epsilon, base, ledger, label, over)
        t = src.choose("exponential", *law, base)
        return uniform_int(*f.piece_bounds(t), src)
    q, candidate, base = _step_parts(f, epsilon, sensitivity)
    _charge_step(f, epsilon, base, ledger, label, over)
    lengths = _StepLengths(f) if f.positions_dtype.kind == "O" and not src.enumerates else f.lengths()
    t = _draw_pieces(q, lengths, base, candidate, src)
    return uniform_int(*f.piece_bounds(t), src)


def _charge_step(f: StepFunction, epsilon: float, base: ExpBase, ledger, label: str, over: str | None) -> None:
    # The entry names public sizes only (the range [0, T]): the number of pieces is a count of
    # distinct data values and must never reach the ledger.
    what = over or f"[0, {fmt_int(f.T)}]"
    charge(ledger, label, epsilon, 0.0, f"exponential mechanism over {what}; {base.describe()}")


def _step_law_params(f: StepFunction, epsilon: float, sensitivity) -> tuple[ExpBase, tuple[np.ndarray, np.ndarray]]:
    """The base and the law parameters :func:`exponential_mechanism_step` hands an enumerating source."""
    q, candidate, base = _step_parts(f, epsilon, sensitivity)
    return base, _law_params(q, f.lengths(), candidate)


def sample_log_weights(log_weights: np.ndarray, rng=None, size: int | None = None):
    """Indices drawn with probability proportional to ``exp(log_weights)`` by inverting a float
    cumulative sum at 53-bit uniforms.

    **Post-processing only** (synthetic records from a released distribution,
    :meth:`privpac.sanitizers.database.SanitizedDatabase.sample`): its probabilities are rounded, so
    no draw whose law depends on private data uses it (those use the exact samplers above).
    ``size=None`` returns one Python int.
    """
    log_weights = np.asarray(log_weights, dtype=np.float64)
    if log_weights.ndim != 1 or log_weights.size == 0:
        raise InvalidParameterError("log_weights must be a non-empty 1-D array")
    if np.any(np.isnan(log_weights)) or np.all(np.isneginf(log_weights)):
        raise InvalidParameterError("log_weights must not be NaN and not all -inf")
    src = as_random_source(rng)
    cum = np.cumsum(np.exp(log_weights - np.max(log_weights)))
    u = uniform_array(1 if size is None else size, src) * cum[-1]
    idx = np.searchsorted(cum, u, side="right")
    np.minimum(idx, log_weights.size - 1, out=idx)
    return int(idx[0]) if size is None else idx
