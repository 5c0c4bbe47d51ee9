"""The findings no other test drove when the catalogue was made, each through the code path that says
it: explain on a what-if file or an edited example snapshot, the pure steps behind explain, classes
and map on fixture objects, and the mapping rules. Each test asserts the code, its severity and its
fix as the catalogue declares it."""

import json
import re
import shutil
from pathlib import Path

import pytest
import yaml
from testenv.clirun import run  # in process (tests/clirun.py)

from kubectl_kueue_dra.findings import codes as F

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
HEAD = "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nnamespace: kueue-system\n"
MAPPING = "resources:\n  deviceClassMappings:\n  - name: whole-gpus\n    deviceClassNames: [gpu.nvidia.com]\n"


def snapshot(tmp_path, example="resourceclaimtemplate", config=None, extra=(), edit=None):
    """A copy of an example: Kueue's configuration text replaced, objects added, or edited."""
    root = tmp_path / "snap"
    shutil.copytree(EXAMPLES / example, root)
    for path in sorted(root.glob("*.yaml")):
        docs = [d for d in yaml.safe_load_all(path.read_text()) if d]
        for obj in docs:
            if config is not None and obj["kind"] == "ConfigMap" and obj["metadata"]["name"] == "kueue-manager-config":
                obj["data"]["controller_manager_config.yaml"] = config
            if edit:
                edit(obj)
        path.write_text(yaml.safe_dump_all(docs))
    if extra:
        (root / "extra.yaml").write_text(yaml.safe_dump_all(list(extra)))
    return str(root)


def findings(*args, input=None):
    proc = run(*args, "-o", "json", input=input)
    assert proc.returncode in (0, 1), proc.stderr
    doc = json.loads(proc.stdout)
    return [f for item in doc.get("items", [doc]) for f in item["findings"]]


def the(found, code):
    [f] = [f for f in found if f["code"] == code.name]
    assert f["severity"] in code.severities
    return f


def job(ns="team-a", queue="gpu-queue", claims=(), requests=None):
    container = {"name": "c", "image": "busybox", "resources": {"requests": dict(requests or {"cpu": "1"})}}
    spec = {"containers": [container], "restartPolicy": "Never"}
    if claims:
        spec["resourceClaims"] = list(claims)
        container["resources"]["claims"] = [{"name": c["name"]} for c in claims]
    return {"apiVersion": "batch/v1", "kind": "Job",
            "metadata": {"name": "what-if", "namespace": ns, "labels": {"kueue.x-k8s.io/queue-name": queue}},
            "spec": {"template": {"spec": spec}}}


def template(request, name="t", ns="team-a", **devices):
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate", "metadata": {"name": name, "namespace": ns},
            "spec": {"spec": {"devices": dict({"requests": [dict({"name": "gpu"}, **request)]}, **devices)}}}


ONE_GPU = {"deviceClassName": "gpu.nvidia.com", "allocationMode": "ExactCount", "count": 1}
BY_TEMPLATE = [{"name": "gpu", "resourceClaimTemplateName": "t"}]


# ---- explain predicts Kueue's rejection of a what-if ----------------------------------------------------

@pytest.mark.parametrize("code, objects, args", [
    (F.AdminAccessNotSupported, [job(claims=BY_TEMPLATE), template({"exactly": dict(ONE_GPU, adminAccess=True)})], ()),
    (F.AllocationModeNotSupported,
     [job(claims=BY_TEMPLATE), template({"exactly": {"deviceClassName": "gpu.nvidia.com", "allocationMode": "All"}})], ()),
    (F.FirstAvailableNotSupported,
     [job(claims=BY_TEMPLATE), template({"firstAvailable": [{"name": "a", "deviceClassName": "gpu.nvidia.com"}]})], ()),
    (F.RequestWithoutExactly, [job(claims=BY_TEMPLATE), template({})], ()),
    (F.ResourceClaimNotSupported, [job(claims=[{"name": "gpu", "resourceClaimName": "shared"}])], ()),
    (F.SelectorError,  # a string where CEL wants a bool: it fails on every device
     [job(claims=BY_TEMPLATE), template({"exactly": dict(ONE_GPU, selectors=[{"cel": {"expression": "device.driver"}}])})],
     ()),
    # Kueue before 0.18.2 rejected devices.constraints in words this tool does not translate
    (F.DRARejected, [job(claims=BY_TEMPLATE), template({"exactly": ONE_GPU}, constraints=[{"matchAttribute": "x/y"}])],
     ("--kueue-version", "0.18.1")),
])
def test_explain_predicts_kuees_rejection_of_a_what_if(code, objects, args):
    found = findings("explain", "-f", "-", "--from", str(EXAMPLES / "resourceclaimtemplate"), *args,
                     input=yaml.safe_dump_all(objects))
    f = the(found, code)
    assert f["severity"] == "error" and f["predicted"] is True
    assert f["message"].startswith("Kueue rejects this workload's DRA requests: ")
    assert f["fix"] == code.fix_text()


