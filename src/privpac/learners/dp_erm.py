"""Private empirical risk minimisation for the large-margin learners: the loss, two noisy optimisers, boosting.

Nguyen, Ullman and Zakynthinou (ALT 2020), Algorithm 3 ("F" and "A_Noise-GD"), which runs
Bassily, Smith and Thakurta's noisy projected SGD (FOCS 2014, Alg 1 and Appendix D) on the margin
hinge loss over the unit ball ``C = B^m`` (diameter 2).

* :class:`MarginHingeLoss`: ``l(w; (z, y)) = max(0, (0.96 gamma - y <w, z>) / (0.86 gamma))``,
  convex, ``L = 100 / (86 gamma)``-Lipschitz on ``||z|| <= 1``, with values in
  ``[0, (1 + 0.96 gamma) / (0.86 gamma)]``; ``l >= 1`` whenever the margin is below gamma/10.
* :func:`noisy_sgd_bst14`: ``n^2 - 1`` steps, one record sampled with replacement per step,
  ``w <- Pi_C(w - eta_t (n grad l(w; z_j) + b_t))``, ``b_t ~ N(0, sigma^2 I)`` with BST14's
  ``sigma`` (:func:`privpac.mechanisms.bst14_noise_std`), ``eta_t = 2 / sqrt(t (n^2 L^2 + m sigma^2))``;
  returns the last iterate. (epsilon, delta)-DP by BST14 Thm 2.1.
* :func:`noisy_gd`: the practical optimiser of spec 3.8 item 2 (not in the paper): ``T`` full-batch
  steps on the gradient *sum*, whose replace-one L2 sensitivity is ``2L``; the ``T`` releases are
  exactly ``sqrt(T) 2L / s``-GDP and ``s`` is calibrated by :func:`privpac.mechanisms.gdp_mu`.
  Returns the average (or last) iterate, post-processing.
* :func:`select_candidate` and :func:`boosted_erm`: ``k = ceil(log2(8 / beta))`` independent runs
  and an exponential-mechanism pick with utility ``-sum_j l(w; z_j)`` (sensitivity: the loss range).

Where the records are read
--------------------------
Every optimiser and the selection read the mapped records through a :class:`MappedSample`: the
gradient sum (noisy GD), the records at positions drawn on the driver (BST14), the violation
counts over the net (the net mechanism) and the total loss of each candidate (the selection).
In memory the sample is one block (:meth:`MappedSample.in_memory`); on Dask or Spark every read
is a pass of :mod:`privpac.backends` whose kernels are deterministic, and all noise is drawn here,
on the driver, after the ledger is charged. Sums of integers (violation counts) and gathered
records are exact on every engine; float sums (gradients, losses) equal the in-memory sums up to
rounding, and each record's contribution stays bounded, so the privacy arguments are unchanged.

Erratum (spec 3.4, docs/errata.md E-NUZ1)
----------------------------------------
The paper gives each run (epsilon/k, delta/k) and charges the final exponential mechanism
nothing, so F as printed is (epsilon + epsilon_EM, delta)-DP, not (epsilon, delta). privpac splits
``epsilon_GD + epsilon_EM = epsilon`` (half each) and charges both. ``variant="paper-literal"``
reproduces the printed accounting (runs at epsilon/k, the selection at epsilon, charged zero),
warns with :class:`~privpac.errors.PaperLiteralWarning`, and is flagged by the audit
``margin-uncharged-selection``.

Floating point: the Gaussian noise is floating point (see :mod:`privpac.mechanisms.gaussian`).
Every per-record gradient is ``-y z / (0.86 gamma)`` with ``||z|| <= 1`` (checked on entry), so
its norm is at most ``L`` without clipping.

Length: about 530 lines of code (the losses, the gradient sums in memory and on an engine, and the
three learners that share them); the rest is the argument above and in the functions' docstrings.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field

import numpy as np
from scipy.special import expit

from ..accounting import PrivacyLedger
from ..errors import InvalidParameterError, PaperLiteralWarning, UtilityWarning
from ..mechanisms.exponential import exponential_mechanism
from ..mechanisms.gaussian import bst14_noise_std, gaussian_gdp_block, gaussian_noise_block
from ..progress import progress
from ..random import as_random_source, uniform_array
from ..validation import check_choice, check_delta, check_epsilon, check_int, check_probability, check_real
from .margin_nets import sphere_net, sphere_net_size, violation_counts

__all__ = [
    "ERM_VARIANTS",
    "ClippedLogisticLoss",
    "MarginHingeLoss",
    "BoostedResult",
    "boosting_rounds",
    "boosted_erm",
    "noisy_gd",
    "EngineGradientSum",
    "InMemoryGradientSum",
    "MappedSample",
    "ENGINE_PASS_FLOATS",
    "engine_steps_per_pass",
    "noisy_sgd_bst14",
    "net_runs",
    "select_candidate",
]

ERM_VARIANTS = ("corrected", "paper-literal")
OPTIMIZERS = ("bst14", "dpgd", "net")

#: Floats (of noise, and again of gathered records) one BST14 gather pass holds on an engine: the
#: default steps per pass there is the largest number of whole chunks within it (128 MB each).
ENGINE_PASS_FLOATS = 2**24


def engine_steps_per_pass(runs: int, m: int, chunk: int = 2048) -> int:
    """BST14's steps per gather pass on an engine by default: whole chunks of ``chunk`` steps whose
    ``runs`` noise vectors and records of ``m`` floats fit in :data:`ENGINE_PASS_FLOATS` (at least
    one chunk). A function of public sizes only."""
    per_step = check_int(runs, "runs", low=1) * check_int(m, "m", low=1)
    chunk = check_int(chunk, "chunk", low=1)
    return max(1, ENGINE_PASS_FLOATS // (per_step * chunk)) * chunk


@dataclass(frozen=True)
class MarginHingeLoss:
    """The rescaled hinge loss of NUZ Algorithm 1, step 4, for margin ``gamma``."""

    gamma: float

    def __post_init__(self):
        check_real(self.gamma, "margin", low=0.0, low_open=True, high=1.0)

    @property
    def target(self) -> float:
        """The loss is zero from margin ``0.96 gamma`` on."""
        return 0.96 * self.gamma

    @property
    def width(self) -> float:
        """``0.86 gamma``: the loss falls by 1 from margin gamma/10 to 0.96 gamma."""
        return 0.86 * self.gamma

    @property
    def lipschitz(self) -> float:
        """``L = 100 / (86 gamma)``: the largest gradient norm on ``||z|| <= 1``."""
        return 1.0 / self.width

    @property
    def value_range(self) -> float:
        """``(1 + 0.96 gamma) / (0.86 gamma)``: the largest loss on ``B^m x {||z|| <= 1}``."""
        return (1.0 + self.target) / self.width

    def value(self, margins) -> np.ndarray:
        """``l`` as a function of the margin ``y <w, z>``."""
        return np.maximum(0.0, (self.target - np.asarray(margins, dtype=np.float64)) / self.width)

    def totals(self, Z: np.ndarray, y: np.ndarray, W: np.ndarray) -> np.ndarray:
        """``sum_j l(w; z_j, y_j)`` for every row ``w`` of ``W`` (shape (k,))."""
        margins = (Z @ np.atleast_2d(W).T) * y[:, None]
        return self.value(margins).sum(axis=0)

    def gradient_sum(self, Z: np.ndarray, y: np.ndarray, W: np.ndarray) -> np.ndarray:
        """``sum_j grad l(w; z_j, y_j)`` for every row ``w`` of ``W`` (shape (runs, m)).

        The (sub)gradient of one record is ``-y z / (0.86 gamma)`` where its margin is below
        ``0.96 gamma`` and 0 elsewhere: norm at most ``L`` when ``||z|| <= 1``. This is the only
        implementation of the gradient: the in-memory oracle and the engine kernels both call it.
        """
        margins = (Z @ W.T) * y[:, None]  # (n, runs)
        coeff = np.where(margins < self.target, y[:, None], 0.0)
        return -(coeff.T @ Z) / self.width  # (runs, m): each record contributes norm <= L


@dataclass(frozen=True)
class ClippedLogisticLoss:
    """The logistic loss ``log(1 + exp(-y <w, z>))`` with every per-record gradient clipped to norm ``clip``.

    A record's gradient is ``-y z sigmoid(-y <w, z>)``; clipped, it is
    ``-y z min(sigmoid(-y <w, z>), clip / ||z||)``, of norm ``min(sigmoid(-y <w, z>) ||z||, clip)``.
    The clipped gradient is the gradient of a convex loss of the margin (the logistic loss whose
    slope is capped at ``clip / ||z||``: linear where the record is badly classified), so noisy
    gradient descent on it is convex optimisation. Clipping is a per-record computation: it reads
    no other record and no private statistic, so ``lipschitz = clip`` bounds every record's term
    whatever the data. Used by :mod:`privpac.learners.private_logistic`.
    """

    clip: float

    def __post_init__(self):
        check_real(self.clip, "clip", low=0.0, low_open=True)

    @property
    def lipschitz(self) -> float:
        """The per-record gradient norm bound: ``clip``."""
        return float(self.clip)

    def caps(self, Z: np.ndarray) -> np.ndarray:
        """``clip / ||z_j||`` per record (``inf`` for a zero record): the cap on ``sigmoid(-y <w, z_j>)``."""
        norms = np.sqrt(np.einsum("ij,ij->i", Z, Z))
        return np.divide(self.clip, norms, out=np.full_like(norms, np.inf), where=norms > 0)

    def gradient_sum(self, Z: np.ndarray, y: np.ndarray, W: np.ndarray, caps: np.ndarray | None = None) -> np.ndarray:
        """``sum_j clipped grad l(w; z_j, y_j)`` for every row ``w`` of ``W`` (shape (runs, m)).

        The only implementation of the clipped gradient: the in-memory oracle and the engine
        kernels both call it (``caps``: :meth:`caps` of ``Z``, computed here when not given).
        """
        margins = (Z @ W.T) * y[:, None]  # (n, runs)
        cap = self.caps(Z) if caps is None else caps
        coeff = -y[:, None] * np.minimum(expit(-margins), cap[:, None])  # each record: norm <= clip
        return coeff.T @ Z


def _check_inputs(Z, y) -> tuple[np.ndarray, np.ndarray]:
    Z = np.asarray(Z, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if Z.ndim != 2 or Z.shape[0] == 0:
        raise InvalidParameterError(f"Z must be a non-empty 2-D array, got shape {Z.shape}")
    if y.shape != (Z.shape[0],) or not np.all(np.abs(y) == 1.0):
        raise InvalidParameterError("y must hold one label in {-1, +1} per row of Z")
    # The sensitivity bounds need every ||z|| <= 1 (the preprocessing guarantees it).
    if np.max(np.einsum("ij,ij->i", Z, Z)) > 1.0 + 1e-12:
        raise InvalidParameterError("every row of Z must have norm <= 1 (normalise the records first)")
    return Z, y


def _project_ball(W: np.ndarray, radius: float = 1.0) -> None:
    """In place: each row onto the ball of radius ``radius``, ``w / max(1, ||w|| / radius)``."""
    norms = np.sqrt(np.einsum("ij,ij->i", W, W)) / radius
    np.maximum(norms, 1.0, out=norms)
    W /= norms[:, None]


class InMemoryGradientSum:
    """The gradient-sum oracle of :func:`noisy_gd` on records held in memory: ``W -> sum_j grad l(W; z_j)``."""

    def __init__(self, Z: np.ndarray, y: np.ndarray, loss: MarginHingeLoss):
        self.Z, self.y, self.loss = Z, y, loss
        self.n, self.m = Z.shape

    def __call__(self, W: np.ndarray) -> np.ndarray:
        return self.loss.gradient_sum(self.Z, self.y, W)


def _sum_partials(parts):
    """Merge of per-block gradient sums: their sum (a single partial is returned as it is)."""
    parts = [p for p in parts if p is not None]
    if not parts:
        return None
    total = parts[0]
    for part in parts[1:]:
        total = total + part
    return total


class EngineGradientSum:
    """The gradient-sum oracle of :func:`noisy_gd` on records that live on an engine (Dask, Spark).

    Each call runs one :meth:`map_merge <privpac.backends.DaskBackend.map_merge>` pass: on every
    row block, ``records(X_block, y_block)`` applies the public per-record preprocessing (it
    validates the block, raising on records outside the public domain, and returns the mapped
    records ``Z`` with ``||z|| <= 1`` and labels in {-1, +1}), and the kernel returns the block's
    gradient sum :meth:`MarginHingeLoss.gradient_sum` and nothing else; the partials are summed.
    Kernels are deterministic and take no randomness; all noise is drawn by :func:`noisy_gd` on the
    driver. Float sums over partitions differ from the in-memory sum by rounding only (about 1e-12
    relative), so the released iterates agree with the in-memory fit to about 1e-8, not bit for bit;
    each record's contribution is still bounded by ``L``, so the privacy argument is unchanged.
    """

    def __init__(self, backend, X, y, records, loss: MarginHingeLoss, n: int, m: int):
        self.backend, self.X, self.y, self.records, self.loss = backend, X, y, records, loss
        self.n, self.m = int(n), int(m)

    def __call__(self, W: np.ndarray) -> np.ndarray:
        W = np.array(W, dtype=np.float64, copy=True)  # the public iterate, shipped to every block
        records, loss, m = self.records, self.loss, self.m

        def kernel(X_block, y_block):  # runs where the block lives: deterministic, no randomness
            block = _block_records(records, X_block, y_block, m)
            return np.zeros((W.shape[0], m)) if block is None else loss.gradient_sum(*block, W)

        total = self.backend.map_merge(kernel, _sum_partials, self.X, self.y)
        if total is None:
            raise InvalidParameterError("the data has no records")
        return total


def _same_records(Z, y):
    return Z, y


def _sample(Z, y, sample):
    """The :class:`MappedSample` to read: of ``(Z, y)`` in memory, or the one given (then ``Z = y = None``)."""
    if sample is None:
        return MappedSample.in_memory(Z, y)
    if Z is not None or y is not None:
        raise InvalidParameterError("pass either the records (Z, y) or a sample, not both")
    return sample


def _block_records(records, X_block, y_block, m: int):
    """A block's mapped records, checked (``||z|| <= 1``, labels in {-1, +1}, ``m`` columns); ``None``
    for an empty block. Runs where the block lives."""
    Z, y = records(X_block, y_block)
    if Z.shape[0] == 0:
        return None
    Z, y = _check_inputs(Z, y)
    if Z.shape[1] != m:
        raise InvalidParameterError(f"a block has {Z.shape[1]} mapped features, expected {m}")
    return Z, y


class _LossTotals:
    """Kernel: a block's total loss of every candidate (deterministic, no randomness)."""

    def __init__(self, records, loss: MarginHingeLoss, W: np.ndarray, m: int):
        self.records, self.loss, self.W, self.m = records, loss, W, m

    def __call__(self, X_block, y_block):
        block = _block_records(self.records, X_block, y_block, self.m)
        return None if block is None else self.loss.totals(*block, self.W)


