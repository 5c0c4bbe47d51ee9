"""What Kueue wrote into a Workload's status: its conditions (Admitted, QuotaReserved, …), the
cause and fix behind each of Kueue's condition messages, and the usage it recorded (at admission,
else the requests it computed while the workload waits).

Pure: takes the Workload object.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ...findings import Code
from ...findings import codes as F

# Kueue's condition messages (research §8) → (code, cause, the code's fix for it: a variant of the
# catalogue's). Checked in order; a pattern's named groups are what the message names (the DeviceClass,
# the capacity), for the fix. Whether Kueue retries is not said here: the charge engine knows it
# (ChargeResult.retried), and says it once.
CONDITION_CAUSES: list[tuple[str, Code, str, str]] = [
    (r"KueueDRAIntegration feature gate is not enabled", F.KueueDRADisabled,
     "Kueue's KueueDRAIntegration gate is off and KueueDRARejectWorkloadsWhenDRADisabled rejects DRA workloads", ""),
    (r"does not support use of resource claims|DRA resource claims not supported", F.ResourceClaimNotSupported,
     "a pod set names a ResourceClaim directly (resourceClaimName); Kueue only accounts for "
     "ResourceClaimTemplates", ""),
    (r"(?:DeviceClass (?P<device_class>\S+) )?is not mapped in DRA configuration", F.DeviceClassNotMapped,
     "the DeviceClass of a ResourceClaimTemplate request is not in deviceClassMappings", ""),
    (r"failed to get claim spec for ResourceClaimTemplate", F.ClaimTemplateMissing,
     "the ResourceClaimTemplate does not exist in the workload's namespace", ""),
    (r"failed to get DeviceClass", F.DeviceClassMissing,
     "a request names a DeviceClass that does not exist", ""),
    (r"FirstAvailable device selection is not supported", F.FirstAvailableNotSupported,
     "the claim uses a prioritized list (firstAvailable), which Kueue does not account for", ""),
    (r"AdminAccess is not supported", F.AdminAccessNotSupported,
     "the claim requests adminAccess, which Kueue rejects (main after v0.19.2 skips it instead)", ""),
    (r"AllocationMode 'All' is not supported|unsupported allocation mode", F.AllocationModeNotSupported,
     "the claim uses allocationMode All, which Kueue cannot count", ""),
    (r"insufficient matching devices for CEL selector", F.NotEnoughMatchingDevices,
     "fewer devices in the cluster's ResourceSlices match the request's CEL selector than it asks for", ""),
    (r"insufficient matching devices for (counter|capacity) driver", F.NotEnoughMatchingDevices,
     "fewer devices in complete, current pools of the driver match the mapping selector, class and request "
     "selectors than the request's count", "counter-or-capacity"),
    (r"no consumesCounters entry for counter", F.CounterNotPublished,
     "no matching device consumes the counter named in the mapping's counter source", ""),
    (r"no capacity dimension", F.CapacityNotPublished,
     "none of the matching devices publishes the capacity named by the mapping's capacity source", ""),
    (r"capacity request cannot be satisfied(?:.*dimension \"(?P<dimension>[^\"]+)\")?",
     F.CapacityRequestUnsatisfiable,
     "no matching device's requestPolicy (validValues / validRange) admits the capacity the request asks for", ""),
    (r"CEL (evaluation|compilation)|has invalid CEL selector", F.SelectorError,
     "a CEL selector (of the request, its DeviceClass or the mapping) does not compile, or fails on some device", ""),
    (r"Exactly must be set if FirstAvailable is nil", F.RequestWithoutExactly,
     "a device request has neither exactly nor firstAvailable (possible only in objects that bypass validation)", ""),
    (r"failed to list (ResourceSlices|DeviceClasses)", F.KueueCannotList,
     "Kueue could not list ResourceSlices or DeviceClasses (its RBAC, or the API server); it retries", ""),
    (r"extended resource quantity must be an integer|overflows int64", F.ExtendedResourceNotInteger,
     "an extended resource backed by a DeviceClass is requested in a fraction", ""),
    (r"with counters configured|with capacity sources configured", F.ExtendedResourceOnCounterClass,
     "the extended resource resolves to a DeviceClass whose mapping charges counters or capacity", ""),
    (r"^resources validation failed", F.RequestsExceedLimits,
     "after Kueue applies the namespace's LimitRange defaults and limits-as-requests, a container requests more "
     "than its limit (often a LimitRange default limit below a request the container sets)", ""),
    (r"^resources didn't satisfy LimitRange constraints", F.LimitRangeViolated,
     "a container (or the pod) is outside the namespace's LimitRange max/min after Kueue's adjustments", ""),
    (r"(?i)workload namespace doesn't match ClusterQueue selector", F.NamespaceNotSelected,
     "the ClusterQueue's namespaceSelector does not select the workload's namespace (a ClusterQueue without "
     "one selects no namespace)", "kueue-condition"),
    (r"unavailable in ClusterQueue", F.ResourceNotCovered,
     "the ClusterQueue does not list a resource of the workload in coveredResources", "kueue-condition"),
    (r"insufficient unused quota", F.QuotaExhausted,
     "the ClusterQueue (and its cohort) has not enough unused quota now; the workload waits for others to finish",
     "kueue-condition"),
    (r"maximum capacity", F.ExceedsQuota,
     "the workload asks for more than the ClusterQueue can ever get: its nominal quota plus what the cohort "
     "tree can lend it (other queues' lendingLimit, nested cohorts' quotas), capped by its borrowingLimit",
     "kueue-condition"),
    (r"doesn't match node affinity", F.NodeAffinityMismatch,
     "the pod's nodeSelector or required node affinity excludes the flavor's nodeLabels (Kueue compares only the "
     "label keys each flavor sets)", ""),
    (r"untolerated taint", F.UntoleratedTaint,
     "a flavor's nodeTaints (NoSchedule/NoExecute) are not tolerated by the pod or by the flavor's own tolerations",
     "kueue-condition"),
    (r"waiting for all admitted workloads to be in PodsReady condition", F.WaitingForPodsReady,
     "the workload fits, but waitForPodsReady.blockAdmission holds every admission until all workloads that hold "
     "quota have their pods ready", "kueue-condition"),
    (r"^couldn't assign flavors to pod set .*flavor \S+ not found", F.FlavorNotFound,
     "the ClusterQueue names a ResourceFlavor that does not exist", "kueue-condition"),
]


def condition(obj: dict[str, Any], ctype: str) -> dict[str, Any] | None:
    return next((c for c in (obj.get("status") or {}).get("conditions") or [] if c.get("type") == ctype), None)


def is_admitted(workload: dict[str, Any]) -> bool:
    cond = condition(workload, "Admitted")
    return bool(cond and cond.get("status") == "True")


def workload_state(wl: dict[str, Any]) -> str:
    """Finished, Admitted, QuotaReserved (quota held, admission checks pending), Inadmissible or
    Pending: the newest of Kueue's conditions that holds."""
    for ctype in ("Finished", "Admitted", "QuotaReserved"):
        c = condition(wl, ctype)
        if c and c.get("status") == "True":
            return ctype
    c = condition(wl, "QuotaReserved")
    if c and c.get("reason") in ("Inadmissible", "Misconfigured"):
        return "Inadmissible"
    return "Pending"


def kueue_says(wl: dict[str, Any] | None) -> str | None:
    """Kueue's own words on why the Workload has no quota (its QuotaReserved=False message)."""
    qr = condition(wl, "QuotaReserved") if wl is not None else None
    return (qr.get("message") or None) if qr is not None and qr.get("status") == "False" else None


@dataclass(frozen=True)
class Cause:
    """What one of Kueue's condition messages means: its code, the cause in words, and the variant
    of the code's fix that fits it."""

    code: Code
    cause: str
    variant: str = ""
    #: what the message names, by the name the code's fix is filled with (``device_class``, ``dimension``)
    named: dict[str, str] = field(default_factory=dict)


def cause_of(message: str) -> Cause | None:
    for pattern, code, cause, variant in CONDITION_CAUSES:
        m = re.search(pattern, message)
        if m:
            return Cause(code, cause, variant, {k: v for k, v in m.groupdict().items() if v is not None})
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
