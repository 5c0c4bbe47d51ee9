"""DRA CEL selectors, on the NVIDIA GPU driver's published attributes and selectors."""

import copy

import pytest

from kubectl_kueue_dra.dra import cel
from kubectl_kueue_dra.dra.cel import (
    MAX_EXPRESSION_LENGTH,
    CelCompileError,
    CelError,
    CelEvalError,
    SelectorEvaluator,
    compile_selector,
    device_activation,
    device_shape_key,
)
from kubectl_kueue_dra.dra.cel.lib import Semver

NV = "gpu.nvidia.com"
GPU_CLASS = "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'"
MIG_CLASS = "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'mig'"
MIG_1G12 = (
    "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'mig' && "
    "device.attributes['gpu.nvidia.com'].profile == '1g.12gb'"
)
PROFILE_1G5 = "device.attributes['gpu.nvidia.com'].profile == '1g.5gb'"
BIG_MIG = (
    "device.capacity['gpu.nvidia.com'].multiprocessors.isGreaterThan(quantity(\"10\")) && "
    "device.capacity['gpu.nvidia.com'].memory.isGreaterThan(quantity(\"10Gi\"))"
)
SMALL_MIG = "device.capacity['gpu.nvidia.com'].multiprocessors.isLessThan(quantity(\"30\"))"
A100 = "device.attributes['gpu.nvidia.com'].productName.lowerAscii().matches('^.*a100.*$')"
DEMO_INDEX = A100 + (
    " && (device.attributes['gpu.nvidia.com'].index == 0 || device.attributes['gpu.nvidia.com'].index == 1)"
)
CC = 'device.attributes["gpu.nvidia.com"].cudaComputeCapability.isGreaterThan(semver("7.5.0"))'
BIG_GPU = "device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('40Gi')) >= 0"


def gpu(minor=0, uuid=None, product="NVIDIA A100-SXM4-40GB", memory="40Gi"):
    return {
        "name": f"gpu-{minor}",
        "attributes": {
            "type": {"string": "gpu"},
            "uuid": {"string": uuid or f"GPU-{minor:04d}"},
            "productName": {"string": product},
            "brand": {"string": "Nvidia"},
            "architecture": {"string": "Ampere"},
            "cudaComputeCapability": {"version": "8.0.0"},
            "driverVersion": {"version": "550.54.15"},
            "cudaDriverVersion": {"version": "12.4.0"},
            "resource.kubernetes.io/pciBusID": {"string": f"0000:{minor:02x}:00.0"},
        },
        "capacity": {"memory": {"value": memory}},
    }


def mig(profile="1g.5gb", memory="4864Mi", sms="14"):
    return {
        "name": "gpu-0-mig-1g5gb-19-0",
        "attributes": {
            "type": {"string": "mig"},
            "profile": {"string": profile},
            "parentUUID": {"string": "GPU-0000"},
            "productName": {"string": "NVIDIA A100-SXM4-40GB"},
            "cudaComputeCapability": {"version": "8.0.0"},
        },
        "capacity": {
            "memory": {"value": memory},
            "multiprocessors": {"value": sms},
            "copyEngines": {"value": "1"},
            "decoders": {"value": "0"},
        },
        "consumesCounters": [{"counterSet": "gpu-0-counter-set", "counters": {"memory": {"value": memory}}}],
    }


def old_gpu(index=0):
    d = gpu(index)
    d["attributes"]["index"] = {"int": index}
    d["attributes"]["minor"] = {"int": index}
    return d


def ev(expr, device, driver=NV):
    return compile_selector(expr).evaluate(device_activation(driver, device))


# -- the NVIDIA classes and selectors ------------------------------------------------------


def test_gpu_and_mig_classes():
    assert ev(GPU_CLASS, gpu()) is True
    assert ev(GPU_CLASS, mig()) is False
    assert ev(MIG_CLASS, mig()) is True
    assert ev(MIG_CLASS, gpu()) is False
    assert ev(MIG_1G12, mig("1g.12gb")) is True
    assert ev(MIG_1G12, mig("1g.5gb")) is False