def test_a_fraction_of_a_device_backed_extended_resource_is_rejected():
    found = findings("explain", "-f", "-", "--from", str(EXAMPLES / "extended-resource"),
                     input=yaml.safe_dump(job(ns="team-b", requests={"nvidia.com/gpu": "500m"})))
    assert the(found, F.ExtendedResourceNotInteger)["fix"] == "request whole devices"


def test_an_extended_resource_of_a_counter_charged_class_is_rejected():
    """mig.nvidia.com is in the mapping with counter sources; the file gives it an extendedResourceName."""
    mig = {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "mig.nvidia.com"},
           "spec": {"selectors": [{"cel": {"expression": "device.driver == 'gpu.nvidia.com'"}}],
                    "extendedResourceName": "nvidia.com/mig"}}
    found = findings("explain", "-f", "-", "--from", str(EXAMPLES / "mig-partitionable"),
                     input=yaml.safe_dump_all([job(ns="ml-research", queue="research",
                                                   requests={"nvidia.com/mig": "1"}), mig]))
    f = the(found, F.ExtendedResourceOnCounterClass)
    assert "with counters configured" in f["message"]
    assert f["fix"] == "request partitions through ResourceClaimTemplates with CEL selectors"


def test_dra_off_with_the_reject_gate_rejects_a_dra_workload(tmp_path):
    gates = "featureGates:\n  KueueDRAIntegration: false\n  KueueDRARejectWorkloadsWhenDRADisabled: true\n"
    snap = snapshot(tmp_path, config=HEAD + gates + MAPPING)
    f = the(findings("explain", "job/batch-infer", "-n", "team-a", "--from", snap), F.KueueDRADisabled)
    assert "KueueDRAIntegration feature gate is not enabled" in f["message"]
    assert f["fix"].startswith("enable KueueDRAIntegration in Kueue's featureGates")


@pytest.mark.parametrize("code, limit_range", [
    # a default limit below what the container requests: Kueue's requests-within-limits check
    (F.RequestsExceedLimits, {"type": "Container", "default": {"cpu": "500m"}}),
    # a request below the LimitRange's min
    (F.LimitRangeViolated, {"type": "Container", "min": {"cpu": "2"}}),
])
def test_explain_predicts_kueues_admissibility_check(tmp_path, code, limit_range):
    lr = {"apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": "lr", "namespace": "team-a"},
          "spec": {"limits": [limit_range]}}
    snap = snapshot(tmp_path, extra=[lr])
    found = findings("explain", "-f", "-", "--from", snap, input=yaml.safe_dump(job(requests={"cpu": "1"})))
    f = the(found, code)
    assert f["severity"] == "error" and f["predicted"] is True
    assert f["message"].startswith("Kueue keeps it waiting before it looks at quota: ")
    assert f["fix"] == code.fix_text()


def test_an_admissibility_message_this_tool_does_not_know_is_quoted(monkeypatch):
    """NotAdmissible: the fallback for a message of Kueue's admissibility check none of the known
    causes matches (a later Kueue's words), quoted as it is."""
    from kubectl_kueue_dra.commands.explain import partial_report
    from kubectl_kueue_dra.kueue.charge import ChargeResult, PodSetCharge

    monkeypatch.setattr(partial_report, "admissibility_message", lambda specs, limit_ranges: "a new reason")
    [f] = partial_report.admissibility_findings(ChargeResult([PodSetCharge("main", 1)]), [], admitted=False)
    assert (f["code"], f["severity"], f["fix"]) == ("NotAdmissible", "error", None)
    assert f["message"].endswith("Kueue's message: a new reason")


