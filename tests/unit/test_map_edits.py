"""Edits of the mapping list and of the objects holding it; the target's rules and facts."""

import copy
from datetime import datetime, timezone

import pytest
import yaml

from kubectl_kueue_dra.environment import Clock
from kubectl_kueue_dra.errors import UserError
from kubectl_kueue_dra.kueue.config.load import KueueConfig
from kubectl_kueue_dra.kueue.config.mapping_edits import (EditError, current_mappings, remove_mapping,
                                                   set_mapping, with_object_mappings)
from kubectl_kueue_dra.kueue.config.mappings import OPERATOR, UPSTREAM, Source
from kubectl_kueue_dra.kube.snapshot import SnapshotView
from kubectl_kueue_dra.kueue.install.model import installation_of
from kubectl_kueue_dra.kueue.install.target import custom_gate_enabled, operator_managed_reason, target_facts
from kubectl_kueue_dra.kube.writes import read_modify_write, restart_patch, rollout_complete
from kubectl_kueue_dra.kube import errors

SRC = Source("counter", "memory", "gpu.example.com", "device.driver == 'gpu.example.com'")


def cr(mappings=None):
    config = {"integrations": {"frameworks": ["BatchJob"]}, "preemption": {"preemptionPolicy": "Classical"}}
    if mappings is not None:
        config["resources"] = {"deviceClassMappings": mappings}
    return {"apiVersion": "kueue.openshift.io/v1", "kind": "Kueue",
            "metadata": {"name": "cluster", "resourceVersion": "7", "annotations": {"a": "b"}},
            "spec": {"managementState": "Managed", "config": config}}


def test_set_appends_and_replaces_in_place_keeping_unknown_fields():
    raw = [{"name": "a", "deviceClassNames": ["c1"], "futureField": 1}, {"name": "b", "deviceClassNames": ["c2"]}]
    out = set_mapping(raw, "z", ["c3"], [SRC], OPERATOR)
    assert out[:2] == raw and out[2] == {
        "name": "z", "deviceClassNames": ["c3"],
        "sources": [{"type": "Counter", "counter": {"name": "memory", "driver": "gpu.example.com",
                     "deviceSelector": {"type": "CEL", "cel": {"expression": SRC.selector}}}}]}
    out = set_mapping(raw, "a", ["c1", "c4"], [SRC], UPSTREAM)
    assert [e["name"] for e in out] == ["a", "b"]
    assert out[0]["futureField"] == 1 and out[0]["deviceClassNames"] == ["c1", "c4"]
    assert out[0]["sources"] == [{"counter": {"name": "memory", "driver": "gpu.example.com",
                                              "deviceSelector": {"cel": {"expression": SRC.selector}}}}]
    assert out[1] is raw[1]
    assert set_mapping(raw, "a", ["c1"], [], UPSTREAM) == raw  # idempotent


def test_set_without_sources_drops_them():
    raw = set_mapping([], "a", ["c"], [SRC], UPSTREAM)
    assert "sources" not in set_mapping(raw, "a", ["c"], [], UPSTREAM)[0]


def test_remove():
    raw = [{"name": "a", "deviceClassNames": ["c1", "c2"]}, {"name": "b", "deviceClassNames": ["c3"]}]
    assert remove_mapping(raw, "a") == [raw[1]]
    assert remove_mapping(raw, "a", ["c2"]) == [{"name": "a", "deviceClassNames": ["c1"]}, raw[1]]
    with pytest.raises(EditError, match="no mapping named x"):
        remove_mapping(raw, "x")
    with pytest.raises(EditError, match="does not list c9"):
        remove_mapping(raw, "a", ["c9"])
    with pytest.raises(EditError, match="without DeviceClasses"):
        remove_mapping(raw, "b", ["c3"])


