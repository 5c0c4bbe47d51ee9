"""The workload's recorded state in ``explain``: the one-word ``state`` and ``reason``, the
``eviction``, ``preemption`` (victim side) and ``admissionChecks`` parts of the document, and one
finding per state in our words with a fix to paste. Kueue's messages are quoted beside ours
(``kueueMessage``), never instead.

The classification is ``kueue/workloads/lifecycle``; this module words it, from the facts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...findings import codes as F
from ...kueue.workloads import lifecycle as lc
from ...kueue.workloads.checks import REJECTED, RETRY, Check, worst_state
from ...kueue.queues.blockers import stopped_fix
from ...kueue.workloads.eviction import (
    DEACTIVATED_DUE_TO,
    PREEMPTION_POLICIES,
    Preemption,
    eviction_cause,
    preemption_of,
    will_be_requeued,
)
from ...kueue.workloads.lifecycle import Lifecycle
from .facts import ExplainFacts
from .state_words import (
    check_findings,
    deactivation_finding,
    execution_finding,
    gate_finding,
    requeue_text,
)

_CHECK_WORDS = {REJECTED: F.AdmissionCheckRejected.name, RETRY: F.AdmissionCheckRetry.name}


@dataclass
class StatePart:
    life: Lifecycle
    checks: list[Check]
    doc: dict[str, Any] = field(default_factory=dict)
    findings: list[dict[str, Any]] = field(default_factory=list)


def _workload_ref(facts: ExplainFacts) -> tuple[str, str]:
    wl = facts.workload or {}
    return facts.subject.namespace, str((wl.get("metadata") or {}).get("name") or "")


def _eviction_doc(facts: ExplainFacts, life: Lifecycle) -> dict[str, Any] | None:
    ev = life.evicted
    if ev is None or (ev.get("status") != "True" and life.requeued is None):
        return None  # never evicted, or re-admitted since (Evicted False, "Previously: …")
    rq, backoff = life.requeued or {}, life.backoff
    return {"reason": ev.get("reason"), "message": ev.get("message"), "since": ev.get("lastTransitionTime"),
            "active": ev.get("status") == "True", "holdingQuota": life.holds_quota,
            "requeued": None if not rq else rq.get("status") == "True", "requeueReason": rq.get("reason"),
            "requeueAt": backoff.requeue_at if backoff else None, "requeueCount": backoff.count if backoff else None,
            "backoffSeconds": None if not backoff or backoff.remaining is None else int(backoff.remaining),
            "cause": eviction_cause(ev.get("reason"))}


def _policy(facts: ExplainFacts, p: Preemption) -> str | None:
    """``withinClusterQueue: LowerPriority``: the preemptor's ClusterQueue policy that allowed it."""
    field_name = PREEMPTION_POLICIES.get(p.reason or "", (None, ""))[0]
    cq_name = p.preemptor_cluster_queue
    if field_name is None or cq_name is None:
        return field_name
    cq = facts.cluster_queue if facts.cluster_queue_name == cq_name else \
        next((q for q in facts.cluster_queues or [] if q["metadata"].get("name") == cq_name), None)
    preemption = ((cq or {}).get("spec") or {}).get("preemption") or {}
    key = field_name.split(" ")[0]
    value = (preemption.get(key) or {}).get("policy") if key == "borrowWithinCohort" else preemption.get(key)
    return f"{field_name}: {value}" if value else field_name


def _preemption_part(facts: ExplainFacts, life: Lifecycle) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
    wl = facts.workload or {}
    p = preemption_of(wl, facts.workloads, facts.problem("Workload") if facts.workloads is None else None)
    if p is None:
        return None, []
    rq = life.requeued
    requeued = None if rq is None else rq.get("status") == "True"
    skip = facts.kueue_gate("SkipReassignmentForPodOwnedWorkloads")
    future = will_be_requeued(wl, "Preempted", skip)
    policy = _policy(facts, p)
    doc = {"role": "victim", "reason": p.reason, "preemptor": p.preemptor_doc(), "policy": policy,
           "requeued": requeued, "willBeRequeued": future if requeued is None else None,
           "preemptorPath": p.preemptor_path, "preempteePath": p.preemptee_path}
    who = "an unknown workload"
    pre = p.preemptor_doc()
    if pre["name"]:
        who = f"Workload {pre['namespace']}/{pre['name']} (priority {pre['priority'] or 0}, ClusterQueue " \
              f"{pre['clusterQueue']})"
    elif p.uid:
        who = f"the Workload with UID {p.uid} ({p.unknown})"
    why = PREEMPTION_POLICIES.get(p.reason or "", (None, p.why or "its quota was needed"))[1]
    allowed = f"; {policy} allowed it" if policy else ""
    own = (wl.get("spec") or {}).get("priority") or 0
    if life.holds_quota:
        after = " Its pods are stopping; then it releases the quota and " + \
            ("goes back to the queue." if future else "is not re-queued (a pod-owned workload).")
    elif requeued:
        after = " It is back in the queue (ordered by priority, then creation time), waiting for quota again."
    else:
        after = " Kueue does not re-queue it (Requeued=False)."
    message = f"preempted by {who}: {why} (its own priority {own}{allowed}).{after}"
    ev = life.evicted or {}
    return doc, [F.Preempted.make(message, variant="" if p.reason == "InClusterQueue" else "reclaimed",
                                  cluster_queue=facts.cluster_queue_name, extra={"kueueMessage": ev.get("message")})]