def test_an_unsupported_kueue_version_is_said():
    f = the(findings("explain", "job/batch-infer", "-n", "team-a", "--from", str(EXAMPLES / "resourceclaimtemplate"),
                     "--kueue-version", "0.9.0"), F.KueueVersionUnsupported)
    assert "Kueue 0.9.0 is outside the versions this tool re-derives" in f["message"] and f["fix"] is None


# ---- what Kueue recorded ------------------------------------------------------------------------------

def _waiting(message, reason="Pending"):
    return {"metadata": {"name": "wl"}, "status": {"conditions": [
        {"type": "QuotaReserved", "status": "False", "reason": reason, "message": message}]}}


@pytest.mark.parametrize("code, message, fix", [
    (F.KueueCannotList, "failed to list ResourceSlices: the server is currently unable to handle the request",
     F.KueueCannotList.fix_text()),
    # the capacity the message names is where to look
    (F.CapacityRequestUnsatisfiable, "spec.podSets[0].template.spec.resourceClaims[0].devices.requests[0]: Invalid "
                                     "value: null: capacity request cannot be satisfied by any matched device's "
                                     'RequestPolicy for dimension "memory"',
     "request a capacity the devices' requestPolicy allows (kubectl get resourceslices -o yaml: "
     "capacity.memory.requestPolicy), or fix the mapping's capacity source"),
    # a message that names none: no placeholder, the words say which
    (F.CapacityRequestUnsatisfiable, "spec.podSets[0].template.spec.resourceClaims[0].devices.requests[0]: Invalid "
                                     "value: null: capacity request cannot be satisfied by any matched device",
     F.CapacityRequestUnsatisfiable.fix_text("unnamed")),
])
def test_kueues_recorded_condition_is_translated(code, message, fix):
    from kubectl_kueue_dra.commands.explain.recorded import recorded_part
    from kubectl_kueue_dra.kueue.charge import ChargeResult

    _, [f] = recorded_part(_waiting(message, "Inadmissible"), ChargeResult([]), set(), set(), set())
    assert (f["code"], f["severity"], f["fix"], f["reason"]) == (code.name, "error", fix, "Inadmissible")
    assert "<" not in f["fix"]
    assert f["message"].startswith(f"Kueue says: {message} — ")


def test_kueues_words_it_does_not_translate_are_quoted_and_a_changed_prediction_is_said():
    from kubectl_kueue_dra.commands.explain.recorded import recorded_part
    from kubectl_kueue_dra.kueue.charge import ChargeResult

    _, found = recorded_part(_waiting("something Kueue says now"), ChargeResult([]), set(), set(), set())
    assert [(f["code"], f["severity"], f["fix"]) for f in found] == [("NotAdmitted", "warning", None)]
    # Kueue recorded one DRA error, this tool now predicts another: the cluster changed since
    predicted = ChargeResult([], message="ResourceClaimTemplate t: AdminAccess is not supported")
    _, found = recorded_part(_waiting("DeviceClass gpu is not mapped in DRA configuration", "Inadmissible"), predicted,
                             set(), set(), set())
    assert [f["code"] for f in found] == ["DeviceClassNotMapped", "PredictionDiffers"]
    assert found[1]["severity"] == "warning" and found[1]["fix"] is None


def test_a_partially_admitted_pod_set_is_said():
    from kubectl_kueue_dra.commands.explain.partial_report import admission_counts_findings
    from kubectl_kueue_dra.kueue.charge import ChargeResult, PodSetCharge

    [f] = admission_counts_findings(ChargeResult([PodSetCharge("workers", 4, min_count=2, admitted_count=3)]))
    assert (f["code"], f["severity"], f["fix"]) == ("PartiallyAdmitted", "info", None)
    assert f["message"] == ("pod set workers: 4 requested, 3 admitted (partial admission, minCount 2): Kueue charges "
                            "3 pods")


# ---- the queue ----------------------------------------------------------------------------------------

