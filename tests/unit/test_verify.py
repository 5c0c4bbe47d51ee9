"""``verify`` checks on offline fixtures (the examples, modified): each check passing and failing,
path selection, partial access, and the command's output contract and exit codes."""

import copy
import json
from pathlib import Path

import pytest
import yaml

from kubectl_kueue_dra.cli import main
from kubectl_kueue_dra.kube import errors
from kubectl_kueue_dra.kube.snapshot import load_objects
from kubectl_kueue_dra.kube.snapshot import SnapshotView
from kubectl_kueue_dra.dra.cel import SelectorEvaluator
from kubectl_kueue_dra.dra.device_classes import class_selectors
from kubectl_kueue_dra.commands.verify import facts as facts_module
from kubectl_kueue_dra.kueue.queues import supply
from kubectl_kueue_dra.commands.verify.facts import gather
from kubectl_kueue_dra.commands.verify.registry import REGISTRY
from kubectl_kueue_dra.commands.verify.run import applicable_paths, run_checks

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
_CACHE: dict[str, list] = {}


def example(name: str) -> list[dict]:
    if name not in _CACHE:
        _CACHE[name] = load_objects(str(EXAMPLES / name))
    return copy.deepcopy(_CACHE[name])


def find(objects, kind, name=None):
    found = [o for o in objects if o["kind"] == kind and (name is None or o["metadata"]["name"] == name)]
    assert found, (kind, name)
    return found[0]


def run(objects, paths=None, view_cls=SnapshotView):
    facts = gather(view_cls(objects, "test"))
    checks = run_checks(facts, paths)
    return {c.id: c for c in checks}, facts


def rerun(facts, check_id):
    spec = next(s for s in REGISTRY if s.id == check_id)
    return spec.fn(facts)


def kueue_config(objects) -> dict:
    cm = find(objects, "ConfigMap", "kueue-manager-config")
    return yaml.safe_load(cm["data"]["controller_manager_config.yaml"])


def set_kueue_config(objects, config: dict) -> None:
    cm = find(objects, "ConfigMap", "kueue-manager-config")
    cm["data"]["controller_manager_config.yaml"] = yaml.safe_dump(config)


def set_image(objects, tag: str) -> None:
    d = find(objects, "Deployment", "kueue-controller-manager")
    d["spec"]["template"]["spec"]["containers"][0]["image"] = f"registry.k8s.io/kueue/kueue:{tag}"


# ---- the examples as they are ----------------------------------------------------------------
def test_resourceclaimtemplate_example():
    checks, facts = run(example("resourceclaimtemplate"))
    assert applicable_paths(facts) == {"claims"}
    assert not [c for c in checks.values() if c.status == "fail"]
    for cid in ("dra-api", "kueue-installed", "kueue-version", "kueue-config", "kueue-feature-gates",
                "kueue-gate-KueueDRAIntegration", "resourceslices", "pools", "mapped-device-classes",
                "device-classes-match", "dra-quota-configured", "quota-coverage", "local-queues",
                "managed-namespaces", "queue-namespaces"):
        assert checks[cid].status == "pass", (cid, checks[cid].message)
    assert checks["gate-DRAPartitionableDevices"].status == "info"  # not a path this setup uses
    assert checks["quota-vs-capacity"].status == "warn" and "under-provisioned" in checks["quota-vs-capacity"].message


def test_extended_resource_example_fails_where_expected():
    checks, facts = run(example("extended-resource"))
    assert applicable_paths(facts) == {"claims", "extended"}
    failed = {c.id for c in checks.values() if c.status == "fail"}
    assert failed == {"mapped-device-classes", "quota-coverage"}
    assert "gpu-reserved.nvidia.com" in checks["mapped-device-classes"].message
    # two classes are unmapped: which one the mapping was meant for is the user's to say
    assert checks["mapped-device-classes"].fix == (
        "kubectl kueue-dra map set whole-gpus --device-class <device-class> --restart  # <device-class>: the "
        "DeviceClass it was meant to be, one of gpu-legacy.nvidia.com, gpu.nvidia.com")
    assert checks["quota-coverage"].fix.startswith("kubectl patch clusterqueue gpu-cq --type=json")
    assert checks["extended-resource-classes"].status == "warn"
    assert "gpu-legacy.nvidia.com" in checks["extended-resource-classes"].message
    assert checks["gate-DRAExtendedResource"].extra["learnedFrom"] == "objects"
    assert checks["quota-vs-capacity"].status == "pass"  # 16 nvidia.com/gpu for 16 GPUs


def test_mig_example_openshift():
    checks, facts = run(example("mig-partitionable"))
    assert facts.openshift and facts.install.openshift
    assert applicable_paths(facts) == {"claims", "partitionable"}
    assert not [c for c in checks.values() if c.status == "fail"]
    assert checks["gate-DRAPartitionableDevices"].extra["learnedFrom"] == "featuregate-spec"
    assert checks["openshift-operator-gates"].status == "pass"
    assert checks["counters-published"].status == "pass"
    assert checks["kueue-gate-KueueDRAIntegrationPartitionableDevices"].extra["learnedFrom"] == "operator"
    assert checks["kueue-version"].status == "warn"  # no Deployment in the snapshot
    assert checks["cohort-counter-units"].status == "pass"
    assert "628Gi" in checks["quota-vs-capacity"].message


# ---- Kubernetes gates and OpenShift ----------------------------------------------------------
def openshift(objects, feature_set, status_enabled=(), status_disabled=(), version="4.22.3"):
    fg = find(objects, "FeatureGate")
    fg["spec"] = {"featureSet": feature_set}
    fg["status"] = {"featureGates": [{"version": version, "enabled": [{"name": n} for n in status_enabled],
                                      "disabled": [{"name": n} for n in status_disabled]}]}
    objects.append({"apiVersion": "config.openshift.io/v1", "kind": "ClusterVersion",
                    "metadata": {"name": "version"}, "spec": {"clusterID": "x"},
                    "status": {"desired": {"version": version}}})
    return objects


