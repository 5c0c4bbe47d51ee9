"""``cel.bind`` (cel-go ext.Bindings, in Kubernetes' DRA environment since 1.31) and
``<string>.format(<list>)`` (cel-go ext.Strings v2, in the base environment since 1.29) are
evaluated. Expected values are cel-go v0.26's: ext/bindings_test.go and the examples of
ext/bindings.go, ext/formatting_test.go (the runtime cases, en_US). What cel-go prints through a
locale (``%f``, ``%e``) or its own conversions (timestamps, durations, types) is "not evaluable by
this tool", never "does not compile" and never a guess."""

import pytest

from kubectl_kueue_dra.dra.cel import CelCompileError, CelEvalError, compile_selector
from kubectl_kueue_dra.dra.cel.bind import expand_bindings
from kubectl_kueue_dra.dra.cel.device import device_activation
from kubectl_kueue_dra.dra.cel.format import go_g

NV = "gpu.nvidia.com"


def gpu():
    return {"name": "gpu-0", "attributes": {"type": {"string": "gpu"}, "brand": {"string": "Nvidia"}},
            "capacity": {"memory": {"value": "40Gi"}}}


def mig():
    return {"name": "gpu-0-mig-0", "attributes": {"type": {"string": "mig"}}, "capacity": {"memory": {"value": "5Gi"}}}


def ev(expr, device=None):
    return compile_selector(expr).evaluate(device_activation(NV, device or gpu()))


# -- cel.bind ---------------------------------------------------------------------------------
@pytest.mark.parametrize("expr", [
    # ext/bindings.go and bindings_test.go
    "cel.bind(a, 'hello', cel.bind(b, 'world', a + b + b + a)) == 'helloworldworldhello'",
    "cel.bind(valid_values, [1, 2, 3], [2, 3].all(v, v in valid_values))",
    "cel.bind(a, 1, cel.bind(a, 2, a)) == 2",  # the inner binding shadows the outer
    "cel.bind(a, [1, 2], a.size()) == 2",
    # the DRA form of Kubernetes' compile tests: one domain lookup, several attributes
    "cel.bind(dra, device.attributes['gpu.nvidia.com'], dra.type == 'gpu' && dra.brand == 'Nvidia')",
    "cel.bind(m, device.capacity['gpu.nvidia.com'].memory, m.compareTo(quantity('40Gi')) == 0)",
    "!cel.bind(x, device.driver, x == 'other.example.com')",
])
def test_bind_is_evaluated(expr):
    assert ev(expr) is True


def test_bind_reads_what_its_init_reads():
    sel = compile_selector("cel.bind(dra, device.attributes['gpu.nvidia.com'], dra.type == 'mig')")
    assert sel.footprint == frozenset({("attributes", "gpu.nvidia.com")})
    assert ev(sel.expression, mig()) is True and ev(sel.expression, gpu()) is False


def test_bind_errors_are_cel_errors_of_the_body():
    with pytest.raises(CelEvalError) as e:
        ev("cel.bind(dra, device.attributes['gpu.nvidia.com'], dra.nosuch == 1)")
    assert "no such key: nosuch" in str(e.value)


def test_bind_inside_strings_and_other_calls_are_left_alone():
    assert expand_bindings("'cel.bind(a, 1, a)' == x") == "'cel.bind(a, 1, a)' == x"
    assert expand_bindings("cel.bind(a, [1, 2], a)") == "[ [1, 2]].map(a,  a)[0]"
    with pytest.raises(CelCompileError) as e:  # cel.bind takes a simple name: still not compiled
        compile_selector("cel.bind(a.b, 1, 2) == 2")
    assert e.value.unsupported is True


