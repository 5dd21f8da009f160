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

The commands live by group: ``models`` (fit, predict, score, show), ``databases`` (sanitize,
query), ``statistics`` (median, feasibility, centerpoint) and ``reports`` (demo, audit, bounds);
this package holds the click group and its one error boundary.
"""

from __future__ import annotations

import os
import sys
import warnings

import click

from .. import __version__
from ..errors import PrivpacError
from .databases import query, sanitize
from .models import fit, predict, score, show
from .reports import audit, bounds, demo
from .statistics import centerpoint, feasibility, median


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


for _command in (audit, bounds, centerpoint, demo, feasibility, fit, median, predict, query, sanitize, score, show):
    main.add_command(_command)