def test_featuregate_status_decides_and_gap_warns():
    objects = openshift(example("mig-partitionable"), "TechPreviewNoUpgrade",
                        status_enabled=["DRAPartitionableDevices"])
    checks, facts = run(objects)
    gate = checks["gate-DRAPartitionableDevices"]
    assert gate.status == "pass" and gate.extra["learnedFrom"] == "featuregate-status"
    gap = checks["openshift-operator-gates"]
    assert gap.status == "warn" and "spec.customNoUpgrade.enabled" in gap.message
    assert "TechPreviewNoUpgrade" in gap.message
    assert "cannot be changed" in gap.fix  # TechPreviewNoUpgrade cannot become CustomNoUpgrade
    # The operator does not write the Kueue gate; Kueue 0.19's default still turns it on.
    assert facts.kueue_gates.gates["KueueDRAIntegrationPartitionableDevices"].learned_from == "kueue-default"


def test_detection_gap_on_operator_14_fails_kueue():
    objects = openshift(example("mig-partitionable"), "TechPreviewNoUpgrade",
                        status_enabled=["DRAPartitionableDevices"])
    objects.append({"apiVersion": "apps/v1", "kind": "Deployment",
                    "metadata": {"name": "openshift-kueue-operator", "namespace": "openshift-kueue-operator",
                                 "labels": {"olm.owner": "kueue-operator.v1.4.1"}},
                    "spec": {"template": {"spec": {"containers": [{"name": "operator", "image": "x@sha256:1"}]}}}})
    objects.append({"apiVersion": "apps/v1", "kind": "Deployment",
                    "metadata": {"name": "kueue-controller-manager", "namespace": "openshift-kueue-operator"},
                    "spec": {"template": {"spec": {"containers": [{"name": "manager", "image": "x@sha256:2"}]}}}})
    checks, facts = run(objects)
    assert facts.install.operator_version == "1.4.1" and facts.install.version == "0.18"
    assert "crash-loops" in checks["openshift-operator-gates"].message
    assert "upgrade the Kueue operator to 1.5" in checks["openshift-operator-gates"].fix
    pd = checks["kueue-gate-KueueDRAIntegrationPartitionableDevices"]
    assert pd.status == "fail" and "refuses to start" in pd.message


def test_kubernetes_gate_off_fails_with_featuregate_patch():
    objects = openshift(example("mig-partitionable"), "CustomNoUpgrade",
                        status_disabled=["DRAPartitionableDevices"])
    find(objects, "FeatureGate")["spec"]["customNoUpgrade"] = {"enabled": ["DRAExtendedResource"]}
    checks, _ = run(objects)
    gate = checks["gate-DRAPartitionableDevices"]
    assert gate.status == "fail" and "drops ResourceSlice sharedCounters" in gate.message
    assert gate.fix.startswith("oc patch featuregate cluster --type=merge")
    assert '"enabled":["DRAExtendedResource","DRAPartitionableDevices"]' in gate.fix


def test_kubernetes_gate_unknown_offline_is_skipped():
    objects = example("resourceclaimtemplate")
    checks, _ = run(objects, paths=["partitionable", "extended"])
    assert checks["gate-DRAPartitionableDevices"].status == "skip"
    assert "needs a live server" in checks["gate-DRAPartitionableDevices"].message
    assert checks["gate-DRAExtendedResource"].status == "skip"


def test_dra_api_without_objects_is_skipped():
    objects = [o for o in example("resourceclaimtemplate") if not o["apiVersion"].startswith("resource.k8s.io")]
    checks, _ = run(objects)
    assert checks["dra-api"].status == "skip"
    assert checks["resourceslices"].status == "skip" and "snapshot has no ResourceSlice" in checks["resourceslices"].message


def test_openshift_kueue_status():
    objects = example("mig-partitionable")
    checks, _ = run(objects)
    assert checks["openshift-kueue-status"].status == "skip"
    find(objects, "Kueue")["status"] = {"conditions": [
        {"type": "Degraded", "status": "True", "reason": "MissingDependencies",
         "message": "Please install the following on your cluster: DRA Partitionable Devices requires ..."}]}
    checks, _ = run(objects)
    assert checks["openshift-kueue-status"].status == "fail" and "MissingDependencies" in checks["openshift-kueue-status"].message
    find(objects, "Kueue")["status"] = {"conditions": [{"type": "Available", "status": "True"},
                                                       {"type": "Degraded", "status": "False"}]}
    checks, _ = run(objects)
    assert checks["openshift-kueue-status"].status == "pass"


# ---- Kueue -----------------------------------------------------------------------------------
def test_kueue_version_checks():
    objects = example("resourceclaimtemplate")
    set_image(objects, "v0.12.3")
    assert run(objects)[0]["kueue-version"].status == "fail"
    set_image(objects, "v0.16.6")
    assert run(objects)[0]["kueue-version"].status == "warn"
    set_image(objects, "latest")
    checks, facts = run(objects)
    assert checks["kueue-version"].status == "warn" and facts.kueue_gates.version_assumed


def test_kueue_config_malformed_fails():
    objects = example("resourceclaimtemplate")
    find(objects, "ConfigMap", "kueue-manager-config")["data"]["controller_manager_config.yaml"] = "a: [b"
    checks, _ = run(objects)
    assert checks["kueue-config"].status == "fail" and "malformed YAML" in checks["kueue-config"].message
    assert "kubectl -n kueue-system edit configmap kueue-manager-config" in checks["kueue-config"].fix


def test_obsolete_gate_name_fails():
    objects = example("resourceclaimtemplate")
    config = kueue_config(objects)
    config["featureGates"] = {"DRAExtendedResources": True}
    set_kueue_config(objects, config)
    checks = run(objects)[0]
    check = checks["kueue-feature-gates"]
    assert check.status == "fail" and "unrecognized feature gate: DRAExtendedResources" in check.message
    assert "remove DRAExtendedResources" in check.fix
    assert checks["kueue-config"].status == "fail" and "featureGates[DRAExtendedResources]" in checks["kueue-config"].message


def test_kubernetes_gate_name_in_kueue_0_19_starts():
    """Kueue 0.19 links Kubernetes' gates: DynamicResourceAllocation is known there (locked on)."""
    objects = example("resourceclaimtemplate")
    config = kueue_config(objects)
    config["featureGates"] = {"DynamicResourceAllocation": True}
    set_kueue_config(objects, config)
    checks = run(objects)[0]
    assert checks["kueue-config"].status == "pass"
    assert checks["kueue-feature-gates"].status != "fail"