def test_class_selector_is_false_for_another_driver_despite_missing_domain():
    other = {"attributes": {"model": {"string": "x"}}}
    assert ev(GPU_CLASS, other, driver="other.example.com") is False


def test_profile_selector():
    assert ev(PROFILE_1G5, mig("1g.5gb")) is True
    assert ev(PROFILE_1G5, mig("3g.20gb", "20096Mi", "42")) is False
    with pytest.raises(CelEvalError, match="no such key: profile"):
        ev(PROFILE_1G5, gpu())  # a full GPU has no profile: an error, not a mismatch


def test_capacity_selectors():
    assert ev(BIG_MIG, mig("1g.5gb", "4864Mi", "14")) is False  # memory < 10Gi
    assert ev(BIG_MIG, mig("2g.10gb", "9856Mi", "28")) is False  # 9856Mi < 10Gi
    assert ev(BIG_MIG, mig("3g.20gb", "20096Mi", "42")) is True
    assert ev(BIG_MIG, mig("1g.10gb", "9984Mi", "7")) is False  # SMs
    assert ev(SMALL_MIG, mig("3g.20gb", "20096Mi", "42")) is False
    assert ev(SMALL_MIG, mig()) is True
    assert ev(BIG_GPU, gpu(memory="40Gi")) is True
    # an A100-40GB publishes 40192Mi, which is less than 40Gi (40960Mi)
    assert ev(BIG_GPU, gpu(memory="40192Mi")) is False
    assert ev(BIG_GPU, gpu(memory="39Gi")) is False


def test_product_name_lower_ascii_matches():
    assert ev(A100, gpu()) is True
    assert ev(A100, gpu(product="NVIDIA H100 80GB HBM3")) is False


def test_index_on_current_driver_is_no_such_key_with_hint():
    with pytest.raises(CelEvalError) as e:
        ev(DEMO_INDEX, gpu())
    msg = str(e.value)
    assert "no such key: index" in msg
    assert "has()" in msg and ".?" in msg and "orValue()" in msg
    assert e.value.expression == DEMO_INDEX
    assert ev(DEMO_INDEX, old_gpu(1)) is True
    assert ev(DEMO_INDEX, old_gpu(2)) is False


def test_false_left_operand_absorbs_the_error():
    # the A100 test is false for an H100, so the missing index does not matter
    assert ev(DEMO_INDEX, gpu(product="NVIDIA H100")) is False
    assert ev("device.attributes['gpu.nvidia.com'].index == 0 || true", gpu()) is True
    assert ev("false && device.attributes['x'].y == 1", gpu()) is False
    with pytest.raises(CelEvalError, match="no such key: y"):
        ev("true && device.attributes['x'].y == 1", gpu())


def test_both_operands_failing_keeps_the_first_error():
    with pytest.raises(CelEvalError, match=r"no such key: a\b"):
        ev("device.attributes['x'].a == 1 && device.attributes['x'].b == 1", gpu())


def test_semver_attribute():
    assert ev(CC, gpu()) is True
    d = gpu()
    d["attributes"]["cudaComputeCapability"] = {"version": "7.0.0"}
    assert ev(CC, d) is False
    act = device_activation(NV, gpu())
    assert isinstance(act["device"]["attributes"][NV]["cudaComputeCapability"], Semver)


def test_has_and_unknown_domain():
    assert ev("has(device.attributes['other.com'].x)", gpu()) is False
    assert ev("has(device.attributes['gpu.nvidia.com'].uuid)", gpu()) is True
    assert ev("has(device.attributes['gpu.nvidia.com'].index)", gpu()) is False
    assert ev("'other.com' in device.attributes", gpu()) is False
    assert ev("'gpu.nvidia.com' in device.attributes", gpu()) is True
    assert ev("size(device.attributes['other.com']) == 0", gpu()) is True
    with pytest.raises(CelEvalError, match="no such key: x"):
        ev("device.attributes['other.com'].x == 1", gpu())
    with pytest.raises(CelEvalError, match="no such key: x"):
        ev("device.attributes['other.com']['x'] == 1", gpu())