# -- format() ---------------------------------------------------------------------------------
FORMATTED = [
    ("no substitution", "[]", "no substitution"),
    ("str is %s and some more", '["filler"]', "str is filler and some more"),
    ("%% and also %%", "[]", "% and also %"),
    ("%%%s%%", '["text"]', "%text%"),
    ("%d %d %d, %s %s %s, %d %d %d, %s %s %s", '[1, 2, 3, "A", "B", "C", 4, 5, 6, "D", "E", "F"]',
     "1 2 3, A B C, 4 5 6, D E F"),
    ("this is 5 in binary: %b", "[5]", "this is 5 in binary: 101"),
    ("this is -5 in binary: %b", "[-5]", "this is -5 in binary: -101"),
    ("unsigned 64 in binary: %b", "[uint(64)]", "unsigned 64 in binary: 1000000"),
    ("bit set from bool: %b", "[true]", "bit set from bool: 1"),
    ("%o", "[11]", "13"),
    ("%o", "[-11]", "-13"),
    ("this is an unsigned octal: %o", "[uint(65535)]", "this is an unsigned octal: 177777"),
    ("%x is 30 in hexadecimal", "[30]", "1e is 30 in hexadecimal"),
    ("%X is 20 in hexadecimal", "[30]", "1E is 20 in hexadecimal"),
    ("%x is -30 in hexadecimal", "[-30]", "-1e is -30 in hexadecimal"),
    ("%X is 6000 in hexadecimal", "[uint(6000)]", "1770 is 6000 in hexadecimal"),
    ("%x", '["Hello world!"]', "48656c6c6f20776f726c6421"),
    ("%X", '["Hello world!"]', "48656C6C6F20776F726C6421"),
    ("%x", '[b"byte string"]', "6279746520737472696e67"),
    ("%x", '[b"\\x00\\x00byte string\\x00"]', "00006279746520737472696e6700"),
    ("%s", "[2.71]", "2.71"),
    ("%s", "[[2.71]]", "[2.710000]"),
    ("%s", "[0.000000002]", "2e-09"),
    ("%s", "[[0.000000002]]", "[0.000000]"),
    ("%s", '[double("NaN")]', "NaN"),
    ("%s", '[double("Inf")]', "+Inf"),
    ("%s", '[double("-Inf")]', "-Inf"),
    ("%s", '[[double("NaN"), double("+Inf"), double("-Inf")]]', '["NaN", "+Inf", "-Inf"]'),
    ("%d", "[uint(64)]", "64"),
    ("null: %s", "[null]", "null: null"),
    ("%s", "[999999999999]", "999999999999"),
    ("some bytes: %s", '[b"xyz"]', "some bytes: xyz"),
    ("%s", '[["abc", 3.14, null, [9, 8, 7, 6]]]', '["abc", 3.140000, null, [9, 8, 7, 6]]'),
    # cel-go's case has int, uint and bool keys in one map, which cel-python cannot build; the same
    # formatting with one key type (keys sorted by their text, NaN quoted)
    ("map with multiple key types: %s", '[{1: "value1", 2: "value2", 3: double("NaN")}]',
     'map with multiple key types: {1:"value1", 2:"value2", 3:"NaN"}'),
    ("%s", '[{"b": b"xyz", "a": true, "c": 2.71828}]', '{"a":true, "b":b"xyz", "c":2.718280}'),
    ("true bool: %s, false bool: %s", "[true, false]", "true bool: true, false bool: false"),
    ("%s", "[56.8]", "56.8"),
]


@pytest.mark.parametrize("spec,args,expected", FORMATTED, ids=[f"{i}:{c[0]}" for i, c in enumerate(FORMATTED)])
def test_format_as_cel_go(spec, args, expected):
    quoted = expected.replace("\\", "\\\\").replace("'", "\\'")
    assert ev(f"{spec!r}.format({args}) == '{quoted}'") is True


FORMAT_ERRORS = [
    ("%a", "[1]", 'could not parse formatting clause: unrecognized formatting clause "a"'),
    ("%d %d %d", "[0, 1]", "index 2 out of range"),
    ("string is %b", '["abc"]', "error during formatting: only integers and bools can be formatted as binary, "
                                "was given string"),
    ("octal: %o", '["a string"]', "error during formatting: octal clause can only be used on integers, was given "
                                  "string"),
    ("double is %x", "[0.5]", "error during formatting: only integers, byte buffers, and strings can be "
                              "formatted as hex, was given double"),
    ("double is %E", "[0.5]", 'could not parse formatting clause: unrecognized formatting clause "E"'),
    ("null: %d", "[null]", "error during formatting: decimal clause can only be used on integers, was given "
                           "null_type"),
    ("null: %x", "[null]", "error during formatting: only integers, byte buffers, and strings can be formatted "
                           "as hex, was given null_type"),
    ("null: %b", "[null]", "error during formatting: only integers and bools can be formatted as binary, was "
                           "given null_type"),
    ("null: %o", "[null]", "error during formatting: octal clause can only be used on integers, was given "
                           "null_type"),
    ("filler %", "[]", "index 0 out of range"),
]


@pytest.mark.parametrize("spec,args,message", FORMAT_ERRORS, ids=[c[0] for c in FORMAT_ERRORS])
def test_format_errors_as_cel_go(spec, args, message):
    with pytest.raises(CelEvalError) as e:
        ev(f"{spec!r}.format({args}) == ''")
    assert message in str(e.value)