def test_gates_in_args_and_config_fails():
    objects = example("resourceclaimtemplate")
    config = kueue_config(objects)
    config["featureGates"] = {"KueueDRAIntegration": True}
    set_kueue_config(objects, config)
    find(objects, "Deployment")["spec"]["template"]["spec"]["containers"][0]["args"].append(
        "--feature-gates=KueueDRAIntegration=true")
    check = run(objects)[0]["kueue-feature-gates"]
    assert check.status == "fail" and "cannot both" in check.message
    assert "edit deployment kueue-controller-manager" in check.fix


def test_dra_integration_off_and_reject_off():
    objects = example("resourceclaimtemplate")
    config = kueue_config(objects)
    config["featureGates"] = {"KueueDRAIntegration": False, "KueueDRARejectWorkloadsWhenDRADisabled": False}
    set_kueue_config(objects, config)
    checks, _ = run(objects)
    assert checks["kueue-gate-KueueDRAIntegration"].status == "fail"
    assert "admitted with no device charged" in checks["kueue-gate-KueueDRAIntegration"].message
    assert "featureGates: {KueueDRAIntegration: true}" in checks["kueue-gate-KueueDRAIntegration"].fix
    reject = checks["kueue-gate-KueueDRARejectWorkloadsWhenDRADisabled"]
    assert reject.status == "fail" and "bypass quota" in reject.message


def test_extended_gate_off_on_kueue_018():
    objects = example("extended-resource")
    set_image(objects, "v0.18.5")
    check = run(objects)[0]["kueue-gate-KueueDRAIntegrationExtendedResource"]
    assert check.status == "fail" and "nvidia.com/gpu" in check.message


def test_partitionable_gate_upstream_018():
    objects = example("resourceclaimtemplate")
    config = kueue_config(objects)
    config["resources"]["deviceClassMappings"][0]["sources"] = [
        {"counter": {"name": "memory", "driver": "gpu.nvidia.com", "deviceSelector": {"cel": {"expression": "true"}}}}]
    set_kueue_config(objects, config)
    set_image(objects, "v0.18.5")
    check = run(objects)[0]["kueue-gate-KueueDRAIntegrationPartitionableDevices"]
    assert check.status == "fail" and "counter sources require" in check.message
    config["featureGates"] = {"KueueDRAIntegrationPartitionableDevices": True}
    set_kueue_config(objects, config)
    check = run(objects)[0]["kueue-gate-KueueDRAIntegrationPartitionableDevices"]
    assert check.status == "pass" and check.extra["learnedFrom"] == "kueue-config"


def test_capacity_sources_need_gates():
    objects = example("resourceclaimtemplate")
    config = kueue_config(objects)
    config["resources"]["deviceClassMappings"][0]["sources"] = [
        {"capacity": {"name": "memory", "driver": "gpu.nvidia.com", "deviceSelector": {"cel": {"expression": "true"}}}}]
    set_kueue_config(objects, config)
    checks, _ = run(objects)
    assert checks["kueue-gate-KueueDRAIntegrationConsumableCapacity"].status == "fail"
    assert "gate-DRAConsumableCapacity" in checks


def test_config_loaded_after_change():
    objects = example("resourceclaimtemplate")
    cm = find(objects, "ConfigMap", "kueue-manager-config")
    cm["metadata"]["managedFields"] = [{"manager": "kubectl", "time": "2026-09-02T10:00:00Z"}]
    objects.append({"apiVersion": "v1", "kind": "Pod",
                    "metadata": {"name": "kueue-1", "namespace": "kueue-system",
                                 "labels": {"control-plane": "controller-manager"}},
                    "status": {"startTime": "2026-09-01T09:00:00Z"}})
    check = run(objects)[0]["kueue-config-loaded"]
    assert check.status == "warn" and "rollout restart deployment/kueue-controller-manager" in check.fix
    objects[-1]["status"]["startTime"] = "2026-09-03T09:00:00Z"
    assert run(objects)[0]["kueue-config-loaded"].status == "pass"


# ---- devices ---------------------------------------------------------------------------------
def test_no_resourceslices_fails():
    _, facts = run(example("resourceclaimtemplate"))
    facts.lists["ResourceSlice"] = []
    result = rerun(facts, "resourceslices")
    assert result.status == "fail" and "kubectl get resourceslices" in result.fix


def test_pools_incomplete_and_stale():
    objects = example("resourceclaimtemplate")
    slices = [o for o in objects if o["kind"] == "ResourceSlice"]
    slices[0]["spec"]["pool"]["resourceSliceCount"] = 2
    old = copy.deepcopy(slices[1])
    old["metadata"]["name"] += "-old"
    old["spec"]["pool"]["generation"] = 0
    objects.append(old)
    check = run(objects)[0]["pools"]
    assert check.status == "warn"
    assert "gpu.nvidia.com/gpu-node-1 (1 of 2 slices)" in check.message and "older generation" in check.message


def test_counter_name_not_published():
    objects = example("mig-partitionable")
    source = find(objects, "Kueue")["spec"]["config"]["resources"]["deviceClassMappings"][0]["sources"][0]
    source["counter"]["name"] = "gpu-memory"
    check = run(objects)[0]["counters-published"]
    assert check.status == "fail" and "no device of gpu.nvidia.com consumes a counter of that name" in check.message
    assert "(it publishes: memory, " in check.message  # the closest name first
    assert check.fix == ("oc kueue-dra map set gpu.memory --device-class gpu.nvidia.com --device-class "
                         "mig.nvidia.com --counter memory --driver gpu.nvidia.com --selector "
                         "\"device.driver == 'gpu.nvidia.com'\"")  # OpenShift: oc; quoted as a person would


def test_counter_selector_problems():
    objects = example("mig-partitionable")
    source = find(objects, "Kueue")["spec"]["config"]["resources"]["deviceClassMappings"][0]["sources"][0]
    source["counter"]["deviceSelector"]["cel"]["expression"] = "device.driver =="
    assert "does not compile" in run(objects)[0]["counters-published"].message
    source["counter"]["deviceSelector"]["cel"]["expression"] = "device.driver == 'other'"
    check = run(objects)[0]["counters-published"]
    assert check.status == "fail" and "matched by the deviceSelector" in check.message