def state_part(facts: ExplainFacts, checks: list[Check], life: Lifecycle) -> StatePart:
    """The parts and findings of the recorded state (the workload must exist)."""
    part = StatePart(life, checks)
    ns, name = _workload_ref(facts)
    part.doc["eviction"] = _eviction_doc(facts, life)
    part.doc["preemption"], more = _preemption_part(facts, life)
    part.findings.extend(more)
    part.doc["admissionChecks"] = [c.doc() for c in checks]
    part.doc["lifecycle"] = {
        "finished": {k: (life.finished or {}).get(k) for k in ("reason", "message", "lastTransitionTime")}
        if life.finished else None,
        "deactivation": None if life.deactivation is None else {
            "how": life.deactivation.how, "cause": life.deactivation.cause,
            "causeMessage": life.deactivation.cause_message, "processed": life.deactivation.processed},
        "execution": life.execution.doc() if life.execution else None,
        "gatedBy": life.gated_by, "evaluated": life.evaluated, "holdsQuota": life.holds_quota,
        "kueueSays": life.kueue_says}
    state = life.state
    if state == lc.FINISHED:
        f = life.finished or {}
        part.findings.append(F.Finished.make(f"Kueue declared it finished ({f.get('reason')}): it holds no quota and "
                                             "is no longer queued", extra={"kueueMessage": f.get("message")}))
    elif state == lc.INACTIVE and life.deactivation is not None:
        part.findings.append(deactivation_finding(facts, life, ns, name))
    elif state in (lc.EVICTED,):
        ev = life.evicted or {}
        part.findings.append(F.Evicting.make(
            f"Kueue is evicting it: {eviction_cause(ev.get('reason'))}. Its pods are stopping; then it releases the "
            "quota" + requeue_text(facts, life), extra={"kueueMessage": ev.get("message")}))
    elif state == lc.REQUEUING:
        rq = life.requeued or {}
        code = _REQUEUE_CODES.get(life.reason or "", F.Requeuing)
        variant, fix_args = _requeue_fix(facts, life, ns)
        part.findings.append(code.make(
            f"evicted ({eviction_cause(rq.get('reason'))}) and kept out of the queue" + requeue_text(facts, life),
            variant=variant, extra={"cause": life.reason, "kueueMessage": rq.get("message")}, **fix_args))
    elif state in (lc.WAITING_FOR_CHECKS, lc.QUOTA_RESERVED):
        part.findings.extend(check_findings(facts, checks, holds_quota=True))
    elif state == lc.PENDING:
        if life.gated_by or (facts.workload or {}).get("metadata", {}).get("annotations", {}).get(lc.ADMISSION_GATE):
            part.findings.append(gate_finding(facts, life, ns, name))
        failed = [c for c in checks if c.state in (RETRY, REJECTED)]
        if failed:
            part.findings.extend(check_findings(facts, failed, holds_quota=False))
        if not life.evaluated and not life.gated_by:
            part.findings.append(F.NotEvaluatedYet.make(
                "Kueue has not written why it waits: its scheduler has not evaluated it since it was queued (it is "
                "new, behind the head of a StrictFIFO ClusterQueue, set aside with an equivalent workload that did "
                "not fit, or in the ClusterQueue's inadmissible set until something changes); what follows is this "
                "tool's prediction"))
    if life.execution is not None and state == lc.ADMITTED:
        part.findings.append(execution_finding(life.execution))
    return part


