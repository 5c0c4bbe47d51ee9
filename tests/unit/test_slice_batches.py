"""ResourceSlice batches parsed with their devices' repeated parts shared as text (kube/slices.py):
whatever the batch holds, the items equal msgspec's plain parse, and what the compactor and the
shape check make of them is what they make of the plain items."""

import copy
import io
import json

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kubectl_kueue_dra.k8s.object_shapes import SHAPES
from kubectl_kueue_dra.k8s.shape import check_object
from kubectl_kueue_dra.kube.parse import jsonstream
from kubectl_kueue_dra.kube.compact import SliceCompactor
from kubectl_kueue_dra.kube.parse.slices import SliceBatches

PLAIN = msgspec.json.Decoder()

SCALAR = st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.text(max_size=4)
VALUE = st.recursive(SCALAR, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner,
                                                                                           max_size=3), max_leaves=6)
QUANTITY = st.sampled_from(["1", "40Gi", "4864Mi", 5, None, "x"])
CAPACITY = st.sampled_from([{"memory": {"value": "40Gi"}}, {"memory": {"value": "4864Mi"}, "sms": {"value": "14"}}]) | \
    st.dictionaries(st.sampled_from(["memory", "sms", "x"]), st.fixed_dictionaries({"value": QUANTITY}), max_size=2) | \
    st.none() | VALUE
CONSUMES = st.sampled_from([[{"counterSet": "gpu-0", "counters": {"memory": {"value": "4864Mi"}}}],
                            [{"counterSet": "gpu-1", "counters": {"memory": {"value": "40Gi"}}}]]) | VALUE
ATTRIBUTES = st.dictionaries(st.sampled_from(["type", "uuid", "productName", "gpu.nvidia.com/index"]),
                             st.sampled_from([{"string": "mig"}, {"string": "A100"}, {"int": 3}, {"version": "1.0.0"}])
                             | VALUE, max_size=3) | VALUE
RARE = st.sampled_from(["nodeName", "allNodes", "taints", "bindsToNode", "allowMultipleAllocations", "basic", "extra"])
DEVICE = st.fixed_dictionaries({}, optional={
    "name": st.sampled_from(["gpu-0", "gpu-1", "gpu-0-mig-1g5gb"]) | SCALAR, "attributes": ATTRIBUTES,
    "capacity": CAPACITY, "consumesCounters": CONSUMES}) | \
    st.builds(lambda d, k, v: {**d, k: v}, st.fixed_dictionaries({"name": st.just("gpu-0")}), RARE, VALUE) | VALUE
SPEC = st.fixed_dictionaries({}, optional={
    "driver": st.sampled_from(["gpu.nvidia.com", "dra.net"]) | SCALAR, "nodeName": st.text(max_size=4),
    "pool": st.fixed_dictionaries({"name": st.text(max_size=4), "generation": st.integers(0, 3)}),
    "devices": st.lists(DEVICE, max_size=5) | VALUE, "sharedCounters": VALUE}) | VALUE
ITEM = st.fixed_dictionaries({}, optional={
    "apiVersion": st.sampled_from(["resource.k8s.io/v1", "resource.k8s.io/v1beta2", "v1"]) | SCALAR,
    "kind": st.sampled_from(["ResourceSlice", "ConfigMap", "Other"]) | SCALAR,
    "metadata": st.fixed_dictionaries({"name": st.text(max_size=4)}) | VALUE,
    "spec": SPEC, "status": VALUE}) | VALUE


def _compacted(items, compactor):
    """Each item as a live list makes it: compacted, then shape-checked (what was removed)."""
    out, found = [], []
    for item in items:
        if isinstance(item, dict) and item.get("kind") == "ResourceSlice" and isinstance(item.get("metadata"), dict):
            item = compactor(item)
            found.append(check_object("ResourceSlice", item, SHAPES["ResourceSlice"], compactor.parts))
        out.append(item)
    return out, found, compactor


def _both(items, listed=False, indent=None):
    text = json.dumps(items, indent=indent)
    compactor = SliceCompactor()
    return PLAIN.decode(text), SliceBatches(compactor, listed)(text), compactor


@settings(max_examples=300, deadline=None)
@given(st.lists(ITEM, max_size=6), st.booleans(), st.sampled_from([None, 2]))
def test_the_items_equal_the_plain_parse_whatever_they_hold(items, listed, indent):
    plain, ours, _ = _both(items, listed, indent)
    assert ours == plain


def _slice(node, devices, driver="gpu.nvidia.com", **extra):
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": f"{node}-{driver}"},
            "spec": {"driver": driver, "nodeName": node, "pool": {"name": node, "generation": 1, "resourceSliceCount": 1},
                     "devices": devices, **extra}}


def _mig(i, node, memory="4864Mi", uuid=True):
    return {"name": f"gpu-{i}-mig", "attributes": {"type": {"string": "mig"},
                                                    **({"uuid": {"string": f"{node}-{i}"}} if uuid else {})},
            "capacity": {"memory": {"value": memory}, "multiprocessors": {"value": "14"}},
            "consumesCounters": [{"counterSet": f"gpu-{i}", "counters": {"memory": {"value": memory}}}]}


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.sampled_from(["4864Mi", "9856Mi", 5, "bad value"]),
                          st.booleans(), st.sampled_from(["gpu.nvidia.com", "other.example.com"])),
                min_size=1, max_size=30))
