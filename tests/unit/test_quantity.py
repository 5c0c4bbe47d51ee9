"""Kubernetes quantities: expected values come from running apimachinery v0.36.3."""

from fractions import Fraction

import pytest

from kubectl_kueue_dra.dra.quantity import (
    BINARY_SI,
    DECIMAL_EXPONENT,
    DECIMAL_SI,
    Quantity,
    QuantityError,
    parse_quantity,
)

# input -> (String(), Format, AsInt64 succeeds)
PARSE_TABLE = {
    "0": ("0", DECIMAL_SI, True),
    "1": ("1", DECIMAL_SI, True),
    "-1": ("-1", DECIMAL_SI, True),
    "+1": ("+1", DECIMAL_SI, True),  # kept text: apimachinery reuses the input
    "01": ("01", DECIMAL_SI, True),
    "98": ("98", DECIMAL_SI, True),
    "2k": ("2k", DECIMAL_SI, True),
    "2000": ("2k", DECIMAL_SI, True),
    "1000": ("1k", DECIMAL_SI, True),
    "1000k": ("1M", DECIMAL_SI, True),
    "1024": ("1024", DECIMAL_SI, True),
    "1Ki": ("1Ki", BINARY_SI, True),
    "1.5Gi": ("1536Mi", BINARY_SI, False),
    "-1.5Gi": ("-1536Mi", BINARY_SI, False),
    "1500m": ("1500m", DECIMAL_SI, False),
    "0.5": ("500m", DECIMAL_SI, False),
    ".5": ("500m", DECIMAL_SI, False),
    "100m": ("100m", DECIMAL_SI, False),
    "1001m": ("1001m", DECIMAL_SI, False),
    "2.5k": ("2500", DECIMAL_SI, True),
    "1e3": ("1e3", DECIMAL_EXPONENT, True),  # not "1k": the exponent format is kept
    "1E3": ("1E3", DECIMAL_EXPONENT, True),
    "1.5e3": ("1500", DECIMAL_EXPONENT, True),
    "5e-1": ("500e-3", DECIMAL_EXPONENT, False),
    "1e-3": ("1e-3", DECIMAL_EXPONENT, False),
    "12e+6": ("12e+6", DECIMAL_EXPONENT, True),
    "40192Mi": ("40192Mi", BINARY_SI, True),
    "4864Mi": ("4864Mi", BINARY_SI, True),
    "40Gi": ("40Gi", BINARY_SI, True),
    "1024Mi": ("1Gi", BINARY_SI, True),
    "1048576Ki": ("1Gi", BINARY_SI, True),
    "0.5Ki": ("512", BINARY_SI, False),
    "1023.5Ki": ("1048064", BINARY_SI, False),
    "1.1Ki": ("1126400m", BINARY_SI, False),
    "0.0001Ki": ("102400u", DECIMAL_SI, False),
    "7Ei": ("7Ei", BINARY_SI, False),
    "8Ei": ("9223372036854775807", BINARY_SI, False),  # BinarySI is capped at 2^63-1
    "-8Ei": ("-9223372036854775807", BINARY_SI, False),
    "1E": ("1E", DECIMAL_SI, True),
    "1000E": ("1", DECIMAL_SI, False),  # apimachinery has no suffix for 10^21
    "12345678901234567890": ("12345678901234567890", DECIMAL_SI, False),
    "0.1n": ("1n", DECIMAL_SI, False),  # rounded up to 1n
    "1.5n": ("2n", DECIMAL_SI, False),
    "0.123456789123": ("123456790n", DECIMAL_SI, False),
    "3.14159": ("3141590u", DECIMAL_SI, False),
    "1.000": ("1", DECIMAL_SI, False),
    "1.500": ("1.500", DECIMAL_SI, False),
    "1.G": ("1.G", DECIMAL_SI, True),
    "+": ("0", DECIMAL_SI, True),
    ".": ("0", DECIMAL_SI, True),
    "Ki": ("0", BINARY_SI, True),
    "e3": ("0", DECIMAL_EXPONENT, True),
}


