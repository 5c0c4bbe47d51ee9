"""Why a workload is (not) admitted: compare the predicted charge with what Kueue recorded, read
the Workload's conditions, and check the queue path (LocalQueue → ClusterQueue → quota).

Pure: takes objects and the charge result, returns findings (``findings.finding`` dicts).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ..dra.quantity import QuantityError, parse_quantity
from ..findings import finding
from ..k8s.labels import namespace_labels, selector_matches
from .charge import ChargeResult, kueue_int
from .names import OPENSHIFT_MANAGED_LABEL
from .namespaces import OPENSHIFT, ManagedNamespaces
from .queues import covered_resources

# Kueue's condition messages (research §8) → (code, cause, fix). Checked in order. Whether Kueue
# retries is not said here: the charge engine knows it (ChargeResult.retried), and says it once.
CONDITION_CAUSES: list[tuple[str, str, str, str]] = [
    (r"KueueDRAIntegration feature gate is not enabled", "KueueDRADisabled",
     "Kueue's KueueDRAIntegration gate is off and KueueDRARejectWorkloadsWhenDRADisabled rejects DRA workloads",
     "enable KueueDRAIntegration in Kueue's featureGates (kubectl kueue-dra verify shows where) and restart Kueue"),
    (r"does not support use of resource claims|DRA resource claims not supported", "ResourceClaimNotSupported",
     "a pod set names a ResourceClaim directly (resourceClaimName); Kueue only accounts for ResourceClaimTemplates",
     "use resourceClaimTemplateName in the pod template"),
    (r"is not mapped in DRA configuration", "DeviceClassNotMapped",
     "the DeviceClass of a ResourceClaimTemplate request is not in deviceClassMappings",
     "kubectl kueue-dra map set <quota-resource> --device-class <class> (upstream Kueue: then restart it)"),
    (r"failed to get claim spec for ResourceClaimTemplate", "ClaimTemplateMissing",
     "the ResourceClaimTemplate does not exist in the workload's namespace",
     "create the ResourceClaimTemplate in the namespace, or fix its name in the pod template"),
    (r"failed to get DeviceClass", "DeviceClassMissing",
     "a request names a DeviceClass that does not exist",
     "create the DeviceClass, or fix deviceClassName in the ResourceClaimTemplate"),
    (r"FirstAvailable device selection is not supported", "FirstAvailableNotSupported",
     "the claim uses a prioritized list (firstAvailable), which Kueue does not account for",
     "request one DeviceClass with exactly: {deviceClassName, count}"),
    (r"AdminAccess is not supported", "AdminAccessNotSupported",
     "the claim requests adminAccess, which Kueue rejects (main after v0.19.2 skips it instead)",
     "drop adminAccess from the ResourceClaimTemplate, or run this workload outside Kueue"),
    (r"AllocationMode 'All' is not supported|unsupported allocation mode", "AllocationModeNotSupported",
     "the claim uses allocationMode All, which Kueue cannot count",
     "use allocationMode: ExactCount with a count"),
    (r"insufficient matching devices for CEL selector", "NotEnoughMatchingDevices",
     "fewer devices in the cluster's ResourceSlices match the request's CEL selector than it asks for",
     "check the selector against the devices: kubectl kueue-dra classes -o wide"),
    (r"insufficient matching devices for (counter|capacity) driver", "NotEnoughMatchingDevices",
     "fewer devices in complete, current pools of the driver match the mapping selector, class and request "
     "selectors than the request's count",
     "check the ResourceSlices of the driver (kubectl get resourceslices --field-selector spec.driver=<driver>)"),
    (r"no consumesCounters entry for counter", "CounterNotPublished",
     "no matching device consumes the counter named in the mapping's counter source",
     "fix counter.name in deviceClassMappings to a key the driver publishes in consumesCounters"),
    (r"no capacity dimension", "CapacityNotPublished",
     "none of the matching devices publishes the capacity named by the mapping's capacity source",
     "fix the capacity name in deviceClassMappings to one the driver publishes in the devices' capacity"),
    (r"capacity request cannot be satisfied", "CapacityRequestUnsatisfiable",
     "no matching device's requestPolicy (validValues / validRange) admits the capacity the request asks for",
     "request a capacity the devices' requestPolicy allows (kubectl get resourceslices -o yaml: "
     "capacity.<name>.requestPolicy), or fix the mapping's capacity source"),
    (r"CEL (evaluation|compilation)|has invalid CEL selector", "SelectorError",
     "a CEL selector (of the request, its DeviceClass or the mapping) does not compile, or fails on some device",
     "fix the selector; kubectl kueue-dra classes shows which"),
    (r"Exactly must be set if FirstAvailable is nil", "RequestWithoutExactly",
     "a device request has neither exactly nor firstAvailable (possible only in objects that bypass validation)",
     "give the request exactly: {deviceClassName, count}"),
    (r"failed to list (ResourceSlices|DeviceClasses)", "KueueCannotList",
     "Kueue could not list ResourceSlices or DeviceClasses (its RBAC, or the API server); it retries",
     "check Kueue's ClusterRole (list and watch on resource.k8s.io deviceclasses and resourceslices) and its log"),
    (r"extended resource quantity must be an integer|overflows int64", "ExtendedResourceNotInteger",
     "an extended resource backed by a DeviceClass is requested in a fraction", "request whole devices"),
    (r"with counters configured|with capacity sources configured", "ExtendedResourceOnCounterClass",
     "the extended resource resolves to a DeviceClass whose mapping charges counters or capacity",
     "request partitions through ResourceClaimTemplates with CEL selectors"),
    (r"^resources validation failed", "RequestsExceedLimits",
     "after Kueue applies the namespace's LimitRange defaults and limits-as-requests, a container requests more "
     "than its limit (often a LimitRange default limit below a request the container sets)",
     "set the container's limit (or lower its request), or raise the LimitRange default"),
    (r"^resources didn't satisfy LimitRange constraints", "LimitRangeViolated",
     "a container (or the pod) is outside the namespace's LimitRange max/min after Kueue's adjustments",
     "change the requests to fit the LimitRange, or the LimitRange"),
    (r"(?i)workload namespace doesn't match ClusterQueue selector", "NamespaceNotSelected",
     "the ClusterQueue's namespaceSelector does not select the workload's namespace (a ClusterQueue without "
     "one selects no namespace)",
     "label the namespace, or set the ClusterQueue's namespaceSelector ({} selects every namespace)"),
    (r"unavailable in ClusterQueue", "ResourceNotCovered",
     "the ClusterQueue does not list a resource of the workload in coveredResources",
     "add the resource (mapping name or extendedResourceName) to the ClusterQueue's coveredResources"),
    (r"insufficient unused quota", "QuotaExhausted",
     "the ClusterQueue (and its cohort) has not enough unused quota now; the workload waits for others to finish",
     "wait, raise nominalQuota, or allow borrowing in a cohort"),
    (r"maximum capacity", "ExceedsQuota",
     "the workload asks for more than the ClusterQueue can ever get: its nominal quota plus what the cohort "
     "tree can lend it (other queues' lendingLimit, nested cohorts' quotas), capped by its borrowingLimit",
     "raise the ClusterQueue's nominalQuota / borrowingLimit (or other queues' lendingLimit) or shrink the workload"),
]


def condition(obj: dict[str, Any], ctype: str) -> dict[str, Any] | None:
    return next((c for c in (obj.get("status") or {}).get("conditions") or [] if c.get("type") == ctype), None)


def is_admitted(workload: dict[str, Any]) -> bool:
    cond = condition(workload, "Admitted")
    return bool(cond and cond.get("status") == "True")


def cause_of(message: str) -> tuple[str, str, str] | None:
    for pattern, code, cause, fix in CONDITION_CAUSES:
        if re.search(pattern, message):
            return code, cause, fix
    return None


def recorded_usage(workload: dict[str, Any]) -> tuple[str | None, dict[str, dict[str, str]]]:
    """("admission" | "resourceRequests" | None, {podSet: {resource: quantity}})."""
    status = workload.get("status") or {}
    admission = status.get("admission")
    if admission:
        return "admission", {a.get("name"): dict(a.get("resourceUsage") or {})
                             for a in admission.get("podSetAssignments") or []}
    if status.get("resourceRequests"):
        return "resourceRequests", {r.get("name"): dict(r.get("resources") or {})
                                    for r in status["resourceRequests"]}
    return None, {}


def compare(result: ChargeResult, recorded: dict[str, dict[str, str]], source: str,
            dra_resources: set[str]) -> list[dict[str, Any]]:
    """Numeric comparison, per pod set and resource, of the prediction with Kueue's record: for
    the admitted count of pods (partial admission), leaving out what is unknown."""
    findings = []
    for ps in result.podsets:
        rec = recorded.get(ps.name)
        if rec is None:
            continue
        predicted = ps.total
        for name in sorted(set(rec) | (set(predicted) & dra_resources)):
            if name in ps.unknown or (result.dra_unknown and name not in predicted):
                continue  # what Kueue recorded for a charge this tool cannot know is not a mismatch
            if name not in rec:
                if name in dra_resources and predicted.get(name):
                    findings.append(finding(
                        "warning", "ChargeMismatch",
                        f"pod set {ps.name}: Kueue recorded no {name}, this tool predicts {predicted[name]} "
                        "units", "likely causes: the resource got no flavor (not covered), or Kueue's config "
                        "changed since admission"))
                continue
            try:
                got = kueue_int(name, parse_quantity(rec[name]))
            except QuantityError:
                continue
            want = predicted.get(name)
            if want is None:
                if name in dra_resources:
                    findings.append(finding(
                        "warning", "ChargeMismatch",
                        f"pod set {ps.name}: Kueue recorded {name}={rec[name]} in {source}, this tool "
                        "predicts none", _MISMATCH_FIX))
                continue
            if got != want:
                findings.append(finding(
                    "warning", "ChargeMismatch",
                    f"pod set {ps.name}: Kueue recorded {name}={rec[name]} in {source}, this tool predicts "
                    f"{want if name != 'cpu' else str(want) + 'm'} (base units, for {ps.charged_count} pods)",
                    _MISMATCH_FIX))
    return findings


_MISMATCH_FIX = ("Kueue computes the charge once, while the workload is pending: ResourceSlices, DeviceClasses, "
                 "the namespace's LimitRanges or RuntimeClasses changed since then, the config changed without a "
                 "restart, or the Kueue version differs (pass --kueue-version)")


@dataclass
class QueuePath:
    local_queue_name: str | None
    local_queue: dict[str, Any] | None
    cluster_queue: dict[str, Any] | None
    namespace: dict[str, Any] | None
    managed: ManagedNamespaces  # the namespaces Kueue manages
    #: what carries the queue name: "job/train" (its label), "workload/x" (spec.queueName), or None
    #: for a what-if (the file's metadata.labels)
    holder: str | None = None
    #: kind → the 403 that left the LocalQueue, ClusterQueue or Namespace above None: unknown, not missing
    unreadable: dict[str, str] = field(default_factory=dict)


def queue_findings(path: QueuePath, totals: dict[str, int], namespace: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    if not path.local_queue_name:
        out.append(finding("error", "NoQueueName",
                           "the workload names no LocalQueue (label kueue.x-k8s.io/queue-name): Kueue does not "
                           "manage it unless manageJobsWithoutQueueName is set",
                           _queue_name_fix(path.holder, namespace)))
        return out
    if path.namespace is not None and not path.managed.manages(path.namespace):
        if path.managed.how == OPENSHIFT:
            out.append(finding(
                "error", "NamespaceNotManaged",
                f"namespace {namespace} lacks the label {OPENSHIFT_MANAGED_LABEL}=true: the Kueue operator's "
                "webhooks ignore it, so its jobs run WITHOUT quota — GPUs are not counted at all",
                f"kubectl label namespace {namespace} {OPENSHIFT_MANAGED_LABEL}=true"))
        else:
            out.append(finding(
                "error", "NamespaceNotManaged",
                f"namespace {namespace} does not match Kueue's {path.managed.describe().removeprefix('the ')}: "
                "its jobs bypass quota", "label the namespace to match managedJobsNamespaceSelector"))
    if path.local_queue is None and "LocalQueue" in path.unreadable:
        return out
    if path.local_queue is None:
        out.append(finding("error", "LocalQueueMissing",
                           f"LocalQueue {namespace}/{path.local_queue_name} does not exist",
                           f"create it: a LocalQueue named {path.local_queue_name} in {namespace} pointing at a "
                           "ClusterQueue"))
        return out
    cq_name = (path.local_queue.get("spec") or {}).get("clusterQueue")
    cq = path.cluster_queue
    if cq is None and "ClusterQueue" in path.unreadable:
        return out
    if cq is None:
        out.append(finding("error", "ClusterQueueMissing",
                           f"ClusterQueue {cq_name} (of LocalQueue {path.local_queue_name}) does not exist",
                           f"create ClusterQueue {cq_name} or point the LocalQueue at an existing one"))
        return out
    spec = cq.get("spec") or {}
    if spec.get("stopPolicy") in ("Hold", "HoldAndDrain"):
        out.append(finding("error", "ClusterQueueStopped",
                           f"ClusterQueue {cq_name} has stopPolicy {spec['stopPolicy']}: it admits nothing",
                           f"kubectl patch clusterqueue {cq_name} --type=merge "
                           "-p '{\"spec\":{\"stopPolicy\":\"None\"}}'"))
    active = condition(cq, "Active")
    if active and active.get("status") == "False":
        out.append(finding("error", "ClusterQueueInactive",
                           f"ClusterQueue {cq_name} is not active: {active.get('reason')}: {active.get('message')}",
                           "fix what the condition says (often a missing ResourceFlavor or AdmissionCheck)"))
    out.extend(_selector_findings(cq_name, spec, path, namespace))
    covered = covered_resources(cq)
    for name in sorted(totals):
        if name not in covered and totals[name] > 0:
            out.append(finding("error", "ResourceNotCovered",
                               f"ClusterQueue {cq_name} does not cover {name}: the workload cannot be admitted "
                               f"(\"resource {name} unavailable in ClusterQueue\")",
                               f"add {name} to coveredResources of ClusterQueue {cq_name} with a nominalQuota"))
    return out


def _queue_name_fix(holder: str | None, namespace: str) -> str:
    if holder is None:
        return "add the label kueue.x-k8s.io/queue-name: <local-queue> to metadata.labels in the file"
    if holder.startswith("workload/"):
        return f"set spec.queueName of {holder} in namespace {namespace} to a LocalQueue"
    return f"kubectl label -n {namespace} {holder} kueue.x-k8s.io/queue-name=<local-queue>"


# Kueue's ErrNamespaceMismatch, the inadmissible message it records in both cases below.
NAMESPACE_MISMATCH = "workload namespace doesn't match ClusterQueue selector"


def _selector_findings(cq_name: object, spec: dict[str, Any], path: QueuePath,
                       namespace: str) -> list[dict[str, Any]]:
    """Kueue turns the ClusterQueue's namespaceSelector into a selector with
    LabelSelectorAsSelector, for which a missing one selects nothing: no namespace can use the queue."""
    selector = spec.get("namespaceSelector")
    if selector is None:
        return [finding("error", "NamespaceNotSelected",
                        f"ClusterQueue {cq_name} has no namespaceSelector, which Kueue reads as selecting no "
                        f"namespace: nothing is admitted through it (\"{NAMESPACE_MISMATCH}\")",
                        f"set spec.namespaceSelector of ClusterQueue {cq_name} to {{}} (every namespace) "
                        "or to a selector that matches the namespaces meant to use it")]
    if path.namespace is None or selector_matches(selector, namespace_labels(path.namespace)):
        return []
    return [finding("error", "NamespaceNotSelected",
                    f"ClusterQueue {cq_name}'s namespaceSelector does not match namespace {namespace} "
                    f"(\"{NAMESPACE_MISMATCH}\")",
                    "label the namespace or widen the ClusterQueue's namespaceSelector")]
