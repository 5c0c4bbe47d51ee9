"""``map set`` refuses what Kueue or the cluster would not honour, in process on the example
snapshots (``--dry-run=client``): a DeviceClass that does not exist, a counter or capacity no
ResourceSlice of the driver publishes, a replacement that drops classes or the source; and what
is only a warning (a driver with no slices, a list that could not be read)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from kubectl_kueue_dra import gates as g
from kubectl_kueue_dra.cli import main
from kubectl_kueue_dra.findings import codes as F
from kubectl_kueue_dra.commands.map.honour import ClusterFacts, Refused, Wanted, judge
from kubectl_kueue_dra.kueue.config.mappings import Source
from kubectl_kueue_dra.kube.snapshot import load_objects

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
MIG = str(EXAMPLES / "mig-partitionable")
RCT = str(EXAMPLES / "resourceclaimtemplate")
SEL = "device.driver == 'gpu.nvidia.com'"


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(["map", "set", *args, "--dry-run=client"])
    out, err = capsys.readouterr()
    return code, out, err


def refused(capsys, *args: str) -> str:
    code, out, err = run(capsys, *args)
    assert code == 1 and out == "" and err.count("\n") == 1 and err.startswith("error: refused, nothing written: ")
    return err


def test_a_device_class_that_does_not_exist(capsys):
    err = refused(capsys, "gpus", "--device-class", "gpu.nvidia.co", "--from", RCT)
    assert "DeviceClass gpu.nvidia.co does not exist (DeviceClasses: gpu.nvidia.com) [DeviceClassNotFound]" in err
    assert "did you mean gpu.nvidia.com? create it first, or pass --allow-missing-class" in err
    code, out, _ = run(capsys, "gpus", "--device-class", "gpu.nvidia.co", "--allow-missing-class", "--from", RCT)
    assert code == 0 and "mapping gpus added (dry run" in out and "warning" not in out


def test_a_class_already_in_the_mapping_is_not_judged_again(capsys):
    """extended-resource maps whole-gpus to a class that does not exist: restating it (or adding an
    existing class beside it) refuses nothing the change did not introduce."""
    snap = str(EXAMPLES / "extended-resource")
    code, out, _ = run(capsys, "whole-gpus", "--device-class", "gpu-reserved.nvidia.com",
                       "--device-class", "gpu.nvidia.com", "--from", snap)
    assert code == 0 and "mapping whole-gpus updated" in out


def test_a_counter_the_driver_does_not_publish(capsys):
    err = refused(capsys, "gpu.memory", "--device-class", "gpu.nvidia.com", "--device-class", "mig.nvidia.com",
                  "--counter", "memroy", "--driver", "gpu.nvidia.com", "--selector", SEL, "--from", MIG)
    assert "no ResourceSlice of driver gpu.nvidia.com publishes counter memroy in consumesCounters (it publishes: " \
           "memory, " in err and "[CounterNotPublished]" in err and "use a counter the driver publishes, e.g. --counter memory" in err


def test_a_capacity_the_driver_does_not_publish(capsys):
    err = refused(capsys, "g", "--device-class", "x.example.com", "--allow-missing-class", "--capacity",
                  "memory-slices", "--driver", "gpu.nvidia.com", "--selector", SEL, "--from", MIG,
                  "--kueue-version", "0.19.2")
    assert "[CapacityNotSupported]" in err  # the operator has no capacity sources: its rule comes first
    objs = judge_objects(capacity="memry")
    with pytest.raises(Refused) as e:
        judge(Wanted(name="g", classes=("gpu.nvidia.com",), sources=(Source("capacity", "memry", "gpu.nvidia.com",
                                                                                 SEL),)), [], objs)
    assert e.value.violations[0].rule.name == "CapacityNotPublished" and "(it publishes: memory, " in e.value.message


def judge_objects(**_: str) -> ClusterFacts:
    objects = load_objects(MIG)
    return ClusterFacts(device_classes=[o for o in objects if o["kind"] == "DeviceClass"], device_classes_unknown=None,
                        slices=[o for o in objects if o["kind"] == "ResourceSlice"], slices_unknown=None)


def test_a_driver_without_slices_is_a_warning_and_the_change_goes_on(capsys):
    code, out, _ = run(capsys, "g", "--device-class", "x.example.com", "--allow-missing-class", "--counter",
                       "memory", "--driver", "tpu.example.com", "--selector", "true", "--from", MIG, "-o", "json")
    doc = json.loads(out)
    assert code == 0 and doc["changed"]
    [warning] = [f for f in doc["findings"] if f["code"] == "DriverNotPublishing"]
    assert "no ResourceSlice of driver tpu.example.com" in warning["message"]


def test_a_replacement_that_drops_classes_or_the_source(capsys):
    err = refused(capsys, "gpu.memory", "--device-class", "gpu.nvidia.com", "--from", MIG)
    assert "this set would drop mig.nvidia.com" in err and "[ClassesDropped]" in err and "[SourceDropped]" in err
    keep = ("oc kueue-dra map set gpu.memory --device-class gpu.nvidia.com --device-class mig.nvidia.com "  # OpenShift
            f"--counter memory --driver gpu.nvidia.com --selector \"{SEL}\"")
    assert err.rstrip().endswith(f"pass --replace to drop them, or keep what it has: {keep}")
    code, out, _ = run(capsys, "gpu.memory", "--device-class", "gpu.nvidia.com", "--replace", "--from", MIG)
    assert code == 0 and "mapping gpu.memory updated" in out
    # changing the counter is a change, not a drop
    code, out, _ = run(capsys, "gpu.memory", "--device-class", "gpu.nvidia.com", "--device-class", "mig.nvidia.com",
                       "--counter", "multiprocessors", "--driver", "gpu.nvidia.com", "--selector", SEL, "--from", MIG)
    assert code == 0 and "mapping gpu.memory updated" in out


def test_json_refusal_lists_every_finding(capsys):
    code = main(["map", "set", "gpu.memory", "--device-class", "gpu.nvidia.com", "--from", MIG, "--dry-run=client",
                 "-o", "json"])
    out, err = capsys.readouterr()
    doc = json.loads(out)
    assert code == 1 and not doc["written"] and err.startswith("error: refused, nothing written")
    assert [f["code"] for f in doc["findings"]] == ["ClassesDropped", "SourceDropped"]


def test_unreadable_lists_are_warnings_not_refusals():
    facts = ClusterFacts(device_classes=None, device_classes_unknown="cannot list deviceclasses: forbidden",
                         slices=None, slices_unknown="cannot list resourceslices: forbidden")
    warned = judge(Wanted(name="g", classes=("a.example.com",),
                          sources=(Source("counter", "memory", "gpu.nvidia.com", SEL),)), [], facts)
    assert [v.rule.name for v in warned] == ["DeviceClassesUnknown", "SlicesUnknown"]
    assert all(v.severity == "warning" and "forbidden" in v.message for v in warned)


def test_a_snapshot_without_device_classes_cannot_tell_a_missing_one(capsys, tmp_path):
    for f in Path(RCT).glob("*.yaml"):
        if f.name != "deviceclasses.yaml":
            (tmp_path / f.name).write_text(f.read_text())
    code, out, _ = run(capsys, "gpus", "--device-class", "other.nvidia.com", "--from", str(tmp_path), "-o", "json")
    doc = json.loads(out)
    assert code == 0 and [f["code"] for f in doc["findings"]] == ["DeviceClassesUnknown"]
    assert "the snapshot has no DeviceClass objects" in doc["findings"][0]["message"]


def test_remove_takes_no_set_flags(capsys):
    assert main(["map", "remove", "gpu.memory", "--replace", "--from", MIG, "--dry-run=client"]) == 2
    assert "unknown flag: --replace" in capsys.readouterr().err


def test_judging_the_list_as_read_is_pure():
    before = [{"name": "g", "deviceClassNames": ["a", "b"]}]
    snapshot = copy.deepcopy(before)
    facts = ClusterFacts(device_classes=[{"metadata": {"name": n}} for n in "abc"], device_classes_unknown=None,
                         slices=[], slices_unknown=None)
    with pytest.raises(Refused):
        judge(Wanted(name="g", classes=("c",), sources=()), before, facts)
    assert before == snapshot
    assert judge(Wanted(name="g", classes=("a", "b", "c"), sources=()), before, facts) == []


# ---- the Kubernetes gate a source charges the fields of ------------------------------------------
COUNTER = Source("counter", "memory", "gpu.nvidia.com", SEL)
CLASSES = [{"metadata": {"name": "mig.nvidia.com"}}]
SLICES = [{"metadata": {"name": "s"}, "spec": {"driver": "gpu.nvidia.com", "nodeName": "n",
                                               "pool": {"name": "n", "generation": 1, "resourceSliceCount": 1},
                                               "devices": [{"name": "m", "consumesCounters": [
                                                   {"counterSet": "cs", "counters": {"memory": {"value": "1Gi"}}}]}]}}]


def gate_facts(state: str, learned_from: str | None, detail: str = "d") -> ClusterFacts:
    return ClusterFacts(device_classes=CLASSES, device_classes_unknown=None, slices=SLICES, slices_unknown=None,
                        gates={g.DRA_PARTITIONABLE: g.GateState(g.DRA_PARTITIONABLE, state, learned_from, detail)},
                        how_on={g.DRA_PARTITIONABLE: "in OpenShift 4.22 featureSet TechPreviewNoUpgrade … turns it on"})


def test_a_counter_source_while_the_server_drops_counters_is_refused():
    wanted = Wanted(name="gpu.memory", classes=("mig.nvidia.com",), sources=(COUNTER,))
    with pytest.raises(Refused) as e:
        judge(wanted, [], gate_facts("off", "metrics", 'kubernetes_feature_enabled{name="DRAPartitionableDevices"} 0'))
    [v] = [v for v in e.value.violations if v.rule is F.GateOffForPath]
    assert v.message.startswith("DRAPartitionableDevices is off (kube-apiserver /metrics: kubernetes_feature_enabled")
    assert "drops consumesCounters from every ResourceSlice" in v.message
    assert v.fix.startswith("turn DRAPartitionableDevices on first (in OpenShift 4.22 featureSet TechPreviewNoUpgrade")
    assert "--allow-gate-off" in v.fix
    # --allow-gate-off: the same, as a warning
    [w] = judge(Wanted(name="gpu.memory", classes=("mig.nvidia.com",), sources=(COUNTER,), allow_gate_off=True),
                [], gate_facts("off", "metrics"))
    assert (w.rule, w.severity) == (F.GateOffForPath, "warning")


def test_a_gate_only_the_default_says_off_or_none_can_tell_is_a_warning():
    wanted = Wanted(name="gpu.memory", classes=("mig.nvidia.com",), sources=(COUNTER,))
    [w] = judge(wanted, [], gate_facts("off", "default", "alpha, off by default in Kubernetes 1.35"))
    assert w.severity == "warning" and w.message.startswith("DRAPartitionableDevices is probably off (upstream default")
    [u] = judge(wanted, [], gate_facts("unknown", None, "an offline snapshot: /metrics needs a live server"))
    assert u.severity == "warning" and "whether DRAPartitionableDevices is on is unknown (an offline snapshot" in u.message
    assert u.fix.startswith("let the plugin read /metrics")
    assert judge(wanted, [], gate_facts("on", "metrics")) == []
    # a source the mapping already had is not judged again
    before = [{"name": "gpu.memory", "deviceClassNames": ["mig.nvidia.com"],
               "sources": [{"counter": {"name": "memory", "driver": "gpu.nvidia.com",
                                        "deviceSelector": {"cel": {"expression": SEL}}}}]}]
    assert judge(wanted, before, gate_facts("off", "metrics")) == []


def test_a_set_that_states_one_of_two_sources_drops_the_other(capsys, tmp_path):
    """Kueue allows several counter sources in a mapping; map set states one: restating one of two
    would silently drop the other. Its keep command cannot state both: it says to edit."""
    import yaml

    snap = tmp_path / "snap"
    snap.mkdir()
    for name in ("deviceclasses.yaml", "resourceslices.yaml", "queues.yaml", "workloads.yaml"):
        (snap / name).write_text((EXAMPLES / "mig-partitionable" / name).read_text())
    source = {"driver": "gpu.nvidia.com", "deviceSelector": {"cel": {"expression": SEL}}}
    config = {"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration", "resources": {
        "deviceClassMappings": [{"name": "gpus", "deviceClassNames": ["gpu.nvidia.com", "mig.nvidia.com"], "sources": [
            {"counter": {"name": n, **source}} for n in ("memory", "multiprocessors")]}]}}
    (snap / "kueue.yaml").write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {
        "name": "kueue-manager-config", "namespace": "kueue-system"}, "data": {
        "controller_manager_config.yaml": yaml.safe_dump(config)}}))
    err = refused(capsys, "gpus", "--device-class", "gpu.nvidia.com", "--device-class", "mig.nvidia.com",
                  "--counter", "memory", "--driver", "gpu.nvidia.com", "--selector", SEL, "--from", str(snap))
    assert "it charges counter multiprocessors of gpu.nvidia.com; this set does not state it, so only counter " \
           "memory would be charged [SourceDropped]" in err
    assert err.rstrip().endswith("edit the mapping in Kueue's configuration to keep counter memory, counter "
                                 "multiprocessors")
    code, _, err = run(capsys, "gpus", "--device-class", "gpu.nvidia.com", "--counter", "memory", "--counter",
                       "multiprocessors", "--driver", "gpu.nvidia.com", "--from", str(snap))
    assert code == 2 and err == "error: --counter is given 2 times: map set states one source per mapping\n"


def test_dropping_a_class_that_does_not_exist_drops_nothing(capsys):
    """verify's fix for a mapping whose class is missing (map set M --device-class REAL) pastes."""
    code, out, err = run(capsys, "whole-gpus", "--device-class", "gpu.nvidia.com",
                         "--from", str(EXAMPLES / "extended-resource"))
    assert code == 0 and "mapping whole-gpus updated" in out, err


def test_refusals_on_openshift_name_oc(capsys):
    err = refused(capsys, "gpu.memory", "--device-class", "gpu.nvidia.com", "--from", MIG)
    assert "keep what it has: oc kueue-dra map set" in err and "kubectl" not in err