@pytest.mark.parametrize("text", sorted(PARSE_TABLE))
def test_parse_and_string_match_apimachinery(text):
    expected_str, expected_fmt, int_ok = PARSE_TABLE[text]
    q = parse_quantity(text)
    assert str(q) == expected_str
    assert q.format == expected_fmt
    assert (q.go_as_int64() is not None) is int_ok


@pytest.mark.parametrize(
    "text,value",
    [
        ("1.5Gi", Fraction(1610612736)),
        ("1500m", Fraction(3, 2)),
        ("1e3", Fraction(1000)),
        ("40192Mi", Fraction(40192 * 2**20)),
        ("0.1n", Fraction(1, 10**9)),
        ("-1", Fraction(-1)),
        ("8Ei", Fraction(2**63 - 1)),
    ],
)
def test_exact_value(text, value):
    assert parse_quantity(text).value == value


@pytest.mark.parametrize(
    "text,fragment",
    [
        ("1K", "suffix"),
        ("1k3", "suffix"),
        ("1e", "suffix"),
        ("1e+", "suffix"),
        ("1mi", "suffix"),
        ("abc", "regular expression"),
        ("1.2.3", "regular expression"),
        ("1 ", "regular expression"),
        (" 1", "regular expression"),
        ("1MI", "regular expression"),
        ("1e3e3", "regular expression"),
        ("", "regular expression"),
        (".Pi", "numeric"),
        ("1e99999", "range"),
    ],
)
def test_invalid(text, fragment):
    with pytest.raises(QuantityError) as e:
        parse_quantity(text)
    assert fragment in str(e.value)
    assert repr(text) in str(e.value)


def test_capital_k_gets_a_hint():
    with pytest.raises(QuantityError, match="did you mean 'k' or 'Ki'"):
        parse_quantity("10K")


def test_numbers_and_bad_types():
    assert str(parse_quantity(98)) == "98"
    assert str(parse_quantity(1500)) == "1500"
    assert str(parse_quantity(1.5)) == "1500m"
    with pytest.raises(QuantityError):
        parse_quantity(True)
    with pytest.raises(QuantityError):
        parse_quantity(None)


# (op, a, b) -> (String(), Format, AsInt64 succeeds)
ARITHMETIC = [
    (("mul", "4864Mi", 2), ("9728Mi", BINARY_SI, True)),
    (("mul", "40192Mi", 7), ("281344Mi", BINARY_SI, True)),
    (("mul", "1m", 2), ("2m", DECIMAL_SI, False)),
    (("mul", "1500m", 2), ("3", DECIMAL_SI, False)),
    (("mul", "1Gi", 1024), ("1Ti", BINARY_SI, True)),
    (("mul", "1Gi", 0), ("0", BINARY_SI, True)),
    (("add", "1Gi", "512Mi"), ("1536Mi", BINARY_SI, True)),
    (("add", "1Gi", "1G"), ("2073741824", BINARY_SI, True)),
    (("add", "1G", "1Gi"), ("2073741824", DECIMAL_SI, True)),
    (("add", "0", "1Gi"), ("1Gi", BINARY_SI, True)),  # a zero takes the other's format
    (("add", "1500m", "500m"), ("2", DECIMAL_SI, False)),
    (("add", "1.5Gi", "0"), ("1536Mi", BINARY_SI, False)),
    (("sub", "1", "1500m"), ("-500m", DECIMAL_SI, False)),
    (("sub", "1Gi", "2Gi"), ("-1Gi", BINARY_SI, True)),
    (("sub", "0", "1Gi"), ("-1Gi", BINARY_SI, True)),
]


