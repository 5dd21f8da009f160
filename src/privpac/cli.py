"""The ``privpac`` command.

privpac demo                         the main job on bundled real data
privpac audit NAME | --list          empirical and exact privacy audits
privpac fit MODEL data.csv ...       fit a private model, save it as JSON
privpac predict model.json data.csv  predictions of a saved model
privpac score model.json data.csv    accuracy of a saved classifier, or a model's fit statistic, on CSV data
privpac show model.json              a saved model and its privacy ledger
privpac median data.csv ...          a private median or interior point of one column
privpac feasibility system.csv ...   a private point satisfying most constraints A x >= b
privpac centerpoint data.csv ...     a private center point (a point of high Tukey depth) of 1 to 3 columns
privpac bounds NAME | --list         sample-size bounds of the papers' theorems
privpac sanitize MODEL data.csv ...  a private synthetic database (JSON) or synthetic records (CSV)
privpac query model.json "x<=10"     answers of a saved sanitized database or private histogram

Public bounds: ``--domain lo:hi`` (or ``low:high:n_points``, JSON) for every feature, or one per
column, ``--domain x=0:40:401 --domain y=-1:1:201``, or ``--domain-file bounds.json``.
"""

from __future__ import annotations

import json
import os
import sys
import warnings
from pathlib import Path

import click
import numpy as np

from . import __version__
from .errors import PrivpacError


def _fail(message: str) -> None:
    raise click.ClickException(message)


def parse_domain(spec: str):
    """``lo:hi`` (integers) is an integer domain, ``low:high:n`` a grid, ``norm:R`` a norm bound, or JSON."""
    from .domains import as_domain, domain_from_text

    spec = spec.strip()
    if spec.startswith("norm:"):  # an L2 norm bound on the features (linear classifiers)
        try:
            return float(spec[5:])
        except ValueError as exc:
            raise click.BadParameter(f"cannot read the norm bound in {spec!r}") from exc
    if spec.startswith("{"):
        try:
            return as_domain(json.loads(spec))
        except json.JSONDecodeError as exc:
            raise click.BadParameter(f"the domain {spec!r} is not valid JSON: {exc}") from exc
    if len(spec.split(":")) not in (2, 3):
        raise click.BadParameter(f"domain must be lo:hi (integers), low:high:n_points, norm:R or JSON; got {spec!r}")
    try:
        return domain_from_text(spec)  # the text forms Python reads too
    except ValueError as exc:
        raise click.BadParameter(f"cannot read domain {spec!r}: {exc}") from exc


def eval_int(text: str) -> int:
    """An integer written plainly or as a power, such as ``2**64-1`` (bounded: see :func:`parse_integer`)."""
    from .formatting import parse_integer

    return parse_integer(text, "the number")


#: Ranges of the options every command shares: refused by click before anything is read or run.
EPSILON = click.FloatRange(0.0, min_open=True)
PROBABILITY = click.FloatRange(0.0, 1.0, min_open=True, max_open=True)
POSITIVE = click.IntRange(min=1)


class _Delta(click.FloatRange):
    """delta in ``[0, 1/2)``; a larger one is refused with :func:`privpac.validation.check_delta`'s reason."""

    def __init__(self):
        super().__init__(0.0, 0.5, max_open=True)

    def convert(self, value, param, ctx):
        number = click.FLOAT.convert(value, param, ctx)
        if number >= 0.5:
            from .errors import InvalidParameterError
            from .validation import check_delta

            try:
                check_delta(number)
            except InvalidParameterError as exc:
                self.fail(str(exc), param, ctx)
        return super().convert(number, param, ctx)


DELTA = _Delta()


def _domain_options(command):
    """``--domain`` (repeatable: one spec for every feature, or ``column=spec``) and ``--domain-file``."""
    command = click.option(
        "--domain-file",
        type=click.Path(exists=True, dir_okay=False),
        default=None,
        help='A JSON object of public bounds per column: {"x": "0:40:401", "y": {"low": -1, "high": 1, '
        '"n_points": 201}}.',
    )(command)
    return click.option(
        "--domain",
        "domain_specs",
        multiple=True,
        help="Public bounds: lo:hi (integers), low:high:n_points (a grid of real values) or JSON, for every "
        "feature; or per column, column=spec (repeatable): --domain x=0:40:401 --domain y=-1:1:201.",
    )(command)


def _split_domain_spec(spec: str) -> tuple[str | None, str]:
    """``("x", "0:1:11")`` for ``x=0:1:11``; ``(None, spec)`` for a spec of every feature."""
    spec = spec.strip()
    name, sep, rest = spec.partition("=")
    if not sep or spec.startswith("{"):
        return None, spec
    if not name.strip():
        raise click.BadParameter(f"--domain {spec!r} has no column name before '='")
    return name.strip(), rest


