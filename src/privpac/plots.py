"""Pictures a person would rather look at than read: sample-size bounds, and a model over data.

* :func:`plot_bound` draws a registered bound (``privpac bounds NAME --plot``) against the
  domain size or epsilon: every record count the calculator returns as a line (the legend beside
  the axes), with the sizes the benchmarks measured where privpac has them
  (:mod:`privpac.bounds.measured`); the other numbers it returns (budgets per call, depths,
  logarithms, numbers of calls or chunks) are listed under the plot with their range, never drawn
  on the records axis (:func:`is_record_count`).
* :func:`plot_model` draws a fitted model over a dataset (``privpac show model.json --plot
  data.csv``): the learned threshold, point, box or halfspace, a median or a noisy histogram.
  The picture shows the records themselves: it is for the data holder's own eyes, not a release.

Matplotlib runs on the non-interactive Agg backend (no screen needed); figures are written to a
file (PNG, SVG or PDF by the extension).
"""

from __future__ import annotations

import math
import re
import textwrap

import numpy as np

from .errors import InvalidParameterError

__all__ = ["plot_bound", "plot_model", "bound_sweep", "is_record_count"]

#: log2 of the domain sizes a bound is drawn over.
DOMAIN_BITS = (4, 8, 16, 32, 64, 128, 256, 1024, 4096, 16384, 65536)
#: epsilons a bound is drawn over.
EPSILONS = (0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0)


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def bound_sweep(name: str, params: dict, vary: str | None = None):
    """``(vary, xs, {line: [values]})``: a bound evaluated along the domain size or epsilon.

    ``vary`` defaults to ``"domain_size"`` when the bound takes it, else ``"epsilon"``. Points
    where the bound does not apply (an error, a non-number) are left out of their line.
    """
    from .bounds import evaluate_bound, get_bound

    bound = get_bound(name)
    takes = bound.parameters
    if vary is None:
        vary = "domain_size" if "domain_size" in takes else "epsilon" if "epsilon" in takes else None
    if vary not in takes:
        raise InvalidParameterError(
            f"bound {name!r} does not depend on {vary or 'the domain size or epsilon'}; it takes {', '.join(takes)}"
        )
    xs = [2**b for b in DOMAIN_BITS] if vary == "domain_size" else list(EPSILONS)
    lines: dict[str, list] = {}
    refusals = []
    for i, x in enumerate(xs):
        try:
            result = evaluate_bound(name, **{**params, vary: x})
        except (InvalidParameterError, ValueError, OverflowError, ZeroDivisionError) as exc:
            refusals.append(str(exc))
            continue
        for key, value in result.items():
            if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value) and value > 0:
                lines.setdefault(key, [None] * len(xs))[i] = float(value)
    if refusals and not lines:  # the calculator's own reason, such as "bound 'x' needs --delta", names what to give
        raise InvalidParameterError(refusals[0])
    if not lines:
        raise InvalidParameterError(f"bound {name!r} gives no positive number to plot for {params}")
    return vary, xs, lines


#: Names of the numbers a bound returns that are not sample sizes: budgets and probabilities per
#: call, logarithms and log-stars, depths, numbers of calls, iterations, chunks or directions,
#: windows, bit lengths and ratios. Everything else a bound returns is a number of records.
_NOT_RECORDS = re.compile(
    r"^(log2 |log\*|N\b|M$|grid side|levels|blocks$|directions$|iterations$|calls$|window|t/m|blow_up"
    r"|for accuracy|domain size needed|[mk], )"
    r"|epsilon_|delta_|alpha_|beta_|_each$|log_star|bits\b| / |, m$"
)


def is_record_count(key: str) -> bool:
    """Whether a number a bound returns, by its name, is a number of records (what the plot's axis shows)."""
    return _NOT_RECORDS.search(key) is None


def _range_text(values) -> str:
    found = [v for v in values if v is not None]
    lo, hi = min(found), max(found)
    one = f"{lo:,.4g}" if lo < 1e6 else f"{lo:.3g}"
    return one if lo == hi else f"{one} to {hi:,.4g}" if hi < 1e6 else f"{one} to {hi:.3g}"


def _measured_line(name: str, vary: str, xs, params: dict):
    """The benchmarks' measured sizes for this bound, where privpac has them (else None)."""
    from .bounds import measured

    method = {"bns-learn-thresholds": "recconcave", "bns-exponential-learner": "exponential"}.get(name)
    if method is None:
        return None
    eps, alpha = params.get("epsilon") or 1.0, params.get("alpha") or measured.MEASURED_AT["alpha"]
    if vary == "domain_size":
        values = [measured.threshold_records(method, x, eps, alpha) for x in xs]
    else:
        size = params.get("domain_size") or 2**64
        values = [measured.threshold_records(method, size, x, alpha) for x in xs]
    what = "RecConcave learner" if method == "recconcave" else "exponential mechanism"
    return f"measured: {what} (benchmarks/thresholds.py, 90% of runs)", values