def test_domains_split_at_first_slash_and_default_to_driver():
    d = gpu(7)
    assert ev("device.attributes['resource.kubernetes.io'].pciBusID == '0000:07:00.0'", d) is True
    assert ev("device.attributes['gpu.nvidia.com'].type == 'gpu'", d) is True
    assert ev("device.capacity['gpu.nvidia.com'].memory == quantity('40Gi')", d) is True
    with pytest.raises(CelEvalError, match="no such key: pciBusID"):
        ev("device.attributes['gpu.nvidia.com'].pciBusID == ''", d)


def test_device_fields():
    d = gpu()
    assert ev("device.driver == 'gpu.nvidia.com'", d) is True
    assert ev("device.allowMultipleAllocations == false", d) is True
    d["allowMultipleAllocations"] = True
    assert ev("device.allowMultipleAllocations", d) is True


def test_list_attributes_and_includes():
    d = {"attributes": {"ids": {"ints": [1, 2, 3]}, "tags": {"strings": ["a", "b"]}, "v": {"versions": ["1.2.3"]}}}
    assert ev("device.attributes['x.com'].ids.includes(2)", d, driver="x.com") is True
    assert ev("device.attributes['x.com'].tags.includes('c')", d, driver="x.com") is False
    assert ev("device.attributes['x.com'].ids.sum() == 6", d, driver="x.com") is True
    assert ev("device.attributes['x.com'].v[0].major() == 1", d, driver="x.com") is True


# -- the libraries -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "expr",
    [
        "quantity('1Ki') == quantity('1024')",
        "quantity('1.5Gi').isGreaterThan(quantity('1536Mi')) == false",
        "quantity('1').compareTo(quantity('2')) == -1",
        "quantity('1').add(quantity('500m')) == quantity('1500m')",
        "quantity('1').add(2) == quantity('3')",
        "quantity('3').sub(1).isLessThan(quantity('3'))",
        "quantity('-5').sign() == -1",
        "quantity('40Gi').asInteger() == 42949672960",
        "quantity('1k').isInteger()",
        "!quantity('1000m').isInteger()",  # apimachinery AsInt64 semantics
        "quantity('1500m').asApproximateFloat() == 1.5",
        "isQuantity('10Gi') && !isQuantity('10K')",
        "semver('1.2.3').isLessThan(semver('1.10.0'))",
        "semver('1.0.0-alpha').isLessThan(semver('1.0.0'))",
        "semver('1.0.0+build') == semver('1.0.0')",
        "semver('v1.2', true) == semver('1.2.0')",
        "isSemver('1.2.3') && !isSemver('1.2') && isSemver('1.2', true)",
        "semver('2.3.4').major() == 2 && semver('2.3.4').minor() == 3 && semver('2.3.4').patch() == 4",
        "semver('1.2.3').compareTo(semver('1.2.3')) == 0",
        "1 == 1.0",
        "1u == 1",
        "!('a' == 1)",
        "'a' != 1",
        "1 < 2.5",
        "[1, 2] == [1.0, 2.0]",
        "1 in [1.0, 2.0]",
        "'Hello World'.lowerAscii() == 'hello world'",
        "'abc'.upperAscii() == 'ABC'",
        "'  x  '.trim() == 'x'",
        "'a-b-c'.replace('-', '+') == 'a+b+c'",
        "'a-b-c'.replace('-', '+', 1) == 'a+b-c'",
        "'a,b,c'.split(',') == ['a', 'b', 'c']",
        "'a,b,c'.split(',', 2) == ['a', 'b,c']",
        "'hello'.substring(1, 3) == 'el'",
        "'hello'.substring(2) == 'llo'",
        "'hello'.indexOf('l') == 2 && 'hello'.lastIndexOf('l') == 3",
        "'hello'.indexOf('l', 3) == 3 && 'hello'.indexOf('z') == -1",
        "'hello'.charAt(1) == 'e' && 'hello'.charAt(5) == ''",
        "['a', 'b'].join('-') == 'a-b' && ['a', 'b'].join() == 'ab'",
        "'NVIDIA A100'.startsWith('NVIDIA') && 'x.y'.endsWith('.y') && 'abc'.contains('b')",
        "[1, 2, 3].isSorted() && ![3, 1].isSorted()",
        "[1, 2, 3].sum() == 6 && [3, 1, 2].min() == 1 && [3, 1, 2].max() == 3",
        "[1, 2, 1].indexOf(1) == 0 && [1, 2, 1].lastIndexOf(1) == 2",
        "[1, 2, 3].exists(x, x > 2) && [1, 2, 3].all(x, x > 0) && [1, 2].map(x, x * 2) == [2, 4]",
        "'abc 123'.find('[0-9]+') == '123'",
    ],
)
def test_library_expression_is_true(expr):
    assert ev(expr, gpu()) is True


