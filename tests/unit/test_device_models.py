"""Devices grouped by their models (``kube.compact`` finds the device lists alike their models,
``dra.devices.ShapeIndex`` keys such a device as its model when no selector reads what differs):
the groups, their order and their first devices are the ones the device-by-device keying gives."""

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from kubectl_kueue_dra.dra.cel import SelectorEvaluator
from kubectl_kueue_dra.dra.cel import keys as cel_keys
from kubectl_kueue_dra.dra.devices import ShapeIndex, count_matching, group_pools
from kubectl_kueue_dra.kube.compact import SliceCompactor

NV = "gpu.nvidia.com"
SELECTORS = [
    f"device.attributes['{NV}'].type == 'gpu'",
    f"device.attributes['{NV}'].uuid == 'GPU-1'",  # reads what differs between alike devices
    f"device.attributes['{NV}'].count > 1",
    f"device.attributes['{NV}'].cc.compareTo(semver('8.5.0')) >= 0",  # a bad version fails it
    f"device.capacity['{NV}'].memory.compareTo(quantity('50Gi')) >= 0",
    f"'uuid' in device.attributes['{NV}']",
    f"device.attributes['{NV}'].all(k, k != 'zzz')",  # reads the whole device
    "device.driver == 'gpu.nvidia.com'",
]
SelectorEvaluator().union_footprint([[s] for s in SELECTORS])  # compiled before Hypothesis runs (the parser's set-up)
ATTRIBUTES = {
    "type": st.sampled_from([{"string": "gpu"}, {"string": "mig"}]),
    "uuid": st.sampled_from([{"string": "GPU-1"}, {"string": "GPU-2"}, {"string": "GPU-3"}, {"int": 4}]),
    "count": st.sampled_from([{"int": 1}, {"int": 2}]),
    "cc": st.sampled_from([{"version": "9.0.0"}, {"version": "8.0.0"}, {"version": "bad"}]),
    "driverVersion": st.sampled_from([{"version": "550.0.0"}, {"version": "worse"}]),
    f"{NV}/extra": st.sampled_from([{"string": "x"}, {"string": "y"}]),
}
# the attributes in any order: with two that do not convert, the first one met is the device's problem
ATTRIBUTE_MAPS = st.tuples(st.fixed_dictionaries({}, optional=ATTRIBUTES), st.permutations(list(ATTRIBUTES))).map(
    lambda drawn: {a: drawn[0][a] for a in drawn[1] if a in drawn[0]})
DEVICE = st.fixed_dictionaries({
    "name": st.sampled_from(["gpu-0", "gpu-0", "gpu-1"]),
    "attributes": ATTRIBUTE_MAPS,
}, optional={"capacity": st.sampled_from([{"memory": {"value": "80Gi"}}, {"memory": {"value": "40Gi"}}])})


def slices_of(lists):
    compact = SliceCompactor()
    slices = [compact({"kind": "ResourceSlice", "metadata": {"name": f"s{i}"},
                       "spec": {"driver": NV, "pool": {"name": f"node-{i % 2}", "generation": 1,
                                                       "resourceSliceCount": 1 + (i < 2)},
                                "devices": devices}})
              for i, devices in enumerate(lists)]
    return slices, compact.parts


def groups(index):
    return ([(pool.name, [id(d) for d in devices], ids, counts) for pool, devices, ids, counts in index.pools],
            [id(d) for _, d in index.representatives])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(DEVICE, min_size=1, max_size=4), min_size=1, max_size=5),
       st.lists(st.lists(st.sampled_from(SELECTORS), max_size=2), min_size=1, max_size=3))
def test_grouped_by_models_as_device_by_device(lists, selector_lists):
    slices, parts = slices_of(lists)
    alone = ShapeIndex(group_pools(slices), selector_lists, SelectorEvaluator())
    by_models = ShapeIndex(group_pools(slices, parts), selector_lists, SelectorEvaluator())
    assert groups(by_models) == groups(alone)
    for sels in selector_lists:
        want = count_matching(group_pools(slices), sels, SelectorEvaluator())
        assert count_matching(group_pools(slices, parts), sels, SelectorEvaluator()) == want


def test_alike_devices_are_keyed_once_per_model(monkeypatch):
    """Nodes alike but for their uuids: a selector that does not read the uuid keys each model
    once (the attribute conversion checked once per model, not per device); one that reads it
    keys every device."""
    def node(n):
        return [{"name": f"gpu-{k}", "attributes": {"type": {"string": "gpu"}, "uuid": {"string": f"GPU-{n}-{k}"},
                                                    "cc": {"version": "9.0.0"}},
                 "capacity": {"memory": {"value": "80Gi"}}} for k in range(4)]
    slices, parts = slices_of([node(n) for n in range(10)])
    assert len(parts.alike) == 10
    checked = []
    real = cel_keys.attribute_problem
    monkeypatch.setattr(cel_keys, "attribute_problem", lambda *a: checked.append(a[1]["name"]) or real(*a))
    index = ShapeIndex(group_pools(slices, parts), [[SELECTORS[0]]], SelectorEvaluator())
    assert len(index.representatives) == 1 and len(checked) <= 2 * 4  # 40 devices, 4 models
    checked.clear()
    index = ShapeIndex(group_pools(slices, parts), [[SELECTORS[1]]], SelectorEvaluator())
    assert len(index.representatives) == 40 and len(checked) >= 40