class _Violations:
    """Kernel: a block's violation counts over the net (integers; deterministic, no randomness)."""

    def __init__(self, records, net: np.ndarray, threshold: float, m: int):
        self.records, self.net, self.threshold, self.m = records, net, threshold, m

    def __call__(self, X_block, y_block):
        block = _block_records(self.records, X_block, y_block, self.m)
        return None if block is None else violation_counts(*block, self.net, self.threshold)


class MappedSample:
    """The mapped records ``(z_j, y_j)`` (``||z_j|| <= 1``, ``y_j`` in {-1, +1}) wherever they live.

    ``records(X_block, y_block)`` is the public per-record map applied to each row block (the
    caller's validation and preprocessing, then the projection and normalisation; deterministic,
    no randomness); ``n`` (the exact row count, public under replace-one neighbours) and ``m`` (the
    mapped dimension) are public. :meth:`in_memory` wraps records already mapped, as one block of
    :class:`~privpac.backends.NumpyBackend`. Every read of the data by the optimisers of NUZ
    Algorithm 3 goes through the four methods below; each returns a statistic whose per-record
    terms are bounded as the privacy arguments need, and none draws noise.
    """

    def __init__(self, backend, X, y, records, n: int, m: int):
        self.backend, self.X, self.y, self.records = backend, X, y, records
        self.n, self.m = check_int(n, "n", low=1), check_int(m, "m", low=1)
        self._offsets = None

    @classmethod
    def in_memory(cls, Z, y) -> MappedSample:
        from ..backends.memory import NumpyBackend

        Z, y = _check_inputs(Z, y)
        return cls(NumpyBackend(), Z, y, _same_records, Z.shape[0], Z.shape[1])

    def gradient_sum(self, loss: MarginHingeLoss):
        """The oracle ``W -> sum_j grad l(W; z_j)`` of :func:`noisy_gd` (one pass per call)."""
        return EngineGradientSum(self.backend, self.X, self.y, self.records, loss, self.n, self.m)

    def loss_totals(self, loss: MarginHingeLoss, W: np.ndarray) -> np.ndarray:
        """``sum_j l(w; z_j)`` for every row ``w`` of ``W`` (one pass; per-block float sums added)."""
        W = np.array(np.atleast_2d(W), dtype=np.float64, copy=True)
        total = self.backend.map_merge(_LossTotals(self.records, loss, W, self.m), _sum_partials, self.X, self.y)
        if total is None:
            raise InvalidParameterError("the data has no records")
        return total

    def violation_counts(self, net: np.ndarray, threshold: float) -> np.ndarray:
        """``#{j : y_j <v, z_j> < threshold}`` for every net point ``v`` (one pass; exact integer sums)."""
        net = np.asarray(net, dtype=np.float64)
        total = self.backend.map_merge(
            _Violations(self.records, net, float(threshold), self.m), _sum_partials, self.X, self.y
        )
        if total is None:
            raise InvalidParameterError("the data has no records")
        return total

    def take(self, positions) -> tuple[np.ndarray, np.ndarray]:
        """The mapped records at ``positions`` (row numbers drawn independently of the data; repeats
        allowed), in that order: ``(Z rows, y rows)``. One gather pass
        (:meth:`~privpac.backends.NumpyBackend.take_rows`; the partition offsets are counted once, at
        the first call); each distinct record is mapped once, on the driver."""
        positions = np.asarray(positions, dtype=np.int64).reshape(-1)
        if self._offsets is None:
            self._offsets = self.backend.row_offsets(self.X, self.y)
            if self._offsets[-1] != self.n:
                raise InvalidParameterError(f"the data has {self._offsets[-1]} rows, not the {self.n} counted")
        wanted, inverse = np.unique(positions, return_inverse=True)
        X_rows, y_rows = self.backend.take_rows(wanted, self.X, self.y, offsets=self._offsets)
        block = _block_records(self.records, X_rows, y_rows, self.m)
        if block is None:
            return np.zeros((0, self.m)), np.zeros(0)
        Z, y = block
        inverse = inverse.reshape(-1)
        return Z[inverse], y[inverse]