def test_object_edit_of_the_cr_keeps_other_fields_and_drops_empty_resources():
    obj = cr([{"name": "a", "deviceClassNames": ["c"]}])
    original = copy.deepcopy(obj)
    new = with_object_mappings(obj, "Kueue", [{"name": "a", "deviceClassNames": ["c"]},
                                              {"name": "b", "deviceClassNames": ["d"]}]).obj
    assert obj == original  # not modified in place
    assert new["spec"]["config"]["preemption"] == original["spec"]["config"]["preemption"]
    assert new["metadata"] == original["metadata"]
    assert current_mappings(new, "Kueue")[1]["name"] == "b"
    empty = with_object_mappings(obj, "Kueue", []).obj
    assert "resources" not in empty["spec"]["config"]
    assert empty["spec"]["config"]["integrations"] == original["spec"]["config"]["integrations"]


def test_object_edit_of_a_configmap():
    text = "kind: Configuration\n# keep me\nresources:\n  deviceClassMappings:\n  - name: a\n    deviceClassNames: [c]\n"
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "kueue-manager-config", "namespace": "k"},
          "data": {"controller_manager_config.yaml": text, "other": "x"}}
    edit = with_object_mappings(cm, "ConfigMap", [])
    assert edit.preserved and edit.obj["data"]["other"] == "x"
    assert edit.obj["data"]["controller_manager_config.yaml"] == "kind: Configuration\n# keep me\n"
    assert current_mappings(cm, "ConfigMap") == [{"name": "a", "deviceClassNames": ["c"]}]


def _cm(text):
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "kueue-manager-config", "namespace": "k"},
            "data": {"controller_manager_config.yaml": text}}


def test_object_edit_of_a_multi_document_text_keeps_the_later_documents_byte_for_byte():
    later = "---\n# Kueue never reads this\nresources: 5\nbroken: [\n"
    text = "kind: Configuration\nresources:\n  deviceClassMappings:\n  - name: a\n    deviceClassNames: [c]\n" + later
    cm = _cm(text)
    assert current_mappings(cm, "ConfigMap") == [{"name": "a", "deviceClassNames": ["c"]}]
    new = [{"name": "a", "deviceClassNames": ["c"]}, {"name": "b", "deviceClassNames": ["d"]}]
    edit = with_object_mappings(cm, "ConfigMap", new)
    out = edit.obj["data"]["controller_manager_config.yaml"]
    assert edit.preserved and out.endswith(later) and out.count(later) == 1
    assert current_mappings(edit.obj, "ConfigMap") == new
    gone = with_object_mappings(cm, "ConfigMap", []).obj["data"]["controller_manager_config.yaml"]
    assert gone == "kind: Configuration\n" + later


@pytest.mark.parametrize("text,why", [
    ("resources:\n  deviceClassMappings: 5\n", "resources.deviceClassMappings: is 5, not a list"),
    ("resource: {}\n", "resource: unknown field"),
    ("resources: {}\nresources: {}\n", "resources: is written twice"),
    ("featureGates:\n  NoSuchGate: true\n", "unrecognized feature gate: NoSuchGate"),
    ("a: [\n", "malformed YAML"),
])
def test_a_text_kueue_refuses_is_refused_in_one_line(text, why):
    with pytest.raises(UserError) as e:
        current_mappings(_cm(text), "ConfigMap")
    message = str(e.value)
    assert why in message and "nothing was written" in message and "\n" not in message


def test_yes_stays_what_kueue_reads_when_the_text_is_edited():
    text = "kind: Configuration\nmanageJobsWithoutQueueName: yes\n"
    edit = with_object_mappings(_cm(text), "ConfigMap", [{"name": "a", "deviceClassNames": ["c"]}])
    out = edit.obj["data"]["controller_manager_config.yaml"]
    assert edit.preserved and out.startswith(text)


def deployment(image="registry.k8s.io/kueue/kueue:v0.18.6", args=(), annotations=None, owners=None):
    return {"metadata": {"name": "kueue-controller-manager", "namespace": "kueue-system",
                         "ownerReferences": owners or []},
            "spec": {"template": {"metadata": {"annotations": annotations or {}},
                                  "spec": {"containers": [{"image": image, "args": list(args)}]}}}}