def _domain_file_value(column: str, value):
    """One entry of --domain-file: a spec string, a JSON domain object or a [lo, hi] / [low, high, n] list."""
    from .domains import as_domain

    try:
        if isinstance(value, str):
            return parse_domain(value)
        if isinstance(value, dict | list):
            return as_domain(tuple(value) if isinstance(value, list) else value, f"the domain of column {column!r}")
    except click.BadParameter as exc:
        raise click.BadParameter(f"column {column!r}: {exc.message}") from None
    except PrivpacError as exc:
        raise click.BadParameter(f"column {column!r}: {exc}") from None
    raise click.BadParameter(
        f'column {column!r}: a bound is a spec such as "0:40:401", an object such as '
        f'{{"low": 0, "high": 40, "n_points": 401}} or a list [0, 40]; got {value!r}'
    )


def read_domains(specs, domain_file, columns, features) -> object:
    """The public domain of ``features`` (in order) from ``--domain`` and ``--domain-file``.

    One spec without ``column=`` applies to every feature; ``column=spec`` (and the entries of
    ``--domain-file``) to one column, and beats the spec of every feature. Refused, naming the
    column: a spec that cannot be read, a ``--domain`` column that is not a feature, a file entry
    naming no column of the data, a feature without bounds. Returns the one parsed value when every
    feature has the same bounds (what every estimator takes), else a per-feature grid
    (:func:`per_feature_grid`).
    """
    try:
        return _read_domains(specs, domain_file, columns, features)
    except click.BadParameter as exc:  # "Error: <message>": the messages name the option and the column
        raise click.UsageError(exc.message) from None


def _read_domains(specs, domain_file, columns, features):
    default, per_column = None, {}
    for spec in specs:
        name, text = _split_domain_spec(spec)
        if name is None:
            if default is not None:
                raise click.BadParameter("give one --domain for every feature, and column=spec for the others")
            default = parse_domain(text)
            continue
        if name in per_column:
            raise click.BadParameter(f"column {name!r} has two --domain bounds")
        if name not in features:
            where = "is not a column of the data" if name not in columns else "is not a feature"
            raise click.BadParameter(f"--domain names column {name!r}, which {where}; features: {', '.join(features)}")
        try:
            per_column[name] = parse_domain(text)
        except click.BadParameter as exc:
            raise click.BadParameter(f"column {name!r}: {exc.message}") from None
    if domain_file is not None:
        try:
            entries = json.loads(Path(domain_file).read_text())
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise click.BadParameter(f"--domain-file {domain_file} is not JSON: {exc}") from None
        if not isinstance(entries, dict):
            raise click.BadParameter(f"--domain-file {domain_file} must hold a JSON object {{column: bounds}}")
        unknown = [name for name in entries if name not in columns]
        if unknown:
            raise click.BadParameter(
                f"--domain-file names {', '.join(repr(n) for n in unknown)}, not a column of the data; "
                f"columns: {', '.join(columns)}"
            )
        for name, value in entries.items():
            if name in features and name not in per_column:  # --domain column=spec beats the file
                per_column[name] = _domain_file_value(name, value)
    if default is None and not per_column:
        raise click.UsageError(
            "give the public bounds: --domain lo:hi (every feature), --domain column=spec or --domain-file"
        )
    missing = [name for name in features if name not in per_column and default is None]
    if missing:
        raise click.BadParameter(
            f"no bounds for column {', '.join(repr(n) for n in missing)}: add --domain {missing[0]}=lo:hi "
            "(or one --domain for every feature)"
        )
    values = [per_column.get(name, default) for name in features]
    if all(v == values[0] for v in values):
        return values[0]
    return per_feature_grid(dict(zip(features, values)))


def per_feature_grid(bounds: dict):
    """One :class:`~privpac.domains.Grid` with a row per column, in the order of ``bounds``.

    An integer range ``lo:hi`` is the grid of its ``hi - lo + 1`` integers (exact up to 2^53); a
    one-column grid is itself. The command line builds it so that per-column bounds reach every
    estimator that takes a grid; a norm bound (``norm:R``) is a bound on all features together.
    """
    from .domains import Grid, IntegerDomain

    low, high, n_points, clip = [], [], [], set()
    for name, dom in bounds.items():
        if isinstance(dom, IntegerDomain):
            if max(abs(dom.lo), abs(dom.hi), dom.size) > 2**53:
                raise click.BadParameter(
                    f"column {name!r}: {dom.lo}:{dom.hi} is too wide to share a grid with other columns' bounds "
                    "(at most 2^53 points, exactly representable): give every feature the same --domain"
                )
            lo, hi, n, c = dom.lo, dom.hi, dom.size, False
        elif isinstance(dom, Grid) and dom.dim == 1:
            lo, hi, n, c = dom.low[0], dom.high[0], int(dom.n_points[0]), dom.clip
        else:
            raise click.BadParameter(
                f"column {name!r}: per-column bounds are lo:hi or low:high:n_points; {dom!r} bounds every feature "
                "together: give it as the one --domain"
            )
        if n < 2:
            raise click.BadParameter(f"column {name!r}: a bound of one value ({lo}) cannot share a grid; widen it")
        low.append(lo)
        high.append(hi)
        n_points.append(n)
        clip.add(c)
    if len(clip) > 1:
        raise click.BadParameter("per-column grids must all clip or all refuse out-of-domain values")
    return Grid(low, high, n_points, clip=clip.pop())


