"""The fast shape check (``k8s.shape``: a validator per shape, shared parts checked once) answers
as the path-naming ``clean`` does: the same findings, the same object afterwards."""

import copy

from fuzz_mutations import mutated, mutations
from hypothesis import given, settings

from kubectl_kueue_dra.k8s.object_shapes import GENERIC, SHAPES
from kubectl_kueue_dra.k8s.shape import SharedParts, check_object, clean
from kubectl_kueue_dra.kube.compact import SliceCompactor


def slow(kind, obj):
    found = []
    clean(obj, SHAPES.get(kind, GENERIC), "", found)
    return found


@settings(max_examples=300, deadline=None)
@given(mutations())
def test_the_fast_check_equals_clean_on_hostile_objects(spec):
    for obj in mutated(spec):
        kind = str(obj.get("kind"))
        fast, reference = copy.deepcopy(obj), copy.deepcopy(obj)
        got = [(m.path, m.expected, m.value) for m in check_object(kind, fast, SHAPES.get(kind, GENERIC))]
        assert got == slow(kind, reference), spec
        assert fast == reference, spec


def slice_with(capacity, name="s"):
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": name},
            "spec": {"driver": "d", "pool": {"name": "p", "generation": 1, "resourceSliceCount": 1},
                     "devices": [{"name": "gpu-0", "capacity": capacity}]}}


def test_a_shared_part_is_checked_once():
    compact = SliceCompactor()
    a = compact(slice_with({"memory": {"value": "80Gi"}}, "a"))
    b = compact(slice_with({"memory": {"value": "80Gi"}}, "b"))
    capacity = a["spec"]["devices"][0]["capacity"]
    assert b["spec"]["devices"][0]["capacity"] is capacity and id(capacity) in compact.parts.held
    shape = SHAPES["ResourceSlice"]
    assert check_object("ResourceSlice", a, shape, compact.parts) == []
    assert any(i == id(capacity) for i, _ in compact.parts.valid)
    capacity["memory"]["value"] = "lots"  # were it checked again, b would be found malformed
    assert check_object("ResourceSlice", b, shape, compact.parts) == []
    assert [m.path for m in check_object("ResourceSlice", b, shape)] == ["spec.devices[0].capacity[memory].value"]


def test_a_malformed_shared_part_is_removed_and_named():
    compact = SliceCompactor()
    a = compact(slice_with({"memory": {"value": "80 GiB"}}, "a"))
    found = check_object("ResourceSlice", a, SHAPES["ResourceSlice"], SharedParts())
    assert [(m.name, m.path) for m in found] == [("a", "spec.devices[0].capacity[memory].value")]
    assert a["spec"]["devices"][0]["capacity"] == {"memory": {}}


# ---- lists alike their models (kube.compact finds them, k8s.shape checks them by their models) ----

from random import Random  # noqa: E402

from hypothesis import example  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

YES = "yes"  # one object, held by every device that draws it: an identical malformed field
FIELDS = {
    "name": st.sampled_from(["gpu-0", "gpu-0", "gpu-1", 7, None]),
    "attributes": st.dictionaries(st.sampled_from(["type", "uuid", 3]),
                                  st.sampled_from([{"string": "mig"}, {"string": "GPU-1"}, {"string": "GPU-2"},
                                                   {"int": 1}, {"version": "1.0.0"}, "bad", None]), max_size=4)
    | st.sampled_from([None, "bad"]),
    "capacity": st.sampled_from([{"memory": {"value": "80Gi"}}, {"memory": {"value": "lots"}}, {}]),
    "consumesCounters": st.sampled_from([[{"counterSet": "cs", "counters": {"m": {"value": "1Gi"}}}],
                                         [{"counterSet": 5}]]),
    "allowMultipleAllocations": st.sampled_from([True, YES, None]),  # null: removed, not named
}
DEVICES = st.fixed_dictionaries({}, optional=FIELDS) | st.sampled_from(["not a device", None])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(DEVICES, min_size=1, max_size=4), min_size=1, max_size=4), st.randoms())
# a model cleaned without being checked (its list failed on an item before it): what is alike it
# is checked device by device
@example([["not a device", {"name": "gpu-0", "attributes": {3: {"string": "mig"}}}],
          [{"name": "gpu-0", "attributes": {3: {"string": "mig"}}}]], Random(0))
