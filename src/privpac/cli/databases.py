"""The commands over sanitized databases (Beimel, Nissim, Stemmer 2013): ``sanitize`` (one column of a
CSV file into a private synthetic database or synthetic records) and ``query`` (counting queries answered
from a saved database or private histogram)."""

from __future__ import annotations

import click

from .data import _engine_options, _read_data
from .domain_options import _domain_options, read_domains
from .models import _with_settings
from .options import BETA_OPTION, EPSILON_OPTION, POSITIVE, PROBABILITY, SEED_OPTION, _fail, delta_option
from .output import _privacy_text

SANITIZERS = ("san-points", "k-point", "san-thresholds")


@click.command()
@click.argument("model")
@click.argument("data", type=click.Path(exists=True))
@click.option("--column", default=None, help="Column to sanitize (default: the only column).")
@click.option(
    "--counts", "counts_column", default=None, help="Column of multiplicities (each row = that many records)."
)
@_domain_options
@EPSILON_OPTION
@delta_option(1e-6)
@click.option("--alpha", type=PROBABILITY, default=0.1, show_default=True, help="Accuracy of the answers.")
@BETA_OPTION
@click.option("--constants", type=click.Choice(["tuned", "paper"]), default="tuned", show_default=True)
@SEED_OPTION
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
    from ..estimators import MODELS
    from ..io import save_model, write_csv

    if n_out is not None:  # refused before anything is read or spent (too many to write, too)
        from ..validation import check_size

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


@click.command()
@click.argument("path", type=click.Path(exists=True, dir_okay=False))
@click.argument("queries", nargs=-1, required=True)
def query(path, queries):
    """Answer counting queries ("x<=1000", "10<=x<20", "x==5", "x in {1,2}") from a saved sanitized
    database (fractions of the records) or a saved private histogram (counts and fractions).

    A histogram answers from its consistent counts (non-negative, summing to n: post-processing);
    a query that selects part of a bin gets that share of the bin's count, and says so.
    """
    from ..io import load_model

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
