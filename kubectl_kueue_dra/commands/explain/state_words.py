"""The words of ``explain``'s state findings: deactivation, backoffs and re-queueing, admission
checks, the admission gate, the maximum execution time. Each finding says what Kueue did or waits
for, in our words, with a fix to paste (``kubectl``; the document rewrites it for ``oc``)."""

from __future__ import annotations

from typing import Any

from ...findings import codes as F
from ...kueue.workloads import lifecycle as lc
from ...kueue.workloads.checks import PENDING, READY, REJECTED, RETRY, Check, retry_or_rejected_message
from ...kueue.workloads.eviction import DEACTIVATED_DUE_TO, DEACTIVATION_CAUSES, will_be_requeued
from ...kueue.workloads.lifecycle import Execution, Lifecycle
from .facts import ExplainFacts

_REACTIVATE = "kubectl patch workload {name} -n {ns} --type=merge -p '{{\"spec\":{{\"active\":true}}}}'"


def seconds(value: float) -> str:
    """``1h2m3s``, ``45s``."""
    total = int(abs(value))
    h, rest = divmod(total, 3600)
    m, s = divmod(rest, 60)
    return (f"{h}h" if h else "") + (f"{m}m" if m or h else "") + f"{s}s"


def reactivate(ns: str, name: str) -> str:
    return _REACTIVATE.format(name=name, ns=ns)


def _backoff_text(life: Lifecycle) -> str:
    b = life.backoff
    count = f", re-queued {b.count} time(s) so far" if b and b.count else ""
    if b is None or b.requeue_at is None:
        return f" until Kueue re-queues it{count}"
    if b.remaining is None:
        return f" until its backoff ends at {b.requeue_at}{count}"
    if b.remaining > 0:
        return f" for its backoff: {seconds(b.remaining)} more, until {b.requeue_at}{count}"
    return f"; its backoff ended at {b.requeue_at} ({seconds(b.remaining)} ago): Kueue re-queues it at its next " \
           f"reconcile{count}"


def requeue_text(facts: ExplainFacts, life: Lifecycle) -> str:
    """What follows an eviction: for a workload still evicting, whether it will be re-queued; for one
    kept out of the queue (Requeued=False), until when."""
    if life.state == lc.EVICTED:
        reason = (life.evicted or {}).get("reason")
        if will_be_requeued(facts.workload or {}, reason, facts.kueue_gate("SkipReassignmentForPodOwnedWorkloads")):
            return " and goes back to the queue at once."
        if reason in ("PodsReadyTimeout", "AdmissionCheck"):
            return ", then waits for a backoff before it is queued again."
        if reason in ("ClusterQueueStopped", "LocalQueueStopped"):
            return ", then waits until its queue's stopPolicy is None again."
        return ", then stays out of the queue."
    reason = str((life.requeued or {}).get("reason") or "")
    if reason in ("PodsReadyTimeout", "AdmissionCheck"):
        return _backoff_text(life) + "."
    if reason in ("ClusterQueueStopped", "LocalQueueStopped"):
        kind, name, obj = ("ClusterQueue", facts.cluster_queue_name, facts.cluster_queue) if \
            reason.startswith("Cluster") else ("LocalQueue", facts.local_queue_name, facts.local_queue)
        policy = ((obj or {}).get("spec") or {}).get("stopPolicy") or "None"
        if obj is not None and policy == "None":
            return f": {kind} {name} runs again (stopPolicy None), so Kueue re-queues it at its next reconcile."
        return f" until {kind} {name} runs again (stopPolicy None; now {policy if obj is not None else 'unknown'})."
    if reason == "Deactivated":
        return ": it was reactivated, so Kueue re-queues it at its next reconcile."
    if reason.startswith(DEACTIVATED_DUE_TO):
        return (f": Kueue re-queues a reactivated workload only when Requeued's reason is Deactivated; this one's is "
                f"{reason}, so it stays out of the queue.")
    if reason == "Preempted":
        return ": Kueue does not re-queue a workload a single Pod owns after a preemption."
    return "."


