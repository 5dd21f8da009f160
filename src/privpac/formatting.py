"""Short human-readable forms of the huge integers privpac handles."""

from __future__ import annotations

import math


def fmt_int(x: int) -> str:
    """``12345`` as is; integers beyond 2^64 as ``2^k``, ``2^k - c`` or ``~2^k.kk``."""
    x = int(x)
    if abs(x) <= 2**64:
        return str(x)
    sign = "-" if x < 0 else ""
    x = abs(x)
    k = x.bit_length()
    for base in (k - 1, k):
        diff = x - (1 << base)
        if abs(diff) <= 2**20:
            tail = "" if diff == 0 else (f" + {diff}" if diff > 0 else f" - {-diff}")
            return f"{sign}2^{base}{tail}"
    frac = (x >> max(k - 53, 0)) / float(1 << min(k, 53) - 1)
    import math

    return f"{sign}~2^{k - 1 + math.log2(frac):.2f}"


def fmt_size(n: int) -> str:
    """A domain size for messages: ``1,000`` below 2^20, else ``2^64`` or ``about 2^k`` (``fmt_int`` keeps
    the exact value, which is too long to read at ``2^64``)."""
    n = int(n)
    if n < 2**20:
        return f"{n:,}"
    k = n.bit_length() - 1
    return f"2^{k}" if n == 1 << k else f"about 2^{k}"


def int_to_text(x: int) -> str:
    """An exact text form of any Python int for JSON: decimal, or ``0x...`` hexadecimal beyond
    Python's decimal-conversion limit (about 4300 digits; a domain of ``2^65536`` points)."""
    x = int(x)
    if x.bit_length() <= 13_000:
        return str(x)
    return ("-" if x < 0 else "") + "0x" + format(abs(x), "x")


def int_from_text(text) -> int:
    """Inverse of :func:`int_to_text` (also accepts plain ints)."""
    if isinstance(text, int):
        return text
    text = str(text).strip()
    body = text.lstrip("-")
    if body.startswith("0x"):
        return int(text, 16)
    return int(text)


def fraction_to_text(v) -> str:
    """An exact ``"p/q"`` text form of a rational for JSON (saved center points and solutions)."""
    return f"{v.numerator}/{v.denominator}"


def fraction_from_text(text):
    """Inverse of :func:`fraction_to_text`: a ``fractions.Fraction``; anything but ``"p/q"`` is refused."""
    from fractions import Fraction

    if not isinstance(text, str) or "/" not in text:
        raise ValueError(f"a saved coordinate must be a 'p/q' string, got {text!r}")
    return Fraction(text)


#: The largest integer a user may write (in a domain, a query or a bound): 2^(2^20), a domain of
#: 2^1048576 points, far beyond 2^65536. Bigger literals would take minutes to build or print.
MAX_INTEGER_BITS = 2**20


def parse_integer(text: str, name: str = "value") -> int:
    """An integer written plainly or as a power with an offset (``2**64-1``, ``-2**63``, ``10**6+3``).

    The size is bounded (:data:`MAX_INTEGER_BITS`) before anything is computed, so ``2**99999999999``
    is refused at once rather than hanging.
    """
    from .errors import InvalidParameterError

    raw = str(text)
    text = raw.strip().replace(" ", "").replace("_", "")
    sign = -1 if text.startswith("-") else 1
    body = text.lstrip("-+")
    try:
        if body.isdigit():
            if len(body) * 3.33 > MAX_INTEGER_BITS:
                raise InvalidParameterError(f"{name} {raw!r} has more than {MAX_INTEGER_BITS} bits")
            return sign * int(body) if len(body) <= 4000 else sign * _decimal_to_int(body)
        if body.lower().startswith("0x"):
            if (len(body) - 2) * 4 > MAX_INTEGER_BITS:
                raise InvalidParameterError(f"{name} {raw!r} has more than {MAX_INTEGER_BITS} bits")
            return sign * int(body, 16)
        if "**" in body:
            base_text, _, rest = body.partition("**")
            offset = 0
            for op in ("-", "+"):
                if op in rest:
                    exp_text, _, off = rest.partition(op)
                    offset = parse_integer(off, name) * (-1 if op == "-" else 1)
                    rest = exp_text
                    break
            base, exp = int(base_text), int(rest)
            if exp < 0:
                raise InvalidParameterError(f"{name} {raw!r}: a negative exponent is not an integer")
            if base > 1 and exp * math.log2(base) > MAX_INTEGER_BITS:
                raise InvalidParameterError(
                    f"{name} {raw!r} has about {exp * math.log2(base):.3g} bits, more than privpac accepts "
                    f"({MAX_INTEGER_BITS}: a domain of up to 2^{MAX_INTEGER_BITS} points)"
                )
            return sign * base**exp + offset
    except InvalidParameterError:
        raise
    except ValueError:
        pass
    raise InvalidParameterError(f"{name} must be an integer such as 1000, 2**64 or 2**64-1; got {raw!r}")


def _decimal_to_int(digits: str) -> int:
    """A long decimal string as an int, past Python's default 4300-digit conversion limit."""
    value = 0
    for a in range(0, len(digits), 4000):
        chunk = digits[a : a + 4000]
        value = value * 10 ** len(chunk) + int(chunk)
    return value