@pytest.mark.parametrize("op,expected", ARITHMETIC)
def test_arithmetic_matches_apimachinery(op, expected):
    kind, a, b = op
    qa = parse_quantity(a)
    if kind == "mul":
        r = qa * b
    elif kind == "add":
        r = qa + parse_quantity(b)
    else:
        r = qa - parse_quantity(b)
    assert (str(r), r.format, r.go_as_int64() is not None) == expected


def test_kept_text_is_dropped_by_arithmetic():
    q = parse_quantity("+1")
    assert str(q) == "+1"
    assert q.canonical() == "1"
    assert str(q * 1) == "1"
    assert str(parse_quantity("01Gi") + parse_quantity("0")) == "1Gi"


def test_rmul_and_neg():
    assert str(3 * parse_quantity("4864Mi")) == "14592Mi"
    assert str(-parse_quantity("1.5Gi")) == "-1536Mi"
    with pytest.raises(TypeError):
        parse_quantity("1") * 1.5


def test_comparison_equality_hash():
    assert parse_quantity("1Ki") == parse_quantity("1024")
    assert hash(parse_quantity("1Ki")) == hash(parse_quantity("1024"))
    assert parse_quantity("1e3") == parse_quantity("1k")
    assert parse_quantity("1500m") < parse_quantity("2")
    assert parse_quantity("10Gi") > parse_quantity("10G")
    assert parse_quantity("1") <= parse_quantity("1000m") <= parse_quantity("1")
    assert parse_quantity("2") >= parse_quantity("1999m")
    assert parse_quantity("1").cmp(parse_quantity("2")) == -1
    assert len({parse_quantity("1Gi"), parse_quantity("1024Mi"), parse_quantity("1G")}) == 2
    assert parse_quantity("1") != "1"


def test_integers():
    assert parse_quantity("40Gi").as_int() == 40 * 2**30
    assert parse_quantity("1000m").as_int() == 1
    assert parse_quantity("1000m").is_integer()
    assert not parse_quantity("1500m").is_integer()
    with pytest.raises(QuantityError, match="not an integer"):
        parse_quantity("1500m").as_int()
    # apimachinery AsInt64 is representation dependent (CEL isInteger uses it)
    assert parse_quantity("1000m").go_as_int64() is None
    assert parse_quantity("1Pi").go_as_int64() is None
    assert parse_quantity("1k").go_as_int64() == 1000


def test_from_int():
    assert str(Quantity.from_int(1000)) == "1k"
    assert str(Quantity.from_int(1024)) == "1024"
    assert str(Quantity.from_int(2**30, BINARY_SI)) == "1Gi"
    assert str(Quantity.from_int(1000, DECIMAL_EXPONENT)) == "1e3"
    assert Quantity.from_int(5).format == DECIMAL_SI
    with pytest.raises(TypeError):
        Quantity.from_int(1.5)


def test_approximate_float_and_sign():
    assert parse_quantity("1.5Gi").approximate_float() == 1610612736.0
    assert parse_quantity("1500m").approximate_float() == 1.5
    assert parse_quantity("-3").sign() == -1
    assert parse_quantity("0").sign() == 0
    assert parse_quantity("0").is_zero()


def test_immutable_operands():
    a = parse_quantity("1Gi")
    _ = a + parse_quantity("1Gi")
    _ = a * 3
    assert str(a) == "1Gi"
    with pytest.raises(AttributeError):
        a.format = DECIMAL_SI


@pytest.mark.parametrize("a,b,shown", [
    ("800Gi", "800", "858993460000 (≈800Gi)"),  # BinarySI, no whole number of Ki: String() prints digits
    ("5100273664", None, "5100273664 (≈5.1G)"),
    ("4864Mi", None, "4864Mi"), ("1500000", None, "1500k"), ("12", None, "12"), ("250m", None, "250m"),
])
def test_display_quantity(a, b, shown):
    from kubectl_kueue_dra.dra.quantity import display_quantity

    q = parse_quantity(a) if b is None else parse_quantity(a) + parse_quantity(b)
    assert display_quantity(q) == shown