def deactivation_finding(facts: ExplainFacts, life: Lifecycle, ns: str, name: str) -> dict[str, Any]:
    d = life.deactivation
    assert d is not None
    words = {
        lc.CREATED_INACTIVE: "it is inactive (spec.active: false) and Kueue never evaluated it: it was created "
                             "inactive, or deactivated before Kueue first looked at it",
        lc.WHILE_PENDING: "it was deactivated (spec.active: false) while it waited for quota; Kueue's last message "
                          "from before stays on it",
        lc.AFTER_ADMISSION: "it was deactivated (spec.active: false) after admission: Kueue evicted it and released "
                            "its quota",
        lc.HOLDING_QUOTA: "it was deactivated (spec.active: false) while it held quota: Kueue is evicting it (its "
                          "pods are stopping)",
    }[d.how]
    if not d.processed and d.how != lc.HOLDING_QUOTA:
        words += "; Kueue has not processed the deactivation yet"
    command = reactivate(ns, name)
    if d.cause:
        why = DEACTIVATION_CAUSES.get(d.cause, (d.cause, f"cause {d.cause}"))[1]
        detail = f" ({d.cause_message})" if d.cause_message else ""
        stuck = str((life.requeued or {}).get("reason") or "").startswith(DEACTIVATED_DUE_TO)
        after = (f"; once reactivated it stays out of the queue: Kueue re-queues a reactivated workload only when "
                 f"Requeued's reason is Deactivated, and this one's is {(life.requeued or {}).get('reason')}") \
            if stuck else ""
        code = _DEACTIVATION_CODES.get(DEACTIVATION_CAUSES.get(d.cause, (d.cause, ""))[0])
        kw: dict[str, Any] = {"why": why, "command": command} if not stuck else \
            {"why": why, "job": facts.subject.job_reference or f"workload/{name}"}
        if code is None:  # a cause this Kueue version does not write: the inactive state, and the cause named
            return F.Inactive.make(f"Kueue deactivated it itself: {why}{detail}; {words}{after}", severity="warning",
                                   variant="recreate" if stuck else "cause",
                                   extra={"cause": d.cause, "kueueMessage": (life.evicted or {}).get("message")},
                                   **kw)
        return code.make(f"Kueue deactivated it itself: {why}{detail}; {words}{after}",
                         variant="recreate" if stuck else "cause" if code is F.AdmissionCheckRejected else "",
                         extra={"kueueMessage": (life.evicted or {}).get("message")}, **kw)
    return F.Inactive.make(f"{words}. Kueue does not queue an inactive workload", command=command,
                           extra={"kueueMessage": (life.evicted or {}).get("message")})


#: the codes of the causes Kueue deactivates a workload for (eviction.DEACTIVATION_CAUSES)
_DEACTIVATION_CODES = {c.name: c for c in (F.RequeuingLimitExceeded, F.MaximumExecutionTimeExceeded,
                                          F.AdmissionCheckRejected, F.EvictedOnManagerCluster)}


def gate_finding(facts: ExplainFacts, life: Lifecycle, ns: str, name: str) -> dict[str, Any]:
    annotations = ((facts.workload or {}).get("metadata") or {}).get("annotations") or {}
    value = life.gated_by or annotations.get(lc.ADMISSION_GATE)
    if not life.gated_by:
        return F.AdmissionGateIgnored.make(
            f"annotation {lc.ADMISSION_GATE}={value} has no effect: Kueue {facts.kueue.semantics.version} runs without "
            "the AdmissionGatedBy feature gate")
    return F.AdmissionGated.make(
        f"Kueue does not queue it while the annotation {lc.ADMISSION_GATE} is set (gated by: {value}); whoever set it "
        "removes it when the workload may be admitted", name=name, namespace=ns, annotation=lc.ADMISSION_GATE,
        extra={"kueueMessage": f"Admission is gated by: {value}"})