@pytest.mark.parametrize(
    "expr,fragment",
    [
        ("quantity('1') < quantity('2')", "no such overload"),
        ("semver('1.0.0') > semver('0.1.0')", "no such overload"),
        ("quantity('1') == 1", "no such overload"),
        ("quantity('1.5').asInteger() == 1", "cannot convert value to integer"),
        ("quantity('10K').sign() == 1", "suffix"),
        ("semver('1.2') == semver('1.2.0')", "No Major.Minor.Patch"),
        ("'abc'.charAt(9) == ''", "index out of range: 9"),
        ("'abc'.substring(2, 1) == ''", "invalid substring range"),
        ("[].max() == 1", "max called on empty list"),
    ],
)
def test_library_runtime_errors(expr, fragment):
    with pytest.raises(CelEvalError, match=fragment.replace("(", r"\(").replace(")", r"\)")):
        ev(expr, gpu())


def test_bad_version_attribute_fails_every_selector():
    d = gpu()
    d["attributes"]["driverVersion"] = {"version": "550.54"}
    with pytest.raises(CelEvalError, match="attribute driverVersion: parse semantic version"):
        SelectorEvaluator().matches(["true"], NV, d)
    assert SelectorEvaluator().matches([], NV, d) is True  # nothing evaluated


# -- compile errors and unsupported syntax ----------------------------------------------------


@pytest.mark.parametrize(
    "expr,fragment",
    [
        ("device.driver ==", "syntax error at line 1"),
        ("?!", "syntax error"),
        ("devce.driver == 'x'", "undeclared reference to 'devce'"),
        ("device.drivr == 'x'", "undefined field 'drivr'"),
        ("nosuchfn(device.driver)", "undeclared reference to 'nosuchfn'"),
        ("device.driver.nosuchmethod()", "undeclared reference to 'nosuchmethod'"),
        ("has(device.attributes['x'])", "invalid argument to has() macro"),
        ("math.greatest(1, 2) == 2", "undeclared reference to 'math.greatest'"),
        ("[1].reduce(a, b, 0, a + b) == 1", "undeclared reference to 'reduce'"),
    ],
)
def test_compile_errors(expr, fragment):
    with pytest.raises(CelCompileError) as e:
        compile_selector(expr)
    assert e.value.unsupported is False
    assert fragment in str(e.value)
    assert str(e.value).startswith("does not compile:")


