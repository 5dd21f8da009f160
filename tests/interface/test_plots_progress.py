"""Plots from the command line, and progress bars that only a terminal user sees."""

import math

import numpy as np
import pytest
from click.testing import CliRunner

from privpac.cli import main
from privpac.errors import InvalidParameterError
from privpac.plots import bound_sweep
from privpac.progress import progress
from privpac.sanitizers.points import san_points_plan

PNG = b"\x89PNG\r\n\x1a\n"


def _csv(path, columns):
    names = list(columns)
    rows = zip(*columns.values())
    path.write_text(",".join(names) + "\n" + "".join(",".join(str(v) for v in r) + "\n" for r in rows))
    return str(path)


def test_bounds_plot_varies_the_domain_size_without_one_given(tmp_path):
    out = tmp_path / "b.png"
    args = ["bounds", "bns-learn-thresholds", "--epsilon", "1", "--delta", "1e-6", "--alpha", "0.05", "--beta", "0.1"]
    result = CliRunner().invoke(main, [*args, "--plot", str(out)])
    assert result.exit_code == 0, result.output
    assert "against domain_size" in result.output and out.read_bytes().startswith(PNG)


def test_bound_sweep_reads_the_calculator_and_refuses_what_a_bound_does_not_take():
    vary, xs, lines = bound_sweep("bns-learn-thresholds", {"epsilon": 1.0, "delta": 1e-6, "alpha": 0.1, "beta": 0.1})
    assert vary == "domain_size" and xs[0] == 2**4
    tuned = lines["library, tuned (depth chosen)"]
    assert all(a <= b for a, b in zip(tuned, tuned[1:]) if a is not None and b is not None)
    vary, xs, lines = bound_sweep("margin-approx", {"delta": 1e-6, "alpha": 0.1, "beta": 0.1, "margin": 0.1})
    assert vary == "epsilon" and len(xs) == len(next(iter(lines.values())))
    with pytest.raises(InvalidParameterError, match="does not depend on domain_size"):
        bound_sweep("margin-approx", {"delta": 1e-6, "alpha": 0.1, "beta": 0.1, "margin": 0.1}, "domain_size")


def test_bounds_plot_draws_record_counts_only_and_names_a_missing_option(tmp_path):
    from privpac.plots import is_record_count

    not_records = [
        "log2 T~ (paper's extended domain, Claim 3.5)", "N = log* T~", "N (adaptive domain)", "epsilon_each",
        "iterations", "calls", "m, B3 inner", "as privpac runs it: tukey depth, m", "domain_bits", "alpha_per_call",
        "window_stated", "directions", "RecConcave / exponential", "levels that run",
    ]  # fmt: skip
    records = [
        "stated (Thm 3.6: 2(d+1), paper's T~, advanced composition)", "B1 one-shot", "s = m k, B3 inner", "m_min",
        "r_per_call", "tight (Appendix A), N=1", "generalization (Thm 2.14, alpha/2, beta/2)",
        "as privpac runs it: tukey depth, s = m k", "records",
    ]  # fmt: skip
    assert not any(is_record_count(k) for k in not_records) and all(is_record_count(k) for k in records)
    out = tmp_path / "t.png"
    args = ["bounds", "bmns-find-tukey", "--epsilon", "1", "--alpha", "0.1", "--beta", "0.1", "--dimension", "2"]
    result = CliRunner().invoke(main, [*args, "--plot", str(out)])
    assert result.exit_code == 1 and "Error: bound 'bmns-find-tukey' needs --delta" in result.output
    result = CliRunner().invoke(main, [*args, "--delta", "1e-6", "--plot", str(out)])
    assert result.exit_code == 0 and out.read_bytes().startswith(PNG), result.output


def _saved_figures(monkeypatch) -> list:
    """The figures privpac.plots saves (still readable after plt.close)."""
    from matplotlib.figure import Figure

    saved, savefig = [], Figure.savefig

    def record(fig, *args, **kwargs):
        saved.append(fig)
        return savefig(fig, *args, **kwargs)

    monkeypatch.setattr(Figure, "savefig", record)
    return saved


