"""Simple selectors (``dra/cel/simple.py``) decided without cel-python, held to cel-python's answers:
the same terms and footprint where one is recognised, the same result where one is decided, and
through the evaluator the same results, errors and evaluation counts as with cel-python alone."""

import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kubectl_kueue_dra.dra.cel import KUEUE_DRA_V036, SCHEDULER, CelError, SelectorEvaluator, device_activation
from kubectl_kueue_dra.dra.cel import evaluator as cel_evaluator
from kubectl_kueue_dra.dra.cel import simple
from kubectl_kueue_dra.dra.cel.engine import compile_full

compile_full("true", SCHEDULER)  # cel-python raises the recursion limit once: before Hypothesis notes it

NV = "gpu.nvidia.com"
DOMAINS = [NV, "example.com", "resource.kubernetes.io"]
IDENTS = ["type", "profile", "index", "uuid", "driverVersion"]
VALUES = ["gpu", "mig", "1g.5gb", "", "GPU", "a b", "ü"]
DIALECTS = [SCHEDULER, KUEUE_DRA_V036]

settings.register_profile("cel-simple", deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def literals(draw, choices=VALUES):
    value = draw(st.sampled_from(choices))
    quote = draw(st.sampled_from(["'", '"']))
    return value, f"{quote}{value}{quote}"


@st.composite
def terms(draw):
    space = st.sampled_from(["", " ", "  ", "\n", "\t"])
    value, literal = draw(literals())
    if draw(st.booleans()):
        left, term = "device.driver", (None, None, value)
    else:
        domain, quoted = draw(literals(DOMAINS))
        ident = draw(st.sampled_from(IDENTS))
        left, term = f"device.attributes[{quoted}].{ident}", (domain, ident, value)
    return f"{draw(space)}{left}{draw(space)}=={draw(space)}{literal}{draw(space)}", term


@st.composite
def expressions(draw):
    parts = draw(st.lists(terms(), min_size=1, max_size=3))
    return "&&".join(text for text, _ in parts), tuple(term for _, term in parts)


@given(expressions())
@settings(settings.get_profile("cel-simple"), max_examples=150)
def test_a_simple_selector_is_what_cel_python_compiles(case):
    text, expected = case
    terms_found = simple.parse(text)
    assert terms_found == expected
    for dialect in DIALECTS:
        assert simple.SimpleSelector(text, terms_found, dialect).footprint == compile_full(text, dialect).footprint


@pytest.mark.parametrize("text", [
    "device.driver != 'x'", "device.driver == 'x' || device.driver == 'y'", "device.driver == 'a\\'b'",
    "device.driver == r'x'", "device.driver == '''x'''", "device . driver == 'x'", "device.driver == 'x' &&",
    "(device.driver == 'x')", "device.attributes['x'].in == 'y'", "device.attributes['x'].1a == 'y'",
    "'x' == device.driver", "device.driver == 'a&&b'", "device.driver == 'tab\there'", "device.attributes.x == 'y'",
    "device.capacity['x'].y == 'z'", "device.driver == x", "device.driver == 'x' // comment", "",
])
def test_anything_else_is_left_to_cel_python(text):
    assert simple.parse(text) is None


ATTRIBUTE_VALUES = st.one_of(
    st.sampled_from(VALUES).map(lambda v: {"string": v}),
    st.integers(-3, 3).map(lambda v: {"int": v}),
    st.sampled_from([1 << 63, -(1 << 63) - 1]).map(lambda v: {"int": v}),
    st.booleans().map(lambda v: {"bool": v}),
    st.sampled_from(["1.2.3", "v1", "01.2.3"]).map(lambda v: {"version": v}),
    st.just({"strings": ["gpu", "mig"]}),
    st.just({"string": "gpu", "int": 1}),
)


@st.composite
def devices(draw):
    names = [f"{d}/{i}" for d in DOMAINS for i in IDENTS] + IDENTS
    attrs = draw(st.dictionaries(st.sampled_from(names), ATTRIBUTE_VALUES, max_size=6))
    device = {"name": "d", "attributes": attrs}
    capacity = draw(st.sampled_from([None, {"value": "40Gi"}, {"value": "lots"}, "10"]))
    if capacity is not None:
        device["capacity"] = {f"{NV}/memory": capacity}
    return draw(st.sampled_from([NV, "example.com"])), device


def cel_python(expression, dialect, driver, device):
    """cel-python's answer: the value, or the error's text."""
    try:
        return compile_full(expression, dialect).evaluate(device_activation(driver, device, dialect))
    except CelError as e:
        return f"error: {e.detail}"


@given(expressions(), devices())
@settings(settings.get_profile("cel-simple"), max_examples=400)
def test_decided_only_as_cel_python_decides(case, device_case):
    text, terms_found = case
    driver, device = device_case
    for dialect in DIALECTS:
        decided = simple.SimpleSelector(text, terms_found, dialect).decide(driver, device)
        if decided is not None:
            assert decided is cel_python(text, dialect, driver, device)


def test_decided_for_the_devices_drivers_publish():
    """Not vacuous: true, false, and a term false where another reads a missing attribute (false in
    CEL whatever the order), each decided and each as cel-python says."""
    mig = {"name": "m", "attributes": {"type": {"string": "mig"}, "profile": {"string": "1g.5gb"},
                                       "driverVersion": {"version": "580.82.7"}, "index": {"int": 0}},
           "capacity": {f"{NV}/memory": {"value": "5Gi"}}}
    gpu = {"name": "g", "attributes": {"type": {"string": "gpu"}, "uuid": {"string": "GPU-1"}}}
    cases = [
        (f"device.driver == '{NV}' && device.attributes['{NV}'].type == 'mig'", mig, True),
        (f"device.driver == '{NV}' && device.attributes['{NV}'].type == 'mig'", gpu, False),
        (f"device.attributes['{NV}'].profile == '1g.5gb' && device.attributes['{NV}'].type == 'mig'", gpu, False),
        (f"device.attributes['{NV}'].type == 'mig' && device.attributes['{NV}'].profile == '1g.5gb'", gpu, False),
        (f"device.attributes['{NV}'].profile == '1g.5gb'", gpu, None),  # an error: cel-python's to word
        (f"device.attributes['{NV}'].index == '0'", mig, None),  # int == string: cel-python's to say
        # a name given twice, with and without the driver's domain: the later one is the value
        (f"device.attributes['{NV}'].type == 'mig'", {"attributes": {f"{NV}/type": {"string": "gpu"},
                                                                      "type": {"string": "mig"}}}, True),
        (f"device.attributes['{NV}'].type == 'mig'", {"attributes": {"type": {"string": "mig"},
                                                                      f"{NV}/type": {"string": "gpu"}}}, False),
    ]
    for text, device, expected in cases:
        selector = simple.SimpleSelector(text, simple.parse(text))
        assert selector.decide(NV, device) is expected, text
        if expected is not None:
            assert cel_python(text, SCHEDULER, NV, device) is expected, text


@given(st.lists(expressions(), min_size=1, max_size=3), st.lists(devices(), min_size=1, max_size=4))
@settings(settings.get_profile("cel-simple"), max_examples=150)
def test_the_evaluator_answers_as_with_cel_python_alone(selector_cases, device_cases):
    """Results, errors (text and expression) and evaluation counts, with and without the simple path."""
    selectors = [text for text, _ in selector_cases]
    for dialect in DIALECTS:
        answers = []
        for use_simple in (True, False):
            cel_evaluator._COMPILED.clear()
            original = simple.parse
            cel_evaluator.parse = original if use_simple else (lambda _text: None)
            try:
                evaluator = SelectorEvaluator(dialect)
                got = []
                for driver, device in device_cases:
                    try:
                        got.append(evaluator.matches(selectors, driver, device))
                    except CelError as e:
                        got.append((type(e).__name__, e.expression, e.detail))
                answers.append((got, evaluator.evaluations))
            finally:
                cel_evaluator.parse = original
                cel_evaluator._COMPILED.clear()
        assert answers[0] == answers[1]


def test_a_command_of_simple_selectors_does_not_load_cel_python():
    code = ("import sys; from kubectl_kueue_dra.dra.cel import SelectorEvaluator; "
            f"e = SelectorEvaluator(); d = {{'name': 'g', 'attributes': {{'type': {{'string': 'gpu'}}, "
            f"'driverVersion': {{'version': '580.82.7'}}}}}}; "
            f"assert e.matches([\"device.driver == '{NV}' && device.attributes['{NV}'].type == 'gpu'\"], '{NV}', d); "
            "assert not e.matches([\"device.attributes['x.com'].y == 'z' && device.driver == 'other'\"], 'a', d); "
            "print(sorted(m for m in ('celpy', 'lark') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
