"""The commands over private models: ``fit`` (a model of ``privpac.estimators.MODELS`` on a CSV file,
saved with its ledger), ``predict``, ``score`` and ``show`` (a saved model and its ledger)."""

from __future__ import annotations

from pathlib import Path

import click
import numpy as np

from .data import _engine_options, _feature_names, _features_and_label, _read_data, _stack
from .domain_options import _domain_options, read_domains
from .options import EPSILON_OPTION, SEED_OPTION, _fail, _parse_set, delta_option
from .output import _echo_ledger, _privacy_text

#: Parameters every model gets from the command's own options (not through --set).
_OPTION_PARAMS = ("epsilon", "delta", "domain", "constants", "random_state", "accountant")


def _settable(cls) -> list[str]:
    return [p for p in cls().get_params() if p not in _OPTION_PARAMS]


def _with_settings(est, extra, model: str):
    """Apply ``--set key=value`` through ``set_params``: an unknown key is refused with the valid ones."""
    settings = _parse_set(extra)
    valid = set(est.get_params())
    unknown = sorted(set(settings) - valid)
    renamed = getattr(est, "_renamed_parameters", {})
    for key in unknown:
        if key in renamed:
            _fail(f"{model} calls {key} {renamed[key]} now: pass --set {renamed[key]}=...")
    if unknown:
        _fail(
            f"{model} has no parameter {', '.join(repr(k) for k in unknown)}; "
            f"--set accepts: {', '.join(_settable(type(est)))}"
        )
    return est.set_params(**settings)


def model_table() -> list[tuple[str, str, list[str]]]:
    """``(name, class name, --set keys)`` of every model of ``privpac fit``, read from the estimators'
    source with :mod:`ast`.

    Importing the estimators imports scikit-learn (about a second), too slow for ``privpac fit
    --help``; the table reads ``MODEL_CLASSES`` in ``estimators/__init__.py`` and the ``__init__`` parameters
    of each class (the first ``__init__`` up its bases, as ``get_params`` does) instead. A test checks
    it against the imported classes.
    """
    import ast

    root = Path(__file__).parent.parent / "estimators"
    classes: dict[str, tuple[list[str], list[str] | None]] = {}
    models: dict[str, str] = {}
    for path in sorted(root.glob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.ClassDef):
                init = next((f for f in node.body if isinstance(f, ast.FunctionDef) and f.name == "__init__"), None)
                params = None if init is None else [a.arg for a in init.args.args[1:] + init.args.kwonlyargs]
                classes[node.name] = ([b.id for b in node.bases if isinstance(b, ast.Name)], params)
            target = (
                node.target
                if isinstance(node, ast.AnnAssign)
                else (node.targets[0] if isinstance(node, ast.Assign) else None)
            )
            if isinstance(target, ast.Name) and target.id == "MODEL_CLASSES" and isinstance(node.value, ast.Dict):
                models = {k.value: v.value for k, v in zip(node.value.keys, node.value.values)}

    def parameters(name: str) -> list[str]:
        bases, params = classes.get(name, ([], []))
        if params is not None:
            return params
        return next((parameters(b) for b in bases if b in classes), [])

    return [
        (name, cls, [p for p in parameters(cls) if p not in _OPTION_PARAMS]) for name, cls in sorted(models.items())
    ]


class _FitCommand(click.Command):
    """``privpac fit --help`` lists the models and the --set keys of each (read without importing them)."""

    def get_help(self, ctx):
        lines = [super().get_help(ctx), "", "Models and their --set keys:"]
        for name, cls, keys in model_table():
            lines.append(f"  {name:22s} {cls}: {', '.join(keys) or '(none)'}")
        return "\n".join(lines)


@click.command(cls=_FitCommand)
@click.argument("model")
@click.argument("data", type=click.Path(exists=True))
@click.option("--label", default=None, help="Label column (classifiers).")
@click.option("--features", default=None, help="Comma-separated feature columns (default: all but the label).")
@_domain_options
@EPSILON_OPTION
@delta_option(1e-6)
@click.option("--constants", type=click.Choice(["tuned", "paper"]), default="tuned", show_default=True)
@SEED_OPTION
@click.option("--set", "extra", multiple=True, help="Extra estimator parameter key=value (repeatable).")
@click.option("-o", "--output", type=click.Path(dir_okay=False), required=True, help="Where to save the model (JSON).")
@_engine_options
def fit(
    model,
    data,
    label,
    features,
    domain_specs,
    domain_file,
    epsilon,
    delta,
    constants,
    seed,
    extra,
    output,
    engine,
    scheduler,
):
    """Fit a private MODEL on a CSV file and save it with its ledger.

    MODEL is one of the models listed below; --set KEY=VALUE sets any of its other parameters
    (VALUE is read as JSON when it parses, else as text), e.g. --set orientation=above.
    Per-column bounds: --domain x=0:40:401 --domain y=-1:1:201, or --domain-file bounds.json.
    """
    from ..estimators import MODELS
    from ..io import save_model

    if model not in MODELS:
        _fail(f"unknown model {model!r}; available: {', '.join(sorted(MODELS))}")
    cls = MODELS[model]
    columns, close = _read_data(data, engine, scheduler)
    names = [c.strip() for c in features.split(",")] if features else [c for c in columns if c != label]
    missing = [c for c in names + ([label] if label else []) if c not in columns]
    if missing:
        _fail(f"columns not in {data}: {', '.join(missing)}")
    domain = read_domains(domain_specs, domain_file, list(columns), names)
    X, y = _features_and_label(columns, names, label, engine)
    params = dict(epsilon=epsilon, delta=delta, domain=domain, constants=constants, random_state=seed)
    est = _with_settings(cls(**{k: v for k, v in params.items() if k in cls().get_params()}), extra, model)
    if label:
        est.fit(X, y)
    else:
        est.fit(X)
    est.feature_names_ = names
    if close is not None:
        close()
    save_model(est, output)
    for line in est.summary():
        click.echo(line)
    click.echo(_privacy_text(est.privacy_spent_))
    click.echo(f"saved to {output}")