def noisy_gd(
    Z,
    y,
    loss: MarginHingeLoss | ClippedLogisticLoss,
    epsilon: float,
    delta: float,
    n_steps: int = 10,
    *,
    runs: int = 1,
    average: bool | str = True,
    step_size: float | None = None,
    radius: float | None = 1.0,
    l2: float = 0.0,
    ledger: PrivacyLedger | None = None,
    label: str = "noisy gradient descent",
    rng=None,
    gradient_sum=None,
) -> np.ndarray:
    """Full-batch projected noisy (sub)gradient descent on the total loss (spec 3.8 item 2).

    Step ``t`` releases ``g_t = sum_j grad l(w_t; z_j) + N(0, s^2 I_m)`` and moves, by default
    (``step_size=None``, the margin learners), ``w <- Pi_C(w - eta_t g_t)`` with
    ``eta_t = 2 / (G sqrt(t))``, ``G^2 = n^2 L^2 + m s^2``, and ``C`` the ball of radius ``radius``
    (the unit ball by default; ``None``: no projection). With a constant ``step_size`` (the
    logistic learner, :mod:`privpac.learners.private_logistic`) the step is on the average loss
    plus ``(l2 / 2) ||w||^2``: ``w <- Pi_C(w - step_size (g_t / n + l2 w))``.
    Privacy: every per-record gradient has norm at most ``L = loss.lipschitz``, so the gradient
    sum has replace-one L2 sensitivity ``2L``; the ``n_steps`` adaptive releases are ``mu``-GDP
    with ``mu = 2L sqrt(n_steps) / s``, and ``s`` is the smallest noise with ``mu``-GDP implying
    (epsilon, delta)-DP (exact conversion). Step sizes, ``l2``, ``radius`` and ``n_steps`` are
    public; the regulariser and the projection read no data; the output is post-processing:
    ``average=True`` the mean of all iterates, ``"tail"`` the mean of the last
    ``n_steps - n_steps // 2`` iterates, ``False`` the last iterate.

    ``runs`` independent runs are computed together (shape (runs, m) returned); each is
    (epsilon, delta)-DP and the ledger is charged for all of them.

    The data is read only through the gradient sum, once per step. By default the oracle is
    :class:`InMemoryGradientSum` on ``(Z, y)``; ``gradient_sum`` (with ``Z = y = None``) takes any
    oracle with attributes ``n``, ``m`` and a call ``W -> sum_j grad l(W; z_j)`` of shape
    ``(runs, m)`` whose per-record terms are bounded by ``L``, such as :class:`EngineGradientSum`
    (data on Dask or Spark: the sum is computed partition by partition, equal to the in-memory sum
    up to float rounding, about 1e-12 relative; the privacy argument is unchanged). The noise is
    drawn here, on the driver, after the ledger is charged.
    """
    if gradient_sum is None:
        Z, y = _check_inputs(Z, y)
        gradient_sum = InMemoryGradientSum(Z, y, loss)
    elif Z is not None or y is not None:
        raise InvalidParameterError("pass either the records (Z, y) or a gradient_sum oracle, not both")
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, allow_zero=False)
    n_steps = check_int(n_steps, "n_steps", low=1)
    runs = check_int(runs, "runs", low=1)
    if isinstance(average, str) and average != "tail" or not isinstance(average, bool | str):
        raise InvalidParameterError(f"average must be True, False or 'tail', got {average!r}")
    if step_size is not None:
        step_size = check_real(step_size, "step_size", low=0.0, low_open=True)
    l2 = check_real(l2, "l2", low=0.0)
    if l2 and step_size is None:
        raise InvalidParameterError("l2 regularisation needs a constant step_size")
    if radius is not None:
        radius = check_real(radius, "radius", low=0.0, low_open=True)
    n, m = gradient_sum.n, gradient_sum.m
    L = loss.lipschitz
    block = gaussian_gdp_block(2.0 * L, n_steps, m, epsilon, delta, runs=runs, ledger=ledger, label=label, rng=rng)
    s = block.sigma
    G = math.sqrt(n * n * L * L + m * s * s)
    noise = block.noise(n_steps)  # (n_steps, runs, m): fresh noise for every release, drawn at once
    W = np.zeros((runs, m))
    total = np.zeros((runs, m))
    first = n_steps // 2 + 1 if average == "tail" else 1  # the first iterate averaged
    for t in progress(range(1, n_steps + 1), desc=label or "noisy gradient descent"):
        release = gradient_sum(W) + noise[t - 1]  # (runs, m): the data is read only here
        if step_size is None:
            W -= (2.0 / (G * math.sqrt(t))) * release
        else:
            W -= step_size * (release / n + l2 * W)
        if radius is not None:
            _project_ball(W, radius)
        if t >= first:
            total += W
    return total / (n_steps - first + 1) if average else W


