"""Short human-readable forms of the huge integers privpac handles."""

from __future__ import annotations


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