def _queue_findings(cluster_queue):
    from kubectl_kueue_dra.commands.explain.queue import QueuePath, queue_findings
    from kubectl_kueue_dra.kueue.queues.namespaces import namespace_rule

    rule = namespace_rule(openshift=False, configuration={}, kueue_version="0.19.2", kueue_namespace="kueue-system")
    namespace = {"metadata": {"name": "team-a"}}
    return queue_findings(QueuePath(local_queue_name="lq", local_queue={"spec": {"clusterQueue": "gpu-cq"}}, cluster_queue=cluster_queue,
                                    namespace=namespace, managed=rule), {},
                          "team-a")


def test_a_stopped_cluster_queue_gets_the_patch_that_starts_it():
    f = the(_queue_findings({"metadata": {"name": "gpu-cq"}, "spec": {"namespaceSelector": {}, "stopPolicy": "Hold"}}),
            F.ClusterQueueStopped)
    assert f["message"] == ("ClusterQueue gpu-cq admits nothing: Can't admit new workloads: is stopped. (derived "
                            "from the objects: it has no Active condition)")
    assert f["fix"] == "kubectl patch clusterqueue gpu-cq --type=merge -p '{\"spec\":{\"stopPolicy\":\"None\"}}'"


def test_an_inactive_cluster_queue_quotes_its_condition():
    cq = {"metadata": {"name": "gpu-cq"}, "spec": {"namespaceSelector": {}}, "status": {"conditions": [
        {"type": "Active", "status": "False", "reason": "FlavorNotFound", "message": "Can't admit new workloads"}]}}
    f = the(_queue_findings(cq), F.ClusterQueueInactive)
    assert f["message"] == "ClusterQueue gpu-cq admits nothing: Can't admit new workloads"
    assert f["fix"] == "change ClusterQueue gpu-cq as the message says (kubectl get clusterqueue gpu-cq -o yaml)"


# ---- Kueue's configuration ----------------------------------------------------------------------------

def test_a_configuration_kueue_cannot_read_is_invalid(tmp_path):
    f = the(findings("classes", "--from", snapshot(tmp_path, config=HEAD + "resources: [\n")), F.KueueConfigInvalid)
    assert f["severity"] == "error" and f["fix"] == "fix the Kueue configuration; Kueue will not start with it"


def test_transformations_that_cannot_be_read_are_left_out_of_the_charge():
    from kubectl_kueue_dra.commands.explain.context import resource_rules
    from kubectl_kueue_dra.kueue.config.load import KueueConfig

    document = {"resources": {"transformations": [{"input": "example.com/x", "outputs": {"cpu": "lots"}}]}}
    rules, [f] = resource_rules(KueueConfig("ConfigMap", "kueue-manager-config", "kueue-system", document))
    assert rules.problem and not rules.transformations
    assert (f["code"], f["severity"], f["fix"]) == ("TransformationsUnreadable", "warning", None)
    assert f["message"].endswith("; the charge ignores them")


# ---- after admission: the scheduler's reasons, the allocated devices -----------------------------------

@pytest.mark.parametrize("code, reason", [
    (F.AllocationTimedOut, "timed out trying to allocate devices"),
    (F.ClaimBeingDeleted, 'resourceclaim "train-0-gpu" is being deleted'),
    (F.ClaimInUse, "resourceclaim in use"),
    (F.ExtendedResourceUnavailable, "cannot fit resource claim for extended resource nvidia.com/gpu"),
    (F.NodeTainted, "node(s) had untolerated taint {gpu: true}"),
])
def test_a_pod_the_scheduler_does_not_place_gets_the_reasons_code(code, reason):
    from kubectl_kueue_dra.kueue.workloads.past import unscheduled_findings

    message = f"0/3 nodes are available: 3 {reason}. preemption: 0/3 nodes are available."
    pods = [{"name": "train-0", "podSet": "main", "phase": "Pending", "node": None,
             "scheduled": {"status": "False", "reason": "Unschedulable", "message": message}}]
    [f] = unscheduled_findings(pods, {}, None)
    assert (f["code"], f["severity"], f["reasons"], f["pods"]) == (code.name, "warning", [code.name], ["train-0"])
    assert f["fix"] == code.fix_text() and f["message"].endswith(f"The scheduler says: {message}")