def noisy_sgd_bst14(
    Z,
    y,
    loss: MarginHingeLoss,
    epsilon: float,
    delta: float,
    *,
    runs: int = 1,
    ledger: PrivacyLedger | None = None,
    label: str = "BST14 noisy SGD",
    rng=None,
    chunk: int = 2048,
    sample: MappedSample | None = None,
    steps_per_pass: int | None = None,
) -> np.ndarray:
    """Bassily-Smith-Thakurta's ``A_Noise-GD`` as in NUZ Algorithm 3, lines 12 to 19 (shape (runs, m)).

    ``n^2 - 1`` steps; step ``t`` draws a record ``j`` uniformly with replacement and moves
    ``w <- Pi_C(w - eta(t) (n grad l(w; z_j) + b_t))``, ``b_t ~ N(0, sigma^2 I_m)``,
    ``sigma^2 = 32 L^2 n^2 ln(n/delta) ln(1/delta) / epsilon^2``,
    ``eta(t) = 2 / sqrt(t (n^2 L^2 + m sigma^2))``, ``w_1 = 0``; returns the last iterate.
    (epsilon, delta)-DP per run by BST14 Thm 2.1. Cost ``O(n^2 m)`` per run; ``runs`` independent
    runs share the loop (vectorised). ``n = 1`` performs no step and returns ``w_1 = 0``.

    The data is read only through the records at the picked positions. The noise and the picks are
    drawn ``chunk`` steps at a time, in this order (noise, then picks), independently of the data;
    the records of ``steps_per_pass`` steps (a public number, rounded up to whole chunks; default
    ``chunk`` in memory, :func:`engine_steps_per_pass` on an engine) are fetched at once by
    :meth:`MappedSample.take`: in memory, fancy indexing; on Dask or Spark (``sample``, with
    ``Z = y = None``) one gather pass. The draws do not depend on
    ``steps_per_pass``, so neither does the result: only the number of passes,
    ``ceil((n^2 - 1) / steps_per_pass)``, and the memory of one pass (``steps_per_pass * runs``
    records and noise vectors of ``m`` floats each).
    """
    sample = _sample(Z, y, sample)
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, allow_zero=False)
    runs = check_int(runs, "runs", low=1)
    chunk = check_int(chunk, "chunk", low=1)
    n, m = sample.n, sample.m
    if steps_per_pass is not None:
        per_pass = check_int(steps_per_pass, "steps_per_pass", low=1)
    else:
        per_pass = chunk if sample.backend.name == "numpy" else engine_steps_per_pass(runs, m, chunk)
    L = loss.lipschitz
    sigma = bst14_noise_std(L, n, epsilon, delta)
    steps = n * n - 1
    if steps == 0:
        warnings.warn("noisy SGD on a single record performs no step and returns w = 0", UtilityWarning, stacklevel=2)
    src = as_random_source(rng)
    block = gaussian_noise_block(
        sigma,
        steps,
        m,
        epsilon,
        delta,
        runs=runs,
        mechanism="BST14 noisy SGD (Thm 2.1; NUZ Alg 3 lines 12-19)",
        ledger=ledger,
        label=label,
        rng=src,
    )
    G2 = n * n * L * L + m * sigma * sigma
    W = np.zeros((runs, m))
    scale = n / loss.width
    t = 1
    bar = progress(total=steps, desc="noisy SGD (BST14)")
    while t <= steps:
        noises, picks = [], []
        planned = 0
        while planned < per_pass and t + planned <= steps:  # the draws of the in-memory order
            c = min(chunk, steps - t - planned + 1)
            noises.append(block.noise(c))  # (c, runs, m)
            picks.append(np.minimum((uniform_array((c, runs), src) * n).astype(np.int64), n - 1))
            planned += c
        noise = np.concatenate(noises) if len(noises) > 1 else noises[0]
        Zp, yp = sample.take(np.concatenate(picks) if len(picks) > 1 else picks[0])  # the only access to the data
        Zp, yp = Zp.reshape(planned, runs, m), yp.reshape(planned, runs)
        bar.update(planned)
        for i in range(planned):
            zj = Zp[i]  # (runs, m)
            yj = yp[i]
            active = yj * np.einsum("ij,ij->i", W, zj) < loss.target
            step = noise[i]
            step -= (scale * (active * yj))[:, None] * zj  # n * grad = -n y z / (0.86 gamma) when active
            W -= (2.0 / math.sqrt(t * G2)) * step  # eta_t = ||C||_2 / sqrt(t G^2), ||C||_2 = 2 (unit ball)
            _project_ball(W)
            t += 1
    bar.close()
    return W


