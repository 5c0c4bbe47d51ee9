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
