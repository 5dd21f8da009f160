"""The commands that release one private statistic of a CSV file with its ledger: ``median`` (a median
or interior point), ``feasibility`` (FindDeepPoint, Kaplan, Mansour, Stemmer, Tsfadia 2020) and
``centerpoint`` (FindTukey, Beimel, Moran, Nissim, Stemmer 2019)."""

from __future__ import annotations

import click

from .data import _engine_options, _features_and_label, _read_data, _stack
from .domain_options import _domain_options, parse_domain, read_domains
from .options import (
    BETA_OPTION,
    EPSILON_OPTION,
    POSITIVE,
    PROBABILITY,
    SEED_OPTION,
    _fail,
    delta_option,
    eval_int,
    renamed_option,
)
from .output import _echo_ledger, _param_text, _privacy_text


@click.command()
@click.argument("data", type=click.Path(exists=True))
@click.option("--column", default=None, help="Column to summarise (default: the first).")
@_domain_options
@EPSILON_OPTION
@delta_option(0.0)
@click.option("--alpha", type=PROBABILITY, default=0.1, show_default=True, help="Rank accuracy of the median.")
@BETA_OPTION
@click.option("--method", type=click.Choice(["auto", "exponential", "recconcave"]), default="auto", show_default=True)
@click.option("--interior", is_flag=True, help="An interior point (private under add/remove too) instead of a median.")
@SEED_OPTION
@_engine_options
def median(
    data, column, domain_specs, domain_file, epsilon, delta, alpha, beta, method, interior, seed, engine, scheduler
):
    """A private median (or interior point) of one CSV column, with its ledger."""
    from ..accounting import PrivacyLedger
    from ..estimators import private_interior_point, private_median

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
    _echo_ledger(ledger)


def _optimizer_option(help: str, old: str):
    """``--optimizer``, the one-dimensional optimiser FindDeepPoint and FindTukey run per coordinate,
    with the hidden ``old`` name it replaced (refused with the new name)."""

    def decorate(command):
        return click.option(
            "--optimizer",
            type=click.Choice(["exponential", "recconcave"]),
            default="exponential",
            show_default=True,
            help=help,
        )(renamed_option(old, "--optimizer")(command))

    return decorate


@click.command()
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
@EPSILON_OPTION
@delta_option(0.0)
@BETA_OPTION
@_optimizer_option(
    "Per-coordinate optimiser: the exponential mechanism (pure DP) or RecConcave (needs --delta > 0).",
    "--one-d-optimizer",
)
@click.option(
    "--candidates",
    type=POSITIVE,
    default=None,
    help="Run over this many public random integer candidates in [-C, C]^D (spec 6.5 option 1: any number of "
    "variables, not the paper's algorithm); default: the exact oracle (at most 3 variables).",
)
@click.option("--candidate-bound", type=POSITIVE, default=None, help="C for --candidates (default: the bound X).")
@SEED_OPTION
def feasibility(
    data, label, features, domain_spec, epsilon, delta, beta, optimizer, candidates, candidate_bound, seed
):
    """A private point x satisfying most constraints <a_l, x> >= b_l of a CSV (one constraint a row).

    FindDeepPoint (Kaplan, Mansour, Stemmer, Tsfadia 2020, Fig. 2): neighbouring systems differ in
    one row; every entry must be an integer in the public [-X, X], or real on a public grid symmetric
    about 0 (run on its integer lattice, the solution in the data's units).
    """
    from ..estimators import PrivateLinearFeasibility
    from ..io import read_csv

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
        domain=dom,
        optimizer=optimizer,
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
    _echo_ledger(est.ledger_)


@click.command()
@click.argument("data", type=click.Path(exists=True))
@click.option("--columns", default=None, help="Comma-separated columns (default: all); one to three in Tukey depth.")
@_domain_options
@EPSILON_OPTION
@delta_option(0.0, "0 keeps it pure DP (exponential mode).")
@_optimizer_option("Per-coordinate optimiser; recconcave needs --delta > 0.", "--mode")
@click.option(
    "--depth",
    type=click.Choice(["tukey", "directional"]),
    default="tukey",
    show_default=True,
    help="tukey: exact, one to three columns; directional: a public net of directions, any number of columns "
    "(the point need not lie in the convex hull).",
)
@BETA_OPTION
@SEED_OPTION
@_engine_options
def centerpoint(
    data, columns, domain_specs, domain_file, epsilon, delta, optimizer, depth, beta, seed, engine, scheduler
):
    """A private center point of CSV columns (FindTukey), with its ledger.

    A point of high Tukey depth, inside the convex hull of the data with high probability once
    there are enough records (Beimel, Moran, Nissim, Stemmer 2019); the data are integers in the
    public box --domain -B:B, or real values on a public grid --domain low:high:n (run on its integer
    lattice, the center in the data's units); per column, --domain x=-B:B --domain y=low:high:n or
    --domain-file. Four or more columns need --depth directional. With --engine dask or spark the
    rows are counted partition by partition and brought to the driver only within the estimator's
    public size envelope.
    """
    from ..estimators import PrivateCenterPoint

    table, close = _read_data(data, engine, scheduler)
    names = [c.strip() for c in columns.split(",")] if columns else list(table)
    missing = [c for c in names if c not in table]
    if missing:
        _fail(f"columns not in {data}: {', '.join(missing)}; columns: {', '.join(table)}")
    est = PrivateCenterPoint(
        epsilon=epsilon,
        delta=delta,
        domain=read_domains(domain_specs, domain_file, list(table), names),
        optimizer=optimizer,
        depth=depth,
        beta=beta,
        random_state=seed,
    ).fit(_features_and_label(table, names, None, engine)[0])
    if close is not None:
        close()
    exact = ", ".join(str(v) for v in est.center_)
    approx = ", ".join(f"{v:.6g}" for v in est.center_float_)
    click.echo(f"private center point of ({', '.join(names)}): ({exact}) ~ ({approx})")
    click.echo(f"FindTukey: {optimizer} per coordinate, {est.composition_} composition, {depth} depth")
    click.echo(_privacy_text(est.privacy_spent_))
    _echo_ledger(est.ledger_)
