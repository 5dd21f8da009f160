"""The public bounds of the data on the command line: ``--domain`` (one spec for every feature, or
``column=spec``) and ``--domain-file``, read into the domain objects the estimators take.

``lo:hi`` (integers) is an integer domain, ``low:high:n_points`` a grid of real values, ``norm:R`` a
norm bound, or JSON; per-column bounds become one per-feature :class:`~privpac.domains.Grid`.
"""

from __future__ import annotations

import json
from pathlib import Path

import click

from ..errors import PrivpacError


def parse_domain(spec: str):
    """``lo:hi`` (integers) is an integer domain, ``low:high:n`` a grid, ``norm:R`` a norm bound, or JSON."""
    from ..domains import as_domain, domain_from_text

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
    from ..domains import as_domain

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
    from ..domains import Grid, IntegerDomain

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
