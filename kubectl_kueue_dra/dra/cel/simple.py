"""The selectors most DeviceClasses and claims are made of, decided without cel-python: string
equalities on ``device.driver`` and on attributes named with a literal domain, joined by ``&&``::

    device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'mig'

Exactly these forms: ``device.driver`` or ``device.attributes['<domain>'].<identifier>`` on the
left of ``==``, a string literal on the right (single or double quotes, no escapes, no control
characters), whitespace only around ``==`` and ``&&``. ``parse`` recognises one (None for
anything else: cel-python compiles that). ``SimpleSelector.decide`` answers for a device only
where cel-python's answer is certain: the ``device`` variable builds without an error (every
attribute a string, a bool, a 64-bit integer or a version that parses; every capacity parses),
and a term compares two strings unequal (false, whatever the other terms are: ``&&`` absorbs an
error on either side) or every term compares two equal strings. Anything else (an attribute
missing, of another type, a list) is left to cel-python, whose errors and cross-type equality are
the reference; the two are held to the same answers by a property test.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from ..quantity import QuantityError, parse_quantity
from .attributes import split_name, version_of
from .errors import MAX_EXPRESSION_LENGTH, SCHEDULER, CelDialect, Footprint
from .semver import SemverError

if TYPE_CHECKING:
    from .engine import Selector

__all__ = ["SimpleSelector", "parse"]

_LITERAL = r"""(?:'([^'\\\x00-\x1f\x7f]*)'|"([^"\\\x00-\x1f\x7f]*)")"""
_TERM = re.compile(r"[ \t\r\n]*device\.(?:(driver)|attributes\[" + _LITERAL + r"\]\.([_a-zA-Z][_a-zA-Z0-9]*))"
                   r"[ \t\r\n]*==[ \t\r\n]*" + _LITERAL + r"[ \t\r\n]*")
#: CEL's reserved words: not a field name
_RESERVED = frozenset({"true", "false", "null", "in", "as", "break", "const", "continue", "else", "for", "function",
                       "if", "import", "let", "loop", "package", "namespace", "return", "var", "void", "while"})
_INT64 = (-(1 << 63), (1 << 63) - 1)

#: one term: (None, None, value) for the driver, else (domain, identifier, value)
Term = tuple[Any, Any, str]


def parse(expression: str) -> tuple[Term, ...] | None:
    """The terms of a simple selector, or None when the expression is not one."""
    if not isinstance(expression, str) or len(expression) > MAX_EXPRESSION_LENGTH // 4:
        return None  # (a longer text is checked against the limit in bytes by cel-python's path)
    terms: list[Term] = []
    for part in expression.split("&&"):
        m = _TERM.fullmatch(part)
        if m is None:
            return None
        driver, domain1, domain2, ident, value1, value2 = m.groups()
        value = value1 if value1 is not None else value2
        if driver:
            terms.append((None, None, value))
        elif ident in _RESERVED:
            return None
        else:
            terms.append((domain1 if domain1 is not None else domain2, ident, value))
    return tuple(terms)


class SimpleSelector:
    """A simple selector (``parse``): decided on the device itself where that is certain, else
    compiled with cel-python (``full``) like any other."""

    __slots__ = ("_full", "dialect", "expression", "footprint", "terms")

    def __init__(self, expression: str, terms: tuple[Term, ...], dialect: CelDialect = SCHEDULER):
        self.expression = expression
        self.dialect = dialect
        self.terms = terms
        #: what ``analysis`` finds such an expression reads
        self.footprint: Footprint = frozenset(("driver",) if domain is None else ("attributes", domain, ident)
                                              for domain, ident, _ in terms)
        self._full: Selector | None = None

    def decide(self, driver: Any, device: dict[str, Any]) -> bool | None:
        """The selector's value for the device, or None where only cel-python can say. A term that
        is false makes it false whatever the others are (``&&`` absorbs errors, in either order);
        it is true when every term is a true comparison of two strings."""
        attrs = device.get("attributes") or {}
        if type(driver) is not str or type(attrs) is not dict or not _converts(attrs, device.get("capacity")):
            return None
        certain = True
        for domain, ident, value in self.terms:
            if domain is None:
                if driver != value:
                    return False
                continue
            found = None
            for name, a in attrs.items():  # the last of the names that are (domain, ident), as the device variable
                if split_name(name, driver) == (domain, ident):
                    found = a
            text = found.get("string") if found is not None else None
            if type(text) is not str:
                certain = False  # missing (an error), or not a string: cel-python's to say
            elif text != value:
                return False
        return True if certain else None

    def full(self) -> Selector:
        """The selector compiled by cel-python."""
        if self._full is None:
            from .engine import compile_full

            self._full = compile_full(self.expression, self.dialect)
        return self._full

    def evaluate(self, activation: dict[str, Any]) -> bool:
        return self.full().evaluate(activation)

    def __repr__(self) -> str:
        return f"SimpleSelector({self.expression!r})"


_QUANTITIES: dict[str, bool] = {}


def _converts(attrs: dict[str, Any], caps: Any) -> bool:
    """Whether the device variable is built without an error, from values whose conversion is
    certain: each attribute one field of its own type, each capacity a quantity that parses."""
    for a in attrs.values():
        if type(a) is not dict or len(a) != 1:
            return False
        for kind, v in a.items():
            if kind == "string" or kind == "bool":
                if type(v) is not (str if kind == "string" else bool):
                    return False
            elif kind == "int":
                if type(v) is not int or not _INT64[0] <= v <= _INT64[1]:
                    return False
            elif kind == "version" and type(v) is str:
                try:
                    version_of(v)
                except SemverError:
                    return False
            else:
                return False
    if not caps:
        return True
    if type(caps) is not dict:
        return False
    for c in caps.values():
        value = c.get("value", "0") if type(c) is dict else c
        if type(value) is not str:
            return False
        ok = _QUANTITIES.get(value)
        if ok is None:
            try:
                parse_quantity(value)
                ok = True
            except (QuantityError, TypeError, ValueError):
                ok = False
            if len(_QUANTITIES) < 100000:
                _QUANTITIES[value] = ok
        if not ok:
            return False
    return True