class _ErrorBoundary(click.Group):
    """The one error boundary of the command line: a user's mistake ends in a one-line message.

    Library errors, bad values, unreadable files and refused sizes become ``Error: ...`` and exit
    code 1, never a traceback (click's own usage errors keep exit code 2).
    """

    def invoke(self, ctx):
        warnings.formatwarning = _warning_line
        try:
            return super().invoke(ctx)
        except (click.exceptions.ClickException, click.exceptions.Exit, click.exceptions.Abort):
            raise
        except BrokenPipeError:  # output piped into a reader that stopped (privpac show m.json | head)
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115 -- nothing more is written; Python flushes at exit
            sys.exit(0)
        except PrivpacError as exc:
            raise click.ClickException(_one_line(str(exc))) from None
        except KeyError as exc:
            raise click.ClickException(f"missing key {exc}") from None
        except (ValueError, TypeError, OverflowError, OSError, MemoryError) as exc:
            raise click.ClickException(_one_line(f"{type(exc).__name__}: {exc}")) from None


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def _warning_line(message, category, filename, lineno, line=None) -> str:
    """Warnings on the command line: ``UtilityWarning: ...`` without a source line."""
    return f"{category.__name__}: {message}\n"


@click.group(cls=_ErrorBoundary, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="privpac")
def main():
    """privpac: differentially private PAC learning with checkable privacy."""


@main.command()
@click.option("--epsilon", type=EPSILON, default=1.0, show_default=True, help="Total privacy budget.")
@click.option("--delta", type=DELTA, default=1e-6, show_default=True, help="Total delta.")
@click.option("--seed", type=int, default=None, help="Seed for a reproducible run (default: OS entropy).")
def demo(epsilon, delta, seed):
    """Private statistics and learners on bundled real data, beside the non-private answers."""
    from .demo import run_demo

    run_demo(epsilon=epsilon, delta=delta, seed=seed, echo=click.echo)


@main.command()
@click.argument("name", required=False)
@click.option("--list", "list_", is_flag=True, help="List the registered audits.")
@click.option("--epsilon", type=EPSILON, default=None, help="Requested epsilon (default: the case's).")
@click.option("--delta", type=DELTA, default=None, help="Requested delta (default: the case's).")
@click.option("--trials", type=POSITIVE, default=None, help="Runs per dataset (default: the case's).")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the audit runs.")
@click.option(
    "--confidence", type=PROBABILITY, default=0.95, show_default=True, help="Confidence of the lower bound, in (0, 1)."
)
@click.option(
    "--json", "json_out", type=click.Path(dir_okay=False), default=None, help="Also write the report as JSON."
)
@click.option("--pair", "pair_filter", default=None, help="Audit only the pairs whose label contains this.")
@click.option(
    "--branches", is_flag=True, help="Show the branches of the release path the audit covers (pairs, mutants)."
)
def audit(name, list_, epsilon, delta, trials, seed, confidence, json_out, pair_filter, branches):
    """Audit a mechanism's privacy on its worst-case neighbours; exit 1 on a violation."""
    from .audit import get_case, list_cases, run_audit

    if list_ or name is None:
        for case in list_cases():
            flag = "  (paper-literal: must be flagged)" if case.expect_violation else ""
            click.echo(f"{case.name:28s} {case.description}{flag}")
        return
    case = get_case(name)
    if branches:
        for b in case.branches:
            click.echo(b.name)
            click.echo(f"  pairs (--pair): {'; '.join(b.pairs)}")
            if b.mutants:
                click.echo(f"  mutants flagged (tests/test_mutations.py): {'; '.join(b.mutants)}")
            if b.gap:
                click.echo(f"  no mutant flagged: {b.gap}")
            if not b.mutants and not b.gap:
                click.echo("  a negative control: flagged as shipped")
        return
    report = run_audit(
        name,
        epsilon=epsilon,
        delta=delta,
        trials=trials,
        seed=seed,
        confidence=confidence,
        progress=True,
        pair_filter=pair_filter,
    )
    for line in report.lines():
        click.echo(line)
    if json_out:
        with open(json_out, "w") as fh:
            json.dump(report.to_dict(), fh, indent=2, default=str)
    sys.exit(1 if report.violation else 0)


def _parse_set(values) -> dict:
    params = {}
    for item in values:
        key, sep, raw = item.partition("=")
        if not sep:
            raise click.BadParameter(f"--set expects key=value, got {item!r}")
        try:
            params[key] = json.loads(raw)
        except json.JSONDecodeError:
            params[key] = raw
    return params


#: Parameters every model gets from the command's own options (not through --set).
_OPTION_PARAMS = ("epsilon", "delta", "domain", "constants", "random_state", "accountant")


