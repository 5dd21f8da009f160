"""How the commands print what they release: the privacy spent, huge integers as powers of two, and the
numbers of a bound."""

from __future__ import annotations

import click


def _privacy_text(spent) -> str:
    if not spent.private:
        return f"privacy spent: NOT PRIVATE ({spent.not_private})"
    return f"privacy spent: epsilon={spent.epsilon:.6g}, delta={spent.delta:.3g}"


def _echo_ledger(ledger) -> None:
    """The released ledger under its heading, one indented line per entry (every releasing command and ``show``)."""
    click.echo("privacy ledger")
    for line in ledger.lines():
        click.echo(f"  {line}")


def _param_text(value):
    """Huge integers (a domain of 2^65536 points) as 2^k; everything else unchanged."""
    from ..formatting import fmt_int

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
