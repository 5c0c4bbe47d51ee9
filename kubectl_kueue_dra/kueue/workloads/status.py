"""What Kueue wrote into a Workload's status: its conditions (Admitted, QuotaReserved, …), the
cause and fix behind each of Kueue's condition messages, and the usage it recorded (at admission,
else the requests it computed while the workload waits).

Pure: takes the Workload object.
"""

from __future__ import annotations

import re
from typing import Any

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
    (r"doesn't match node affinity", "NodeAffinityMismatch",
     "the pod's nodeSelector or required node affinity excludes the flavor's nodeLabels (Kueue compares only the "
     "label keys each flavor sets)",
     "change the job's node selection, or the nodeLabels of a ResourceFlavor of the ClusterQueue"),
    (r"untolerated taint", "UntoleratedTaint",
     "a flavor's nodeTaints (NoSchedule/NoExecute) are not tolerated by the pod or by the flavor's own tolerations",
     "add the toleration to the job's pod template, or to the ResourceFlavor's spec.tolerations"),
    (r"^couldn't assign flavors to pod set .*flavor \S+ not found", "FlavorNotFound",
     "the ClusterQueue names a ResourceFlavor that does not exist",
     "create the ResourceFlavor, or remove it from the ClusterQueue's resourceGroups"),
]


def condition(obj: dict[str, Any], ctype: str) -> dict[str, Any] | None:
    return next((c for c in (obj.get("status") or {}).get("conditions") or [] if c.get("type") == ctype), None)


def is_admitted(workload: dict[str, Any]) -> bool:
    cond = condition(workload, "Admitted")
    return bool(cond and cond.get("status") == "True")


def kueue_says(wl: dict[str, Any] | None) -> str | None:
    """Kueue's own words on why the Workload has no quota (its QuotaReserved=False message)."""
    qr = condition(wl, "QuotaReserved") if wl is not None else None
    return (qr.get("message") or None) if qr is not None and qr.get("status") == "False" else None


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


# Kueue's ErrNamespaceMismatch: the inadmissible message it records when the ClusterQueue has no
# namespaceSelector, and when the selector does not select the workload's namespace.
NAMESPACE_MISMATCH = "workload namespace doesn't match ClusterQueue selector"