def _settable(cls) -> list[str]:
    return [p for p in cls().get_params() if p not in _OPTION_PARAMS]


def _with_settings(est, extra, model: str):
    """Apply ``--set key=value`` through ``set_params``: an unknown key is refused with the valid ones."""
    settings = _parse_set(extra)
    valid = set(est.get_params())
    unknown = sorted(set(settings) - valid)
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
    --help``; the table reads ``MODELS`` in ``estimators/__init__.py`` and the ``__init__`` parameters
    of each class (the first ``__init__`` up its bases, as ``get_params`` does) instead. A test checks
    it against the imported classes.
    """
    import ast

    root = Path(__file__).parent / "estimators"
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
            if isinstance(target, ast.Name) and target.id == "MODELS" and isinstance(node.value, ast.Dict):
                models = {k.value: v.id for k, v in zip(node.value.keys, node.value.values)}

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


def _engine_options(command):
    """``--engine`` and ``--scheduler``: read DATA in memory, with Dask partition by partition, or on Spark."""
    command = click.option(
        "--scheduler",
        default=None,
        help="With --engine dask: a Dask scheduler address (default: local threads); with --engine spark: "
        "a Spark master URL (default: local[*]).",
    )(command)
    return click.option(
        "--engine",
        type=click.Choice(["memory", "dask", "spark"]),
        default="memory",
        show_default=True,
        help="dask or spark: read DATA (CSV or Parquet: a file, or a directory with Dask) on that engine, counted "
        "partition by partition; spark starts a local session (privpac.backends.spark_session).",
    )(command)


def _read_data(data: str, engine: str, scheduler):
    """The columns of DATA (a dict of arrays, a Dask DataFrame or a :class:`_SparkTable`), and a
    function that closes the engine (``None`` in memory)."""
    from .io import read_csv

    if engine == "dask":
        return _dask_frame(data, scheduler)
    if engine == "spark":
        return _spark_table(data, scheduler)
    if scheduler is not None:
        _fail("--scheduler needs --engine dask or spark")
    if Path(data).is_dir():
        _fail(f"{data} is a directory: pass a CSV file, or --engine dask for a Parquet dataset")
    return read_csv(data), None


def _parquet(data: str) -> bool:
    return Path(data).is_dir() or data.endswith((".parquet", ".pq"))


def _dask_frame(data: str, scheduler):
    """A Dask DataFrame of DATA (Parquet by suffix or directory, else CSV), and what closes its client."""
    try:
        import dask.dataframe as dd
    except ImportError:
        _fail("--engine dask needs Dask: pip install 'privpac[dask]'")
    client = None
    if scheduler is not None:
        from distributed import Client

        client = Client(scheduler)
    frame = dd.read_parquet(data) if _parquet(data) else dd.read_csv(data)
    return frame, None if client is None else client.close


class _SparkTable:
    """A Spark DataFrame read as the commands read a CSV file: column names, ``in``, and ``table[names]``
    (a DataFrame of those columns; the label of a fit travels as a column of X, by name)."""

    def __init__(self, frame):
        self.frame = frame

    def __iter__(self):
        return iter(self.frame.columns)

    def __contains__(self, name) -> bool:
        return name in self.frame.columns

    def __getitem__(self, names):
        return self.frame.select(*([names] if isinstance(names, str) else names))


def _spark_table(data: str, master):
    """DATA read by a Spark session (Parquet by suffix or directory, else CSV with a header), and what stops it.

    The session is :func:`privpac.backends.spark_session` (``local[*]`` unless ``--scheduler`` names a
    master): the workers' Python is set for privpac's jobs, Java is checked first.
    """
    from .backends import spark_session

    session = spark_session(master or "local[*]", config={"spark.ui.showConsoleProgress": "false"})
    session.sparkContext.setLogLevel("ERROR")
    reader = session.read
    frame = reader.parquet(data) if _parquet(data) else reader.csv(data, header=True, inferSchema=True)
    return _SparkTable(frame), session.stop


def _features_and_label(table, names: list[str], label, engine: str) -> tuple:
    """``(X, y)`` of a fit: arrays in memory, a Dask DataFrame and Series, or a Spark DataFrame holding
    the label column with ``y`` its name (Spark frames do not align rows across frames)."""
    if engine == "spark":
        return table[names + ([label] if label else [])], label
    y = table[label] if label else None
    return (table[names] if engine == "dask" else _stack(table, names)), y


@main.command(cls=_FitCommand)
@click.argument("model")
@click.argument("data", type=click.Path(exists=True))
@click.option("--label", default=None, help="Label column (classifiers).")
@click.option("--features", default=None, help="Comma-separated feature columns (default: all but the label).")
@_domain_options
@click.option("--epsilon", type=EPSILON, default=1.0, show_default=True, help="Total privacy budget epsilon (> 0).")
@click.option("--delta", type=DELTA, default=1e-6, show_default=True, help="Total delta in [0, 1/2), well below 1/n.")
@click.option("--constants", type=click.Choice(["tuned", "paper"]), default="tuned", show_default=True)
@click.option("--seed", type=int, default=None, help="Seed (default: OS entropy).")
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
    from .estimators import MODELS
    from .io import save_model

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
    if "bound" in cls().get_params():  # linear feasibility: --domain is the public bound of every entry
        dom = params["domain"]
        symmetric = getattr(dom, "lo", None) is not None and dom.lo == -getattr(dom, "hi", None)
        params["bound"] = dom.hi if symmetric else dom  # anything else is refused by the estimator
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


def _stack(columns: dict, names: list[str]) -> np.ndarray:
    cols = [columns[n] for n in names]
    if any(c.dtype == np.uint64 for c in cols) and all(np.issubdtype(c.dtype, np.integer) for c in cols):
        # uint64 beside int64 would become float64 and lose digits: keep integers exact
        if all(c.dtype == np.uint64 or c.min() >= 0 for c in cols):
            return np.column_stack([c.astype(np.uint64) for c in cols])
        cols = [c.astype(object) for c in cols]
    if any(c.dtype == object for c in cols):
        X = np.empty((len(cols[0]), len(cols)), dtype=object)
        for j, c in enumerate(cols):
            X[:, j] = c
        return X
    return np.column_stack(cols)


@main.command()
@click.argument("model_path", type=click.Path(exists=True, dir_okay=False))
@click.argument("data", type=click.Path(exists=True, dir_okay=False))
@click.option("--features", default=None, help="Comma-separated feature columns (default: as at fit time).")
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None, help="CSV to write (default: stdout).")
def predict(model_path, data, features, output):
    """Predictions of a saved model on a CSV file."""
    from .io import load_model, read_csv, write_csv

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


@main.command()
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
    from .io import load_model, read_csv
    from .scoring import model_scores

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


def _feature_names(est, columns) -> list[str]:
    names = getattr(est, "feature_names_", None)
    if names:
        missing = [n for n in names if n not in columns]
        if missing:
            _fail(f"columns used at fit time are missing: {', '.join(missing)}")
        return names
    return list(columns)


SANITIZERS = ("san-points", "k-point", "san-thresholds")


@main.command()
@click.argument("model")
@click.argument("data", type=click.Path(exists=True))
@click.option("--column", default=None, help="Column to sanitize (default: the only column).")
@click.option(
    "--counts", "counts_column", default=None, help="Column of multiplicities (each row = that many records)."
)
@_domain_options
@click.option("--epsilon", type=EPSILON, default=1.0, show_default=True, help="Total privacy budget epsilon (> 0).")
@click.option("--delta", type=DELTA, default=1e-6, show_default=True, help="Total delta in [0, 1/2), well below 1/n.")
@click.option("--alpha", type=PROBABILITY, default=0.1, show_default=True, help="Accuracy of the answers.")
@click.option("--beta", type=PROBABILITY, default=0.1, show_default=True, help="Failure probability.")
@click.option("--constants", type=click.Choice(["tuned", "paper"]), default="tuned", show_default=True)
@click.option("--seed", type=int, default=None, help="Seed (default: OS entropy).")
@click.option("--size", "n_out", type=POSITIVE, default=None, help="Synthetic records written to a CSV output.")
@click.option("--set", "extra", multiple=True, help="Extra sanitizer parameter key=value (e.g. k=3).")
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False),
    required=True,
    help="sanitized.json (database) or .csv (records).",
)
@_engine_options
def sanitize(
    model,
    data,
    column,
    counts_column,
    domain_specs,
    domain_file,
    epsilon,
    delta,
    alpha,
    beta,
    constants,
    seed,
    n_out,
    extra,
    output,
    engine,
    scheduler,
):
    """Sanitize one column of a CSV file with MODEL (san-points, k-point, san-thresholds)."""
    from .estimators import MODELS
    from .io import save_model, write_csv

    if n_out is not None:  # refused before anything is read or spent (too many to write, too)
        from .validation import check_size

        check_size(n_out, "--size")
    if model not in SANITIZERS or model not in MODELS:
        _fail(f"unknown sanitizer {model!r}; available: {', '.join(m for m in SANITIZERS if m in MODELS)}")
    cls = MODELS[model]
    columns, close = _read_data(data, engine, scheduler)
    if column is None:
        rest = [c for c in columns if c != counts_column]
        if len(rest) != 1:
            _fail(f"{data} has {len(rest)} value columns; choose one with --column")
        column = rest[0]
    for name in (column, counts_column):
        if name is not None and name not in columns:
            _fail(f"column {name!r} not in {data}")
    params = dict(
        epsilon=epsilon,
        delta=delta,
        alpha=alpha,
        beta=beta,
        domain=read_domains(domain_specs, domain_file, list(columns), [column]),
        constants=constants,
        random_state=seed,
    )
    est = _with_settings(cls(**params), extra, model)
    if engine == "memory":
        est.fit(columns[column], counts=None if counts_column is None else columns[counts_column])
    elif engine == "dask":
        est.fit(columns[[column]], counts=None if counts_column is None else columns[counts_column])
    else:  # Spark: the counts travel as a column of the frame, by name
        est.fit(columns[[column] + ([counts_column] if counts_column else [])], counts=counts_column)
    est.feature_names_ = [column]
    if close is not None:
        close()
    if output.lower().endswith(".csv"):
        records = est.sample(n_out, random_state=None if seed is None else seed + 1)
        write_csv(output, {column: records})
        click.echo(f"wrote {len(records)} synthetic records to {output}")
    else:
        save_model(est, output)
        click.echo(f"saved to {output}")
    for line in est.summary():
        click.echo(line)
    click.echo(_privacy_text(est.privacy_spent_))


@main.command()
@click.argument("path", type=click.Path(exists=True, dir_okay=False))
@click.argument("queries", nargs=-1, required=True)
def query(path, queries):
    """Answer counting queries ("x<=1000", "10<=x<20", "x==5", "x in {1,2}") from a saved sanitized
    database (fractions of the records) or a saved private histogram (counts and fractions).

    A histogram answers from its consistent counts (non-negative, summing to n: post-processing);
    a query that selects part of a bin gets that share of the bin's count, and says so.
    """
    from .io import load_model

    est = load_model(path)
    if not hasattr(est, "answer"):
        _fail(
            f"{path} holds a {type(est).__name__}, which answers no counting queries: privpac query reads "
            "sanitized databases (privpac sanitize) and histograms (privpac fit histogram)"
        )
    for q in queries:
        if hasattr(est, "cut_bins"):  # a histogram: counts, and the bins a range cuts
            count = est.count(q)
            cuts = "; ".join(
                f"cuts bin {where}: {k} of its {size} values, that share of its count"
                for where, k, size in est.cut_bins(q)
            )
            click.echo(
                f"{q}\t{count:.6g} records ({count / est.n_samples_:.4g} of n = {est.n_samples_})"
                + (f"  ({cuts})" if cuts else "")
            )
            continue
        value = est.answer(q)
        note = "" if est.covers(q) else "  (outside the accuracy guarantee: " + est.guarantee_text + ")"
        click.echo(f"{q}\t{value:.6g}{note}")


@main.command()
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
    from .accounting import PrivacyLedger
    from .io import load_model

    est = load_model(model_path)
    for line in est.summary():
        click.echo(line)
    click.echo("privacy ledger")
    ledger: PrivacyLedger = est.ledger_
    for line in ledger.lines():
        click.echo(f"  {line}")
    if plot_data is not None:
        from .io import read_csv
        from .plots import plot_model

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


@main.command()
@click.argument("name", required=False)
@click.option("--list", "list_", is_flag=True, help="List the registered bounds.")
@click.option("--epsilon", type=EPSILON, default=None, help="Total privacy budget epsilon.")
@click.option("--delta", type=DELTA, default=None, help="Total delta.")
@click.option("--alpha", type=PROBABILITY, default=None, help="Accuracy.")
@click.option("--beta", type=PROBABILITY, default=None, help="Failure probability.")
@click.option("--domain-size", "domain_size", default=None, help="|X|, e.g. 65536 or 2**64.")
@click.option("--dimension", type=POSITIVE, default=None, help="Number of features.")
@click.option("--set", "extra", multiple=True, help="Extra parameter key=value (repeatable).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.option(
    "--plot", "plot_file", type=click.Path(dir_okay=False), default=None, help="Draw the bound into this file (.png)."
)
@click.option(
    "--vary",
    type=click.Choice(["domain_size", "epsilon"]),
    default=None,
    help="What the plot varies (default: the domain size when the bound takes one, else epsilon).",
)
def bounds(name, list_, epsilon, delta, alpha, beta, domain_size, dimension, extra, as_json, plot_file, vary):
    """Sample sizes: a theorem's stated and tight bound, or a lower bound."""
    from .bounds import evaluate_bound, get_bound, list_bounds

    if list_ or name is None:
        for b in list_bounds():
            click.echo(f"{b.name:32s} [{b.kind}] {b.description} ({b.reference})")
        return
    params = dict(epsilon=epsilon, delta=delta, alpha=alpha, beta=beta, dimension=dimension)
    if domain_size is not None:
        params["domain_size"] = eval_int(domain_size)
    params.update(_parse_set(extra))
    bound = get_bound(name)
    if plot_file is not None:  # the plot varies one parameter: it need not be given
        from .plots import plot_bound

        given = {k: v for k, v in params.items() if v is not None}
        vary = plot_bound(name, given, plot_file, vary=vary)
        click.echo(f"plot of {name} against {vary} written to {plot_file}")
        if params.get(vary) is None:
            return
    result = evaluate_bound(name, **params)
    if as_json:
        click.echo(
            json.dumps(
                {
                    "bound": name,
                    "parameters": {k: _param_text(v) for k, v in params.items() if v is not None},
                    "result": result,
                },
                indent=2,
                default=str,
            )
        )
        return
    click.echo(f"{bound.name}: {bound.description}")
    click.echo(f"source: {bound.reference}; {'sufficient' if bound.kind == 'upper' else 'necessary'} sample size")
    shown = {k: v for k, v in params.items() if v is not None}
    click.echo("parameters: " + ", ".join(f"{k}={_param_text(v)}" for k, v in shown.items()))
    for key, value in result.items():
        click.echo(f"  {key}: {_fmt_number(value)}")


