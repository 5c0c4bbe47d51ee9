"""``<string>.format(<list>)`` of cel-go ``ext.Strings`` (version 2, the one Kubernetes 1.29+
enables; cel-go v0.26 ``ext/formatting.go``): ``%s``, ``%d``, ``%b``, ``%o``, ``%x``, ``%X`` and
``%%``, with cel-go's error text. ``%f`` and ``%e`` are printed by cel-go through a locale-aware
printer (golang.org/x/text/message), and timestamps, durations and types through cel-go's own
conversions: those are not evaluable by this tool (``NOT_EVALUABLE``), never guessed.

Returns a value or a ``CELEvalError``; never raises.
"""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Any

from celpy import celtypes
from celpy.evaluation import CELEvalError

from .values import NO_OVERLOAD, CelQuantity, Semver, cel_error

__all__ = ["FORMAT_FUNCTIONS", "NOT_EVALUABLE"]

#: the start of an error that means "valid CEL this tool cannot evaluate", not a CEL error
NOT_EVALUABLE = "not evaluable by this tool: "
_DEFAULT_PRECISION = 6


class _FormatError(Exception):
    pass


class _NotEvaluable(Exception):
    pass


def _type_name(v: Any) -> str:
    for t, name in ((celtypes.BoolType, "bool"), (celtypes.UintType, "uint"), (celtypes.IntType, "int"),
                    (celtypes.DoubleType, "double"), (celtypes.StringType, "string"), (celtypes.BytesType, "bytes"),
                    (celtypes.ListType, "list"), (celtypes.MapType, "map"), (CelQuantity, "kubernetes.Quantity"),
                    (Semver, "kubernetes.Semver"), (celtypes.TimestampType, "google.protobuf.Timestamp"),
                    (celtypes.DurationType, "google.protobuf.Duration"), (type(None), "null_type")):
        if isinstance(v, t):
            return name
    return type(v).__name__


def _is_int(v: Any) -> bool:
    return isinstance(v, (celtypes.IntType, celtypes.UintType)) and not isinstance(v, celtypes.BoolType)


def go_g(x: float) -> str:
    """Go's ``strconv.FormatFloat(x, 'g', -1, 64)``, how cel-go converts a double to a string."""
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "+Inf" if x > 0 else "-Inf"
    if x == 0:
        return "-0" if math.copysign(1, x) < 0 else "0"
    sign, digits, exp = Decimal(repr(x)).normalize().as_tuple()
    assert isinstance(exp, int)
    ds = "".join(map(str, digits))
    point = len(ds) + exp  # the decimal point's place: 0.ds × 10^point
    e = point - 1
    out = "-" if sign else ""
    if e < -4 or e >= 6:  # shortest: Go decides with precision 6
        mant = ds[0] + ("." + ds[1:] if len(ds) > 1 else "")
        return f"{out}{mant}e{'-' if e < 0 else '+'}{abs(e):02d}"
    if point <= 0:
        return f"{out}0.{'0' * -point}{ds}"
    if point >= len(ds):
        return f"{out}{ds}{'0' * (point - len(ds))}"
    return f"{out}{ds[:point]}.{ds[point:]}"


def _go_quote(s: str) -> str:
    """Go's ``%q`` of a string (strconv.Quote)."""
    out = ['"']
    for ch in s:
        o = ord(ch)
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch in "\a\b\f\n\r\t\v":
            out.append("\\" + "abfnrtv"["\a\b\f\n\r\t\v".index(ch)])
        elif ch.isprintable() or ch == " ":
            out.append(ch)
        elif o < 0x80:
            out.append(f"\\x{o:02x}")
        elif o < 0x10000:
            out.append(f"\\u{o:04x}")
        else:
            out.append(f"\\U{o:08x}")
    out.append('"')
    return "".join(out)


def _string_clause(v: Any) -> str:
    """``FormatString``."""
    if isinstance(v, celtypes.ListType):
        return "[" + ", ".join(_member(m) for m in v) + "]"
    if isinstance(v, celtypes.MapType):
        return _map(v)
    if isinstance(v, celtypes.BoolType):
        return "true" if v else "false"
    if _is_int(v):
        return str(int(v))
    if isinstance(v, celtypes.DoubleType):
        return go_g(float(v))
    if isinstance(v, celtypes.StringType):
        return str(v)
    if isinstance(v, celtypes.BytesType):
        return bytes(v).decode("utf-8", errors="replace")
    if v is None:
        return "null"
    if isinstance(v, (celtypes.TimestampType, celtypes.DurationType, celtypes.TypeType)):
        raise _NotEvaluable(f"format() of a {_type_name(v)}")
    raise _FormatError("string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, "
                       f"types, durations, and timestamps, was given {_type_name(v)}")