def plot_bound(name: str, params: dict, path, vary: str | None = None) -> str:
    """Draw bound ``name`` at ``params`` along the domain size or epsilon into ``path``; returns what varied."""
    from .bounds import get_bound

    vary, xs, lines = bound_sweep(name, params, vary)
    records = {k: v for k, v in lines.items() if is_record_count(k)}
    others = {k: v for k, v in lines.items() if not is_record_count(k)}
    drawn = records or others  # a bound of ratios or counts of calls only: drawn, on a neutral axis
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(8, 5))
    xplot = [math.log2(x) for x in xs] if vary == "domain_size" else xs
    colours = plt.get_cmap("tab20").colors
    for i, (key, values) in enumerate(drawn.items()):
        pts = [(x, v) for x, v in zip(xplot, values) if v is not None]
        style = dict(color=colours[(2 * i) % 20 + (i // 10) % 2], marker="osD^v<>p*h"[i % 10], markersize=5)
        ax.plot(*zip(*pts), label="\n".join(textwrap.wrap(key, 48)), **style)
    extra = _measured_line(name, vary, xs, params)
    if extra is not None:
        label = "\n".join(textwrap.wrap(extra[0], 48))
        ax.plot(xplot, extra[1], marker="s", color="black", linestyle="--", linewidth=2, label=label)
    ax.set_yscale("log")
    if vary == "domain_size":
        ax.set_xscale("log", base=2)  # log2 |X| on a log axis: 2^4 .. 2^65536 in one picture
        ax.set_xticks(xplot, [f"$2^{{{int(b)}}}$" for b in xplot])
        ax.minorticks_off()
        ax.set_xlabel("domain size |X|")
    else:
        ax.set_xscale("log")
        ax.set_xlabel("epsilon")
    bound = get_bound(name)
    if records:
        ax.set_ylabel("records (sufficient)" if bound.kind == "upper" else "records (necessary)")
    else:
        ax.set_ylabel("value (the bound returns no record count)")
    fixed = ", ".join(f"{k}={v:g}" for k, v in params.items() if v is not None and k != vary and isinstance(v, float))
    title = textwrap.wrap(f"{name}: {bound.reference}", 90) + ([fixed] if fixed else [])
    ax.set_title("\n".join(title), fontsize=9)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0)
    if records and others:
        listed = "; ".join(f"{k}: {_range_text(v)}" for k, v in others.items())
        caption = textwrap.fill(f"Not drawn (not record counts), over this range: {listed}", 110)
        ax.text(0.0, -0.14, caption, transform=ax.transAxes, va="top", fontsize=7)
    fig.savefig(path, bbox_inches="tight")  # the legend and the caption lie outside the axes
    plt.close(fig)
    return vary


# -- a model over data ---------------------------------------------------------------------------


def _as_float(column) -> np.ndarray:
    return (
        np.asarray([float(v) for v in column], dtype=float)
        if np.asarray(column).dtype == object
        else np.asarray(column, dtype=float)
    )


def _label_groups(X, y):
    if y is None:
        return [("records", X)]
    y = np.asarray(y)
    return [(f"label {c}", X[y == c]) for c in np.unique(y)]


def _plot_one_feature(ax, est, column, raw, y):
    """Histograms of the feature by label, the predicted-1 region shaded."""
    x = _as_float(column)
    order = np.argsort(x, kind="stable")
    xs = x[order]
    for name, values in _label_groups(x, y):
        ax.hist(values, bins=min(60, max(10, int(np.sqrt(x.size)))), alpha=0.5, label=name)
    pred = np.asarray(est.predict(raw[order]))
    positive = pred == est.classes_[-1]
    starts = np.flatnonzero(positive & ~np.r_[False, positive[:-1]])
    ends = np.flatnonzero(positive & ~np.r_[positive[1:], False])
    for k, (a, b) in enumerate(zip(starts, ends)):
        ax.axvspan(xs[a], xs[b] if b > a else xs[a] + 1e-9, color="tab:green", alpha=0.15,
                   label=f"predicted {est.classes_[-1]}" if k == 0 else None)  # fmt: skip
    if hasattr(est, "threshold_value_"):
        ax.axvline(float(est.threshold_value_), color="black", linestyle="--", label="private threshold")
    ax.set_xlabel(getattr(est, "feature_names_", None) and est.feature_names_[0] or "x")
    ax.set_ylabel("records")


def _plot_two_features(ax, est, X, raw, y):
    for name, values in _label_groups(X, y):
        ax.scatter(values[:, 0], values[:, 1], s=8, alpha=0.6, label=name)
    lo, hi = X.min(axis=0), X.max(axis=0)
    pad = 0.05 * np.maximum(hi - lo, 1e-9)
    if X.shape[1] == 2 and hasattr(est, "coef_"):
        w, b = np.asarray(est.coef_, dtype=float), float(est.intercept_)
        t = np.linspace(lo[0] - pad[0], hi[0] + pad[0], 200)
        if abs(w[1]) > 1e-12:
            ax.plot(t, -(w[0] * t + b) / w[1], color="black", label="private halfspace")
        else:
            ax.axvline(-b / w[0], color="black", label="private halfspace")
        ax.set_ylim(lo[1] - pad[1], hi[1] + pad[1])
    if getattr(est, "lower_", None) is not None:
        lower, upper = np.asarray(est.lower_, dtype=float), np.asarray(est.upper_, dtype=float)
        from matplotlib.patches import Rectangle

        what = "private box" if X.shape[1] == 2 else "private box (first two sides)"
        ax.add_patch(Rectangle((lower[0], lower[1]), upper[0] - lower[0], upper[1] - lower[1], fill=False,
                               color="black", linewidth=2, label=what))  # fmt: skip
    elif getattr(est, "empty_", False):
        ax.set_title("the private box is empty: every record is predicted 0", fontsize=9)
    names = getattr(est, "feature_names_", None) or ["x0", "x1"]
    ax.set_xlabel(names[0])
    ax.set_ylabel(names[1])


def plot_model(est, X, path, y=None):
    """Draw fitted model ``est`` over data ``X`` (with labels ``y`` if given) into ``path``.

    Classifiers with one feature: histograms by label with the predicted-1 region; with two or
    more: a scatter of the first two features with the box or (two features) the separating line;
    halfspaces in more dimensions: the decision values by label. Medians, center points and
    histograms: the data beside the private answer.
    """
    raw = X
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(8, 5))
    title = type(est).__name__
    if hasattr(est, "median_"):
        x = _as_float(np.asarray(raw).reshape(-1))
        ax.hist(x, bins=60, alpha=0.6, label="records")
        ax.axvline(float(est.median_), color="black", linestyle="--", label="private median")
        ax.set_xlabel((getattr(est, "feature_names_", None) or ["value"])[0])
        ax.set_ylabel("records")
    elif hasattr(est, "center_"):
        X = np.asarray(raw, dtype=float).reshape(len(raw), -1)
        center = [float(c) for c in est.center_]
        names = getattr(est, "feature_names_", None) or [f"x{j}" for j in range(X.shape[1])]
        if X.shape[1] == 1:
            ax.hist(X[:, 0], bins=60, alpha=0.6, label="records")
            ax.axvline(center[0], color="black", linestyle="--", label="private center point")
            ax.set_xlabel(names[0])
            ax.set_ylabel("records")
        else:
            # integer data repeat points: the marker area shows how many records share one
            points, weight = np.unique(X[:, :2], axis=0, return_counts=True)
            ax.scatter(points[:, 0], points[:, 1], s=8 * weight / weight.min(), alpha=0.5, label="records")
            ax.scatter([center[0]], [center[1]], marker="*", s=300, color="black", label="private center point")
            ax.set_xlabel(names[0])
            ax.set_ylabel(names[1] if X.shape[1] == 2 else f"{names[1]} (first two of {X.shape[1]} features)")
    elif hasattr(est, "counts_") and hasattr(est, "bin_edges_"):
        x = _as_float(np.asarray(raw).reshape(-1))
        edges = np.asarray(est.bin_edges_, dtype=float)
        true, _ = np.histogram(x, bins=edges)
        mid, width = (edges[:-1] + edges[1:]) / 2, np.diff(edges)
        ax.bar(mid - width / 4, true, width=width / 2, label="records (not private)")
        label = "private counts (noisy, then non-negative summing to n)"
        ax.bar(mid + width / 4, est.consistent_counts_, width=width / 2, label=label)
        ax.set_xlabel((getattr(est, "feature_names_", None) or ["value"])[0])
        ax.set_ylabel("records per bin")
    elif hasattr(est, "predict") and hasattr(est, "classes_"):
        raw = np.asarray(raw)
        raw = raw.reshape(-1, 1) if raw.ndim == 1 else raw
        if raw.shape[1] == 1:
            _plot_one_feature(ax, est, raw[:, 0], raw, y)
        elif hasattr(est, "decision_function") and raw.shape[1] > 2:
            scores = np.asarray(est.decision_function(raw), dtype=float)
            for name, values in _label_groups(scores, y):
                ax.hist(values, bins=60, alpha=0.5, label=name)
            ax.axvline(0.0, color="black", linestyle="--", label="private halfspace (w.x + b = 0)")
            ax.set_xlabel("w.x + b")
        else:
            _plot_two_features(ax, est, np.column_stack([_as_float(c) for c in raw.T]), raw, y)
    else:
        plt.close(fig)
        raise InvalidParameterError(
            f"no plot for {title}: plots cover classifiers, medians, center points and histograms"
        )
    ax.set_title(
        ax.get_title() or f"{title}: the records are shown for the data holder only (not a private release)",
        fontsize=9,
    )
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0)  # off the data
    fig.savefig(path, bbox_inches="tight")
    plt.close(fig)
    return path
