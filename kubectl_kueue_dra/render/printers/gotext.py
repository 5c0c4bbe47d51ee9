"""Values written the way kubectl (Go) writes them: ``fmt.Sprint`` (custom-columns cells, the text
of a JSONPath scalar) and ``encoding/json``'s ``Marshal`` (a JSONPath map or list), so that
``-o jsonpath`` and ``-o custom-columns`` print the bytes kubectl prints for the same JSON.

The values are those ``json.loads`` makes (dict, list, str, int, float, bool, None), the types
Go's unstructured JSON decoding makes (map, slice, string, int64, float64, bool, nil)."""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Any


def _shortest_digits(f: float) -> tuple[str, int]:
    """The shortest digits that read back as ``f`` (as Go's strconv finds them) and the position
    of the decimal point: 2.5 → ("25", 1), 1e21 → ("1", 22), 0.001 → ("1", -2)."""
    _sign, digits, exponent = Decimal(repr(abs(f))).as_tuple()
    text = "".join(map(str, digits)).rstrip("0") or "0"
    assert isinstance(exponent, int)
    point = len(digits) + exponent
    return text, point


def _exponent(e: int) -> str:
    return f"e{'-' if e < 0 else '+'}{abs(e):02d}"


def go_float(f: float, *, json_style: bool = False) -> str:
    """``fmt.Sprint(f)`` (%v: the shortest digits, the exponent form when the exponent is below -4
    or from 6 on, as Go's %g decides for the shortest precision) or, with ``json_style``,
    ``json.Marshal(f)`` (exponent below 1e-6 and from 1e21, ``e-7`` not ``e-07``)."""
    if math.isnan(f):
        return "NaN"
    if math.isinf(f):
        return "+Inf" if f > 0 else "-Inf"
    sign = "-" if f < 0 or (f == 0 and math.copysign(1, f) < 0) else ""
    if f == 0:
        return sign + "0"
    digits, point = _shortest_digits(f)
    exp = point - 1
    use_e = (abs(f) < 1e-6 or abs(f) >= 1e21) if json_style else (exp < -4 or exp >= 6)
    if use_e:
        mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        text = mantissa + _exponent(exp)
        if json_style:
            text = text.replace("e-0", "e-") if exp > -10 else text
        return sign + text
    if point <= 0:
        return sign + "0." + "0" * -point + digits
    if point >= len(digits):
        return sign + digits + "0" * (point - len(digits))
    return sign + digits[:point] + "." + digits[point:]


def sprint(value: Any) -> str:
    """``fmt.Sprint(value)``: ``map[a:1 b:[x y]]``, ``<nil>``, ``true``, ``2.5``."""
    if value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return go_float(value)
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return "map[" + " ".join(f"{sprint(k)}:{sprint(value[k])}" for k in sorted(value)) + "]"
    if isinstance(value, (list, tuple)):
        return "[" + " ".join(sprint(v) for v in value) + "]"
    return str(value)


def text(value: Any) -> str:
    """A JSONPath scalar as kubectl prints it: nil is ``null``, the rest as ``fmt.Sprint``."""
    return "null" if value is None else sprint(value)


_JSON_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f",
                 "<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def _json_string(s: str) -> str:
    out = []
    for ch in s:
        if ch in _JSON_ESCAPES:
            out.append(_JSON_ESCAPES[ch])
        elif ch < " ":
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def marshal(value: Any, indent: str | None = None, _depth: int = 0) -> str:
    """``json.Marshal(value)`` (compact, keys sorted, ``<>&`` escaped as Go escapes them for HTML),
    or with ``indent`` ``json.MarshalIndent(value, "", indent)``."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return go_float(value, json_style=True)
    if isinstance(value, str):
        return _json_string(value)
    if isinstance(value, dict):
        items = [(_json_string(str(k)), value[k]) for k in sorted(value)]
        if not items:
            return "{}"
        if indent is None:
            return "{" + ",".join(f"{k}:{marshal(v)}" for k, v in items) + "}"
        inner, outer = "\n" + indent * (_depth + 1), "\n" + indent * _depth
        return "{" + ",".join(f"{inner}{k}: {marshal(v, indent, _depth + 1)}" for k, v in items) + outer + "}"
    if isinstance(value, (list, tuple)):
        if not value:
            return "[]"
        if indent is None:
            return "[" + ",".join(marshal(v) for v in value) + "]"
        inner, outer = "\n" + indent * (_depth + 1), "\n" + indent * _depth
        return "[" + ",".join(f"{inner}{marshal(v, indent, _depth + 1)}" for v in value) + outer + "]"
    return _json_string(str(value))


def go_type(value: Any) -> str:
    """The Go type of a decoded JSON value, as error messages name it."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int64"
    if isinstance(value, float):
        return "float64"
    if isinstance(value, str):
        return "string"
    if isinstance(value, dict):
        return "map[string]interface {}"
    if isinstance(value, list):
        return "[]interface {}"
    return "interface {}"