def test_device_class_matching():
    objects = example("resourceclaimtemplate")
    dc = find(objects, "DeviceClass", "gpu.nvidia.com")
    dc["spec"]["selectors"][0]["cel"]["expression"] = "device.attributes['gpu.nvidia.com'].type == 'none'"
    check = run(objects)[0]["device-classes-match"]
    assert check.status == "warn" and "no device in a complete pool matches DeviceClass gpu.nvidia.com" in check.message
    dc["spec"]["selectors"][0]["cel"]["expression"] = "device.attributes['gpu.nvidia.com'].missing == 1"
    check = run(objects)[0]["device-classes-match"]
    assert check.status == "fail" and "no such key" in check.message


def test_extended_resource_classes():
    objects = example("extended-resource")
    objects = [o for o in objects if not (o["kind"] == "DeviceClass" and o["metadata"]["name"] == "gpu-legacy.nvidia.com")]
    assert run(objects)[0]["extended-resource-classes"].status == "pass"
    for o in objects:
        if o["kind"] == "DeviceClass":
            o["spec"].pop("extendedResourceName")
    check = run(objects, paths=["extended"])[0]["extended-resource-classes"]
    # the plugin's own command makes the change; the name is a choice, said as one
    assert check.status == "fail" and check.fix == (
        "kubectl kueue-dra classes set-extended-resource gpu.nvidia.com nvidia.com/gpu  # nvidia.com/gpu: the name "
        "pods will request, yours to choose")


def test_extended_resource_class_with_counter_mapping_fails():
    objects = example("mig-partitionable")
    find(objects, "DeviceClass", "gpu.nvidia.com")["spec"]["extendedResourceName"] = "nvidia.com/gpu"
    checks, facts = run(objects)
    assert "extended" in facts.paths
    check = checks["extended-resource-classes"]
    assert check.status == "fail" and "counter-based quota" in check.message


# ---- quota -----------------------------------------------------------------------------------
def test_no_dra_quota_configured():
    objects = example("resourceclaimtemplate")
    config = kueue_config(objects)
    del config["resources"]
    set_kueue_config(objects, config)
    check = run(objects)[0]["dra-quota-configured"]
    # the ClusterQueue covers whole-gpus, which nothing charges: the mapping it was made for
    assert check.status == "fail" and check.fix == (
        "kubectl kueue-dra map set whole-gpus --device-class gpu.nvidia.com --restart  # ClusterQueue gpu-cq covers "
        "whole-gpus, which no mapping or DeviceClass charges yet")


def test_quota_coverage_ignore_undeclared():
    objects = example("extended-resource")
    config = kueue_config(objects)
    config["resources"]["quotaCheckStrategy"] = "IgnoreUndeclared"
    set_kueue_config(objects, config)
    checks, _ = run(objects)
    assert "admitted without being charged" in checks["quota-coverage"].message
    assert checks["quota-check-strategy"].status == "warn"


def _cohort(objects, second_quota, first_quota=None):
    cq = find(objects, "ClusterQueue", "research-cq")
    cq["spec"]["cohortName"] = "research"
    if first_quota:
        cq["spec"]["resourceGroups"][0]["flavors"][0]["resources"][2]["nominalQuota"] = first_quota
    other = copy.deepcopy(cq)
    other["metadata"]["name"] = "other-cq"
    other["spec"]["resourceGroups"][0]["flavors"][0]["resources"][2]["nominalQuota"] = second_quota
    objects.append(other)
    return objects


def test_cohort_counter_units():
    check = run(_cohort(example("mig-partitionable"), "320Gi"))[0]["cohort-counter-units"]
    assert check.status == "pass"
    check = run(_cohort(example("mig-partitionable"), "160G"))[0]["cohort-counter-units"]
    assert check.status == "warn" and "1G is not 1Gi" in check.message
    check = run(_cohort(example("mig-partitionable"), "160000000000000"))[0]["cohort-counter-units"]
    assert check.status == "fail" and "mixes unit scales" in check.message


@pytest.mark.parametrize("second,flagged", [("1Ti", False), ("320e9", True), ("1600000000000", True), ("0", False),
                                            ("320000000k", True)])
def test_map_and_verify_agree_on_a_cohort(second, flagged):
    """One unit-scale classification: map's CohortUnitScaleMismatch and verify's cohort check agree."""
    from kubectl_kueue_dra.kueue.config.load import load_kueue_config
    from kubectl_kueue_dra.commands.map.report import map_report

    objects = _cohort(copy.deepcopy(example("mig-partitionable")), second)
    check = run(objects)[0]["cohort-counter-units"]
    view = SnapshotView(objects, "test")
    _, findings = map_report(load_kueue_config(view, None).mappings, device_classes=None,
                             cluster_queues=view.list("ClusterQueue"), slices=None)
    map_flagged = any(f["code"] == "CohortUnitScaleMismatch" for f in findings)
    assert map_flagged is flagged and (check.status != "pass") is flagged, (findings, check)


def test_counter_quota_below_smallest_device():
    objects = example("mig-partitionable")
    cq = find(objects, "ClusterQueue", "research-cq")
    cq["spec"]["resourceGroups"][0]["flavors"][0]["resources"][2]["nominalQuota"] = "160"
    check = run(objects)[0]["cohort-counter-units"]
    assert check.status == "fail" and "smallest device charges (4864Mi)" in check.message
    assert '"value":"160Gi"' in check.fix and "/spec/resourceGroups/0/flavors/0/resources/2/nominalQuota" in check.fix


def test_quota_over_provisioned():
    objects = example("resourceclaimtemplate")
    cq = find(objects, "ClusterQueue", "gpu-cq")
    cq["spec"]["resourceGroups"][0]["flavors"][0]["resources"][2]["nominalQuota"] = "12"
    check = run(objects)[0]["quota-vs-capacity"]
    assert check.status == "warn" and "over-provisioned" in check.message
    cq["spec"]["resourceGroups"][0]["flavors"][0]["resources"][2]["nominalQuota"] = "8"
    assert run(objects)[0]["quota-vs-capacity"].status == "pass"