@main.command()
@click.argument("data", type=click.Path(exists=True))
@click.option("--column", default=None, help="Column to summarise (default: the first).")
@_domain_options
@click.option("--epsilon", type=EPSILON, default=1.0, show_default=True, help="Total privacy budget epsilon (> 0).")
@click.option("--delta", type=DELTA, default=0.0, show_default=True, help="0 keeps it pure DP.")
@click.option("--alpha", type=PROBABILITY, default=0.1, show_default=True, help="Rank accuracy of the median.")
@click.option("--beta", type=PROBABILITY, default=0.1, show_default=True, help="Failure probability.")
@click.option("--method", type=click.Choice(["auto", "exponential", "recconcave"]), default="auto", show_default=True)
@click.option("--interior", is_flag=True, help="An interior point (private under add/remove too) instead of a median.")
@click.option("--seed", type=int, default=None, help="Seed (default: OS entropy).")
@_engine_options
def median(
    data, column, domain_specs, domain_file, epsilon, delta, alpha, beta, method, interior, seed, engine, scheduler
):
    """A private median (or interior point) of one CSV column, with its ledger."""
    from .accounting import PrivacyLedger
    from .estimators import private_interior_point, private_median

    if interior and engine != "memory":
        _fail("--interior reads the data in memory; use --engine memory")
    columns, close = _read_data(data, engine, scheduler)
    name = column if column is not None else next(iter(columns))
    if name not in columns:
        _fail(f"column {name!r} not in {data}; columns: {', '.join(columns)}")
    ledger = PrivacyLedger(epsilon, delta, label="median" if not interior else "interior point")
    domain = read_domains(domain_specs, domain_file, list(columns), [name])
    if interior:
        value = private_interior_point(
            columns[name], domain, epsilon, delta, beta=beta, method=method, rng=seed, ledger=ledger
        )
    else:
        value = private_median(
            columns[name], domain, epsilon, delta, alpha=alpha, beta=beta, method=method, rng=seed, ledger=ledger
        )
    if close is not None:
        close()
    what = "interior point" if interior else "median"
    click.echo(f"private {what} of {name!r}: {_param_text(value)}")
    click.echo("privacy ledger")
    for line in ledger.lines():
        click.echo(f"  {line}")


