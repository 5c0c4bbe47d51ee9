"""The judge's reading of Kueue's record: which ``reason`` codes of ``explain``'s document name the
cause Kueue recorded for a workload that waits, and which finding codes must be there.

Kept on the judge's side on purpose: explain derives its reason from the objects, the judge from
Kueue's own words (the QuotaReserved message, the conditions, the ClusterQueue's Active reason), so
the two are independent. The reason strings of the flavor assigner are Kueue's format strings
(flavorassigner: ``flavor %s doesn't match node affinity``, ``untolerated taint %s in flavor %s``,
``insufficient quota for %s in flavor %s, … > maximum capacity (%s)``, ``insufficient unused
quota for %s in flavor %s, %s more needed``, ``resource %s unavailable in ClusterQueue``,
``flavor %s not found``), identical in v0.18.4 and v0.19.2.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kubectl_kueue_dra.kueue.workloads.status import cause_of

from testenv.queue.observe import Observed, condition

#: one flavor-assignment reason → its code (flavorsTried reasons and findings use the same codes)
FLAVOR_REASONS: list[tuple[str, re.Pattern]] = [
    ("NodeAffinityMismatch", re.compile(r"flavor \S+ doesn't match node affinity")),
    ("UntoleratedTaint", re.compile(r"untolerated taint \{[^}]*\} in flavor \S+")),
    ("ExceedsQuota", re.compile(r"insufficient quota for \S+ in flavor \S+, previously considered podsets requests "
                                r"\([^)]*\) \+ current podset request \([^)]*\) > maximum capacity \([^)]*\)")),
    ("QuotaExhausted", re.compile(r"insufficient unused quota for \S+ in flavor \S+, \S+ more needed")),
    ("ResourceNotCovered", re.compile(r"resource \S+ unavailable in ClusterQueue")),
    ("FlavorNotFound", re.compile(r"flavor \S+ not found")),
]
PREEMPTING = re.compile(r"\. (Pending the preemption of \d+ workload\(s\)|Preempting \d+ workload\(s\) failed, "
                        r"will retry\.)$")

#: messages of the workload controller and of evictions (copied into QuotaReserved once the quota is
#: released) → the reasons that name their cause
QUEUE_MESSAGES: list[tuple[re.Pattern, set[str]]] = [
    (re.compile(r"^ClusterQueue \S+ is stopped$"), {"ClusterQueueStopped"}),
    (re.compile(r"^LocalQueue \S+ is (inactive|stopped)$"), {"LocalQueueStopped"}),
    (re.compile(r"^LocalQueue \S+ (doesn't exist|is terminating or missing)$"), {"LocalQueueMissing"}),
    (re.compile(r"^ClusterQueue \S+ (doesn't exist|not found|is terminating or missing)$"), {"ClusterQueueMissing"}),
    (re.compile(r"^The workload has failed admission checks$"), {"AdmissionCheckRetry", "AdmissionCheckRejected"}),
    (re.compile(r"^(?i:workload namespace doesn't match ClusterQueue selector)$"), {"NamespaceNotSelected"}),
    (re.compile(r"^Preempted to accommodate a workload"), {"Preempted"}),
    (re.compile(r"^The ClusterQueue is stopped$"), {"ClusterQueueStopped"}),
    (re.compile(r"^The LocalQueue is stopped$"), {"LocalQueueStopped"}),
    (re.compile(r"^Evicted due to AdmissionCheck"), {"AdmissionCheckRetry"}),
    (re.compile(r"^The workload is deactivated due to AdmissionCheck"), {"AdmissionCheckRejected", "Inactive"}),
    (re.compile(r"^The workload is deactivated"), {"Deactivated", "Inactive"}),
    (re.compile(r"^Exceeded the PodsReady timeout"), {"PodsReadyTimeout"}),
    (re.compile(r"^waiting for all admitted workloads to be in PodsReady condition$"), {"WaitingForPodsReady"}),
]


def flavor_reasons(message: str) -> list[tuple[str, str]]:
    """[(code, reason text)] of a flavor-assignment message, in the message's order."""
    found = []
    for code, pattern in FLAVOR_REASONS:
        found += [(m.start(), code, m.group(0)) for m in pattern.finditer(message)]
    # "flavor x not found" must not be read inside "… doesn't match …": patterns do not overlap
    return [(code, text) for _, code, text in sorted(found)]


