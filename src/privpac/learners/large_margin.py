"""Private learners for homogeneous halfspaces with margin: projection, then private optimisation.

Nguyen, Ullman and Zakynthinou, "Efficient private algorithms for learning large-margin
halfspaces" (ALT 2020). Data ``(x_i, y_i)`` with ``y_i in {-1, +1}``; the distribution has
(cosine) margin ``gamma``: some unit ``w*`` has ``y <w*, x> / ||x|| >= gamma`` on its support.
``gamma`` is a *public input*, never estimated from the data. All three learners return
``theta = A^T w`` in ``R^d`` (``A`` the projection, identity without one), with the classifier
``x -> sign(<theta, x>)`` (a score of 0 is predicted +1).

:func:`learn_margin_faithful` -- Algorithm 1 = Algorithm 3, Thms 2 and 3
    normalise, project to ``m = m_paper`` dimensions (capped at ``d``, see below), run ``F``
    (:func:`privpac.learners.dp_erm.boosted_erm`: ``k = ceil(log2(8/beta))`` runs of BST14's noisy
    SGD and an exponential-mechanism pick, *charged*), map back. (epsilon, delta)-DP. Utility
    (Thm 2): error <= alpha with probability 1 - beta once ``n = O~(1 / (alpha epsilon gamma^2))``,
    with constants that make ``n`` about 10^11 at gamma = 0.3 (spec 5.2); at practical ``n`` the
    ``k``-way budget split leaves each run far too noisy (spec 5.4).
:func:`learn_margin_pure` -- Algorithm 2, Thms 4 and 5
    normalise, project (identity when ``d <= 3``), run the exponential mechanism over a
    (gamma/10)-net of the unit sphere with utility ``-#{j : y_j <w, z_j> < gamma/10}``
    (sensitivity 1, so ``Pr[w] ~ exp(-epsilon c(w) / 2)``), map back. (epsilon, 0)-DP. Utility
    (Thm 4): ``n = O~(1 / (alpha epsilon gamma^2))``. Exponential time: the net has
    ``(1/gamma)^Theta(m)`` points; a net above ``max_candidates`` raises (no silent fallback).
:func:`learn_margin_practical` -- spec 3.8 (not in the paper; the default)
    normalise, project to ``ceil(16 / gamma^2)`` dimensions when that is cheaper
    (:func:`~privpac.learners.jl_projection.auto_projection_dim`), run ``T`` steps of full-batch
    noisy gradient descent calibrated exactly by Gaussian DP (no boosting), output the average
    iterate, map back. (epsilon, delta)-DP. "F is any DP-ERM algorithm" (NUZ Thm 3), so the paper's
    privacy argument covers it; no utility theorem is claimed for it, its accuracy is measured in
    ``benchmarks/large_margin.py``.

Privacy (NUZ Thms 3 and 5)
--------------------------
Condition on the projection ``A``: it is drawn from the learner's random source before the data is
read, and its dimension depends on public quantities only (``n`` is public under replace-one
neighbours). Each record is mapped on its own (``x -> A x / ||A x||``), so neighbours stay
neighbours and ``||z|| <= 1``; the private optimiser is then (epsilon, delta)- or (epsilon, 0)-DP on
any such data, and mapping back is post-processing. Every noise draw happens in
:mod:`privpac.mechanisms` after the ledger is charged. The Gaussian noise is floating point (see
:mod:`privpac.mechanisms.gaussian` for the caveat).

Deviations from the paper (docs/errata.md)
------------------------------------------
* The final selection of ``F`` is charged (the paper charges it nothing); ``variant="paper-literal"``
  keeps the printed accounting for reproduction and warns.
* When the projection dimension is at least ``d`` the identity is used: privacy is unchanged (the
  map is data-independent) and the margin is kept exactly, which only helps utility.
* The net of Algorithm 2 is constructed explicitly (:mod:`privpac.learners.margin_nets`).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ..accounting import PrivacyLedger
from ..errors import DataError, InvalidParameterError, UnsafeConfigurationWarning, UtilityWarning
from ..mechanisms.exponential import exponential_mechanism, exponential_probabilities
from ..random import as_random_source
from ..validation import check_delta, check_epsilon, check_int, check_probability, check_real, check_size
from .dp_erm import ERM_VARIANTS, EngineGradientSum, MappedSample, MarginHingeLoss, boosted_erm, noisy_gd
from .jl_projection import (
    AUTO_PROJECTION_CONSTANT,
    SignProjection,
    auto_projection_dim,
    paper_projection_dim,
    project_records,
)
from .margin_nets import sphere_net, sphere_net_size, violation_counts

__all__ = [
    "EngineRecords",
    "MarginModel",
    "engine_records",
    "learn_margin_faithful",
    "learn_margin_practical",
    "learn_margin_pure",
    "DEFAULT_MAX_CANDIDATES",
    "net_output_distribution",
]

#: Largest net the pure learner enumerates (about 2 * 10^6 points times n times m work).
DEFAULT_MAX_CANDIDATES = 2_000_000


@dataclass
class MarginModel:
    """What a large-margin learner returns."""

    coef: np.ndarray  # theta = A^T w in R^d
    projected_coef: np.ndarray  # w in R^m (equal to coef without a projection)
    projection: SignProjection | None
    details: dict = field(default_factory=dict)

    @property
    def projection_dim(self) -> int:
        return self.projected_coef.size


def _check_data(X, y) -> tuple[np.ndarray, np.ndarray]:
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if X.ndim != 2 or X.shape[0] == 0 or X.shape[1] == 0:
        raise InvalidParameterError(f"X must be a non-empty 2-D array, got shape {X.shape}")
    # NaN and infinite entries are rejected by normalize_rows, which reads every row anyway.
    if y.shape != (X.shape[0],) or not np.all(np.abs(y) == 1.0):
        raise InvalidParameterError("y must hold one label in {-1, +1} per row of X")
    return X, y


def _check_margin(gamma) -> float:
    if gamma is None:
        raise InvalidParameterError(
            "margin must be given: it is a public input of the large-margin learners and is never estimated "
            "from the data (for example margin=0.1)"
        )
    return check_real(gamma, "margin", low=0.0, low_open=True, high=1.0)


def _resolve_dim(projection_dim, d: int, auto: int | None, paper: int) -> tuple[int | None, int]:
    """``(m or None for the identity, requested m)`` from a public ``projection_dim`` setting."""
    if isinstance(projection_dim, str):
        if projection_dim == "auto":
            requested = auto
        elif projection_dim == "paper":
            requested = paper
        elif projection_dim == "none":
            requested = None
        else:
            raise InvalidParameterError(
                f"projection_dim must be 'auto', 'paper', 'none' or a positive integer, got {projection_dim!r}"
            )
    else:
        requested = check_int(projection_dim, "projection_dim", low=1)
    if requested is not None:
        check_size(requested, "projection_dim", per_item=max(d, 1))  # the sign matrix is m x d
    if requested is None or (requested >= d and not isinstance(projection_dim, int | np.integer)):
        return None, d if requested is None else requested
    return requested, requested


def _warn_large_delta(delta: float, n: int) -> None:
    # A public-input check (n is public): delta >= 1/n admits mechanisms that publish a record.
    if delta >= 1.0 / n:
        warnings.warn(
            f"delta = {delta:g} is at least 1/n = {1.0 / n:g}: (epsilon, delta)-DP then allows releasing a record "
            "in the clear; choose delta much smaller than 1/n",
            UnsafeConfigurationWarning,
            stacklevel=3,
        )


def _draw_projection(m: int | None, d: int, rng) -> SignProjection | None:
    """The public projection (``None``: the identity), drawn before the data is read."""
    return None if m is None else SignProjection.draw(m, d, rng)


def _prepare(X, m: int | None, rng):
    """Draw the projection (before the data is read), then map every record."""
    projection = _draw_projection(m, X.shape[1], rng)
    return projection, project_records(X, projection)


@dataclass
class EngineRecords:
    """Training records that live on an engine (Dask, Spark), read only through backend passes.

    ``prepare(X_block, y_block)`` is the caller's public per-record preprocessing, applied to every
    row block where it lives: it validates the block (records outside the public domain raise) and
    returns ``(features, labels)`` as float64 arrays of shapes ``(k, d)`` and ``(k,)``, labels in
    {-1, +1} (``k = 0`` for an empty block). It must be deterministic and draw no randomness.
    Build with :func:`engine_records`, which counts ``n`` exactly (public under replace-one).
    """

    backend: object
    X: object
    y: object
    prepare: Callable
    n: int
    d: int


def _count_partials(parts) -> int:
    return sum(int(p) for p in parts)


def engine_records(X, y, prepare: Callable, d: int) -> EngineRecords:
    """Wrap engine data for :func:`learn_margin_practical`, counting its records in one exact pass.

    The pass runs ``prepare`` on every block, so every record is validated (domain, labels, finite
    values) before any privacy budget is spent or noise drawn.
    """
    from ..backends import backend_for

    backend = backend_for(X)

    def count(X_block, y_block):  # deterministic, no randomness
        features, _ = prepare(X_block, y_block)
        return int(features.shape[0])

    n = backend.map_merge(count, _count_partials, X, y)
    if n == 0:
        raise DataError("X is empty: at least one record is needed")
    return EngineRecords(backend, X, y, prepare, int(n), check_int(d, "d", low=1))


class _ProjectedRecords:
    """``prepare`` followed by the public map ``x -> A x / ||A x||`` (or ``x / ||x||``), per block."""

    def __init__(self, prepare: Callable, projection: SignProjection | None):
        self.prepare, self.projection = prepare, projection

    def __call__(self, X_block, y_block):
        features, labels = self.prepare(X_block, y_block)
        if features.shape[0] == 0:
            return features, labels
        return project_records(features, self.projection), labels


def _engine_sample(X: EngineRecords, projection: SignProjection | None, m: int) -> MappedSample:
    """The mapped records of engine data: ``prepare`` then the public projection, per block."""
    return MappedSample(X.backend, X.X, X.y, _ProjectedRecords(X.prepare, projection), X.n, m)


def _finish(w: np.ndarray, projection: SignProjection | None, details: dict) -> MarginModel:
    coef = w.copy() if projection is None else projection.map_back(w)
    return MarginModel(coef=coef, projected_coef=w, projection=projection, details=details)


def learn_margin_practical(
    X,
    y,
    margin: float,
    epsilon: float,
    delta: float,
    *,
    projection_dim="auto",
    n_steps: int = 10,
    average: bool = True,
    ledger: PrivacyLedger | None = None,
    rng=None,
) -> MarginModel:
    """The practical default (spec 3.8): projection where it pays, exact-GDP noisy GD, no boosting.

    (epsilon, delta)-DP (see the module docstring). ``projection_dim``: ``"auto"`` (default),
    ``"none"``, ``"paper"`` or an int (an int is used even when it exceeds ``d``).

    ``X`` may be :class:`EngineRecords` (data on Dask or Spark, ``y`` ignored): the same learner,
    reading the data through :class:`~privpac.learners.dp_erm.EngineGradientSum` (one exact count
    pass before, then one pass per gradient step that maps each block and returns its gradient
    sum; the noise is drawn on the driver). The result equals the in-memory fit with the same seed
    up to float rounding of the partition sums (about 1e-8 on the coefficients, not bit for bit);
    the ledger is identical and the privacy guarantee is the same.
    """
    on_engine = isinstance(X, EngineRecords)
    if on_engine:
        n, d = X.n, X.d
    else:
        X, y = _check_data(X, y)
        n, d = X.shape
    gamma = _check_margin(margin)
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, allow_zero=False)
    n_steps = check_int(n_steps, "n_steps", low=1)
    _warn_large_delta(delta, n)
    src = as_random_source(rng)
    m, requested = _resolve_dim(projection_dim, d, auto_projection_dim(gamma, d, n_steps), _paper_dim(gamma, n))
    loss = MarginHingeLoss(gamma)
    gd = dict(average=average, ledger=ledger, rng=src)
    if on_engine:
        projection = _draw_projection(m, d, src)
        records = _ProjectedRecords(X.prepare, projection)
        oracle = EngineGradientSum(X.backend, X.X, X.y, records, loss, n, d if m is None else m)
        W = noisy_gd(None, None, loss, epsilon, delta, n_steps, gradient_sum=oracle, **gd)
    else:
        projection, Z = _prepare(X, m, src)
        W = noisy_gd(Z, y, loss, epsilon, delta, n_steps, **gd)
    details = {"variant": "practical", "n_steps": n_steps, "projection_dim": requested, "identity": m is None}
    return _finish(W[0], projection, details)


def _paper_dim(gamma: float, n: int, alpha: float = 0.1, beta: float = 0.1) -> int:
    return paper_projection_dim(gamma, alpha, beta, n)


def learn_margin_faithful(
    X,
    y,
    margin: float,
    epsilon: float,
    delta: float,
    *,
    alpha: float = 0.1,
    beta: float = 0.1,
    projection_dim="paper",
    optimizer: str = "bst14",
    boost: bool = True,
    n_steps: int = 10,
    variant: str = "corrected",
    steps_per_pass: int | None = None,
    ledger: PrivacyLedger | None = None,
    rng=None,
) -> MarginModel:
    """NUZ Algorithm 1 = Algorithm 3 with the corrected accounting (or ``variant="paper-literal"``).

    ``projection_dim="paper"`` uses ``m_paper(gamma, alpha beta^2 / (64 n))``; it exceeds any
    realistic ``d`` (8.3 million at gamma = 0.3, n = 1000), in which case the identity is used and
    a :class:`~privpac.errors.UtilityWarning` says so. ``optimizer="bst14"`` is the paper's
    (``O(k n^2 m)`` time); ``"dpgd"`` swaps in the exact-GDP noisy GD inside the same ``F``.
    (epsilon, delta)-DP for ``variant="corrected"``; the paper-literal variant is
    (2 epsilon, delta)-DP.

    ``X`` may be :class:`EngineRecords` (data on Dask or Spark, ``y`` ignored): the same learner
    reading the records through a :class:`~privpac.learners.dp_erm.MappedSample` whose every read
    is a backend pass (the projection drawn on the driver first, as in memory): BST14 gathers the
    records at the positions it draws (``steps_per_pass`` steps per gather; default
    :func:`~privpac.learners.dp_erm.engine_steps_per_pass`), noisy GD reads one gradient sum per
    step, the net mechanism one vector of violation counts, and the selection the candidates'
    total losses. All noise is drawn on the driver; the ledger is the in-memory one. Without a
    projection BST14's and the net's candidates are the in-memory ones bit for bit (gathered
    records and integer counts are exact); noisy GD's agree to about 1e-8 (float sums), and the
    selection's totals to rounding (the same pick unless a uniform draw falls within about 1e-12
    of a boundary). ``steps_per_pass`` never changes the result (the draws keep their order).
    """
    on_engine = isinstance(X, EngineRecords)
    if not on_engine:
        X, y = _check_data(X, y)
    gamma = _check_margin(margin)
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, allow_zero=False)
    alpha = check_probability(alpha, "alpha")
    beta = check_probability(beta, "beta")
    if variant not in ERM_VARIANTS:
        raise InvalidParameterError(f"variant must be one of {list(ERM_VARIANTS)}, got {variant!r}")
    n, d = (X.n, X.d) if on_engine else X.shape
    _warn_large_delta(delta, n)
    src = as_random_source(rng)
    paper = paper_projection_dim(gamma, alpha, beta, n)
    if optimizer == "bst14":
        # BST14 costs O(k n^2 m): projecting to ceil(16 / gamma^2) < d dimensions always pays.
        auto = math.ceil(AUTO_PROJECTION_CONSTANT / gamma**2)
        auto = auto if auto < d else None
    else:
        auto = auto_projection_dim(gamma, d, n_steps)
    m, requested = _resolve_dim(projection_dim, d, auto, paper)
    if m is None and requested > d:
        warnings.warn(
            f"the projection dimension {requested:,} is at least d = {d}: the identity map is used "
            "(privacy unchanged; the margin is kept exactly)",
            UtilityWarning,
            stacklevel=2,
        )
    if on_engine:
        projection = _draw_projection(m, d, src)
        sample = _engine_sample(X, projection, d if m is None else m)
    else:
        projection, Z = _prepare(X, m, src)
        sample = MappedSample.in_memory(Z, y)
    loss = MarginHingeLoss(gamma)
    result = boosted_erm(
        None,
        None,
        loss,
        epsilon,
        delta,
        beta,
        optimizer=optimizer,
        n_steps=n_steps,
        boost=boost,
        variant=variant,
        ledger=ledger,
        rng=src,
        sample=sample,
        steps_per_pass=steps_per_pass,
    )
    details = {
        "variant": "faithful" if variant == "corrected" else "paper-literal",
        "optimizer": optimizer,
        "k": result.details["k"],
        "chosen": result.chosen,
        "epsilon_per_run": result.epsilon_runs,
        "delta_per_run": result.delta_runs,
        "epsilon_selection": result.epsilon_selection,
        "selection_charged": result.selection_charged,
        "projection_dim": requested,
        "identity": m is None,
    }
    return _finish(result.w, projection, details)


def learn_margin_pure(
    X,
    y,
    margin: float,
    epsilon: float,
    *,
    alpha: float = 0.1,
    beta: float = 0.1,
    projection_dim="auto",
    max_candidates: int = DEFAULT_MAX_CANDIDATES,
    ledger: PrivacyLedger | None = None,
    rng=None,
) -> MarginModel:
    """NUZ Algorithm 2: the exponential mechanism over a (gamma/10)-net of the projected sphere. (epsilon, 0)-DP.

    ``projection_dim="auto"`` is the identity when ``d <= 3`` and an error otherwise (the net of
    the paper's ``m`` is astronomically large); an int projects to that dimension (heuristic: the
    margin guarantee of the projection needs ``m ~ 1/gamma^2``); ``"paper"`` asks for ``m_paper``.
    A net with more than ``max_candidates`` points raises :class:`InvalidParameterError` before
    anything is computed.

    ``X`` may be :class:`EngineRecords` (data on Dask or Spark, ``y`` ignored): the violation counts
    of the net are sums over records, so each block returns its own counts (one pass) and the
    driver adds them exactly; the projection is drawn on the driver before the pass and the
    exponential mechanism runs there. Same counts, same draw, same model as in memory.
    """
    on_engine = isinstance(X, EngineRecords)
    if not on_engine:
        X, y = _check_data(X, y)
    gamma = _check_margin(margin)
    epsilon = check_epsilon(epsilon)
    alpha = check_probability(alpha, "alpha")
    beta = check_probability(beta, "beta")
    max_candidates = check_int(max_candidates, "max_candidates", low=2)
    n, d = (X.n, X.d) if on_engine else X.shape
    src = as_random_source(rng)
    if isinstance(projection_dim, str) and projection_dim == "auto":
        if d > 3:
            raise InvalidParameterError(
                f"the pure learner enumerates a (margin/10)-net of the projected sphere, which is feasible only in "
                f"dimension <= 3; d = {d}. Pass projection_dim=2 or 3 to project first (a heuristic: the paper's "
                f"dimension is {paper_projection_dim(gamma, alpha, beta, n):,}), or use variant='practical'"
            )
        m, requested = None, d
    else:
        m, requested = _resolve_dim(projection_dim, d, None, paper_projection_dim(gamma, alpha, beta, n))
    dim = d if m is None else m
    radius = gamma / 10.0
    size = sphere_net_size(dim, radius)
    if size > max_candidates:
        raise InvalidParameterError(
            f"the (margin/10)-net of the unit sphere in dimension {dim} has about {size:,} points, more than "
            f"max_candidates={max_candidates:,}; use a smaller projection_dim, a larger margin, or raise "
            "max_candidates (time and memory grow with it)"
        )
    if on_engine:
        projection = _draw_projection(m, d, src)
        net = sphere_net(dim, radius)
        counts = _engine_sample(X, projection, dim).violation_counts(net, radius)
    else:
        projection, Z = _prepare(X, m, src)
        net = sphere_net(dim, radius)
        counts = violation_counts(Z, y, net, radius)
    chosen = exponential_mechanism(
        -counts.astype(np.int64),
        epsilon,
        sensitivity=1.0,
        ledger=ledger,
        label="exponential mechanism over the margin net",
        rng=src,
    )
    details = {
        "variant": "pure",
        "projection_dim": requested,
        "identity": m is None,
        "net_size": int(net.shape[0]),
        "chosen": int(chosen),
    }  # never a count of the records (such as the chosen point's training violations): it is released
    return _finish(net[chosen].copy(), projection, details)


def net_output_distribution(X, y, margin: float, epsilon: float) -> tuple[np.ndarray, np.ndarray]:
    """Exact output distribution of :func:`learn_margin_pure` without projection (d <= 3): (net, probabilities).

    ``Pr[w]`` proportional to ``2^(-eta c(w))`` (the exponential mechanism's exact base,
    :func:`~privpac.mechanisms.exponential.exponential_probabilities`); used by the exact privacy checks.
    """
    X, y = _check_data(X, y)
    gamma = _check_margin(margin)
    epsilon = check_epsilon(epsilon)
    net = sphere_net(X.shape[1], gamma / 10.0)
    counts = violation_counts(project_records(X, None), y, net, gamma / 10.0)
    return net, exponential_probabilities(-counts.astype(np.int64), epsilon)
