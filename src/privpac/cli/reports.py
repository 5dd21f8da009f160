"""The commands that read no user data: ``demo`` (bundled real data), ``audit`` (the registered privacy
audits, exit 1 on a violation) and ``bounds`` (the papers' sample-size bounds, printed or drawn)."""

from __future__ import annotations

import json
import sys

import click

from .options import DELTA, EPSILON, POSITIVE, PROBABILITY, _parse_set, eval_int
from .output import _fmt_number, _param_text


@click.command()
@click.option("--epsilon", type=EPSILON, default=1.0, show_default=True, help="Total privacy budget.")
@click.option("--delta", type=DELTA, default=1e-6, show_default=True, help="Total delta.")
@click.option("--seed", type=int, default=None, help="Seed for a reproducible run (default: OS entropy).")
def demo(epsilon, delta, seed):
    """Private statistics and learners on bundled real data, beside the non-private answers."""
    from ..demo import run_demo

    run_demo(epsilon=epsilon, delta=delta, seed=seed, echo=click.echo)


@click.command()
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
    from ..audit import get_case, list_cases, run_audit

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
                click.echo(f"  mutants flagged (tests/privacy/test_mutations.py): {'; '.join(b.mutants)}")
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


@click.command()
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
    from ..bounds import evaluate_bound, get_bound, list_bounds

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
        from ..plots import plot_bound

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