def test_a_model_whose_attributes_do_not_convert_keys_each_device_alone():
    """Two attributes that do not convert: a device's problem is the first one in its own order,
    which an alike device need not share."""
    bad = {"cc": {"version": "bad"}, "driverVersion": {"version": "worse"}}
    first = {"name": "gpu-0", "attributes": {"uuid": {"string": "GPU-1"}, **bad}}
    second = {"name": "gpu-0", "attributes": {"uuid": {"string": "GPU-2"}, **dict(reversed(bad.items()))}}
    slices, parts = slices_of([[first], [second]])
    assert len(parts.alike) == 2
    alone = ShapeIndex(group_pools(slices), [[SELECTORS[0]]], SelectorEvaluator())
    by_models = ShapeIndex(group_pools(slices, parts), [[SELECTORS[0]]], SelectorEvaluator())
    assert groups(by_models) == groups(alone) and len(alone.representatives) == 2


COUNTERS = st.sampled_from([[{"counterSet": "gpu-0", "counters": {"memory": {"value": "10Gi"}}}],
                            [{"counterSet": "gpu-0", "counters": {"memory": {"value": "20Gi"}}}], []])
# devices of one name differing in their capacity, counters, other fields and their order
FULL_DEVICE = st.tuples(st.fixed_dictionaries({
    "name": st.sampled_from(["gpu-0", "gpu-0", "gpu-1"]),
    "attributes": ATTRIBUTE_MAPS,
}, optional={"capacity": st.sampled_from([{"memory": {"value": "80Gi"}}, {"memory": {"value": "40Gi"}}, {}]),
             "consumesCounters": COUNTERS,
             "allowMultipleAllocations": st.booleans(),
             "taints": st.just([{"key": "k", "effect": "NoSchedule"}])}), st.booleans()).map(
    lambda drawn: dict(reversed(drawn[0].items())) if drawn[1] else drawn[0])


def sharing(lists, compact):
    """What compacting ``lists`` made of them: the values, which objects are one (numbered in the
    order met), each list's models and each model's attributes that differ."""
    numbers: dict[int, int] = {}
    slices = [compact({"kind": "ResourceSlice", "metadata": {"name": f"s{i}"},
                       "spec": {"driver": NV, "pool": {"name": "node"}, "devices": devices}})
              for i, devices in enumerate(lists)]

    def number(value):
        return numbers.setdefault(id(value), len(numbers))
    shape = [[(number(d), {k: number(v) for k, v in d.items() if k != "name"},
               {a: number(v) for a, v in d["attributes"].items()}) for d in s["spec"]["devices"]] for s in slices]
    models = [(lambda m: m and [number(x) for x in m[0]])(compact.parts.models_of(s["spec"]["devices"]))
              for s in slices]
    differs = {numbers[k]: v for k, v in compact.parts.differs.items() if k in numbers}
    return slices, shape, models, differs, {numbers[k] for k in compact.parts.held if k in numbers}


def parsed(value):
    """``value`` as a parser gives it: no object twice (Hypothesis draws share them)."""
    return json.loads(json.dumps(value))


class TablesOnly(SliceCompactor):
    """Every device's parts looked up in the tables: no model is tried first."""

    def _remember(self, key, found):
        pass


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(FULL_DEVICE, min_size=1, max_size=4), min_size=1, max_size=6))
def test_the_models_tried_first_share_as_the_tables_do(lists):
    """A device tried first with the models of its name met before (``_Model.takes``) is shared,
    and found alike, exactly as when its parts are looked up in the compactor's tables; the values
    unchanged."""
    compact = SliceCompactor()
    fast = sharing(parsed(lists), compact)
    assert fast == sharing(parsed(lists), TablesOnly())
    assert [s["spec"]["devices"] for s in fast[0]] == lists
    assert_alike_their_models(fast[0], compact.parts)


def assert_alike_their_models(slices, parts):
    """What ``SharedParts.alike`` promises: each device of a list alike its models holds its
    model's fields in its order, each the very object but for a string name and attributes of the
    same names."""
    for s in slices:
        devices = s["spec"]["devices"]
        found = parts.models_of(devices)
        for device, model in zip(devices, found[0] if found else ()):
            assert tuple(device) == tuple(model) and type(device["name"]) is str
            assert all(device[k] is model[k] for k in device if k not in ("name", "attributes"))
            assert device["attributes"].keys() == model["attributes"].keys()


def test_a_model_whose_parts_are_not_shared_is_not_tried_first():
    """Past the candidates a part is not shared: a device equal to a model holding such a part is
    looked up in the tables, and is not alike it (that part is its own object). Eight counter
    consumptions under one name fill the candidates (one model: the capacity is the same), then a
    second capacity comes with a ninth."""
    def device(capacity, counters):
        return {"name": "gpu-0", "attributes": {"type": {"string": "gpu"}},
                "capacity": {"memory": {"value": f"{capacity}Gi"}},
                "consumesCounters": [{"counterSet": "s", "counters": {"memory": {"value": f"{counters}Gi"}}}]}
    lists = [[device(80, k)] for k in range(8)] + [[device(40, 8)], [device(40, 8)]]
    fast = sharing(parsed(lists), SliceCompactor())
    assert fast == sharing(parsed(lists), TablesOnly())
    ninth, last = fast[2][-2:]  # the ninth consumption's model (itself), then a device not alike it
    assert ninth == [fast[1][-2][0][0]] and last is None