@dataclass
class Cause:
    """What Kueue's record says about a workload that waits: the reason codes that name it (any
    one of them), the codes explain must state (as findings or flavorsTried reasons), the flavor
    reasons of Kueue's message (to compare with a predicted one), and how it was read."""

    reasons: set[str]
    required: set[str]
    flavor_texts: list[str]
    read: str


def cause(wl: dict, obs: Observed) -> Cause | None:
    """The cause of a pending, evicted or inactive workload; None when the judge cannot read it."""
    if (wl.get("spec") or {}).get("active") is False:
        ev = condition(wl, "Evicted") or {}
        if ev.get("reason") == "DeactivatedDueToAdmissionCheck":
            return Cause({"Inactive", "AdmissionCheckRejected"}, set(), [], "deactivated: a check was Rejected")
        return Cause({"Inactive", "Deactivated"}, set(), [], "spec.active is false")
    qr = condition(wl, "QuotaReserved")
    if qr is None or qr.get("status") != "False":
        cq = obs.cluster_queue_of(wl)
        if ((cq or {}).get("spec") or {}).get("queueingStrategy") == "StrictFIFO":
            return Cause({"BlockedByHead"}, set(), [], "no QuotaReserved condition under StrictFIFO")
        return Cause({"NotEvaluatedYet"}, set(), [], "no QuotaReserved condition (never evaluated: BestEffortFIFO "
                     "moves a workload equivalent to one that failed aside without a word)")
    c = _from_message(wl, obs, qr.get("message") or "")
    ev = condition(wl, "Evicted") or {}
    if c is not None and ev.get("status") == "True" and ev.get("reason") in EVICTION_WORDS:
        c.reasons.add(EVICTION_WORDS[ev["reason"]])  # waiting again after an eviction: either word
    return c


#: an eviction that is still recorded (Evicted=True) names the workload's state as well as its cause
EVICTION_WORDS = {"Preempted": "Preempted", "ClusterQueueStopped": "ClusterQueueStopped",
                  "LocalQueueStopped": "LocalQueueStopped", "AdmissionCheck": "AdmissionCheckRetry",
                  "PodsReadyTimeout": "PodsReadyTimeout"}


def _from_message(wl: dict, obs: Observed, message: str) -> Cause | None:
    if PREEMPTING.search(message):
        texts = [t for _, t in flavor_reasons(PREEMPTING.sub("", message))]
        return Cause({"Preempting"}, set(), texts, "Kueue is preempting for it")
    if message.startswith(("couldn't assign flavors", "failed to assign flavors")):
        found = flavor_reasons(message)
        codes = {c for c, _ in found}
        reasons = set(codes)
        if "QuotaExhausted" in codes and _may_preempt(obs.cluster_queue_of(wl)):
            reasons.add("NoPreemptionCandidates")
        return Cause(reasons, codes, [t for _, t in found], "the flavor assigner's reasons")
    if re.match(r"^ClusterQueue \S+ is inactive$", message):
        active = condition(obs.cluster_queue_of(wl), "Active") or {}
        if active.get("reason") == "Stopped":
            return Cause({"ClusterQueueStopped"}, set(), [], "its ClusterQueue is stopped")
        return Cause({"ClusterQueueInactive"}, set(), [], f"its ClusterQueue is inactive ({active.get('reason')})")
    for pattern, reasons in QUEUE_MESSAGES:
        if pattern.search(message):
            return Cause(set(reasons), set(), [], "the queue message")
    dra = cause_of(message)
    if dra is not None:
        return Cause({dra.code.name}, {dra.code.name}, [], "a DRA rejection")
    return None


def _may_preempt(cq: dict | None) -> bool:
    p = ((cq or {}).get("spec") or {}).get("preemption") or {}
    return any(v not in (None, "Never") for v in (p.get("withinClusterQueue"), p.get("reclaimWithinCohort")))