# ---- queues and namespaces -------------------------------------------------------------------
def test_local_queue_pointing_nowhere():
    objects = example("resourceclaimtemplate")
    find(objects, "LocalQueue")["spec"]["clusterQueue"] = "gone"
    check = run(objects)[0]["local-queues"]
    assert check.status == "fail" and "team-a/gpu-queue → gone" in check.message
    # spec.clusterQueue is immutable (Kueue's CRD: self == oldSelf): the LocalQueue is recreated
    assert check.fix == (
        "kubectl -n team-a delete localqueue gpu-queue && echo '{\"apiVersion\":\"kueue.x-k8s.io/v1beta2\",\"kind\":"
        "\"LocalQueue\",\"metadata\":{\"name\":\"gpu-queue\",\"namespace\":\"team-a\"},\"spec\":{\"clusterQueue\":"
        "\"gpu-cq\"}}' | kubectl apply -f -  # spec.clusterQueue cannot be changed; the one ClusterQueue that selects "
        "the namespace")


def test_no_local_queue_feeds_dra_queue():
    objects = example("resourceclaimtemplate")
    other = copy.deepcopy(find(objects, "ClusterQueue", "gpu-cq"))
    other["metadata"]["name"] = "cpu-cq"
    other["spec"]["resourceGroups"][0]["coveredResources"] = ["cpu"]
    other["spec"]["resourceGroups"][0]["flavors"][0]["resources"] = [{"name": "cpu", "nominalQuota": "1"}]
    objects.append(other)
    find(objects, "LocalQueue")["spec"]["clusterQueue"] = "cpu-cq"
    check = run(objects)[0]["local-queues"]
    assert check.status == "warn"
    # the one team namespace gpu-cq selects gets the LocalQueue
    assert check.fix == (
        "echo '{\"apiVersion\":\"kueue.x-k8s.io/v1beta2\",\"kind\":\"LocalQueue\",\"metadata\":{\"name\":\"gpu-cq\","
        "\"namespace\":\"team-a\"},\"spec\":{\"clusterQueue\":\"gpu-cq\"}}' | kubectl apply -f -  # the one team "
        "namespace ClusterQueue gpu-cq selects")


def test_openshift_managed_label_missing():
    objects = example("mig-partitionable")
    find(objects, "Namespace", "ml-research")["metadata"]["labels"] = {}
    check = run(objects)[0]["managed-namespaces"]
    assert check.status == "fail" and "run without quota" in check.message
    assert check.fix == "oc label namespace ml-research kueue.openshift.io/managed=true"


def test_upstream_managed_jobs_namespace_selector():
    objects = example("resourceclaimtemplate")
    config = kueue_config(objects)
    config["managedJobsNamespaceSelector"] = {"matchLabels": {"gpu-jobs": "yes"}}
    set_kueue_config(objects, config)
    check = run(objects)[0]["managed-namespaces"]
    assert check.status == "fail" and check.fix == "kubectl label namespace team-a gpu-jobs=yes"
    find(objects, "Namespace", "team-a")["metadata"]["labels"] = {"gpu-jobs": "yes"}
    assert run(objects)[0]["managed-namespaces"].status == "pass"


def test_default_selector_excludes_kueue_namespace():
    objects = example("resourceclaimtemplate")
    find(objects, "LocalQueue")["metadata"]["namespace"] = "kueue-system"
    check = run(objects)[0]["managed-namespaces"]
    assert check.status == "fail" and "default managedJobsNamespaceSelector" in check.message


# ---- gathered once: one grouping of the pools, one evaluator ---------------------------------
def _per_device(f, selectors, driver=None):
    """What supply.matching answers without an index: every device evaluated on its own."""
    return supply.matching(f.pools, selectors, SelectorEvaluator(), driver)


@pytest.mark.parametrize("name", ["mig-partitionable", "resourceclaimtemplate", "extended-resource"])
def test_the_shared_index_gives_the_per_device_answers(name):
    objects = example(name)
    # a pool whose device names repeat (the API forbids it): counted by name, not by group size
    dup = copy.deepcopy(next(o for o in objects if o["kind"] == "ResourceSlice" and o["spec"].get("devices")))
    dup["metadata"]["name"] += "-dup"
    dup["spec"]["pool"] = {**dup["spec"]["pool"], "name": dup["spec"]["pool"]["name"] + "-dup", "resourceSliceCount": 1}
    dup["spec"]["devices"] = dup["spec"]["devices"] + copy.deepcopy(dup["spec"]["devices"])
    objects.append(dup)
    _, f = run(objects)
    lists = [class_selectors(dc) for dc in f.device_classes or []]
    lists += [["device.attributes['nope'].x == 1"]]  # fails on every device: errors counted alike
    index = f.shape_index
    for selectors in lists + [[s.selector] for m in f.mappings or [] for s in m.counter_sources if s.selector]:
        if selectors != lists[-1]:
            assert index.covers(selectors), selectors
        slow, fast = _per_device(f, selectors), supply.matching(f.pools, selectors, f.evaluator, index=index)
        assert [(p.name, d["name"]) for p, d in fast.devices] == [(p.name, d["name"]) for p, d in slow.devices]
        assert fast.errors == slow.errors
        assert supply.count_devices(f.pools, [selectors], f.evaluator, index) == \
            supply.count_devices(f.pools, [selectors], SelectorEvaluator())
    assert supply.count_devices(f.pools, lists, f.evaluator, index) == \
        supply.count_devices(f.pools, lists, SelectorEvaluator())


def test_verify_groups_the_pools_once_and_evaluates_per_shape(monkeypatch):
    calls = []
    real = facts_module.group_pools
    monkeypatch.setattr(facts_module, "group_pools", lambda *args: calls.append(1) or real(*args))
    checks, f = run(example("mig-partitionable"))
    assert len(calls) == 1  # every check reads f.pools
    devices = sum(len(list(p.devices())) for p in f.pools)
    lists = {tuple(class_selectors(dc)) for dc in f.device_classes or []}
    # each selector list is evaluated on one device per group, not on every device
    assert f.evaluator.evaluations + f.evaluator.cache_hits <= len(index_groups(f)) * (len(lists) + 2)
    assert devices > len(index_groups(f))
    assert checks["device-classes-match"].status in ("pass", "warn")


def index_groups(f):
    return f.shape_index.representatives


