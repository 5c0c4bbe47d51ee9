"""The Kubernetes quantity value: exact arithmetic, ordering and rendering as apimachinery does
them (``quantity.go``, ``amount.go``, ``math.go``). Parsed by ``quantity.parse_quantity``; see
``quantity``'s docstring for the behaviour both reproduce."""

from __future__ import annotations

from fractions import Fraction

BINARY_SI = "BinarySI"
DECIMAL_SI = "DecimalSI"
DECIMAL_EXPONENT = "DecimalExponent"
_FORMATS = (BINARY_SI, DECIMAL_SI, DECIMAL_EXPONENT)

_INT64_MAX = (1 << 63) - 1
_INT64_MIN = -(1 << 63)
_MAX_EXPONENT = 10000  # tool limit, see module docstring

_DEC_SUFFIXES = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_BIN_SUFFIXES = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_DEC_BY_EXP = {e: s for s, e in _DEC_SUFFIXES.items()}
_BIN_BY_EXP = {e: s for s, e in _BIN_SUFFIXES.items()}
_SUFFIX_CHARS = frozenset("eEinumkKMGTP")
_DIGITS = frozenset("0123456789")

_FORMAT_ERROR = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"


class QuantityError(ValueError):
    """The text is not a Kubernetes quantity (the message says why)."""


def _fits_int64(v: int) -> bool:
    return _INT64_MIN <= v <= _INT64_MAX


