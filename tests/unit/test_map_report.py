"""The ``map`` report and the ``map`` commands on offline snapshots (no cluster)."""

import json
import os
import textwrap

from kubectl_kueue_dra.cli import main
from kubectl_kueue_dra.commands.map.report import map_report
from kubectl_kueue_dra.kueue.config.mappings import parse_mappings

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "examples")


def cq(name, resource, quota, cohort=None):
    spec = {"resourceGroups": [{"coveredResources": [resource], "flavors": [
        {"name": "f", "resources": [{"name": resource, "nominalQuota": quota}]}]}]}
    if cohort:
        spec["cohortName"] = cohort
    return {"metadata": {"name": name}, "spec": spec}


def slice_(driver, counters=(), capacity=()):
    device = {"name": "d0"}
    if counters:
        device["consumesCounters"] = [{"counterSet": "s", "counters": {c: {"value": "1"} for c in counters}}]
    if capacity:
        device["capacity"] = {c: {"value": "1"} for c in capacity}
    spec = {"driver": driver, "devices": [device]}
    if counters:  # a well-formed slice defines the set its devices consume
        spec["sharedCounters"] = [{"name": "s", "counters": {c: {"value": "1"} for c in counters}}]
    return {"spec": spec}


MAPPINGS = parse_mappings([
    {"name": "gpu", "deviceClassNames": ["gpu.example.com", "gone.example.com"]},
    {"name": "gpu.memory", "deviceClassNames": ["mig.example.com"], "sources": [
        {"counter": {"name": "memory", "driver": "gpu.example.com",
                     "deviceSelector": {"cel": {"expression": "true"}}}}]},
])
CLASSES = [{"metadata": {"name": n}} for n in ("gpu.example.com", "mig.example.com")]


def codes(findings):
    return sorted(f["code"] for f in findings)


def test_report_findings():
    entries, findings = map_report(MAPPINGS, device_classes=CLASSES,
                                   cluster_queues=[cq("a", "gpu.memory", "80Gi")],
                                   slices=[slice_("gpu.example.com", counters=["cores"])])
    assert entries[0]["deviceClasses"] == [{"name": "gpu.example.com", "exists": True},
                                           {"name": "gone.example.com", "exists": False}]
    assert entries[1]["coveredBy"] == ["a"] and entries[0]["coveredBy"] == []
    assert codes(findings) == ["CounterNotPublished", "DeviceClassMissing", "NotCoveredByQueue"]
    assert all(f["mapping"] in ("gpu", "gpu.memory") for f in findings)
    missing = next(f for f in findings if f["code"] == "DeviceClassMissing")
    assert missing["fix"].endswith("map remove gpu --device-class gone.example.com")
    # the mapping's only class: removing it alone is refused (a mapping needs a class); the fix removes the mapping
    _, findings = map_report(MAPPINGS, device_classes=[{"metadata": {"name": "gpu.example.com"}}], cluster_queues=None,
                             slices=None)
    only = next(f for f in findings if f["code"] == "DeviceClassMissing" and f["mapping"] == "gpu.memory")
    assert only["fix"] == ("create it, or remove the mapping it is the only class of: kubectl kueue-dra map remove "
                           "gpu.memory")


def test_report_unreadable_inputs_skip_checks():
    entries, findings = map_report(MAPPINGS, device_classes=None, cluster_queues=None, slices=None)
    assert findings == [] and entries[0]["coveredBy"] is None
    assert entries[0]["deviceClasses"][0]["exists"] is None


def test_driver_without_slices_and_published_counter():
    _, findings = map_report(MAPPINGS[1:], device_classes=CLASSES, cluster_queues=[], slices=[])
    assert "DriverNotPublishing" in codes(findings)
    _, findings = map_report(MAPPINGS[1:], device_classes=CLASSES, cluster_queues=None,
                             slices=[slice_("gpu.example.com", counters=["memory"])])
    assert findings == []


def test_cohort_unit_scales():
    queues = [cq("a", "gpu.memory", "80Gi", "ml"), cq("b", "gpu.memory", "80G", "ml"),
              cq("c", "gpu.memory", "80", "other"), cq("d", "gpu.memory", "40Gi", "other2"),
              cq("e", "gpu.memory", "160Gi", "other2")]
    _, findings = map_report(MAPPINGS[1:], device_classes=CLASSES, cluster_queues=queues, slices=None)
    scale = [f for f in findings if f["code"] == "CohortUnitScaleMismatch"]
    assert len(scale) == 1 and "cohort ml" in scale[0]["message"]
    assert "a 80Gi" in scale[0]["message"] and "b 80G" in scale[0]["message"]


