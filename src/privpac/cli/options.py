"""The option values every command shares: the ranges of epsilon, delta and probabilities (refused by
click before anything is read or run), integers written as powers, ``--set key=value`` and the one way a
command refuses its input."""

from __future__ import annotations

import json

import click


def _fail(message: str) -> None:
    raise click.ClickException(message)


def eval_int(text: str) -> int:
    """An integer written plainly or as a power, such as ``2**64-1`` (bounded: see :func:`parse_integer`)."""
    from ..formatting import parse_integer

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
            from ..errors import InvalidParameterError
            from ..validation import check_delta

            try:
                check_delta(number)
            except InvalidParameterError as exc:
                self.fail(str(exc), param, ctx)
        return super().convert(number, param, ctx)


DELTA = _Delta()

#: The budget, confidence and seed options of the commands that release: one definition each.
EPSILON_OPTION = click.option(
    "--epsilon", type=EPSILON, default=1.0, show_default=True, help="Total privacy budget epsilon (> 0)."
)
BETA_OPTION = click.option("--beta", type=PROBABILITY, default=0.1, show_default=True, help="Failure probability.")
SEED_OPTION = click.option("--seed", type=int, default=None, help="Seed (default: OS entropy).")


def delta_option(default: float, help: str | None = None):
    """``--delta`` with its default: ``0.0`` (pure DP unless asked) or a small approximate-DP delta."""
    if help is None:
        help = "0 keeps it pure DP." if default == 0.0 else "Total delta in [0, 1/2), well below 1/n."
    return click.option("--delta", type=DELTA, default=default, show_default=True, help=help)


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