class Quantity:
    """An immutable Kubernetes quantity.

    ``value`` is the exact value (a ``Fraction``), ``format`` one of ``"BinarySI"``,
    ``"DecimalSI"``, ``"DecimalExponent"``.  Supports ``+``/``-`` with another
    Quantity, ``*`` with an int, ordering, equality and hashing by value (the format
    does not take part: ``1Ki == 1024``).
    """

    __slots__ = ("_dec", "_exp", "_format", "_s", "_unscaled", "_value")
    _unscaled: int
    _exp: int
    _dec: bool
    _format: str
    _s: str | None
    _value: Fraction

    # value == _unscaled * 10**_exp; _dec says apimachinery would hold it as inf.Dec.
    def __init__(self, unscaled: int, exp: int, fmt: str, *, dec: bool = False, s: str | None = None):
        if fmt not in _FORMATS:
            raise QuantityError(f"unknown quantity format {fmt!r}")
        setattr_ = object.__setattr__
        setattr_(self, "_unscaled", unscaled)
        setattr_(self, "_exp", exp)
        setattr_(self, "_dec", dec)
        setattr_(self, "_format", fmt)
        setattr_(self, "_s", s)
        setattr_(self, "_value", Fraction(unscaled * 10**exp) if exp >= 0 else Fraction(unscaled, 10**-exp))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Quantity is immutable")

    # -- construction ---------------------------------------------------------------

    @classmethod
    def from_int(cls, n: int, fmt: str = DECIMAL_SI) -> Quantity:
        """Like ``resource.NewQuantity(n, fmt)``."""
        if isinstance(n, bool) or not isinstance(n, int):
            raise TypeError(f"from_int needs an int, not {type(n).__name__}")
        return cls(n, 0, fmt, dec=not _fits_int64(n))

    # -- accessors ------------------------------------------------------------------

    @property
    def value(self) -> Fraction:
        return self._value

    @property
    def format(self) -> str:
        return self._format

    def sign(self) -> int:
        return (self._unscaled > 0) - (self._unscaled < 0)

    def is_zero(self) -> bool:
        return self._unscaled == 0

    def is_integer(self) -> bool:
        """True when the value is a whole number (mathematically)."""
        return self._value.denominator == 1

    def as_int(self) -> int:
        """The value as an int; raises QuantityError if it is not a whole number."""
        if self._value.denominator != 1:
            raise QuantityError(f"quantity {self} is not an integer")
        return self._value.numerator

    def go_as_int64(self) -> int | None:
        """apimachinery's ``AsInt64()``: the int64 value, or None when Go says "not fast".

        This is representation dependent, as in Kubernetes: ``1000m``, ``1.0``,
        ``1.5Gi`` and ``1Pi`` give None although they are whole numbers.  The CEL
        functions ``isInteger()`` and ``asInteger()`` are defined through it.
        """
        if self._dec or self._exp < 0:
            return None
        v = self._unscaled * 10**self._exp
        return v if _fits_int64(v) else None

    def approximate_float(self) -> float:
        """apimachinery's ``AsApproximateFloat64()`` (same rounding steps)."""
        base = float(self._unscaled) if abs(self._unscaled) < (1 << 1000) else float("inf") * self.sign()
        if self._exp == 0:
            return base
        return base * float(f"1e{self._exp}")

    # -- arithmetic (apimachinery Add/Sub/Mul, including the format rules) ------------

    def __add__(self, other: Quantity) -> Quantity:
        if not isinstance(other, Quantity):
            return NotImplemented
        return self._add(other, negate=False)

    def __sub__(self, other: Quantity) -> Quantity:
        if not isinstance(other, Quantity):
            return NotImplemented
        return self._add(other, negate=True)

    def _add(self, other: Quantity, negate: bool) -> Quantity:
        fmt = other._format if self._unscaled == 0 else self._format
        b_val = -other._unscaled if negate else other._unscaled
        if not self._dec and not other._dec:
            a_val, a_sc, b_sc = self._unscaled, self._exp, other._exp
            if b_val == 0:
                return Quantity(a_val, a_sc, fmt)
            if a_val == 0:
                return Quantity(b_val, b_sc, fmt)
            c: int | None
            if a_sc == b_sc:
                c, sc = a_val + b_val, a_sc
            elif a_sc > b_sc:
                scaled, sc = a_val * 10 ** (a_sc - b_sc), b_sc
                c = scaled + b_val if _fits_int64(scaled) else None
            else:
                scaled, sc = b_val * 10 ** (b_sc - a_sc), a_sc
                c = a_val + scaled if _fits_int64(scaled) else None
            if c is not None and _fits_int64(c):
                return Quantity(c, sc, fmt)
        # inf.Dec arithmetic: the result has the finer of the two scales.
        sc = min(self._exp, other._exp)
        c = self._unscaled * 10 ** (self._exp - sc) + b_val * 10 ** (other._exp - sc)
        return Quantity(c, sc, fmt, dec=True)

    def __mul__(self, n: int) -> Quantity:
        if isinstance(n, bool) or not isinstance(n, int):
            return NotImplemented
        if not self._dec:
            v, sc = self._unscaled, self._exp
            if v == 0:
                return Quantity(v, sc, self._format)
            if n == 0:
                return Quantity(0, 0, self._format)
            c = v * n
            if _fits_int64(c):
                if sc == 0:
                    return Quantity(c, 0, self._format)
                if sc > 0 and _fits_int64(c * 10**sc):
                    return Quantity(c, sc, self._format)
                if sc < 0 and c % 10**-sc == 0:
                    return Quantity(c, sc, self._format)
        return Quantity(self._unscaled * n, self._exp, self._format, dec=True)

    __rmul__ = __mul__

    def __neg__(self) -> Quantity:
        return Quantity(-self._unscaled, self._exp, self._format, dec=self._dec)

    # -- comparison -----------------------------------------------------------------

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Quantity):
            return self._value == other._value
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._value)

    def __lt__(self, other: Quantity) -> bool:
        if not isinstance(other, Quantity):
            return NotImplemented
        return self._value < other._value

    def __le__(self, other: Quantity) -> bool:
        if not isinstance(other, Quantity):
            return NotImplemented
        return self._value <= other._value

    def __gt__(self, other: Quantity) -> bool:
        if not isinstance(other, Quantity):
            return NotImplemented
        return self._value > other._value

    def __ge__(self, other: Quantity) -> bool:
        if not isinstance(other, Quantity):
            return NotImplemented
        return self._value >= other._value

    def cmp(self, other: Quantity) -> int:
        """-1, 0 or 1, like apimachinery's ``Cmp``."""
        return (self._value > other._value) - (self._value < other._value)

    # -- rendering ------------------------------------------------------------------

    def __str__(self) -> str:
        return self._s if self._s is not None else self.canonical()

    def __repr__(self) -> str:
        return f"Quantity({str(self)!r})"

    def canonical(self) -> str:
        """apimachinery's ``CanonicalizeBytes`` (``String()`` without the kept text)."""
        if self._unscaled == 0:
            return "0"
        fmt = self._format
        if fmt == BINARY_SI and (-1024 < self._value < 1024 or self._value.denominator != 1):
            fmt = DECIMAL_SI
        if fmt == BINARY_SI:
            n = self._value.numerator
            times = 0
            while abs(n) >= 1024 and n % 1024 == 0:
                n //= 1024
                times += 1
            return f"{n}{_BIN_BY_EXP.get(times * 10, '')}"
        m, e = self._unscaled, self._exp
        while m % 10 == 0:
            m //= 10
            e += 1
        r = e % 3  # Python's modulo: rounds the exponent down to a multiple of 3
        m, e = m * 10**r, e - r
        if fmt == DECIMAL_SI:
            return f"{m}{_DEC_BY_EXP.get(e, '')}"
        return f"{m}e{e}" if e else str(m)