def run(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_map_on_the_example_snapshots(capsys):
    code, out, _err = run(capsys, "map", "--from", os.path.join(EXAMPLES, "mig-partitionable"), "-o", "json")
    doc = json.loads(out)
    assert code == 0 and doc["target"] == {"kind": "Kueue", "name": "cluster", "namespace": None}
    assert doc["mappings"][0]["name"] == "gpu.memory"
    assert doc["mappings"][0]["sources"][0]["type"] == "counter"
    code, out, _ = run(capsys, "map", "--from", os.path.join(EXAMPLES, "extended-resource"))
    assert code == 0 and out.startswith("ConfigMap kueue-system/kueue-manager-config")
    assert "gpu-reserved.nvidia.com (missing)" in out


def test_set_against_a_snapshot_needs_client_dry_run(capsys, tmp_path):
    snap = os.path.join(EXAMPLES, "extended-resource")
    code, _, err = run(capsys, "map", "set", "gpu", "--device-class", "gpu.nvidia.com", "--from", snap)
    assert code == 2 and "--dry-run=client" in err
    code, out, err = run(capsys, "map", "set", "gpu", "--device-class", "gpu.nvidia.com",
                         "--from", snap, "--dry-run=client", "-o", "json")
    doc = json.loads(out)
    assert code == 0 and doc["changed"] and not doc["written"] and doc["dryRun"] == "client"
    assert "+  - name: gpu\n" in doc["diff"]
    assert [m["name"] for m in doc["mappings"]] == ["whole-gpus", "gpu"]


def test_refusals_are_one_line(capsys):
    snap = os.path.join(EXAMPLES, "mig-partitionable")
    code, out, err = run(capsys, "map", "set", "pods", "--device-class", "x.example.com",
                         "--from", snap, "--dry-run")
    assert code == 1 and out == "" and err.count("\n") == 1 and "[ReservedName]" in err
    code, _, err = run(capsys, "map", "set", "g", "--device-class", "x.example.com", "--counter",
                       "memory", "--driver", "gpu.nvidia.com", "--selector", "device.nope",
                       "--from", snap, "--dry-run")
    assert code == 1 and "[SelectorDoesNotCompile]" in err and err.count("\n") == 1
    code, _, err = run(capsys, "map", "set", "g", "--device-class", "x", "--counter", "memory",
                       "--from", snap, "--dry-run")
    assert code == 2 and "--driver" in err
    code, _, err = run(capsys, "map", "remove", "nope", "--from", snap, "--dry-run")
    assert code == 1 and "no mapping named nope" in err


def test_idempotent_set_changes_nothing(capsys):
    snap = os.path.join(EXAMPLES, "extended-resource")
    code, out, _ = run(capsys, "map", "set", "whole-gpus", "--device-class", "gpu-reserved.nvidia.com",
                       "--from", snap, "--dry-run")
    assert code == 0 and "already as requested" in out


def test_operator_managed_configmap_refused(capsys, tmp_path):
    (tmp_path / "cm.yaml").write_text(textwrap.dedent("""\
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: kueue-manager-config, namespace: openshift-kueue-operator}
        data:
          controller_manager_config.yaml: |
            kind: Configuration
            managedJobsNamespaceSelector:
              matchLabels: {kueue.openshift.io/managed: "true"}
        """))
    code, _, err = run(capsys, "map", "set", "g", "--device-class", "c", "--from", str(tmp_path),
                       "--kueue-namespace", "openshift-kueue-operator", "--dry-run")
    assert code == 1 and "refusing to edit ConfigMap openshift-kueue-operator/kueue-manager-config" in err
    # reading it is fine
    code, out, _ = run(capsys, "map", "--from", str(tmp_path), "--kueue-namespace", "openshift-kueue-operator")
    assert code == 0 and "No deviceClassMappings." in out


def test_missing_target_says_what_to_do(capsys, tmp_path):
    (tmp_path / "x.yaml").write_text("apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n")
    code, _, err = run(capsys, "map", "--from", str(tmp_path))
    assert code == 1 and "Kueue's configuration was not found" in err and "--kueue-namespace" in err


def test_classes_is_still_a_command_with_a_subcommand(capsys):
    code, out, _ = run(capsys, "classes", "--from", os.path.join(EXAMPLES, "extended-resource"), "-o", "json")
    assert code == 0 and json.loads(out)["deviceClasses"]
    code, out, _ = run(capsys, "classes", "--help")
    assert code == 0 and "set-extended-resource" in out
    code, _, err = run(capsys, "classes", "set-extended-resource", "gpu.nvidia.com")
    assert code == 2 and "NAME or --clear" in err