@click.command()
@click.argument("model_path", type=click.Path(exists=True, dir_okay=False))
@click.argument("data", type=click.Path(exists=True, dir_okay=False))
@click.option("--features", default=None, help="Comma-separated feature columns (default: as at fit time).")
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None, help="CSV to write (default: stdout).")
def predict(model_path, data, features, output):
    """Predictions of a saved model on a CSV file."""
    from ..io import load_model, read_csv, write_csv

    est = load_model(model_path)
    if not hasattr(est, "predict"):
        _fail(f"{type(est).__name__} does not predict")
    columns = read_csv(data)
    names = [c.strip() for c in features.split(",")] if features else _feature_names(est, columns)
    pred = est.predict(_stack(columns, names))
    if output:
        write_csv(output, {"prediction": pred})
        click.echo(f"wrote {len(pred)} predictions to {output}")
    else:
        click.echo("prediction")
        for p in pred:
            click.echo(str(p.item() if isinstance(p, np.generic) else p))


@click.command()
@click.argument("model_path", type=click.Path(exists=True, dir_okay=False))
@click.argument("data", type=click.Path(exists=True, dir_okay=False))
@click.option(
    "--label", default=None, help="Column of the true labels (classifiers), or of the right-hand sides b (feasibility)."
)
@click.option("--features", default=None, help="Comma-separated feature columns (default: as at fit time).")
def score(model_path, data, label, features):
    """How a saved model does on a CSV file: a classifier's accuracy on labelled data, or the fit
    statistic of a median (rank error), center point (Tukey depth), linear feasibility point
    (constraints satisfied) or histogram (count error).

    The numbers are computed from the records of DATA: they are for the data holder, not a private
    release (privpac.scoring).
    """
    from ..io import load_model, read_csv
    from ..scoring import model_scores

    est = load_model(model_path)
    columns = read_csv(data)
    if label is not None and label not in columns:
        _fail(f"label column {label!r} not in {data}; columns: {', '.join(columns)}")
    unlabelled = {k: v for k, v in columns.items() if k != label}
    names = [c.strip() for c in features.split(",")] if features else _feature_names(est, unlabelled)
    missing = [c for c in names if c not in unlabelled]
    if missing:
        _fail(f"feature columns not in {data}: {', '.join(missing)}")
    scores = model_scores(est, _stack(columns, names), None if label is None else columns[label])
    click.echo(f"{type(est).__name__} on {data} (n = {len(columns[names[0]])}):")
    for name, value in scores:
        click.echo(f"  {name}: {value:.6g}" if isinstance(value, float) else f"  {name}: {value}")
    click.echo("(computed from the records of the file: not a private release)")


@click.command()
@click.argument("model_path", type=click.Path(exists=True, dir_okay=False))
@click.option(
    "--plot",
    "plot_data",
    type=click.Path(exists=True, dir_okay=False),
    default=None,
    help="A CSV to draw the model over (for the data holder's own eyes: the records are shown).",
)
@click.option("--label", default=None, help="Label column of the plotted CSV (default: the one non-feature column).")
@click.option(
    "--plot-file", type=click.Path(dir_okay=False), default=None, help="Where to write the plot (default: MODEL.png)."
)
def show(model_path, plot_data, label, plot_file):
    """A saved model: algorithm, parameters, learned state and privacy ledger (and a plot over data)."""
    from ..io import load_model

    est = load_model(model_path)
    for line in est.summary():
        click.echo(line)
    _echo_ledger(est.ledger_)
    if plot_data is not None:
        from ..io import read_csv
        from ..plots import plot_model

        columns = read_csv(plot_data)
        names = (
            _feature_names(est, columns)
            if label is None
            else _feature_names(est, {k: v for k, v in columns.items() if k != label})
        )
        rest = [c for c in columns if c not in names]
        if label is None and len(rest) == 1:
            label = rest[0]
        if label is not None and label not in columns:
            _fail(f"label column {label!r} not in {plot_data}; columns: {', '.join(columns)}")
        names = [n for n in names if n != label]
        target = plot_file or str(Path(model_path).with_suffix(".png"))
        plot_model(est, _stack(columns, names), target, y=None if label is None else columns[label])
        click.echo(f"plot written to {target}")