@pytest.mark.parametrize(
    "expr,fragment",
    [
        ("optional.of(device.driver).hasValue()", "optional"),
        ("[?device.attributes['gpu.nvidia.com'][?'index']].size() == 0", "optional syntax"),
        ("cel.bind(a.b, device.attributes['gpu.nvidia.com'], a.type == 'gpu')", "cel.bind"),  # not a simple name
        ("sets.contains(['a', 'b'], ['a'])", "sets.contains"),
        ("lists.range(3).size() == 3", "lists.range"),
        ("device.attributes['gpu.nvidia.com'].all(k, v, k != '')", "two-variable comprehension all()"),
        ("[1, 2].map(x, x > 1, x * 2) == [4]", "map() with a filter"),
        ("[1, 2].transformList(i, v, v * 2) == [2, 4]", "transformList"),
        ("isURL('https://x')", "isURL"),
        ("ip('10.0.0.1').family() == 4", "family()"),
    ],
)
def test_unsupported_syntax_is_reported_as_not_evaluable(expr, fragment):
    with pytest.raises(CelCompileError) as e:
        compile_selector(expr)
    assert e.value.unsupported is True
    assert fragment in str(e.value)
    assert "not evaluable by this tool" in str(e.value)


def test_optional_syntax_inside_a_string_is_not_optional_syntax():
    assert ev("device.attributes['gpu.nvidia.com'].productName != 'a.?b[?c'", gpu()) is True