# ---- selection, partial access ---------------------------------------------------------------
def test_path_selection():
    checks, facts = run(example("resourceclaimtemplate"), paths=["partitionable"])
    assert facts.paths == {"partitionable"}
    assert "gate-DRAPartitionableDevices" in checks and "kueue-gate-KueueDRAIntegrationPartitionableDevices" in checks
    assert "extended-resource-classes" not in checks
    # A gate of a path not checked is still listed, as an info line (never a pass or a failure).
    assert checks["gate-DRAExtendedResource"].status == "info"
    assert "the extended path needs it and is not checked here" in checks["gate-DRAExtendedResource"].message
    assert checks["kueue-gate-KueueDRAIntegrationPartitionableDevices"].status == "pass"  # 0.19 default
    assert "dra-api" in checks and "quota-coverage" in checks  # common checks always run


class ForbiddenQueues(SnapshotView):
    def _list(self, kind, namespace, field_selector, label_selector):
        if kind.kind in ("ClusterQueue", "Namespace"):
            raise errors.Forbidden("list", kind.resource, None, None, "reader")
        return super()._list(kind, namespace, field_selector, label_selector)


def test_forbidden_list_skips_only_what_needs_it():
    checks, _ = run(example("resourceclaimtemplate"), view_cls=ForbiddenQueues)
    for cid in ("quota-coverage", "quota-vs-capacity", "local-queues", "managed-namespaces"):
        assert checks[cid].status == "skip", cid
        assert "forbidden (as reader)" in checks[cid].message
    assert checks["device-classes-match"].status == "pass"
    assert checks["mapped-device-classes"].status == "pass"


def test_a_broken_check_is_a_skip_not_a_crash():
    spec = next(s for s in REGISTRY if s.id == "pools")

    def boom(f):
        raise RuntimeError("boom")
    index = REGISTRY.index(spec)
    REGISTRY[index] = type(spec)(spec.id, spec.category, spec.paths, boom, spec.applies)
    try:
        checks, _ = run(example("resourceclaimtemplate"))
    finally:
        REGISTRY[index] = spec
    assert checks["pools"].status == "skip" and "RuntimeError: boom" in checks["pools"].message