def net_runs(
    Z,
    y,
    gamma: float,
    epsilon: float,
    *,
    runs: int = 1,
    max_candidates: int = 2_000_000,
    ledger: PrivacyLedger | None = None,
    rng=None,
    sample: MappedSample | None = None,
) -> np.ndarray:
    """``runs`` independent draws of NUZ Algorithm 2's mechanism as a DP-ERM (shape (runs, m)).

    Each draw is the exponential mechanism over the (gamma/10)-net of the unit sphere of ``R^m``
    with utility ``-#{j : y_j <w, z_j> < gamma/10}`` (sensitivity 1): (epsilon, 0)-DP. "F is any
    DP-ERM algorithm", so :func:`boosted_erm` accepts it as ``optimizer="net"``; its output
    distribution is exactly computable, which is what the audit of the boosting's accounting uses.
    The data is read once: the violation counts (integer sums; :meth:`MappedSample.violation_counts`,
    on an engine one pass with ``sample``), identical on every engine.
    """
    sample = _sample(Z, y, sample)
    m = sample.m
    radius = gamma / 10.0
    if sphere_net_size(m, radius) > max_candidates:
        raise InvalidParameterError(
            f"the (margin/10)-net in dimension {m} has about {sphere_net_size(m, radius):,} points, more than "
            f"max_candidates={max_candidates:,}"
        )
    net = sphere_net(m, radius)
    scores = -sample.violation_counts(net, radius).astype(np.int64)
    src = as_random_source(rng)
    picks = [
        exponential_mechanism(
            scores, epsilon, sensitivity=1.0, ledger=ledger, label=f"net mechanism, run {i + 1}", rng=src
        )
        for i in range(check_int(runs, "runs", low=1))
    ]
    return net[picks]