def test_bounds_plot_layout_legend_beside_title_whole_and_the_others_listed(tmp_path, monkeypatch):
    from privpac.plots import is_record_count, plot_bound

    saved = _saved_figures(monkeypatch)
    params = {"epsilon": 1.0, "delta": 1e-6, "alpha": 0.1, "beta": 0.1, "dimension": 2}
    plot_bound("bmns-find-tukey", params, tmp_path / "t.png")
    (fig,) = saved
    ax = fig.axes[0]
    fig.canvas.draw()
    drawn = [line.get_label().replace("\n", " ") for line in ax.get_lines()]
    assert drawn and all(is_record_count(label) for label in drawn) and ax.get_ylabel() == "records (sufficient)"
    legend, axes_box = ax.get_legend().get_window_extent(), ax.get_window_extent()
    assert legend.x0 >= axes_box.x1  # beside the lines, never over them
    assert all(len(line) <= 90 for line in ax.get_title().splitlines())  # wrapped, not clipped at the edge
    caption = " ".join(t.get_text().replace("\n", " ") for t in ax.texts)
    assert caption.startswith("Not drawn (not record counts)") and "log2 T~" in caption


def test_center_point_plot_names_its_axes_by_the_columns(tmp_path, monkeypatch):
    from privpac.estimators import PrivateCenterPoint
    from privpac.plots import plot_model

    saved = _saved_figures(monkeypatch)
    X = np.array([[-1, -1], [1, -1], [-1, 1], [1, 1], [0, 0]] * 20)
    est = PrivateCenterPoint(domain=1, random_state=0).fit(X)
    est.feature_names_ = ["age", "income"]
    plot_model(est, X, tmp_path / "c.png")
    X3 = np.column_stack([X, X[:, 0]])
    plot_model(PrivateCenterPoint(domain=1, random_state=0).fit(X3), X3, tmp_path / "d.png")  # the first two drawn
    labels = [(fig.axes[0].get_xlabel(), fig.axes[0].get_ylabel()) for fig in saved]
    assert labels == [("age", "income"), ("x0", "x1 (first two of 3 features)")]


@pytest.mark.parametrize(
    "model, domain, features",
    [
        ("threshold", "0:1000", 1),
        ("rectangle", "0:1000", 2),
        ("halfspace-margin", "0:1000", 2),
        ("median", "", 1),
        ("center-point", "", 2),
    ],
)
def test_show_plots_a_model_over_data(tmp_path, model, domain, features):
    rng = np.random.default_rng(0)
    columns = {f"x{j}": rng.integers(0, 1001, 600) for j in range(features)}
    columns["y"] = (columns["x0"] > 500).astype(int)
    data = _csv(tmp_path / "d.csv", columns)
    model_path = str(tmp_path / "m.json")
    runner = CliRunner()
    if model == "median":
        data = _csv(tmp_path / "x.csv", {"x0": columns["x0"]})
        fit = ["fit", "median", data, "--domain", "0:1000", "--seed", "1", "-o", model_path]
    elif model == "center-point":
        data = _csv(tmp_path / "c.csv", {"x0": columns["x0"] % 3 - 1, "x1": columns["x1"] % 3 - 1})
        fit = ["fit", "center-point", data, "--domain", "-1:1", "--seed", "1", "-o", model_path]
    else:
        fit = ["fit", model, data, "--label", "y", "--domain", domain, "--seed", "1", "-o", model_path]
        if model == "halfspace-margin":
            fit += ["--set", "margin=0.1"]
    result = runner.invoke(main, fit)
    assert result.exit_code == 0, result.output
    result = runner.invoke(main, ["show", model_path, "--plot", data])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "m.png").read_bytes().startswith(PNG)


def test_show_refuses_a_plot_it_cannot_draw(tmp_path):
    m = math.ceil(san_points_plan(0.5, 0.1, 1.0, 1e-3).min_size) + 100
    data = _csv(tmp_path / "v.csv", {"x": [7, 100], "n": [m // 2, m - m // 2]})
    out = str(tmp_path / "s.json")
    runner = CliRunner()
    fit = ["sanitize", "san-points", data, "--column", "x", "--counts", "n", "--domain", "0:255"]
    result = runner.invoke(main, [*fit, "--delta", "1e-3", "--alpha", "0.5", "--seed", "1", "-o", out])
    assert result.exit_code == 0, result.output
    result = runner.invoke(main, ["show", out, "--plot", data])
    assert result.exit_code != 0 and "no plot for" in result.output and "Traceback" not in result.output


@pytest.mark.parametrize("setting, shown", [("0", False), ("1", True)])
def test_progress_bars_follow_the_setting(monkeypatch, setting, shown):
    monkeypatch.setenv("PRIVPAC_PROGRESS", setting)
    bar = progress(total=3, desc="x")
    assert bar.disable is (not shown)
    bar.close()


def test_progress_bars_are_off_when_output_is_not_a_terminal(monkeypatch, capsys):
    monkeypatch.delenv("PRIVPAC_PROGRESS", raising=False)
    for _ in progress(range(3), desc="quiet"):
        pass
    assert "quiet" not in capsys.readouterr().err