def test_format_on_device_attributes():
    assert ev("'%s/%s'.format([device.driver, device.attributes['gpu.nvidia.com'].type]) == "
              "'gpu.nvidia.com/gpu'") is True
    # a Quantity is none of the types %s takes
    with pytest.raises(CelEvalError) as e:
        ev("'%s'.format([device.capacity['gpu.nvidia.com'].memory]) == ''")
    assert "was given kubernetes.Quantity" in str(e.value)


@pytest.mark.parametrize("expr", [
    "'%.3f'.format([1.2345]) == '1.234'",
    "'%e'.format([2.71828]) != ''",
    "'%s'.format([duration('1h')]) == '3600s'",
])
def test_what_cel_go_prints_for_a_locale_is_not_evaluable(expr):
    with pytest.raises(CelCompileError) as e:
        ev(expr)
    assert e.value.unsupported is True and "not evaluable by this tool" in str(e.value)


def test_an_error_the_other_operand_decides_is_absorbed_as_in_cel():
    """cel-go's && and || ignore an error when the other side decides; so does a part this tool
    cannot evaluate (its value could not change the answer)."""
    assert ev("device.driver == 'gpu.nvidia.com' || '%f'.format([1.0]) == ''") is True


@pytest.mark.parametrize("x,expected", [
    (2.71, "2.71"), (0.000000002, "2e-09"), (100000.0, "100000"), (1000000.0, "1e+06"),
    (1234567.0, "1.234567e+06"), (0.0001, "0.0001"), (0.00001, "1e-05"), (-1.5, "-1.5"), (1e21, "1e+21"),
    (0.1, "0.1"), (123.456, "123.456"), (0.0, "0"),
])
def test_double_to_string_as_go(x, expected):
    """strconv.FormatFloat(x, 'g', -1, 64), cel-go's double → string."""
    assert go_g(x) == expected


# -- optional selection (cel-go OptionalTypes, Kubernetes 1.28+) ------------------------------
@pytest.mark.parametrize("expr,expected", [
    ("device.attributes['gpu.nvidia.com'].?type.orValue('') == 'gpu'", True),
    ("device.attributes['gpu.nvidia.com'].?nosuch.orValue('none') == 'none'", True),
    ("device.attributes['gpu.nvidia.com'][?'brand'].orValue('') == 'Nvidia'", True),
    ("device.attributes['gpu.nvidia.com'].?nosuch.hasValue()", False),
    ("device.attributes['gpu.nvidia.com'].?type.hasValue()", True),
    ("device.attributes['gpu.nvidia.com'].?type.value() == 'gpu'", True),
    # Kubernetes' attribute map holds every domain (an unknown one is empty): [?'d'] has a value
    ("device.attributes[?'other.example.com'].hasValue()", True),
    ("device.attributes[?'other.example.com'].?type.hasValue()", False),
    # once a step is optional the rest of the chain is qualified "if present"
    ("{'a': {'b': 1}}.?a.b.orValue(0) == 1", True),
    ("{'a': {'b': 1}}.?x.b.orValue(0) == 0", True),
    ("{'a': {'c': 1}}.?a.b.orValue(0) == 0", True),
    ("[1, 2][?1].orValue(0) == 2", True),
    ("[1, 2][?5].orValue(0) == 0", True),
    ("!device.attributes['gpu.nvidia.com'].?nosuch.hasValue()", True),
    ("device.capacity['gpu.nvidia.com'].?memory.orValue(quantity('0')).compareTo(quantity('40Gi')) == 0", True),
])
def test_optional_selection_is_evaluated(expr, expected):
    assert ev(expr) is expected


def test_optional_none_dereference_is_a_cel_error():
    with pytest.raises(CelEvalError) as e:
        ev("device.attributes['gpu.nvidia.com'].?nosuch.value() == 1")
    assert "optional.none() dereference" in str(e.value)


def test_optional_reads_what_the_chain_reads():
    sel = compile_selector("device.attributes['gpu.nvidia.com'].?type.orValue('') == 'mig'")
    assert sel.footprint == frozenset({("attributes", "gpu.nvidia.com")})
    assert ev(sel.expression, mig()) is True and ev(sel.expression, gpu()) is False


@pytest.mark.parametrize("expr", [
    "optional.of(1).hasValue()",
    "optional.none().orValue(1) == 1",
    "[?device.attributes['gpu.nvidia.com'][?'index']].size() == 0",
    "device.?nosuch.hasValue()",  # Kubernetes rejects the field; not guessed either way
    "device.attributes['gpu.nvidia.com'].?type.or(optional.of('x')).value() == 'gpu'",
])
def test_other_optional_syntax_is_not_evaluable_never_does_not_compile(expr):
    with pytest.raises(CelCompileError) as e:
        compile_selector(expr)
    assert e.value.unsupported is True and "not evaluable by this tool" in str(e.value)