@example([["not a device", {"name": "gpu-0", "attributes": {}, "allowMultipleAllocations": None}],
          [{"name": "gpu-0", "attributes": {}, "allowMultipleAllocations": None}]], Random(0))
def test_a_list_checked_by_its_models_answers_as_device_by_device(lists, random):
    """Findings and the objects afterwards are the same whether a list alike its models is
    checked by them or device by device, in any order of the slices."""
    slices = [slice_with(None, f"s{i}") for i in range(len(lists))]
    for s, devices in zip(slices, lists):
        s["spec"]["devices"] = devices
    order = list(range(len(slices)))
    random.shuffle(order)
    answers = []
    for by_models in (True, False):
        compact, objs = SliceCompactor(), copy.deepcopy(slices)
        for obj in objs:
            compact(obj)
        if not by_models:
            compact.parts.alike.clear()
        found = [[(m.name, m.path) for m in check_object("ResourceSlice", objs[i], SHAPES["ResourceSlice"],
                                                         compact.parts)] for i in order]
        answers.append((found, objs))
    assert answers[0] == answers[1]


def test_alike_lists_are_found_and_checked_by_their_models():
    def device(n, uuid):
        return {"name": f"gpu-{n}", "attributes": {"type": {"string": "gpu"}, "uuid": {"string": uuid}},
                "capacity": {"memory": {"value": "80Gi"}}}
    compact = SliceCompactor()
    slices = [compact(slice_with(None, f"s{k}")) for k in range(3)]
    for k, s in enumerate(slices):
        s["spec"]["devices"] = [device(n, f"GPU-{k}-{n}") for n in range(2)]
        compact(s)
    firsts = slices[0]["spec"]["devices"]
    assert all(compact.parts.alike[id(s["spec"]["devices"])][1] == tuple(firsts) for s in slices)
    for s in slices:
        assert check_object("ResourceSlice", s, SHAPES["ResourceSlice"], compact.parts) == []
    # the lists share one tuple of distinct models, looked at once for all of them
    distinct = compact.parts.alike[id(firsts)][2]
    assert all(compact.parts.alike[id(s["spec"]["devices"])][2] is distinct for s in slices)
    assert list(compact.parts.models_fit.values()) == [distinct]
    # checked by the models alone: a field spoiled after compaction (objects read through a view
    # are read-only) is not looked at
    slices[2]["spec"]["devices"][1]["name"] = 7
    assert check_object("ResourceSlice", slices[2], SHAPES["ResourceSlice"], compact.parts) == []
    compact.parts.alike.clear()
    assert check_object("ResourceSlice", slices[2], SHAPES["ResourceSlice"], compact.parts) != []
    # a later device with an attribute name the model does not have is not alike it: checked alone
    odd = copy.deepcopy(slices[0])
    odd["metadata"]["name"] = "odd"
    odd["spec"]["devices"][1]["attributes"][3] = {"int": 1}  # a key YAML can write, not a string
    compact(odd)
    assert id(odd["spec"]["devices"]) not in compact.parts.alike
    found = check_object("ResourceSlice", odd, SHAPES["ResourceSlice"], compact.parts)
    assert [m.path for m in found] == ["spec.devices[1].attributes[3]"]
    # a model found malformed: every list alike it is checked device by device, and named
    bad = {"name": "gpu-0", "attributes": {}, "allowMultipleAllocations": YES}
    again = SliceCompactor()
    a, b = (again(dict(slice_with(None, n), spec={**slice_with(None, n)["spec"], "devices": [dict(bad)]}))
            for n in ("a", "b"))
    assert again.parts.alike[id(b["spec"]["devices"])][1] == (a["spec"]["devices"][0],)
    for s in (b, a):
        found = check_object("ResourceSlice", s, SHAPES["ResourceSlice"], again.parts)
        assert [(m.name, m.path) for m in found] == [(s["metadata"]["name"], "spec.devices[0].allowMultipleAllocations")]