def execution_finding(e: Execution) -> dict[str, Any]:
    before = f", {seconds(e.accumulated)} used in earlier admissions" if e.accumulated else ""
    if e.remaining is None:
        text = f"it may run {seconds(e.maximum)} in all (maximumExecutionTimeSeconds{before})"
    elif e.remaining > 0:
        text = (f"it may run {seconds(e.remaining)} more (maximumExecutionTimeSeconds {e.maximum}{before}); then "
                "Kueue deactivates it")
    else:
        text = (f"its maximumExecutionTimeSeconds ({e.maximum}) ran out {seconds(e.remaining)} ago: Kueue "
                "deactivates it at its next reconcile")
    return F.MaximumExecutionTime.make(text)


def _claim(c: Check) -> str:
    if c.exists is None:
        return "whether a controller runs it is unknown (the AdmissionChecks could not be read)"
    if not c.exists:
        return f"AdmissionCheck {c.name} does not exist, so no controller will ever update it"
    if c.active:
        return f"its controller {c.controller} marks it Active"
    why = f" ({c.active_reason}: {c.active_message})" if c.active_reason else " (no Active condition)"
    return f"no controller marks it Active{why}: is {c.controller or 'its controller'} running? Nothing will move it"


def _written(facts: ExplainFacts, text: str) -> str | None:
    """The condition message in which Kueue wrote ``text`` (e.g. ``Evicted due to <text>``); None
    when it wrote it nowhere on the workload: its words are quoted only once they are its."""
    conditions = ((facts.workload or {}).get("status") or {}).get("conditions") or []
    return next((str(c["message"]) for c in conditions if text in str(c.get("message") or "")), None)


def check_findings(facts: ExplainFacts, checks: list[Check], *, holds_quota: bool) -> list[dict[str, Any]]:
    """One finding per check that keeps the workload from admission."""
    ns, name = facts.subject.namespace, str(((facts.workload or {}).get("metadata") or {}).get("name") or "")
    cq = facts.cluster_queue_name
    out = []
    waiting = [c for c in checks if c.state != READY and (c.applies or c.state is not None)]
    if holds_quota and not waiting:
        admitted = next((c for c in ((facts.workload or {}).get("status") or {}).get("conditions") or []
                         if c.get("type") == "Admitted"), None) or {}
        return [F.QuotaReserved.make(f"quota is reserved in ClusterQueue {cq} but Kueue has not admitted it yet"
                                     + (f" ({admitted.get('reason')}: {admitted.get('message')})"
                                        if admitted.get("reason") else ""))]
    for c in waiting:
        said = f": \"{c.message}\"" if c.message else ""
        if c.state in (None, PENDING):
            where = f"quota is reserved in ClusterQueue {cq}; admission" if holds_quota else "admission"
            state = "not on the workload yet" if c.state is None else "Pending"
            out.append(F.AdmissionCheckPending.make(
                f"{where} waits for admission check {c.name} ({state}{said}); {_claim(c)}",
                variant="active" if c.active else "", check=c.name, cluster_queue=cq, controller=c.controller,
                extra={"check": c.name}))
        elif c.state == RETRY:
            out.append(F.AdmissionCheckRetry.make(
                f"admission check {c.name} asks for a retry{said}: Kueue evicts the workload, resets its checks to "
                f"Pending and queues it again after the check's backoff; {_claim(c)}",
                controller=c.controller or "the controller", name=name, namespace=ns,
                extra={"check": c.name, "kueueMessage": _written(facts, retry_or_rejected_message(checks, RETRY))}))
        elif c.state == REJECTED:
            out.append(F.AdmissionCheckRejected.make(
                f"admission check {c.name} rejected the workload{said}: Kueue deactivates it (spec.active: false)",
                controller=c.controller or "the controller", command=reactivate(ns, name),
                extra={"check": c.name, "kueueMessage": _written(facts, retry_or_rejected_message(checks, REJECTED))}))
    if not holds_quota and any(c.state in (RETRY, REJECTED) for c in checks):
        for f in out:
            f["message"] += " (Kueue's scheduler does not admit it meanwhile: \"The workload has failed admission " \
                            "checks\")"
    return out