# ---- the command -----------------------------------------------------------------------------
def test_cli_json_contract_and_exit_codes(capsys):
    assert main(["verify", "--from", str(EXAMPLES / "resourceclaimtemplate"), "-o", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["checks"] and all({"id", "status", "message", "fix"} <= set(c) for c in doc["checks"])
    assert {c["status"] for c in doc["checks"]} <= {"pass", "warn", "fail", "skip", "info"}
    assert [g["name"] for g in doc["kubernetesGates"]][:4] == [
        "DynamicResourceAllocation", "DRAExtendedResource", "DRAPartitionableDevices", "DRAConsumableCapacity"]
    assert "DRAAdminAccess" in [g["name"] for g in doc["kubernetesGates"]]
    assert doc["summary"]["info"] == sum(c["status"] == "info" for c in doc["checks"]) > 0
    assert doc["kueue"]["version"] == "0.19.2" and doc["paths"] == ["claims"]
    assert main(["verify", "--from", str(EXAMPLES / "extended-resource")]) == 1
    out = capsys.readouterr().out
    assert "FAIL" in out and "To fix:" in out and "2 failures" in out.splitlines()[0]


def test_cli_bad_path_is_a_usage_error(capsys):
    assert main(["verify", "--from", str(EXAMPLES / "resourceclaimtemplate"), "--path", "mig"]) == 2
    assert 'invalid --path "mig"' in capsys.readouterr().err


def test_cli_path_option_and_wide(capsys):
    assert main(["verify", "--from", str(EXAMPLES / "mig-partitionable"), "--path", "partitionable",
                 "-o", "wide", "--no-headers"]) == 0
    out = capsys.readouterr().out
    assert "counters-published" in out and "STATUS" not in out


@pytest.mark.parametrize("name", ["resourceclaimtemplate", "extended-resource", "mig-partitionable"])
def test_every_fail_has_a_fix(name):
    checks, _ = run(example(name))
    assert all(c.fix for c in checks.values() if c.status == "fail")


def test_missing_class_beside_an_existing_one_is_removed():
    objects = example("extended-resource")
    config = kueue_config(objects)
    config["resources"]["deviceClassMappings"][0]["deviceClassNames"] = ["gpu.nvidia.com", "gpu-reserved.nvidia.com"]
    set_kueue_config(objects, config)
    check = run(objects)[0]["mapped-device-classes"]
    assert check.status == "fail"
    assert check.fix == "kubectl kueue-dra map remove whole-gpus --device-class gpu-reserved.nvidia.com --restart"


def _rendered_configmap(objects, gates) -> dict:
    """A rendered ConfigMap for the example's Kueue CR (its mappings in Kueue's dialect), with
    ``gates`` as its featureGates."""
    cr = find(objects, "Kueue")
    raw = cr["spec"]["config"]["resources"]["deviceClassMappings"]
    mappings = [{"name": m["name"], "deviceClassNames": m["deviceClassNames"],
                 **({"sources": [{"counter": {k: v for k, v in s["counter"].items() if k != "deviceSelector"}
                                  | {"deviceSelector": {"cel": s["counter"]["deviceSelector"]["cel"]}}}
                                 for s in m["sources"]]} if m.get("sources") else {})} for m in raw]
    doc = {"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration",
           "resources": {"deviceClassMappings": mappings}}
    if gates:
        doc["featureGates"] = gates
    return {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "kueue-manager-config", "namespace": "openshift-kueue-operator"},
            "data": {"controller_manager_config.yaml": yaml.safe_dump(doc)}}


def test_openshift_render_up_to_date_and_stale():
    objects = example("mig-partitionable")
    checks, _ = run(objects)
    assert checks["openshift-kueue-render"].status == "skip"  # no rendered ConfigMap in the snapshot
    assert find(objects, "FeatureGate")["spec"]["customNoUpgrade"]["enabled"] == [
        "DRAPartitionableDevices", "DRAExtendedResource"]
    both = {"KueueDRAIntegrationPartitionableDevices": True, "KueueDRAIntegrationExtendedResource": True}
    render = run([*objects, _rendered_configmap(objects, both)])[0]["openshift-kueue-render"]
    assert render.status == "pass", render.message
    assert render.extra["expectedFeatureGates"] == both
    stale = {"KueueDRAIntegrationExtendedResource": True}  # rendered before the FeatureGate change
    render = run([*objects, _rendered_configmap(objects, stale)])[0]["openshift-kueue-render"]
    assert render.status == "warn" and "is stale" in render.message
    assert "KueueDRAIntegrationPartitionableDevices is rendered off" in render.message
    assert render.fix.startswith("oc annotate kueues.kueue.openshift.io cluster kueue-dra.io/reconcile=")


def test_degraded_missing_partitionable_gate_says_what_to_change():
    objects = example("mig-partitionable")
    find(objects, "Kueue")["status"] = {"conditions": [
        {"type": "Degraded", "status": "True", "reason": "MissingDependencies",
         "message": "Please install the following on your cluster: DRA Partitionable Devices requires the "
                    "DRAPartitionableDevices K8s feature gate to be enabled"}]}
    status = run(objects)[0]["openshift-kueue-status"]
    assert status.status == "fail"
    assert "spec.customNoUpgrade.enabled" in status.fix and "oc annotate kueues.kueue.openshift.io" in status.fix


def test_cluster_queue_selecting_no_namespace_of_its_local_queues():
    objects = example("resourceclaimtemplate")
    assert run(objects)[0]["queue-namespaces"].status == "pass"
    cq = find(objects, "ClusterQueue", "gpu-cq")
    cq["spec"]["namespaceSelector"] = {"matchLabels": {"team": "ml"}}
    check = run(objects)[0]["queue-namespaces"]
    assert check.status == "fail" and "does not select team-a" in check.message
    assert "workload namespace doesn't match ClusterQueue selector" in check.message
    assert check.fix == "kubectl label namespace team-a team=ml"
    find(objects, "Namespace", "team-a")["metadata"].setdefault("labels", {})["team"] = "ml"
    assert run(objects)[0]["queue-namespaces"].status == "pass"
    del cq["spec"]["namespaceSelector"]  # Kueue reads a missing selector as selecting nothing
    check = run(objects)[0]["queue-namespaces"]
    assert check.status == "fail" and "no namespaceSelector, which selects no namespace" in check.message
    assert check.fix.startswith("kubectl patch clusterqueue gpu-cq --type=merge -p '{\"spec\":{\"namespaceSelector\":{}}}'")


def test_operator_gates_say_when_there_is_no_featuregate():
    """Without a FeatureGate object the check never says what one's spec holds, it says there is
    none; one whose featureSet is not CustomNoUpgrade has no customNoUpgrade.enabled to speak of."""
    def without_counters(objects):  # nothing the operator would miss
        for o in objects:
            if o["kind"] == "ResourceSlice":
                o["spec"].pop("sharedCounters", None)
                for d in o["spec"].get("devices") or []:
                    d.pop("consumesCounters", None)
        return objects

    objects = without_counters([o for o in example("mig-partitionable") if o["kind"] != "FeatureGate"])
    check = run(objects)[0]["openshift-operator-gates"]
    assert (check.status, check.message) == ("pass", "there is no FeatureGate cluster in the snapshot: the operator "
                                             "turns no Kueue DRA gate on (Kueue's defaults apply)")
    objects = without_counters(example("mig-partitionable"))
    find(objects, "FeatureGate")["spec"] = {}
    check = run(objects)[0]["openshift-operator-gates"]
    assert check.status == "pass"
    assert "featureSet Default has no spec.customNoUpgrade.enabled" in check.message


# ---- the platform version and the state of every DRA gate -------------------------------------
def _cluster_version(objects, version):
    objects = [o for o in objects if o["kind"] != "ClusterVersion"]
    objects.append({"apiVersion": "config.openshift.io/v1", "kind": "ClusterVersion", "metadata": {"name": "version"},
                    "spec": {"clusterID": "x"}, "status": {"desired": {"version": version}}})
    return objects


@pytest.mark.parametrize("version,status,needs", [
    ("4.21.9", "fail", "upgrade OpenShift to 4.22 or later"),  # counters need 4.22
    ("4.22.0", "pass", None),
    ("4.20.2", "fail", "upgrade OpenShift to 4.22 or later"),
])
def test_openshift_version_against_each_path(version, status, needs):
    checks, _ = run(_cluster_version(example("mig-partitionable"), version))
    platform = checks["platform-version"]
    assert (platform.status, platform.fix) == (status, needs)
    assert f"OpenShift {version}" in platform.message
    assert platform.extra["needs"] == {"claims": "4.21", "partitionable": "4.22"}
    assert next(iter(checks)) == "platform-version"
    # The claims path alone needs 4.21.
    claims_only, _ = run(_cluster_version(example("mig-partitionable"), version), paths=["claims"])
    assert claims_only["platform-version"].status == ("fail" if version < "4.21" else "pass")


def test_openshift_version_unknown_is_never_a_pass():
    checks, facts = run(example("mig-partitionable"))  # an OpenShift snapshot without ClusterVersion
    platform = checks["platform-version"]
    assert platform.status == "skip"
    assert platform.message.startswith("OpenShift version unknown (the snapshot has no ClusterVersion)")
    # Live, a ClusterVersion that cannot be read is a warning naming the 403.
    facts.live, facts.cluster_version_problem = True, 'clusterversions.config.openshift.io "version" is forbidden'
    live = rerun(facts, "platform-version")
    assert live.status == "warn" and "is forbidden" in live.message and "clusterversions" in live.fix


def test_kubernetes_version_against_each_path():
    checks, facts = run(example("resourceclaimtemplate"), paths=["claims", "partitionable"])
    assert checks["platform-version"].status == "skip"
    assert "Kubernetes version unknown (a snapshot has no /version)" in checks["platform-version"].message
    facts.live, facts.server_version = True, "v1.35.2"
    facts.k8s_inputs.minor = 35
    result = rerun(facts, "platform-version")
    assert result.status == "pass", result.message
    assert result.message == ("Kubernetes 1.35 (server v1.35.2): claims needs 1.34 or later (DynamicResourceAllocation); "
                              "partitionable needs 1.34 or later (DRAPartitionableDevices, on by default from 1.36)")
    facts.k8s_inputs.minor = 33
    result = rerun(facts, "platform-version")
    assert result.status == "fail" and result.fix == "upgrade the cluster to Kubernetes 1.34 or later"
    facts.k8s_inputs.minor, facts.unreadable["/version"] = None, "the server answered 503 on /version"
    assert rerun(facts, "platform-version").status == "warn"


def test_technology_preview_is_said_once_on_openshift_only(capsys):
    assert main(["verify", "--from", str(EXAMPLES / "mig-partitionable")]) == 0
    out = capsys.readouterr().out
    assert out.count("Technology Preview") == 1
    assert out.splitlines()[-1].startswith("info: Kueue's DRA quota management is a Technology Preview")
    main(["verify", "--from", str(EXAMPLES / "mig-partitionable"), "-o", "json"])
    doc = json.loads(capsys.readouterr().out)
    assert [n["code"] for n in doc["notes"]] == ["TechnologyPreview"]
    main(["verify", "--from", str(EXAMPLES / "resourceclaimtemplate"), "-o", "json"])
    doc = json.loads(capsys.readouterr().out)
    assert doc["notes"] == [] and "Technology Preview" not in json.dumps(doc["checks"])


def test_every_dra_gate_is_listed_once():
    from kubectl_kueue_dra import gates as g

    for paths in (None, ["claims"], ["partitionable"], ["claims", "extended", "partitionable"]):
        checks, facts = run(example("mig-partitionable"), paths=paths)
        gates = [c.extra["gate"] for c in checks.values() if c.extra.get("gate")]
        gates += [n for c in checks.values() for n in c.extra.get("gates", [])]
        assert sorted(gates) == sorted(list(facts.k8s_gates) + list(g.KUEUE_GATES)), paths
        assert len(gates) == len(set(gates)), paths
    # With the partitionable path not in use, its gate is still shown, with its state, as info.
    checks, _ = run(example("mig-partitionable"), paths=["claims"])
    line = checks["gate-DRAPartitionableDevices"]
    assert line.status == "info" and line.extra["state"] == "on"
    assert line.message.startswith("DRAPartitionableDevices is on (OpenShift FeatureGate spec")
    kueue_line = checks["kueue-gate-KueueDRAIntegrationPartitionableDevices"]
    assert kueue_line.status == "info" and kueue_line.category == "kueue"
    # A snapshot tells nothing of the other gates: one line names them, unknown.
    others = checks["gate-others"]
    assert others.status == "info" and others.extra["state"] == "unknown" and "DRAAdminAccess" in others.message


def test_gate_states_from_the_featuregate_status():
    objects = openshift(example("mig-partitionable"), "TechPreviewNoUpgrade",
                        status_enabled=["DRAPartitionableDevices", "DRAAdminAccess"],
                        status_disabled=["DRADeviceTaints"], version="4.22.3")
    checks, _ = run(objects)
    assert checks["gate-DRAAdminAccess"].status == "info" and checks["gate-DRAAdminAccess"].extra["state"] == "on"
    assert checks["gate-DRADeviceTaints"].extra["state"] == "off"
    # OpenShift 4.22 is Kubernetes 1.35: the rest take its upstream defaults.
    assert checks["gate-DRAPrioritizedList"].message.startswith(
        "DRAPrioritizedList is on (upstream default: beta, on by default in Kubernetes 1.35 (OpenShift 4.22.3))")
    assert "gate-others" not in checks
    assert checks["platform-version"].status == "pass"


def test_kueue_gate_lines_when_kueue_is_not_installed():
    _, facts = run(example("resourceclaimtemplate"))
    facts.live, facts.kueue_served = True, False
    from kubectl_kueue_dra.commands.verify.gate_states import kueue_lines

    assert kueue_lines(facts, set()) == []
    facts.live, facts.kueue_served = False, True
    assert {c.id for c in kueue_lines(facts, set())} == {f"kueue-gate-{n}" for n in facts.kueue_gates.gates}


class ForbiddenFeatureGate(SnapshotView):
    def _get(self, kind, name, namespace):
        if kind.kind == "FeatureGate":
            raise errors.Forbidden("get", kind.resource, name, None, "reader")
        return super()._get(kind, name, namespace)

    def _list(self, kind, namespace, field_selector, label_selector):
        if kind.kind == "FeatureGate":
            raise errors.Forbidden("list", kind.resource, None, None, "reader")
        return super()._list(kind, namespace, field_selector, label_selector)


def test_a_gate_check_that_skips_is_not_listed_again_as_info():
    """A Kueue gate check that cannot tell (the FeatureGate is forbidden) is a skip, once: no info
    line of the same gate beside it."""
    facts = gather(ForbiddenFeatureGate(example("mig-partitionable"), "test"))
    checks = run_checks(facts)
    ids = [c.id for c in checks]
    assert len(ids) == len(set(ids)), sorted(i for i in ids if ids.count(i) > 1)
    gate = next(c for c in checks if c.id == "kueue-gate-KueueDRAIntegrationPartitionableDevices")
    assert gate.status == "skip" and "forbidden" in gate.message


def test_check_ids_are_unique_on_every_example():
    for setup in ("resourceclaimtemplate", "extended-resource", "mig-partitionable"):
        for paths in (None, ["claims"], ["partitionable"]):
            ids = [c.id for c in run_checks(gather(SnapshotView(example(setup), "test")), paths)]
            assert len(ids) == len(set(ids)), (setup, paths)


class ForbiddenKueueCR(SnapshotView):
    def _get(self, kind, name, namespace):
        if kind.kind == "Kueue":
            raise errors.Forbidden("get", kind.resource, name, None, "reader")
        return super()._get(kind, name, namespace)

    def _list(self, kind, namespace, field_selector, label_selector):
        if kind.kind == "Kueue":
            raise errors.Forbidden("list", kind.resource, None, None, "reader")
        return super()._list(kind, namespace, field_selector, label_selector)


def test_paths_unknown_make_the_path_gate_lines_skips():
    """Kueue's configuration may not be read: which paths are in use is unknown, so a path gate's
    line says so as a skip (the reader, who sees the counter mapping, gets a pass there)."""
    checks, _ = run(example("mig-partitionable"), view_cls=ForbiddenKueueCR)
    line = checks["gate-DRAPartitionableDevices"]
    assert line.status == "skip" and "whether the partitionable path is in use is unknown" in line.message
    assert line.extra["state"] == "on"  # its state is still said
    assert checks["kueue-gate-KueueDRAIntegrationPartitionableDevices"].status == "skip"
    # Named with --path, the path is checked as usual.
    named, _ = run(example("mig-partitionable"), paths=["claims"], view_cls=ForbiddenKueueCR)
    assert named["gate-DRAPartitionableDevices"].status == "info"