def test_compacted_and_checked_they_are_what_the_plain_items_become(devices):
    """The compactor's sharing (the same parts held, the same models) and the shape check's
    findings (a malformed capacity shared by many devices) are those of the plain items."""
    items = [_slice(f"node-{n}", [_mig(i, f"node-{n}", memory, uuid) for i, memory, uuid, _ in devices[:n + 1]],
                    driver=devices[n][3]) for n in range(len(devices))]
    plain, ours, compactor = _both(items)
    assert ours == plain
    (plain_out, plain_found, a), (our_out, our_found, b) = _compacted(plain, SliceCompactor()), \
        _compacted(ours, compactor)  # the compactor the parts were shared with
    assert our_out == plain_out and our_found == plain_found
    assert len(a.parts.held) == len(b.parts.held)
    for x, y in zip(plain_out, our_out):  # the same devices share the same parts
        for part in ("capacity", "consumesCounters"):
            xs = [id(d.get(part)) for d in x["spec"]["devices"]]
            ys = [id(d.get(part)) for d in y["spec"]["devices"]]
            assert [xs.index(i) for i in xs] == [ys.index(i) for i in ys]


def _read(items, compactor):
    """The items as a live list reads them: parsed a batch at a time, each item compacted."""
    text = json.dumps({"kind": "ResourceSliceList", "items": items})
    return jsonstream.load(io.BytesIO(text.encode()), compactor, decode=SliceBatches(compactor, listed=True))["items"]


def test_a_repeated_part_is_parsed_once_and_is_the_kept_value(monkeypatch):
    parsed = []
    real = jsonstream.decode_batch()
    monkeypatch.setattr(jsonstream, "_BATCH_DECODE", lambda text: parsed.append(bytes(text)) or real(text))
    items = [_slice(f"node-{n}", [_mig(i, f"node-{n}") for i in range(4)]) for n in range(400)]
    compactor = SliceCompactor()
    ours = _read(items, compactor)
    assert ours == json.loads(json.dumps(items))
    # each text parsed by the devices of the first batch only (no device compacted yet), not by
    # each of the 3,200 devices
    assert 8 <= len(parsed) < len(items) and set(parsed) == set(parsed[:8])
    last = ours[-1]["spec"]["devices"]
    for item in ours[len(ours) // 2:]:  # once a text is met, the kept value itself
        for d, f in zip(item["spec"]["devices"], last):
            assert d["capacity"] is f["capacity"] and d["consumesCounters"] is f["consumesCounters"]
            assert compactor.parts.held[id(d["capacity"])] is d["capacity"]


def test_texts_remembered_per_device_name_are_bounded():
    """Past the compactor's candidates (distinct values of one device name) a text is parsed each
    time and not remembered: the table does not grow with the devices."""
    items = [_slice(f"node-{n}", [_mig(0, f"node-{n}", memory=f"{n % 20}Mi")]) for n in range(400)]
    compactor = SliceCompactor()
    assert _read(items, compactor) == json.loads(json.dumps(items))
    assert 0 < max(len(texts) for texts in compactor._from_text.values()) <= 8


@pytest.mark.parametrize("item", [
    {"kind": "Other", "apiVersion": "x/v1", "metadata": {"name": "a"}, "spec": {"devices": [_mig(0, "n")]}},
    _slice("n", [{**_mig(0, "n"), "basic": {}}]),  # v1beta1's shape: not v1's fields
    _slice("n", [_mig(0, "n")], futureField=True),
    _slice("n", {"not": "a list"}),
    {**_slice("n", [_mig(0, "n")]), "status": {}},
])
def test_what_is_not_a_v1_resource_slice_is_parsed_plainly(item):
    compactor = SliceCompactor()
    text = json.dumps([_slice("m", [_mig(1, "m")]), item])
    assert SliceBatches(compactor)(text) == json.loads(text)
    assert compactor._from_text == {}  # nothing shared from the text: all of it parsed plainly


def test_a_batch_without_resource_slices_is_not_tried_as_one(monkeypatch):
    compactor = SliceCompactor()
    batches = SliceBatches(compactor)
    monkeypatch.setattr(batches, "_typed", None)  # would fail if tried
    text = json.dumps([{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}}])
    assert batches(text) == json.loads(text)


def test_malformed_text_is_refused_as_the_plain_parser_refuses_it():
    batches = SliceBatches(SliceCompactor(), listed=True)
    for text in ('[{"spec": {"devices": [{"name": "a"', "[NaN]", '[{"spec": 1e400}]'):
        with pytest.raises(ValueError):
            PLAIN.decode(text)
        with pytest.raises(ValueError):
            batches(text)


def test_a_list_read_through_it_equals_json_loads(tmp_path):
    """End to end through the snapshot reader (kubectl's indented List and the API server's)."""
    from kubectl_kueue_dra.kube.snapshot import load_objects

    items = [_slice(f"node-{n}", [_mig(i, f"node-{n}") for i in range(3)]) for n in range(40)]
    items.insert(20, {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "d"}})
    for indent in (None, 4):
        path = tmp_path / f"list-{indent}.json"
        path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}, indent=indent))
        assert load_objects(str(path)) == copy.deepcopy(items)