@main.command()
@click.argument("data", type=click.Path(exists=True, dir_okay=False))
@click.option("--label", default="b", show_default=True, help="Column of the right-hand sides b.")
@click.option("--features", default=None, help="Comma-separated columns of A, in order (default: all but --label).")
@click.option(
    "--domain",
    "domain_spec",
    required=True,
    help="Public bound of every entry of A and b: -X:X (or X) for integers, -h:h:n_points (a grid symmetric about 0) "
    "for real values; one bound for all columns, as the algorithm's lattice.",
)
@click.option("--epsilon", type=EPSILON, default=1.0, show_default=True, help="Total privacy budget epsilon (> 0).")
@click.option("--delta", type=DELTA, default=0.0, show_default=True, help="0 keeps it pure DP.")
@click.option("--beta", type=PROBABILITY, default=0.1, show_default=True, help="Failure probability.")
@click.option(
    "--one-d-optimizer",
    type=click.Choice(["expmech", "recconcave"]),
    default="expmech",
    show_default=True,
    help="Per-coordinate optimiser: the exponential mechanism (pure DP) or RecConcave (needs --delta > 0).",
)
@click.option(
    "--candidates",
    type=POSITIVE,
    default=None,
    help="Run over this many public random integer candidates in [-C, C]^D (spec 6.5 option 1: any number of "
    "variables, not the paper's algorithm); default: the exact oracle (at most 3 variables).",
)
@click.option("--candidate-bound", type=POSITIVE, default=None, help="C for --candidates (default: the bound X).")
@click.option("--seed", type=int, default=None, help="Seed (default: OS entropy).")
def feasibility(
    data, label, features, domain_spec, epsilon, delta, beta, one_d_optimizer, candidates, candidate_bound, seed
):
    """A private point x satisfying most constraints <a_l, x> >= b_l of a CSV (one constraint a row).

    FindDeepPoint (Kaplan, Mansour, Stemmer, Tsfadia 2020, Fig. 2): neighbouring systems differ in
    one row; every entry must be an integer in the public [-X, X], or real on a public grid symmetric
    about 0 (run on its integer lattice, the solution in the data's units).
    """
    from .estimators import PrivateLinearFeasibility
    from .io import read_csv

    columns = read_csv(data)
    if label not in columns:
        _fail(f"column {label!r} (the right-hand sides b) not in {data}; columns: {', '.join(columns)}")
    names = [c.strip() for c in features.split(",")] if features else [c for c in columns if c != label]
    missing = [c for c in names if c not in columns]
    if missing:
        _fail(f"columns not in {data}: {', '.join(missing)}")
    dom = parse_domain(domain_spec) if ":" in domain_spec else int(eval_int(domain_spec))
    est = PrivateLinearFeasibility(
        epsilon=epsilon,
        delta=delta,
        bound=dom,
        one_d_optimizer=one_d_optimizer,
        beta=beta,
        candidates=candidates,
        candidate_bound=candidate_bound,
        random_state=seed,
    )
    est.fit(_stack(columns, names), columns[label])
    exact = ", ".join(str(v) for v in est.solution_)
    approx = ", ".join(f"{float(v):.6g}" for v in est.solution_)
    click.echo(f"private feasible point ({', '.join(names)}) = ({exact})")
    click.echo(f"  as floats ({approx})")
    click.echo(_privacy_text(est.privacy_spent_))
    click.echo("privacy ledger")
    for line in est.ledger_.lines():
        click.echo(f"  {line}")