def test_a_device_no_slice_publishes_any_more_is_said():
    from kubectl_kueue_dra.commands.explain.pods import stale_device_findings

    [f] = stale_device_findings([{"claim": "c", "pod": "p", "device": "gpu.example.com/node-1/gpu-0",
                                  "generation": "missing"}])
    assert (f["code"], f["severity"]) == ("AllocatedDeviceMissing", "warning")
    assert "which is in none of its pool's ResourceSlices" in f["message"]
    assert f["fix"] == "check the DRA driver on the node; delete the pod to get a current device"


def test_a_charge_above_what_the_allocated_devices_consume_is_said():
    """Kueue charges the MAX a matching device consumes (20Gi); the pod got a 5Gi MIG device."""
    from kubectl_kueue_dra.commands.explain.pods import overcharge_findings
    from kubectl_kueue_dra.kueue.charge import ChargeResult, PodSetCharge
    from kubectl_kueue_dra.kueue.charge.results import CounterLine, RequestRef
    from kubectl_kueue_dra.kueue.workloads.allocation import allocations

    pods = [{"metadata": {"name": "p"}, "spec": {"resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "t"}]},
             "status": {"resourceClaimStatuses": [{"name": "gpu", "resourceClaimName": "p-gpu"}]}}]
    claims = [{"metadata": {"name": "p-gpu"}, "status": {"allocation": {"devices": {"results": [
        {"request": "gpu", "driver": "gpu.example.com", "pool": "node-1", "device": "mig-1g"}]}}}}]
    slices = [{"spec": {"driver": "gpu.example.com", "pool": {"name": "node-1"}, "devices": [
        {"name": "mig-1g", "consumesCounters": [{"counterSet": "gpu-0", "counters": {"memory": {"value": "5Gi"}}}]},
        {"name": "mig-3g", "consumesCounters": [{"counterSet": "gpu-0", "counters": {"memory": {"value": "20Gi"}}}]}]}}]
    line = CounterLine(ref=RequestRef("gpu", "t", "gpu", "mig.example.com", 1), resource="gpu.memory",
                       counter="memory", driver="gpu.example.com", matched_devices=2, matched_pools=1,
                       max_device="mig-3g", counter_value="20Gi", per_pod=21474836480, detail="")
    result = ChargeResult([PodSetCharge("main", 1, lines=[line])])
    [f] = overcharge_findings(allocations(pods, claims, slices), result)
    assert (f["code"], f["severity"]) == ("ChargedAboveAllocation", "info")
    assert "but 1 allocated device(s) consume less: gpu.example.com/node-1/mig-1g consumes 5Gi" in f["message"]
    assert f["fix"] == "narrow the request's CEL selector to one device shape to make the charge exact"


# ---- classes and map ----------------------------------------------------------------------------------

def test_devices_of_an_incomplete_pool_are_said(tmp_path):
    def half_published(obj):  # every pool says it has one more slice than the snapshot holds
        if obj["kind"] == "ResourceSlice":
            obj["spec"]["pool"]["resourceSliceCount"] = obj["spec"]["pool"].get("resourceSliceCount", 1) + 1

    doc = json.loads(run("classes", "--from", snapshot(tmp_path, edit=half_published), "-o", "json").stdout)
    f = the([f for dc in doc["deviceClasses"] for f in dc["findings"]], F.IncompletePool)
    assert f["message"].endswith("matching device(s) are in incomplete pools and are not allocatable until the "
                                 "driver publishes every slice")
    assert f["fix"] is None


def test_a_capacity_no_device_publishes_is_said_by_map():
    from kubectl_kueue_dra.commands.map.report import map_report
    from kubectl_kueue_dra.kueue.config.mappings import parse_mappings

    mappings = parse_mappings([{"name": "gpu.cores", "deviceClassNames": ["gpu.example.com"], "sources": [
        {"capacity": {"name": "cores", "driver": "gpu.example.com", "deviceSelector": {"cel": {"expression": "true"}}}}]}])
    slices = [{"spec": {"driver": "gpu.example.com", "devices": [{"name": "d0", "capacity": {"memory": {"value": "1"}}}]}}]
    _, [f] = map_report(mappings, device_classes=None, cluster_queues=None, slices=slices)
    assert (f["code"], f["severity"], f["mapping"]) == ("CapacityNotPublished", "warning", "gpu.cores")
    assert "publishes capacity cores in capacity (published: memory)" in f["message"]
    assert f["fix"] == "use a capacity the driver publishes, e.g. --capacity memory"


def test_a_change_that_cannot_keep_the_text_says_it_was_rewritten(tmp_path):
    flow = ("{apiVersion: config.kueue.x-k8s.io/v1beta2, kind: Configuration, namespace: kueue-system, "
            "resources: {deviceClassMappings: [{name: whole-gpus, deviceClassNames: [gpu.nvidia.com]}]}}\n")
    found = findings("map", "set", "example.com/gpu", "--device-class", "other.nvidia.com", "--dry-run=client",
                     "--allow-missing-class", "--from", snapshot(tmp_path, config=flow))
    assert [(f["code"], f["severity"], f["fix"]) for f in found] == [("ConfigReformatted", "warning", None)]


@pytest.mark.parametrize("code, raw", [
    (F.InvalidMappings, {"gpu": ["gpu.example.com"]}),
    (F.InvalidMapping, ["gpu"]),
    (F.MissingName, [{"deviceClassNames": ["gpu.example.com"]}]),
    (F.MissingSourceName, [{"name": "gpu.memory", "deviceClassNames": ["mig.example.com"], "sources": [
        {"counter": {"driver": "gpu.example.com", "deviceSelector": {"cel": {"expression": "true"}}}}]}]),
    (F.MissingDriver, [{"name": "gpu.memory", "deviceClassNames": ["mig.example.com"], "sources": [
        {"counter": {"name": "memory", "deviceSelector": {"cel": {"expression": "true"}}}}]}]),
    (F.InvalidCapacityName, [{"name": "gpu.cores", "deviceClassNames": ["gpu.example.com"], "sources": [
        {"capacity": {"name": "Not A Name", "driver": "gpu.example.com",
                      "deviceSelector": {"cel": {"expression": "true"}}}}]}]),
])
def test_a_mapping_kueue_would_refuse_is_an_error_finding(code, raw):
    from kubectl_kueue_dra.kueue.config.mapping_rules import Rules, validate
    from kubectl_kueue_dra.kueue.config.mappings import UPSTREAM

    violations = [v for v in validate(raw, Rules(dialect=UPSTREAM, kueue_minor=19, counter_gate=True, capacity_gate=True))
                  if v.rule is code]
    assert violations and all(v.severity == "error" for v in violations)
    f = violations[0].finding("error")  # map refuses the change with these
    assert (f["code"], f["severity"], f["fix"]) == (code.name, "error", None)
    assert f["message"] == violations[0].text


# ---- fixes filled from the cluster: real names, the nominal quota the devices give, choices said as such ----

PLACEHOLDER = re.compile(r"<[a-z][a-z-]*>")


def uncover_whole_gpus(obj):
    """gpu-cq without whole-gpus: its coveredResources and its flavor's quota."""
    if obj["kind"] == "ClusterQueue":
        group = obj["spec"]["resourceGroups"][0]
        group["coveredResources"].remove("whole-gpus")
        group["flavors"][0]["resources"] = [r for r in group["flavors"][0]["resources"] if r["name"] != "whole-gpus"]


#: the patch that gives gpu-cq the 8 GPUs the example's slices publish
COVER_8 = ("kubectl patch clusterqueue gpu-cq --type=json -p '[{\"op\":\"add\",\"path\":\"/spec/resourceGroups/0/"
           "coveredResources/-\",\"value\":\"whole-gpus\"},{\"op\":\"add\",\"path\":\"/spec/resourceGroups/0/flavors/0/"
           "resources/-\",\"value\":{\"name\":\"whole-gpus\",\"nominalQuota\":\"8\"}}]'  # 8 is devices matching "
           "gpu.nvidia.com")


def test_an_unmapped_class_is_mapped_under_the_resource_its_queue_covers(tmp_path):
    """Kueue names the class; gpu-cq covers whole-gpus, which nothing charges: that is the mapping it
    was made for (and upstream Kueue reads its mappings only at start: --restart)."""
    f = the(findings("explain", "job/batch-infer", "-n", "team-a", "--from", snapshot(tmp_path, config=HEAD)),
            F.DeviceClassNotMapped)
    assert f["fix"] == ("kubectl kueue-dra map set whole-gpus --device-class gpu.nvidia.com --restart  # ClusterQueue "
                        "gpu-cq covers whole-gpus, which no mapping or DeviceClass charges yet")


def test_an_unmapped_class_without_a_queue_for_it_is_mapped_under_its_own_name_said_as_a_choice(tmp_path):
    f = the(every_finding("classes", "--from", snapshot(tmp_path, example="extended-resource")), F.NoQuotaResource)
    assert f["fix"] == ("kubectl kueue-dra map set gpu-legacy.nvidia.com --device-class gpu-legacy.nvidia.com --restart"
                        "  # the quota resource's name is yours to choose; a ClusterQueue must then cover it with a "
                        "nominalQuota")
    # the class that loses the shared extendedResourceName: the plugin's own command clears it
    f = the(every_finding("classes", "--from", snapshot(tmp_path / "b", example="extended-resource")),
            F.DuplicateExtendedResourceName)
    assert f["fix"].startswith("remove it where it is never used: kubectl kueue-dra classes set-extended-resource "
                               "gpu-legacy.nvidia.com --clear")


@pytest.mark.parametrize("command", [["classes"], ["map"]])
def test_a_resource_no_queue_covers_gets_the_patch_with_the_devices_the_cluster_has(tmp_path, command):
    found = every_finding(*command, "--from", snapshot(tmp_path, edit=uncover_whole_gpus))
    assert the(found, F.NotCoveredByQueue)["fix"] == COVER_8


def test_a_workload_its_queue_does_not_cover_gets_the_patch_with_the_devices_the_cluster_has(tmp_path):
    found = findings("explain", "-f", "-", "--from", snapshot(tmp_path, edit=uncover_whole_gpus),
                     input=yaml.safe_dump_all([job(claims=BY_TEMPLATE), template({"exactly": ONE_GPU})]))
    assert the(found, F.ResourceNotCovered)["fix"] == COVER_8


@pytest.mark.parametrize("drivers, fix", [
    (("gpu.nvidia.com",), "check the ResourceSlices of the driver (kubectl get resourceslices --field-selector "
                          "spec.driver=gpu.nvidia.com)"),
    (("a.example.com", "b.example.com"), "check the ResourceSlices of the mapping source's driver (kubectl get "
                                         "resourceslices --field-selector spec.driver=<driver>; <driver>: one of "
                                         "a.example.com, b.example.com, Kueue's message does not say which)"),
])
def test_the_driver_kueues_message_does_not_name_is_the_mappings_one(drivers, fix):
    from kubectl_kueue_dra.commands.explain.recorded import Fills, dra_findings
    from kubectl_kueue_dra.kueue.charge import ChargeResult

    result = ChargeResult([], message="spec.podSets[0]: Internal error: insufficient matching devices for counter "
                                      "driver: 1 device(s) match but 2 requested")
    [f] = dra_findings(result, fills=Fills(drivers={"counter": drivers}))
    assert (f["code"], f["fix"]) == (F.NotEnoughMatchingDevices.name, fix)


def test_a_counter_the_driver_never_publishes_asks_for_no_example():
    from kubectl_kueue_dra.commands.map.report import map_report
    from kubectl_kueue_dra.kueue.config.mappings import parse_mappings

    mappings = parse_mappings([{"name": "gpu.memory", "deviceClassNames": ["gpu.example.com"], "sources": [
        {"counter": {"name": "memory", "driver": "gpu.example.com", "deviceSelector": {"cel": {"expression": "true"}}}}]}])
    slices = [{"spec": {"driver": "gpu.example.com", "devices": [{"name": "d0"}]}}]
    _, [f] = map_report(mappings, device_classes=None, cluster_queues=None, slices=slices)
    assert (f["code"], f["fix"]) == ("CounterNotPublished", F.CounterNotPublished.fix_text("map-none"))
    assert "<" not in f["fix"]


@pytest.mark.parametrize("cluster_queue, code, fix", [
    ({"metadata": {"name": "gpu-cq"}, "spec": {"namespaceSelector": {"matchLabels": {"team": "a"}}}},
     F.NamespaceNotSelected, "kubectl label namespace team-a team=a  # or widen the namespaceSelector of ClusterQueue "
                             "gpu-cq"),
    ({"metadata": {"name": "gpu-cq"}, "spec": {}},
     F.NamespaceNotSelected, "kubectl patch clusterqueue gpu-cq --type=merge -p '{\"spec\":{\"namespaceSelector\":{}}}'"
                             "  # {} selects every namespace; or a selector that matches the namespaces meant to use "
                             "it"),
])
def test_a_namespace_the_queue_does_not_select_gets_the_label_or_the_patch(cluster_queue, code, fix):
    assert the(_queue_findings(cluster_queue), code)["fix"] == fix


def test_a_namespace_kueue_does_not_manage_gets_the_labels_its_selector_asks_for():
    from kubectl_kueue_dra.commands.explain.queue import QueuePath, queue_findings
    from kubectl_kueue_dra.kueue.queues.namespaces import namespace_rule

    rule = namespace_rule(openshift=False, kueue_version="0.19.2", kueue_namespace="kueue-system",
                          configuration={"managedJobsNamespaceSelector": {"matchLabels": {"kueue": "on"}}})
    path = QueuePath(local_queue_name="lq", local_queue=None, cluster_queue=None, namespace={"metadata": {"name": "a"}},
                     managed=rule)
    f = the(queue_findings(path, {}, "a"), F.NamespaceNotManaged)
    assert f["fix"] == "kubectl label namespace a kueue=on"


def test_no_fix_of_the_examples_holds_an_unexplained_placeholder(tmp_path):
    """A fix is pasteable: every ``<x>`` left in one is a value the cluster does not decide, and the
    fix says what it stands for (``<x>: …``)."""
    snaps = [str(EXAMPLES / e) for e in ("resourceclaimtemplate", "extended-resource", "mig-partitionable",
                                         "cohort-sharing")]
    snaps += [snapshot(tmp_path / "a", config=HEAD), snapshot(tmp_path / "b", edit=uncover_whole_gpus)]
    seen = 0
    for snap in snaps:
        for command in (["classes"], ["map"], ["verify"], ["explain", "-A"], ["queues"]):
            doc = json.loads(run(*command, "--from", snap, "-o", "json").stdout)
            for fix in _fixes(doc):
                seen += 1
                unexplained = [p for p in PLACEHOLDER.findall(fix) if f"{p}:" not in fix]
                assert not unexplained, (snap, command, fix)
    assert seen > 20


def _fixes(doc):
    if isinstance(doc, dict):
        if isinstance(doc.get("fix"), str) and ("code" in doc or "id" in doc):
            yield doc["fix"]
        for value in doc.values():
            yield from _fixes(value)
    elif isinstance(doc, list):
        for value in doc:
            yield from _fixes(value)


def every_finding(*args):
    """Every finding of a command's document, at any depth (the classes report keeps them per class)."""
    proc = run(*args, "-o", "json")
    assert proc.returncode in (0, 1), proc.stderr
    out = []

    def walk(x):
        if isinstance(x, dict):
            if "code" in x and "severity" in x:
                out.append(x)
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)
    walk(json.loads(proc.stdout))
    return out