def test_length_limit():
    long_ok = "device.driver == '" + "x" * (MAX_EXPRESSION_LENGTH - 20) + "'"
    assert len(long_ok.encode()) <= MAX_EXPRESSION_LENGTH
    assert compile_selector(long_ok).evaluate(device_activation(NV, gpu())) is False
    too_long = "true || '" + "x" * MAX_EXPRESSION_LENGTH + "' == ''"
    with pytest.raises(CelCompileError, match=f"at most {MAX_EXPRESSION_LENGTH}") as e:
        compile_selector(too_long)
    assert e.value.unsupported is False
    # bytes, not characters
    multibyte = "'" + "é" * (MAX_EXPRESSION_LENGTH // 2) + "' != ''"
    with pytest.raises(CelCompileError, match="bytes long"):
        compile_selector(multibyte)


def test_compile_cache_returns_same_object_and_same_error():
    assert compile_selector(GPU_CLASS) is compile_selector(GPU_CLASS)
    with pytest.raises(CelCompileError) as e1:
        compile_selector("device.driver ==")
    with pytest.raises(CelCompileError) as e2:
        compile_selector("device.driver ==")
    assert e1.value is e2.value


def test_error_classes():
    assert issubclass(CelCompileError, CelError) and issubclass(CelEvalError, CelError)
    with pytest.raises(CelEvalError) as e:
        ev(PROFILE_1G5, gpu())
    assert str(e.value).startswith("runtime error: no such key: profile")
    assert "(in activation" not in str(e.value)


# -- shapes and caching ----------------------------------------------------------------------


def test_shape_key_ignores_name_counters_and_placement():
    a, b = mig(), mig()
    b["name"] = "gpu-3-mig-1g5gb-19-4"
    b["consumesCounters"] = [{"counterSet": "gpu-3-counter-set", "counters": {}}]
    b["nodeName"] = "other-node"
    assert device_shape_key(NV, a) == device_shape_key(NV, b)
    hash(device_shape_key(NV, a))
    c = mig()
    c["capacity"]["memory"] = {"value": "9856Mi"}
    assert device_shape_key(NV, a) != device_shape_key(NV, c)
    assert device_shape_key(NV, a) != device_shape_key("other.com", a)
    d = mig()
    d["allowMultipleAllocations"] = True
    assert device_shape_key(NV, a) != device_shape_key(NV, d)
    e = {"attributes": {"ids": {"ints": [1, 2]}}}
    assert device_shape_key(NV, e) == device_shape_key(NV, copy.deepcopy(e))


def test_identical_devices_evaluate_once():
    evaluator = SelectorEvaluator()
    devices = [mig() for _ in range(1000)]
    assert all(evaluator.matches([MIG_CLASS], NV, d) for d in devices)
    assert evaluator.evaluations == 1
    assert evaluator.cache_hits == 999


def test_devices_differing_only_in_unread_attributes_share_a_result():
    evaluator = SelectorEvaluator()
    devices = [gpu(i % 256, uuid=f"GPU-{i}") for i in range(1000)]  # unique uuid and bus id
    assert len({device_shape_key(NV, d) for d in devices}) == 1000  # every full shape differs
    assert all(evaluator.matches([GPU_CLASS, A100], NV, d) for d in devices)
    assert evaluator.evaluations == 2  # both selectors, once
    evaluator.matches([GPU_CLASS], NV, mig())
    assert evaluator.evaluations == 3  # type differs: a new evaluation


def test_expression_reading_everything_falls_back_to_full_shape():
    evaluator = SelectorEvaluator()
    expr = "device.attributes['gpu.nvidia.com'].all(k, k != 'zzz')"
    for i in range(10):
        assert evaluator.matches([expr], NV, gpu(i)) is True
    assert evaluator.evaluations == 10


def test_errors_are_cached_too():
    evaluator = SelectorEvaluator()
    for i in range(50):
        with pytest.raises(CelEvalError, match="no such key: index"):
            evaluator.matches([DEMO_INDEX], NV, gpu(i))
    assert evaluator.evaluations == 1
    assert evaluator.cache_hits == 49
    for _ in range(3):
        with pytest.raises(CelCompileError):
            evaluator.matches(["device.driver =="], NV, gpu())
    assert evaluator.evaluations == 1


def test_selectors_stop_at_first_false_like_the_scheduler():
    evaluator = SelectorEvaluator()
    # the second selector would fail on a GPU, but the first is already false
    assert evaluator.matches([MIG_CLASS, PROFILE_1G5], NV, gpu()) is False
    assert evaluator.evaluations == 1
    with pytest.raises(CelEvalError, match="no such key: profile"):
        evaluator.matches([GPU_CLASS, PROFILE_1G5], NV, gpu())


def test_empty_selector_list_matches():
    evaluator = SelectorEvaluator()
    assert evaluator.matches([], NV, gpu()) is True
    assert evaluator.evaluations == 0


def test_activation_structure():
    act = device_activation(NV, mig())
    dev = act["device"]
    assert dev["driver"] == NV
    assert dev["allowMultipleAllocations"] is not None and not dev["allowMultipleAllocations"]
    assert set(dev["attributes"]) == {NV}
    assert str(dev["capacity"][NV]["memory"].q) == "4864Mi"
    assert dev["attributes"]["nope.example.com"] == {}
    with pytest.raises(KeyError):
        dev["attributes"][NV]["index"]


def test_module_surface():
    assert set(cel.__all__) >= {
        "CelError", "CelCompileError", "CelEvalError", "compile_selector", "device_activation",
        "device_shape_key", "SelectorEvaluator",
    }


@pytest.mark.parametrize("expression,kind", [
    ("device.driver", "string"), ("size(device.driver)", "int"), ("device.driver.lowerAscii()", "string"),
    ("1 + 1", "an arithmetic result"), ("'a'", "string"), ("[true]", "list"), ("{'a': true}", "map"),
    ("(2)", "int"), ("device.driver == 'a' ? 1 : 2", "int"), ("quantity('1Gi')", "kubernetes.Quantity"),
])
def test_a_selector_that_plainly_is_no_bool_does_not_compile(expression, kind):
    """The DRA environment compiles a selector only when it evaluates to bool (or dyn):
    'must evaluate to bool or the unknown type, not string'."""
    with pytest.raises(CelCompileError) as e:
        compile_selector(expression)
    assert not getattr(e.value, "unsupported", False) and f"must evaluate to bool, not {kind}" in str(e.value)


@pytest.mark.parametrize("expression", [
    "device.driver == 'a'", "device.attributes['d'].flag", "size(device.driver) > 2", "true ? true : 1 == 1",
    "device.allowMultipleAllocations", "!device.attributes['d'].flag", "1 + 1 == 2",
])
def test_a_selector_of_bool_or_unknown_type_compiles(expression):
    compile_selector(expression)