#: the eviction words (eviction.EVICTION_CAUSES, DEACTIVATION_CAUSES) → the code a Requeuing workload is said with
_REQUEUE_CODES = {c.name: c for c in (
    F.Preempted, F.PodsReadyTimeout, F.AdmissionCheckRetry, F.ClusterQueueStopped, F.LocalQueueStopped, F.Deactivated,
    F.NodeFailures, F.FlavorMigration, F.RequeuingLimitExceeded, F.MaximumExecutionTimeExceeded,
    F.AdmissionCheckRejected, F.EvictedOnManagerCluster)}


def _requeue_fix(facts: ExplainFacts, life: Lifecycle, ns: str) -> tuple[str, dict[str, Any]]:
    """The variant of the Requeuing code's fix, and what it is filled with."""
    reason = str((life.requeued or {}).get("reason") or "")
    if reason == "LocalQueueStopped":
        if not facts.local_queue_name:
            return "unknown", {}
        return "", {"command": stopped_fix("localqueue", facts.local_queue_name, ns)}
    if reason == "ClusterQueueStopped":
        if not facts.cluster_queue_name:
            return "unknown", {}
        return "command", {"command": stopped_fix("clusterqueue", facts.cluster_queue_name)}
    if reason.startswith(DEACTIVATED_DUE_TO) and life.reason in _DEACTIVATION_WORDS:
        return "requeued", {"job": facts.subject.job_reference or "the workload"}
    if life.reason in ("Preempted", "AdmissionCheckRetry"):
        return {"Preempted": "not-requeued", "AdmissionCheckRetry": "requeued"}[life.reason], {}
    return "", {}


_DEACTIVATION_WORDS = {c.name for c in (F.RequeuingLimitExceeded, F.MaximumExecutionTimeExceeded,
                                        F.AdmissionCheckRejected, F.EvictedOnManagerCluster)}


def state_word(part: StatePart | None, findings: list[dict[str, Any]], what_if: bool) -> tuple[str, str | None]:
    """``state`` and ``reason`` of the document: the recorded state's, and for a pending workload
    (or a what-if) what keeps it waiting: the first error, else the most severe finding."""
    if part is None:
        return ("WhatIf" if what_if else "Unknown"), _first_reason(findings)
    life = part.life
    if life.state in (lc.WAITING_FOR_CHECKS, lc.QUOTA_RESERVED):
        worst = worst_state(part.checks)
        return life.state, _CHECK_WORDS.get(worst or "", life.reason)
    if life.state != lc.PENDING or life.reason:
        return life.state, life.reason
    return life.state, _pending_reason(findings, life.evaluated)


def _pending_reason(findings: list[dict[str, Any]], evaluated: bool) -> str | None:
    """Why a pending workload waits. What Kueue did comes before what the model predicts: victims it
    preempted for it are on their way out; a workload it never evaluated (no QuotaReserved) waits
    behind a StrictFIFO head, or for its turn — the quota the model finds short is then a prediction
    among the findings, not the reason."""
    codes = {f["code"] for f in findings}
    if any(f["code"] == F.Preempting.name and not f.get("predicted") for f in findings):
        return F.Preempting.name
    if not evaluated:
        for code in (F.BlockedByHead, F.WaitingForPodsReady):
            if code.name in codes:
                return code.name
        return _first_reason([f for f in findings if f.get("severity") == "error" and not f.get("predicted")]) \
            or F.NotEvaluatedYet.name
    return _first_reason(findings)


_RANK = {"error": 0, "warning": 1}
#: findings about this tool's answer (what it could not read, how it compares), not why Kueue waits
_NOT_REASONS = {c.name for c in (
    F.Unreadable, F.MalformedObject, F.KueueConfigNotFound, F.KueueVersionAssumed, F.KueueVersionUnsupported,
    F.ChargeMismatch, F.AllocatedDeviceStale, F.AllocatedDeviceMissing, F.ChargedAboveAllocation,
    F.TransformationsUnreadable, F.ResourceRulesNotRendered, F.PredictionDiffers, F.FromManifest,
    F.ManifestObjectsNotRead, F.PartiallyAdmitted, F.StaleKueueMessage, F.RejectedIfRequeued, F.WhatIfFit)}


def _first_reason(findings: list[dict[str, Any]]) -> str | None:
    ranked = sorted((f for f in findings if f.get("severity") in _RANK and f["code"] not in _NOT_REASONS
                     and not str(f["code"]).endswith("Unknown")), key=lambda f: _RANK[f["severity"]])
    return str(ranked[0]["code"]) if ranked else None

