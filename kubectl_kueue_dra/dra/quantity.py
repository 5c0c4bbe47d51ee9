"""Kubernetes resource quantities, exact, rendered the way Kubernetes renders them.

This is a port of ``k8s.io/apimachinery/pkg/api/resource`` (``quantity.go``,
``amount.go``, ``math.go``, ``suffix.go``; checked against v0.36.3 by running the Go
code on a few thousand inputs).  ``parse_quantity`` accepts exactly what
``resource.ParseQuantity`` accepts, and ``str(q)`` is what ``Quantity.String()``
returns, which is also what the API server and Kueue write into objects (e.g.
``status.admission.podSetAssignments[].resourceUsage``).

Behaviour worth knowing (all of it is apimachinery's, reproduced on purpose):

* The canonical form keeps the *format* of the parsed suffix.  ``DecimalSI``
  (no suffix, or n u m k M G T P E) uses the largest exponent that is a multiple
  of 3 and keeps an integer mantissa: ``"1000"`` -> ``"1k"``, ``"0.5"`` ->
  ``"500m"``, ``"1024"`` stays ``"1024"``.  ``BinarySI`` (Ki ... Ei) uses powers of
  1024 when the value is an integer with magnitude >= 1024, otherwise it is shown
  as DecimalSI: ``"1.5Gi"`` -> ``"1536Mi"``, ``"0.5Ki"`` -> ``"512"``.
  ``DecimalExponent`` (``1e3``) stays an exponent: ``"1e3"`` -> ``"1e3"`` (not
  ``"1k"``), ``"5e-1"`` -> ``"500e-3"``.
* Parsing rounds *up* (away from zero) to a multiple of 1n: ``"0.1n"`` -> ``"1n"``.
  BinarySI values above 2^63-1 are capped to 2^63-1 (``"8Ei"``); decimal ones are not.
* A parsed quantity that apimachinery considers already canonical keeps its
  original text, so ``str(parse_quantity("+1"))`` is ``"+1"`` and ``"01Gi"`` stays
  ``"01Gi"``, exactly as ``String()`` and the API server return them.  Results of
  arithmetic are always canonical.  ``canonical()`` ignores the kept text.
* A DecimalSI value whose exponent has no suffix (e.g. ``"1000E"`` = 10^21) is
  printed without a suffix (``"1"``); that is an apimachinery bug, reproduced.
* Empty numbers are zero: ``"+"``, ``"."``, ``"Ki"``, ``"e3"`` all parse as 0;
  ``"1K"``, ``"1 "``, ``"abc"``, ``"1.2.3"`` are rejected.

Unlike apimachinery, exponents beyond +-10000 (``1e99999``) are rejected: Go
cannot process them in reasonable time either.

Internally a quantity remembers whether apimachinery would hold it as an
``int64Amount`` or an ``inf.Dec``, because the Kubernetes CEL functions
``isInteger()``/``asInteger()`` depend on it (see :meth:`Quantity.go_as_int64`).
"""

from __future__ import annotations

from fractions import Fraction

from .quantity_value import (
    BINARY_SI,
    DECIMAL_EXPONENT,
    DECIMAL_SI,
    Quantity,
    QuantityError,
    _BIN_SUFFIXES,
    _DEC_SUFFIXES,
    _DIGITS,
    _FORMAT_ERROR,
    _INT64_MAX,
    _MAX_EXPONENT,
    _SUFFIX_CHARS,
    _fits_int64,
)

__all__ = [
    "BINARY_SI",
    "DECIMAL_EXPONENT",
    "DECIMAL_SI",
    "Quantity",
    "QuantityError",
    "parse_quantity",
]


# -- parsing ----------------------------------------------------------------------------


def _scan(s: str) -> tuple[bool, str, str, str, str]:
    """Port of ``parseQuantityString``: (positive, value, num, denom, suffix)."""
    positive = True
    pos, end = 0, len(s)
    if s[0] == "-":
        positive = False
        pos = 1
    elif s[0] == "+":
        pos = 1
    # strip leading zeros
    while pos < end and s[pos] == "0":
        pos += 1
    if pos >= end:
        return positive, "0", "0", "", ""
    i = pos
    while i < end and s[i] in _DIGITS:
        i += 1
    if i >= end:
        return positive, s, s[pos:], "", ""
    num = s[pos:i] or "0"
    pos = i
    denom = ""
    if s[pos] == ".":
        pos += 1
        i = pos
        while i < end and s[i] in _DIGITS:
            i += 1
        denom = s[pos:i]
        if i >= end:
            return positive, s, num, denom, ""
        pos = i
    value = s[:pos]
    suffix_start = pos
    i = pos
    while i < end and s[i] in _SUFFIX_CHARS:
        i += 1
    if i >= end:
        return positive, value, num, denom, s[suffix_start:]
    pos = i
    if s[pos] in "+-":
        pos += 1
    i = pos
    while i < end and s[i] in _DIGITS:
        i += 1
    if i >= end:
        return positive, value, num, denom, s[suffix_start:]
    raise QuantityError(_FORMAT_ERROR)


def _go_parse_int64(text: str) -> int | None:
    """strconv.ParseInt(text, 10, 64), None on error."""
    body = text[1:] if text[:1] in ("+", "-") else text
    if not body or not all(c in _DIGITS for c in body):
        return None
    v = int(text)
    return v if _fits_int64(v) else None