def select_candidate(
    Z,
    y,
    loss: MarginHingeLoss,
    candidates: np.ndarray,
    epsilon: float,
    *,
    charged: bool = True,
    ledger: PrivacyLedger | None = None,
    label: str = "final selection (exponential mechanism)",
    rng=None,
    sample: MappedSample | None = None,
) -> int:
    """The exponential mechanism over ``candidates`` with utility ``-sum_j l(w; z_j)`` (NUZ Alg 3 line 11).

    Replacing one record changes the total loss of every candidate by at most the loss range
    ``(1 + 0.96 gamma)/(0.86 gamma)``, the sensitivity used: (epsilon, 0)-DP given the candidates.
    ``charged=False`` is the paper-literal accounting: the mechanism runs at ``epsilon`` but the
    ledger records zero (the erratum).

    The data is read once, through :meth:`MappedSample.loss_totals` (on an engine, ``sample``: one
    pass, per-block float sums added; they equal the in-memory totals up to rounding, and each
    record still moves every total by at most the loss range).
    """
    sample = _sample(Z, y, sample)
    scores = -sample.loss_totals(loss, candidates)
    if charged:
        return exponential_mechanism(scores, epsilon, sensitivity=loss.value_range, ledger=ledger, label=label, rng=rng)
    if ledger is not None:
        ledger.charge(
            label + " [uncharged, paper-literal]",
            0.0,
            0.0,
            f"exponential mechanism at epsilon={epsilon:.6g}",
            not_private="erratum E-NUZ1: the final selection runs at epsilon but is charged nothing",
        )
    return exponential_mechanism(scores, epsilon, sensitivity=loss.value_range, ledger=None, rng=rng)