def upstream_facts(cfg, device_classes, version_override=None):
    return target_facts(installation_of(SnapshotView([], "test"), cfg, kueue_version=version_override),
                        device_classes)


def operator_facts(featuregate, csvs, device_classes):
    objects = [dict(c, apiVersion="operators.coreos.com/v1alpha1", kind="ClusterServiceVersion",
                    metadata=dict(c["metadata"], namespace="openshift-kueue-operator")) for c in csvs or []]
    if featuregate is not None:
        objects.append(dict(featuregate, apiVersion="config.openshift.io/v1", kind="FeatureGate",
                            metadata={"name": "cluster"}))
    cfg = KueueConfig("Kueue", "cluster", None, {}, [], None)
    return target_facts(installation_of(SnapshotView(objects, "test"), cfg), device_classes)


def test_upstream_facts_follow_version_and_gates():
    cfg = KueueConfig("ConfigMap", "kueue-manager-config", "kueue-system", {}, [], deployment())
    facts = upstream_facts(cfg, device_classes=[])
    assert facts.rules.kueue_minor == 18 and facts.rules.counter_gate is False
    cfg.document = {"featureGates": {"KueueDRAIntegrationPartitionableDevices": True}}
    assert upstream_facts(cfg, device_classes=[]).rules.counter_gate is True
    cfg = KueueConfig("ConfigMap", "x", "y", {}, [], deployment(
        image="kueue:v0.19.2", args=["--feature-gates=KueueDRAIntegrationConsumableCapacity=true"]))
    rules = upstream_facts(cfg, device_classes=[{"metadata": {"name": "c"}, "spec": {"extendedResourceName": "e"}}]).rules
    assert rules.counter_gate is True and rules.capacity_gate is True
    assert rules.extended_resource_classes == {"c"}
    cfg = KueueConfig("ConfigMap", "x", "y", {}, [], deployment(image="kueue@sha256:abc"))
    facts = upstream_facts(cfg, device_classes=None)
    assert facts.rules.kueue_minor is None and facts.rules.counter_gate is None
    assert upstream_facts(cfg, device_classes=None, version_override="0.18").rules.counter_gate is False


def test_operator_facts():
    fg = {"spec": {"featureSet": "CustomNoUpgrade", "customNoUpgrade": {"enabled": ["DRAPartitionableDevices"]}}}
    assert custom_gate_enabled(fg, "DRAPartitionableDevices")
    assert not custom_gate_enabled({"spec": {"featureSet": "TechPreviewNoUpgrade"}}, "DRAPartitionableDevices")
    csv14 = [{"metadata": {"name": "kueue-operator.v1.4.1"}, "spec": {"version": "1.4.1"}}]
    csv15 = [{"metadata": {"name": "kueue-operator.v1.5.0"}}]
    assert operator_facts(featuregate=None, csvs=csv14, device_classes=None).rules.counter_gate is False
    assert operator_facts(featuregate=fg, csvs=csv14, device_classes=None).rules.counter_gate is True
    facts = operator_facts(featuregate=None, csvs=csv15, device_classes=None)
    # operator 1.5.0 ships a Kueue 0.20 pre-release (see kueue/install/model.py)
    assert facts.rules.counter_gate is True and facts.rules.kueue_minor == 20
    assert facts.operator_version == "1.5.0" and facts.kueue_version == "0.20"
    assert operator_facts(featuregate=None, csvs=None, device_classes=None).rules.counter_gate is None
    assert operator_facts(featuregate=fg, csvs=None, device_classes=None).rules.counter_gate is True