@main.command()
@click.argument("data", type=click.Path(exists=True))
@click.option("--columns", default=None, help="Comma-separated columns (default: all); one to three in Tukey depth.")
@_domain_options
@click.option("--epsilon", type=EPSILON, default=1.0, show_default=True, help="Total privacy budget epsilon (> 0).")
@click.option("--delta", type=DELTA, default=0.0, show_default=True, help="0 keeps it pure DP (exponential mode).")
@click.option(
    "--mode",
    type=click.Choice(["exponential", "recconcave"]),
    default="exponential",
    show_default=True,
    help="Per-coordinate optimiser; recconcave needs --delta > 0.",
)
@click.option(
    "--depth",
    type=click.Choice(["tukey", "directional"]),
    default="tukey",
    show_default=True,
    help="tukey: exact, one to three columns; directional: a public net of directions, any number of columns "
    "(the point need not lie in the convex hull).",
)
@click.option("--beta", type=PROBABILITY, default=0.1, show_default=True, help="Failure probability.")
@click.option("--seed", type=int, default=None, help="Seed (default: OS entropy).")
@_engine_options
def centerpoint(data, columns, domain_specs, domain_file, epsilon, delta, mode, depth, beta, seed, engine, scheduler):
    """A private center point of CSV columns (FindTukey), with its ledger.

    A point of high Tukey depth, inside the convex hull of the data with high probability once
    there are enough records (Beimel, Moran, Nissim, Stemmer 2019); the data are integers in the
    public box --domain -B:B, or real values on a public grid --domain low:high:n (run on its integer
    lattice, the center in the data's units); per column, --domain x=-B:B --domain y=low:high:n or
    --domain-file. Four or more columns need --depth directional. With --engine dask or spark the
    rows are counted partition by partition and brought to the driver only within the estimator's
    public size envelope.
    """
    from .estimators import PrivateCenterPoint

    table, close = _read_data(data, engine, scheduler)
    names = [c.strip() for c in columns.split(",")] if columns else list(table)
    missing = [c for c in names if c not in table]
    if missing:
        _fail(f"columns not in {data}: {', '.join(missing)}; columns: {', '.join(table)}")
    est = PrivateCenterPoint(
        epsilon=epsilon,
        delta=delta,
        domain=read_domains(domain_specs, domain_file, list(table), names),
        mode=mode,
        depth=depth,
        beta=beta,
        random_state=seed,
    ).fit(_features_and_label(table, names, None, engine)[0])
    if close is not None:
        close()
    exact = ", ".join(str(v) for v in est.center_)
    approx = ", ".join(f"{v:.6g}" for v in est.center_float_)
    click.echo(f"private center point of ({', '.join(names)}): ({exact}) ~ ({approx})")
    click.echo(f"FindTukey: {mode} per coordinate, {est.composition_} composition, {depth} depth")
    click.echo(_privacy_text(est.privacy_spent_))
    click.echo("privacy ledger")
    for line in est.ledger_.lines():
        click.echo(f"  {line}")


def _privacy_text(spent) -> str:
    if not spent.private:
        return f"privacy spent: NOT PRIVATE ({spent.not_private})"
    return f"privacy spent: epsilon={spent.epsilon:.6g}, delta={spent.delta:.3g}"


def _param_text(value):
    """Huge integers (a domain of 2^65536 points) as 2^k; everything else unchanged."""
    from .formatting import fmt_int

    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > 2**53:
        return fmt_int(value)
    return value


def _fmt_number(value) -> str:
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            return str(value)
        if abs(value) >= 1e9:
            return f"{value:.3e}"
        if abs(value) >= 100 or value == 0:
            return f"{value:,.1f}"
        return f"{value:.4g}"  # small numbers (probabilities, per-call budgets) keep their digits
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}" if value < 10**12 else f"{value:.3e}"
    return str(value)


if __name__ == "__main__":  # pragma: no cover
    main()
