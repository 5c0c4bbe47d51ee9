"""Fields of the wrong type are removed where objects come in, each one named (k8s/shape.py)."""

import json
from pathlib import Path

from kubectl_kueue_dra.k8s.object_shapes import SHAPES
from kubectl_kueue_dra.k8s.shape import check_object
from kubectl_kueue_dra.kube.snapshot import SnapshotView

from testenv.clirun import run


def _dc(spec):
    return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu"}, "spec": spec}


def test_a_string_where_a_list_belongs_is_removed_and_named():
    obj = _dc({"selectors": "notalist", "extendedResourceName": "nvidia.com/gpu"})
    found = check_object("DeviceClass", obj, SHAPES["DeviceClass"])
    assert obj["spec"] == {"extendedResourceName": "nvidia.com/gpu"}  # not "matches every device"
    assert [(m.object_ref, m.path, m.expected, m.value) for m in found] == \
        [("DeviceClass gpu", "spec.selectors", "a list", "'notalist'")]


def test_list_items_and_map_values_of_the_wrong_type_are_dropped_one_by_one():
    obj = {"kind": "ClusterQueue", "metadata": {"name": "cq"}, "spec": {"resourceGroups": [
        {"coveredResources": ["cpu", 5, "gpu"],
         "flavors": [{"name": "f", "resources": [{"name": "cpu", "nominalQuota": ["8"]}]}, "oops"]}]}}
    found = check_object("ClusterQueue", obj, SHAPES["ClusterQueue"])
    group = obj["spec"]["resourceGroups"][0]
    assert group["coveredResources"] == ["cpu", "gpu"]
    assert group["flavors"] == [{"name": "f", "resources": [{"name": "cpu"}]}]
    assert sorted(m.path for m in found) == ["spec.resourceGroups[0].coveredResources[1]",
                                             "spec.resourceGroups[0].flavors[0].resources[0].nominalQuota",
                                             "spec.resourceGroups[0].flavors[1]"]


def test_a_boolean_is_not_an_integer_and_null_is_absent():
    obj = {"kind": "Workload", "metadata": {"name": "w", "namespace": "ns"},
           "spec": {"podSets": [{"name": "main", "count": True, "template": None}]}}
    found = check_object("Workload", obj, SHAPES["Workload"])
    assert obj["spec"]["podSets"] == [{"name": "main"}]
    assert [m.message() for m in found] == \
        ["Workload ns/w: spec.podSets[0].count is True, not an integer; the field is ignored"]


def test_well_formed_examples_are_unchanged():
    root = Path(__file__).resolve().parents[2] / "examples"
    import yaml

    for path in sorted(root.rglob("*.yaml")):
        for doc in yaml.safe_load_all(path.read_text()):
            if not isinstance(doc, dict) or doc.get("kind") not in SHAPES:
                continue
            before = json.dumps(doc, sort_keys=True)
            assert check_object(doc["kind"], doc, SHAPES[doc["kind"]]) == [], path
            assert json.dumps(doc, sort_keys=True) == before


def test_the_view_reports_each_removal_once():
    view = SnapshotView([_dc({"selectors": 5})], "test")
    view.list("DeviceClass")
    view.list("DeviceClass")
    view.get("DeviceClass", "gpu")
    assert [m.path for m in view.malformed] == ["spec.selectors"]


def test_a_malformed_kueue_configuration_is_a_finding_not_a_crash(tmp_path):
    text = ("apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"
            "resources:\n  deviceClassMappings: 5\n  excludeResourcePrefixes: gc\n")
    objects = [
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "kueue-manager-config",
                                                                 "namespace": "kueue-system"},
         "data": {"controller_manager_config.yaml": text}},
        _dc({"selectors": [{"cel": {"expression": "true"}}]}),
    ]
    snap = tmp_path / "snap.json"
    snap.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objects}))
    proc = run("classes", "--from", str(snap), "-o", "json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["partial"] is True
    bad = {f["field"] for f in doc["findings"] if f["code"] == "MalformedObject"}
    assert bad == {"data.controller_manager_config.yaml.resources.deviceClassMappings",
                   "data.controller_manager_config.yaml.resources.excludeResourcePrefixes"}


def test_a_quantity_is_checked_against_apimachinerys_grammar():
    obj = {"kind": "Pod", "metadata": {"name": "p", "namespace": "ns"}, "spec": {"containers": [
        {"name": "c", "resources": {"requests": {"cpu": "abc", "memory": "1.5Gi", "nvidia.com/gpu": '"4"',
                                                 "ephemeral-storage": 1e3, "example.com/x": "1x"}}}]}}
    found = check_object("Pod", obj, SHAPES["Pod"])
    assert obj["spec"]["containers"][0]["resources"]["requests"] == {"memory": "1.5Gi", "ephemeral-storage": 1e3}
    assert sorted(m.value for m in found) == ["'\"4\"'", "'1x'", "'abc'"]