def boosting_rounds(beta: float) -> int:
    """``k = ceil(log2(8 / beta))`` (base 2: all k runs fail with probability <= 2^-k <= beta/8; spec 3.4)."""
    beta = check_probability(beta, "beta")
    return int(math.ceil(math.log2(8.0 / beta) - 1e-12))


@dataclass
class BoostedResult:
    """The selected vector, the candidates and how the budget was split."""

    w: np.ndarray
    candidates: np.ndarray
    chosen: int
    epsilon_runs: float  # per run
    delta_runs: float  # per run
    epsilon_selection: float
    selection_charged: bool
    details: dict = field(default_factory=dict)


def boosted_erm(
    Z,
    y,
    loss: MarginHingeLoss,
    epsilon: float,
    delta: float,
    beta: float = 0.1,
    *,
    optimizer: str = "bst14",
    n_steps: int = 10,
    boost: bool = True,
    variant: str = "corrected",
    ledger: PrivacyLedger | None = None,
    rng=None,
    sample: MappedSample | None = None,
    steps_per_pass: int | None = None,
) -> BoostedResult:
    """NUZ Algorithm 3's ``F``: ``k`` independent private runs and a private pick of the best.

    ``variant="corrected"`` (default): runs at ``(epsilon / (2k), delta / k)`` each and the pick at
    ``epsilon / 2``, all charged: (epsilon, delta)-DP by basic composition. ``boost=False``: one run
    with the whole budget and no pick (k = 1). ``variant="paper-literal"``: runs at
    ``(epsilon / k, delta / k)`` and an uncharged pick at ``epsilon`` -- really
    (2 epsilon, delta)-DP; warns.

    The records are read through a :class:`MappedSample` (``sample``, with ``Z = y = None``, for
    data on Dask or Spark; in memory one is made of ``(Z, y)``): the runs by their optimiser's reads
    (gradient sums, gathered records or violation counts) and the pick by the candidates' total
    losses. ``steps_per_pass``: BST14's records fetched per gather (see :func:`noisy_sgd_bst14`).
    """
    sample = _sample(Z, y, sample)
    epsilon = check_epsilon(epsilon)
    check_choice(optimizer, "optimizer", OPTIMIZERS)
    delta = check_delta(delta, allow_zero=optimizer == "net")
    check_choice(variant, "variant", ERM_VARIANTS)
    src = as_random_source(rng)
    k = boosting_rounds(beta) if boost else 1
    if variant == "paper-literal":
        if not boost:
            raise InvalidParameterError("variant='paper-literal' reproduces the boosted F; it needs boost=True")
        warnings.warn(
            "paper-literal F: the final exponential mechanism is charged no budget (NUZ Alg 3 line 11); "
            "the result is (2 epsilon, delta)-DP, not (epsilon, delta)-DP",
            PaperLiteralWarning,
            stacklevel=2,
        )
        eps_run, eps_sel = epsilon / k, epsilon
    else:
        eps_run, eps_sel = (epsilon / (2 * k), epsilon / 2) if k > 1 else (epsilon, 0.0)
    delta_run = delta / k
    label = {"bst14": "BST14 noisy SGD", "dpgd": "noisy gradient descent", "net": "net mechanism"}[optimizer]
    label = f"{label}, {k} run(s)"
    common = dict(runs=k, ledger=ledger, rng=src)
    if optimizer == "bst14":
        candidates = noisy_sgd_bst14(
            None, None, loss, eps_run, delta_run, label=label, sample=sample, steps_per_pass=steps_per_pass, **common
        )
    elif optimizer == "net":
        candidates = net_runs(None, None, loss.gamma, eps_run, sample=sample, **common)
    else:
        oracle = sample.gradient_sum(loss)
        candidates = noisy_gd(None, None, loss, eps_run, delta_run, n_steps, label=label, gradient_sum=oracle, **common)
    if k == 1:
        chosen = 0
    else:
        chosen = select_candidate(
            None, None, loss, candidates, eps_sel, charged=variant == "corrected", ledger=ledger, rng=src, sample=sample
        )
    return BoostedResult(
        w=candidates[chosen].copy(),
        candidates=candidates,
        chosen=int(chosen),
        epsilon_runs=eps_run,
        delta_runs=delta_run,
        epsilon_selection=eps_sel,
        selection_charged=variant == "corrected",
        details={"k": k, "optimizer": optimizer, "variant": variant},
    )
