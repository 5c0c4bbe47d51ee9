"""Validation of deviceClassMappings: the operator CRD's rules and Kueue's startup rules."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kubectl_kueue_dra.k8s.names import capacity_name_error, dns_label_error, dns_subdomain_error, qualified_name_error
from kubectl_kueue_dra.kueue.config.mapping_rules import Rules, new_violations, validate
from kubectl_kueue_dra.kueue.config.mappings import OPERATOR, UPSTREAM, Source, mapping_entry, parse_mappings

SEL = "device.driver == 'gpu.example.com'"
OP = Rules(dialect=OPERATOR, kueue_minor=19, counter_gate=True)
UP19 = Rules(dialect=UPSTREAM, kueue_minor=19, counter_gate=True, capacity_gate=False)
UP18 = Rules(dialect=UPSTREAM, kueue_minor=18, counter_gate=False)
UP_UNKNOWN = Rules(dialect=UPSTREAM, kueue_minor=None, counter_gate=None)


def m(name, *classes, counter=None, capacity=None, dialect=UPSTREAM, driver="gpu.example.com",
      selector=SEL):
    sources = []
    if counter:
        sources.append(Source("counter", counter, driver, selector))
    if capacity:
        sources.append(Source("capacity", capacity, driver, selector))
    return mapping_entry(name, list(classes), sources, dialect)


def rules_of(violations, severity="error"):
    return sorted({v.rule.name for v in violations if v.severity == severity})


def test_valid_lists_pass_both_dialects():
    assert validate([m("gpu", "gpu.example.com"), m("nvidia.com/mig", "mig.example.com")], UP19) == []
    op = [m("gpu.memory", "gpu.example.com", "mig.example.com", counter="memory", dialect=OPERATOR)]
    assert validate(op, OP) == []
    assert validate(None, OP) == [] and validate([], UP19) == []


def test_too_many_mappings_and_classes():
    raw = [m(f"r{i}", f"c{i}") for i in range(17)]
    assert "TooManyMappings" in rules_of(validate(raw, UP19))
    assert rules_of(validate(raw[:16], UP19)) == []
    nine = [m("gpu", *[f"c{i}" for i in range(9)])]
    assert rules_of(validate(nine, OP)) == ["TooManyDeviceClasses"]
    assert rules_of(validate([{"name": "gpu", "deviceClassNames": []}], UP19)) == ["NoDeviceClasses"]


@pytest.mark.parametrize("name,ok", [
    ("gpu", True), ("nvidia.com/gpu", True), ("a_b.c-d", True), ("Gpu", True),
    ("-gpu", False), ("a/b/c", False), ("UPPER.com/gpu", False), ("/gpu", False),
    ("x" * 64, False), ("a.com/" + "x" * 63, True), ("gpu/", False),
])
def test_qualified_names(name, ok):
    assert (qualified_name_error(name) is None) == ok


def test_name_rules():
    assert rules_of(validate([m("bad name", "c")], UP19)) == ["InvalidName"]
    assert rules_of(validate([m("pods", "c")], OP)) == ["ReservedName"]
    assert rules_of(validate([m("gpu", "c1"), m("gpu", "c2")], UP19)) == ["DuplicateName"]
    assert rules_of(validate([m("gpu", "c1", "c1")], OP)) == ["DuplicateDeviceClass"]
    assert rules_of(validate([m("gpu", "Bad Class")], OP)) == ["InvalidDeviceClassName"]


def test_class_in_two_mappings():
    plain = [m("a", "c"), m("b", "c")]
    assert rules_of(validate(plain, UP19)) == ["DeviceClassInTwoMappings"]
    # upstream 0.19: allowed when both first sources are counters with different names
    multi = [m("gpu.memory", "c", counter="memory"), m("gpu.compute", "c", counter="multiprocessors")]
    assert validate(multi, UP19) == []
    same = [m("a", "c", counter="memory"), m("b", "c", counter="memory")]
    found = validate(same, UP19)
    assert rules_of(found) == ["DeviceClassInTwoMappings"]
    assert "already has a counter source for counter 'memory'" in str(found[0])
    # 0.18 and the operator: never
    assert rules_of(validate(multi, Rules(dialect=UPSTREAM, kueue_minor=18, counter_gate=True))) == ["DeviceClassInTwoMappings"]
    op_multi = [m("gpu.memory", "c", counter="memory", dialect=OPERATOR),
                m("gpu.compute", "c", counter="multiprocessors", dialect=OPERATOR)]
    assert rules_of(validate(op_multi, OP)) == ["DeviceClassInTwoMappings"]
    # unknown version: a warning, not a refusal
    found = validate(multi, Rules(dialect=UPSTREAM, kueue_minor=None, counter_gate=True))
    assert rules_of(found) == [] and rules_of(found, "warning") == ["DeviceClassInTwoMappings"]


def test_counter_source_rules():
    assert rules_of(validate([m("g", "c", counter="Memory")], UP19)) == ["InvalidCounterName"]
    long_driver = "d" * 64
    assert rules_of(validate([m("g", "c", counter="memory", driver=long_driver, dialect=OPERATOR)],
                             OP)) == ["DriverTooLong"]
    assert rules_of(validate([m("g", "c", counter="memory", driver="Bad_Driver")], UP19)) == ["InvalidDriver"]
    assert rules_of(validate([m("g", "c", counter="memory", selector="device.driver ==")], UP19)) \
        == ["SelectorDoesNotCompile"]
    assert rules_of(validate([m("g", "c", counter="memory", selector="")], UP19)) == ["MissingSelector"]
    long_sel = "device.driver == '" + "x" * 1100 + "'"
    assert rules_of(validate([m("g", "c", counter="memory", selector=long_sel, dialect=OPERATOR)], OP)) \
        == ["SelectorTooLong"]
    assert validate([m("g", "c", counter="memory", selector=long_sel)], UP19) == []


def test_counter_gate():
    raw = [m("g", "c", counter="memory")]
    found = validate(raw, UP18)
    assert rules_of(found) == ["CounterSourcesDisabled"]
    assert "KueueDRAIntegrationPartitionableDevices" in str(found[0])
    assert rules_of(validate(raw, UP_UNKNOWN), "warning") == ["CounterSourcesDisabled"]
    assert rules_of(validate(raw, UP_UNKNOWN)) == []
    op18 = Rules(dialect=OPERATOR, kueue_minor=18, counter_gate=False, counter_gate_hint="FeatureGate hint")
    found = validate([m("g", "c", counter="memory", dialect=OPERATOR)], op18)
    assert rules_of(found) == ["CounterSourcesDisabled"] and found[0].fix == "FeatureGate hint"


def test_source_counts_and_kinds():
    two = [mapping_entry("g", ["c"], [Source("counter", "memory", "d.io", SEL),
                                      Source("counter", "cores", "d.io", SEL)], OPERATOR)]
    assert rules_of(validate(two, OP)) == ["TooManySources"]
    two_up = [mapping_entry("g", ["c"], [Source("counter", "memory", "d.io", SEL),
                                         Source("counter", "cores", "d.io", SEL)], UPSTREAM)]
    assert validate(two_up, UP19) == []
    assert rules_of(validate(two_up, Rules(dialect=UPSTREAM, kueue_minor=18, counter_gate=True))) == ["TooManySources"]
    mixed = [mapping_entry("g", ["c"], [Source("counter", "memory", "d.io", SEL),
                                        Source("capacity", "memory", "d.io", SEL)], UPSTREAM)]
    assert rules_of(validate(mixed, Rules(dialect=UPSTREAM, kueue_minor=19, counter_gate=True, capacity_gate=True))) == ["MixedSources"]
    neither = [{"name": "g", "deviceClassNames": ["c"], "sources": [{}]}]
    assert rules_of(validate(neither, UP19)) == ["InvalidSource"]
    assert rules_of(validate([{"name": "g", "deviceClassNames": ["c"], "sources": []}], UP19)) \
        == ["InvalidSources"]


def test_capacity_sources():
    raw = [m("g", "c", capacity="memory")]
    assert rules_of(validate(raw, UP19)) == ["CapacitySourcesDisabled"]
    assert validate(raw, Rules(dialect=UPSTREAM, kueue_minor=19, counter_gate=True, capacity_gate=True)) == []
    assert "CapacityNotSupported" in rules_of(validate(raw, UP18))
    op = [{"name": "g", "deviceClassNames": ["c"], "sources": [{"type": "Capacity", "capacity": {}}]}]
    assert "CapacityNotSupported" in rules_of(validate(op, OP))
    assert capacity_name_error("memory") is None and capacity_name_error("example.com/mem") is None
    assert capacity_name_error("mem-ory") is not None


def test_dialect_fields():
    operator_style = [m("g", "c", counter="memory", dialect=OPERATOR)]
    assert rules_of(validate(operator_style, UP19)) == ["UnknownField"]  # 'type' would crash Kueue
    upstream_style = [m("g", "c", counter="memory", dialect=UPSTREAM)]
    assert rules_of(validate(upstream_style, OP)) == ["InvalidSelector", "InvalidSource"]
    assert rules_of(validate([dict(m("g", "c"), extra=1)], UP19)) == ["UnknownField"]


def test_extended_resource_classes_get_no_counters():
    rules = Rules(dialect=UPSTREAM, kueue_minor=19, counter_gate=True, extended_resource_classes=frozenset({"c"}))
    found = validate([m("g", "c", counter="memory")], rules)
    assert rules_of(found) == ["ExtendedResourceWithCounters"]
    assert "set-extended-resource c --clear" in found[0].fix
    assert validate([m("g", "c")], rules) == []


def test_name_formats():
    assert dns_label_error("memory") is None and dns_label_error("mem.ory") is not None
    assert dns_subdomain_error("gpu.nvidia.com") is None and dns_subdomain_error("GPU") is not None


def test_new_violations_split():
    before = validate([m("a", "c"), m("b", "c")], UP19)
    after = validate([m("a", "c"), m("b", "c"), m("pods", "d")], UP19)
    added, existing = new_violations(before, after)
    assert [v.rule.name for v in added] == ["ReservedName"]
    assert [v.rule.name for v in existing] == ["DeviceClassInTwoMappings"]


# ---- any value anywhere: the rules report it, nothing crashes ---------------------------------

_JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
                     lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
                     max_leaves=6)
_PATHS = [("name",), ("deviceClassNames",), ("deviceClassNames", 0), ("sources",), ("sources", 0),
          ("sources", 0, "counter"), ("sources", 0, "counter", "name"), ("sources", 0, "counter", "driver"),
          ("sources", 0, "counter", "deviceSelector"), ("sources", 0, "counter", "deviceSelector", "cel"),
          ("sources", 0, "counter", "deviceSelector", "cel", "expression")]


@settings(max_examples=300, deadline=None, database=None)
@given(path=st.sampled_from(_PATHS), value=_JSON, dialect=st.sampled_from([UPSTREAM, OPERATOR]))
def test_a_malformed_mapping_is_reported_never_a_crash(path, value, dialect):
    entry = {"name": "gpu.memory", "deviceClassNames": ["mig.example.com"], "sources": [{"counter": {
        "name": "memory", "driver": "gpu.example.com", "deviceSelector": {"cel": {"expression": "true"}}}}]}
    where = entry
    for key in path[:-1]:
        where = where[key]
    where[path[-1]] = value
    parse_mappings([entry])
    found = validate([entry], Rules(dialect=dialect, kueue_minor=19, counter_gate=True, capacity_gate=True))
    source = (entry.get("sources") or [None])[0] if isinstance(entry.get("sources"), list) else None
    body = source.get("counter") if isinstance(source, dict) else None
    selector = body.get("deviceSelector") if isinstance(body, dict) else None
    cel = selector.get("cel") if isinstance(selector, dict) else None
    expression = cel.get("expression") if isinstance(cel, dict) else None
    if isinstance(body, dict) and not (isinstance(expression, str) and expression):
        assert found  # a counter source without a CEL expression is always reported