def test_operator_managed_configmap_is_recognised():
    plain = KueueConfig("ConfigMap", "kueue-manager-config", "kueue-system", {}, [], deployment())
    assert operator_managed_reason(plain, kueue_cr_exists=True) is None
    in_operator_ns = KueueConfig("ConfigMap", "kueue-manager-config", "openshift-kueue-operator", {}, [], None)
    assert operator_managed_reason(in_operator_ns, kueue_cr_exists=True)
    annotated = KueueConfig("ConfigMap", "c", "n", {}, [], deployment(
        annotations={"kueueoperator.kueue.openshift.io/cluster": "3"}))
    assert "rolled by the operator" in operator_managed_reason(annotated, kueue_cr_exists=False)
    owned = KueueConfig("ConfigMap", "c", "n", {}, [], deployment(
        owners=[{"apiVersion": "kueue.openshift.io/v1", "kind": "Kueue", "name": "cluster"}]))
    assert operator_managed_reason(owned, kueue_cr_exists=False)
    rendered = KueueConfig("ConfigMap", "c", "n", {"managedJobsNamespaceSelector": {
        "matchLabels": {"kueue.openshift.io/managed": "true"}}}, [], None)
    assert operator_managed_reason(rendered, kueue_cr_exists=False)
    assert operator_managed_reason(KueueConfig("Kueue", "cluster"), kueue_cr_exists=True) is None


def test_read_modify_write_retries_conflicts_and_skips_no_ops():
    state = {"obj": {"metadata": {"resourceVersion": "1"}, "v": 0}, "conflicts": 2, "writes": 0}

    def read():
        return copy.deepcopy(state["obj"])

    def write(obj):
        if state["conflicts"]:
            state["conflicts"] -= 1
            state["obj"]["metadata"]["resourceVersion"] = str(int(state["obj"]["metadata"]["resourceVersion"]) + 1)
            raise errors.Conflict("conflict", status=409)
        assert obj["metadata"]["resourceVersion"] == state["obj"]["metadata"]["resourceVersion"]
        state["writes"] += 1
        state["obj"] = obj
        return obj

    slept: list[float] = []
    clock = Clock(sleep=slept.append)  # the pauses between attempts are the run's clock's
    result = read_modify_write(read, lambda o: dict(o, v=1), write, clock=clock)
    assert result.sent and result.attempts == 3 and state["writes"] == 1
    assert slept == [0.05, 0.1]
    result = read_modify_write(read, lambda o: o, write, clock=clock)
    assert not result.sent and not result.changed and state["writes"] == 1
    state["conflicts"] = 99
    with pytest.raises(errors.Conflict, match="changed 5 times"):
        read_modify_write(read, lambda o: dict(o, v=2), write, clock=clock)


def test_rollout_restart_and_status():
    patch = restart_patch(datetime(2026, 3, 1, 12, 30, 5, tzinfo=timezone.utc))
    assert patch["spec"]["template"]["metadata"]["annotations"] == {
        "kubectl.kubernetes.io/restartedAt": "2026-03-01T12:30:05Z"}
    done = {"metadata": {"generation": 2}, "spec": {"replicas": 1},
            "status": {"observedGeneration": 2, "updatedReplicas": 1, "replicas": 1, "availableReplicas": 1}}
    assert rollout_complete(done)
    assert not rollout_complete(dict(done, status=dict(done["status"], observedGeneration=1)))
    assert not rollout_complete(dict(done, status=dict(done["status"], replicas=2)))


def test_yaml_of_operator_source_matches_the_documented_shape():
    doc = """
name: gpu.memory
deviceClassNames: [gpu.nvidia.com, mig.nvidia.com]
sources:
- type: Counter
  counter:
    name: memory
    driver: gpu.nvidia.com
    deviceSelector:
      type: CEL
      cel:
        expression: "device.driver == 'gpu.nvidia.com'"
"""
    expected = yaml.safe_load(doc)
    src = Source("counter", "memory", "gpu.nvidia.com", "device.driver == 'gpu.nvidia.com'")
    assert set_mapping([], "gpu.memory", ["gpu.nvidia.com", "mig.nvidia.com"], [src], OPERATOR) == [expected]