def _interpret(suffix: str) -> tuple[int, int, str]:
    """(base, exponent, format) for a suffix, or QuantityError."""
    if suffix in _DEC_SUFFIXES:
        return 10, _DEC_SUFFIXES[suffix], DECIMAL_SI
    if suffix in _BIN_SUFFIXES:
        return 2, _BIN_SUFFIXES[suffix], BINARY_SI
    if len(suffix) > 1 and suffix[0] in "eE":
        parsed = _go_parse_int64(suffix[1:])
        if parsed is not None:
            exp = ((parsed + (1 << 31)) % (1 << 32)) - (1 << 31)  # Go's int32(parsed)
            if abs(exp) > _MAX_EXPONENT:
                raise QuantityError(f"quantity exponent {exp} is out of the range this tool supports")
            return 10, exp, DECIMAL_EXPONENT
    hint = " (did you mean 'k' or 'Ki'?)" if "K" in suffix else ""
    raise QuantityError(f"unable to parse quantity's suffix {suffix!r}{hint}")


def parse_quantity(s: str | int | float) -> Quantity:
    """Parse like ``resource.ParseQuantity``; ints and floats are parsed from their text."""
    if isinstance(s, bool):
        raise QuantityError(f"a quantity cannot be a boolean ({s!r})")
    if isinstance(s, int):
        s = str(s)
    elif isinstance(s, float):
        s = repr(s)
    elif not isinstance(s, str):
        raise QuantityError(f"a quantity must be a string or a number, not {type(s).__name__}")
    try:
        return _parse(s)
    except QuantityError as e:
        raise QuantityError(f"invalid quantity {s!r}: {e}") from None


def _parse(s: str) -> Quantity:
    if not s:
        raise QuantityError(_FORMAT_ERROR)
    if s == "0":
        return Quantity(0, 0, DECIMAL_SI, s="0")
    if len(s) > 4000:
        raise QuantityError("quantity text is too long for this tool")
    positive, value, num, denom, suffix = _scan(s)
    base, exponent, fmt = _interpret(suffix)

    # Fast path: apimachinery keeps small exact values as an int64Amount.
    mantissa = 1
    if fmt == BINARY_SI:
        scale = 0
        if exponent >= 0 and not denom:
            mantissa = 1 << exponent
            precision = 15 - len(num) - exponent * 3 // 10 - 1
        else:
            precision = -1
    else:
        scale = exponent
        precision = 18 - (len(num) + len(denom))
    if precision >= 0:
        scale -= len(denom)
        if scale >= -9:
            shifted = num + denom
            v = int(shifted)
            result = v * mantissa
            if _fits_int64(result):
                if not positive:
                    result = -result
                if fmt == BINARY_SI:
                    keep = exponent % 10 == 0 and (v & 0x07) != 0
                else:
                    keep = scale % 3 == 0 and not shifted.endswith("000") and shifted[0] != "0"
                return Quantity(result, scale, fmt, s=s if keep else None)

    # Slow path (inf.Dec): exact value, rounded up to 1n, BinarySI capped at 2^63-1.
    digits = value.lstrip("+-")
    int_part, _, frac_part = digits.partition(".")
    if not (int_part or frac_part):
        raise QuantityError("unable to parse numeric part of quantity")
    amount = Fraction(int((int_part or "0") + frac_part), 10 ** len(frac_part))
    amount *= Fraction(10) ** exponent if base == 10 else Fraction(2) ** exponent
    exact = amount * 10**9
    nanos = -((-exact.numerator) // exact.denominator)  # ceil: round away from zero (amount >= 0)
    unscaled, exp = nanos, -9
    if fmt == BINARY_SI and nanos > _INT64_MAX * 10**9:
        unscaled, exp = _INT64_MAX, 0
    if fmt == BINARY_SI and 0 < nanos < 10**9:
        fmt = DECIMAL_SI
    if nanos == 0:  # not rounded: inf.Dec keeps the scale of the text
        unscaled, exp = 0, (exponent if base == 10 else 0) - len(frac_part)
    if not positive:
        unscaled = -unscaled
    return Quantity(unscaled, exp, fmt, dec=True)


# -- display ----------------------------------------------------------------------------

_APPROX_BINARY = ((60, "Ei"), (50, "Pi"), (40, "Ti"), (30, "Gi"), (20, "Mi"), (10, "Ki"))
_APPROX_DECIMAL = ((18, "E"), (15, "P"), (12, "T"), (9, "G"), (6, "M"), (3, "k"))


def display_quantity(q: Quantity) -> str:
    """A quantity as text shows it: the canonical form ``Quantity.String()`` prints (what Kueue and
    kubectl show). When that form is a long bare number — a BinarySI value that is no whole number
    of Ki (``800Gi + 800`` prints ``858993460000``), or a DecimalSI one that is no whole number of k
    — the nearest amount in its own unit scale follows, marked approximate:
    ``858993460000 (≈800Gi)``. JSON keeps the canonical form alone."""
    text = str(q)
    value = q.value
    if not text.lstrip("+-").isdigit() or abs(value) < 10**6:
        return text
    binary = q.format == BINARY_SI
    for power, suffix in (_APPROX_BINARY if binary else _APPROX_DECIMAL):
        base = 2**power if binary else 10**power
        if abs(value) >= base:
            amount = float(value / base)
            shown = f"{amount:.3g}" if abs(amount) < 1000 else f"{round(amount)}"
            return f"{text} (≈{shown}{suffix})"
    return text