def _clause_for_member(v: Any) -> str:
    """``clauseForType``: a list member or map value, unquoted."""
    if _is_int(v):
        return str(int(v))
    if isinstance(v, (celtypes.StringType, celtypes.BytesType, celtypes.BoolType)) or v is None:
        return _string_clause(v)
    if isinstance(v, (celtypes.ListType, celtypes.MapType)):
        return _string_clause(v)
    if isinstance(v, celtypes.DoubleType):
        x = float(v)
        if math.isnan(x):
            return "NaN"
        if math.isinf(x):
            return "+Inf" if x > 0 else "-Inf"
        return f"{x:.{_DEFAULT_PRECISION}f}"
    if isinstance(v, (celtypes.TimestampType, celtypes.DurationType, celtypes.TypeType)):
        raise _NotEvaluable(f"format() of a {_type_name(v)}")
    raise _FormatError(f"no formatting function for {_type_name(v)}")


def _quoted(v: Any, text: str) -> str:
    """``quoteForCEL``."""
    if isinstance(v, celtypes.StringType):
        return _go_quote(text)
    if isinstance(v, celtypes.BytesType):
        return "b" + _go_quote(text)
    if isinstance(v, celtypes.DoubleType) and (math.isnan(v) or math.isinf(v)):
        return _go_quote(text)
    return text


def _member(v: Any) -> str:
    return _quoted(v, _clause_for_member(v))


def _map(m: Any) -> str:
    pairs = []
    for k, v in m.items():
        if isinstance(k, (celtypes.StringType, celtypes.BoolType)) or _is_int(k):
            key = _quoted(k, _string_clause(k) if not _is_int(k) else str(int(k)))
        else:
            raise _FormatError(f"no formatting function for map key of type {_type_name(k)}")
        pairs.append((key, _member(v)))
    pairs.sort(key=lambda p: p[0])
    return "{" + ", ".join(f"{k}:{v}" for k, v in pairs) + "}"


def _decimal(v: Any) -> str:
    if _is_int(v):
        return str(int(v))
    raise _FormatError(f"decimal clause can only be used on integers, was given {_type_name(v)}")


def _binary(v: Any) -> str:
    if isinstance(v, celtypes.BoolType):
        return "1" if v else "0"
    if _is_int(v):
        return format(int(v), "b")
    raise _FormatError(f"only integers and bools can be formatted as binary, was given {_type_name(v)}")


def _octal(v: Any) -> str:
    if _is_int(v):
        return format(int(v), "o")
    raise _FormatError(f"octal clause can only be used on integers, was given {_type_name(v)}")


def _hex(v: Any, upper: bool) -> str:
    if isinstance(v, celtypes.StringType):
        text = str(v).encode("utf-8").hex()
    elif isinstance(v, celtypes.BytesType):
        text = bytes(v).hex()
    elif _is_int(v):
        text = format(int(v), "x")
    else:
        raise _FormatError("only integers, byte buffers, and strings can be formatted as hex, was given "
                           f"{_type_name(v)}")
    return text.upper() if upper else text


def _clause(spec: str, i: int, v: Any) -> tuple[int, str]:
    """``parseFormattingClause`` on ``spec[i:]`` (after the '%'): characters read, the text."""
    start = i
    if spec[i] == ".":  # a precision: only %f and %e use it
        i += 1
        while True:
            if i >= len(spec):
                raise _FormatError("could not parse formatting clause: error while parsing precision: could not "
                                   "find end of precision specifier")
            if not ("0" <= spec[i] <= "9"):
                break
            i += 1
        if i == start + 1:
            raise _FormatError('could not parse formatting clause: error while parsing precision: error while '
                               'converting precision to integer: strconv.Atoi: parsing "": invalid syntax')
    if i >= len(spec):
        raise _FormatError("unexpected end of string")
    verb = spec[i]
    i += 1
    try:
        if verb == "s":
            return i - start, _string_clause(v)
        if verb == "d":
            return i - start, _decimal(v)
        if verb in "fe":
            raise _NotEvaluable(f"format() with %{verb} (cel-go prints it for a locale)")
        if verb == "b":
            return i - start, _binary(v)
        if verb in "xX":
            return i - start, _hex(v, verb == "X")
        if verb == "o":
            return i - start, _octal(v)
    except _FormatError as e:
        raise _FormatError(f"error during formatting: {e}") from None
    raise _FormatError(f'could not parse formatting clause: unrecognized formatting clause "{verb}"')


def _format(spec: Any, args: Any) -> Any:
    if not isinstance(spec, celtypes.StringType) or not isinstance(args, celtypes.ListType):
        return cel_error(NO_OVERLOAD)
    out: list[str] = []
    i = arg = 0
    try:
        while i < len(spec):
            if spec[i] != "%":
                out.append(spec[i])
                i += 1
                continue
            if i + 1 < len(spec) and spec[i + 1] == "%":
                out.append("%")
                i += 2
                continue
            if arg >= len(args):
                raise _FormatError(f"index {arg} out of range")
            if i + 1 >= len(spec):
                raise _FormatError("unexpected end of string")
            read, text = _clause(str(spec), i + 1, args[arg])
            out.append(text)
            i += 1 + read
            arg += 1
    except _FormatError as e:
        return cel_error(str(e))
    except _NotEvaluable as e:
        return CELEvalError(NOT_EVALUABLE + str(e))
    return celtypes.StringType("".join(out))


FORMAT_FUNCTIONS = {"format": _format}