@pytest.mark.parametrize("value", [None, "abc", "", [1]])
def test_a_device_counter_value_that_is_no_quantity_counts_as_absent(tmp_path, value):
    """A consumesCounters value the API server would refuse (in a snapshot only): the device does not
    consume that counter; never an internal error, and the answer is partial when it was removed."""
    edited = []

    def edit(obj):  # one device of one node
        if obj["kind"] == "ResourceSlice" and obj["spec"].get("devices") and not edited:
            for entry in obj["spec"]["devices"][0].get("consumesCounters") or []:
                for counter in entry["counters"].values():
                    counter["value"] = value
                    edited.append(obj)

    snap = snapshot(tmp_path, "mig-partitionable", edit=edit)
    assert edited
    for args in (("explain", "job/pretrain", "-n", "ml-research"), ("explain", "-A")):
        proc = run(*args, "--from", snap, "-o", "json")
        assert proc.returncode == 0 and "internal error" not in proc.stderr, proc.stderr
        doc = json.loads(proc.stdout)
        docs = doc.get("items") or [doc]
        assert all(d["draCharge"] for d in docs if d["workload"]["name"].startswith("job-pretrain"))
        if value is not None:  # said once, on the List of explain -A; the answer is partial
            assert any(f["code"] == F.MalformedObject.name for f in doc["findings"]) and doc["partial"] is True

