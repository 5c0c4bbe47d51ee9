"""The recorded state of a Workload, classified the way Kueue's controllers move it, in this order:

1. ``Finished=True`` → Finished (Succeeded, Failed, OwnerNotFound, …);
2. ``spec.active: false`` (or a ``DeactivationTarget`` Kueue set and acts on next) → Inactive: created
   inactive, deactivated while pending, or deactivated after admission; by a user, or by Kueue
   itself (RequeuingLimitExceeded, MaximumExecutionTimeExceeded, a Rejected admission check);
3. ``Evicted=True`` while ``QuotaReserved=True`` → being evicted (Preempted when a preemption);
4. ``Requeued=False`` → Requeuing: evicted and kept out of the queue until a backoff
   (``status.requeueState.requeueAt``) passes, its queue restarts, or it is reactivated;
5. ``QuotaReserved=True`` and ``Admitted`` not True → WaitingForChecks (admission checks), or
   quota reserved only (delayed topology, or Kueue writing Admitted);
6. ``Admitted=True`` → Admitted (with the remaining ``maximumExecutionTimeSeconds``);
7. otherwise pending: re-queued after a preemption (Preempted), gated by the
   ``kueue.x-k8s.io/admission-gated-by`` annotation, or Pending (why: the queue's part).

Kueue's conditions are the truth for the past: this module only reads them. Times are compared
with the ``now`` given (the run's clock).

Pure: the Workload in, a Lifecycle out.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from .eviction import DEACTIVATED_DUE_TO, DEACTIVATION_CAUSES, eviction_word
from .status import condition

Obj = dict[str, Any]

FINISHED, INACTIVE, EVICTED, PREEMPTED, REQUEUING = "Finished", "Inactive", "Evicted", "Preempted", "Requeuing"
WAITING_FOR_CHECKS, QUOTA_RESERVED, ADMITTED, PENDING = "WaitingForChecks", "QuotaReserved", "Admitted", "Pending"
ADMISSION_GATE = "kueue.x-k8s.io/admission-gated-by"
#: Kueue's message when it deactivates (and the QuotaReserved message it leaves after releasing quota)
DEACTIVATED_MESSAGE = "The workload is deactivated"

# how a workload became inactive
CREATED_INACTIVE, WHILE_PENDING, AFTER_ADMISSION, HOLDING_QUOTA = \
    "createdInactive", "deactivatedWhilePending", "deactivatedAfterAdmission", "deactivatedHoldingQuota"


def parse_time(text: Any) -> datetime | None:
    """A Kubernetes time (RFC 3339), or None."""
    if not isinstance(text, str) or not text:
        return None
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None


def _true(c: Obj | None) -> bool:
    return bool(c) and (c or {}).get("status") == "True"


def _false(c: Obj | None) -> bool:
    return bool(c) and (c or {}).get("status") == "False"


@dataclass(frozen=True, kw_only=True)
class Deactivation:
    how: str  # CREATED_INACTIVE | WHILE_PENDING | AFTER_ADMISSION | HOLDING_QUOTA
    #: the cause when Kueue deactivated it itself (RequeuingLimitExceeded, …); None when a user did
    cause: str | None
    cause_message: str | None
    #: Kueue has written the Evicted condition of the deactivation (it processed it)
    processed: bool


@dataclass(frozen=True, kw_only=True)
class Backoff:
    """``status.requeueState``: how often it was re-queued, and until when it waits."""

    count: int | None
    requeue_at: str | None
    #: seconds until requeueAt (negative: passed); None without requeueAt or a clock
    remaining: float | None


@dataclass(frozen=True, kw_only=True)
class Execution:
    """``spec.maximumExecutionTimeSeconds`` against the time admitted so far."""

    maximum: int
    accumulated: int  # status.accumulatedPastExecutionTimeSeconds
    admitted_since: str | None
    remaining: float | None  # seconds; None when not running now

    def doc(self) -> dict[str, Any]:
        return {"maximumSeconds": self.maximum, "accumulatedSeconds": self.accumulated,
                "admittedSince": self.admitted_since,
                "remainingSeconds": None if self.remaining is None else int(self.remaining)}


@dataclass(frozen=True, kw_only=True)
class Lifecycle:
    state: str
    #: one word: why it is in this state (None for a pending workload: its queue says why)
    reason: str | None
    holds_quota: bool
    admitted: bool
    #: Kueue wrote a QuotaReserved condition (the scheduler or a controller looked at it)
    evaluated: bool
    finished: Obj | None = None  # the Finished condition
    deactivation: Deactivation | None = None
    evicted: Obj | None = None  # the Evicted condition (True or False)
    requeued: Obj | None = None  # the Requeued condition
    backoff: Backoff | None = None
    execution: Execution | None = None
    gated_by: str | None = None
    #: the QuotaReserved=False message when the scheduler or the queue checks wrote it (not an
    #: eviction, deactivation or admission-gate record): Kueue's last word on why it waits
    kueue_says: str | None = None

    @property
    def eviction_active(self) -> bool:
        return _true(self.evicted)


def _deactivation(wl: Obj, holds_quota: bool) -> Deactivation:
    target, evicted, requeued = condition(wl, "DeactivationTarget"), condition(wl, "Evicted"), \
        condition(wl, "Requeued")
    cause, cause_message = None, None
    if _true(target):
        cause, cause_message = (target or {}).get("reason"), (target or {}).get("message")
    for c in (evicted, requeued):
        reason = str((c or {}).get("reason") or "")
        if cause is None and reason.startswith(DEACTIVATED_DUE_TO):
            cause = reason[len(DEACTIVATED_DUE_TO):]
            text = str((c or {}).get("message") or "")
            cause_message = text.split(" due to ", 1)[1] if " due to " in text else None
    reserved = condition(wl, "QuotaReserved")
    status = wl.get("status") or {}
    # Kueue writes Requeued (and QuotaReserved=False with the eviction's message) in the patch that
    # releases the quota of an evicted workload; an Admitted condition proves nothing (granular mode
    # writes Admitted=False at creation)
    after = requeued is not None or \
        ((reserved or {}).get("message") == DEACTIVATED_MESSAGE and _false(reserved)) or \
        status.get("accumulatedPastExecutionTimeSeconds") is not None
    how = HOLDING_QUOTA if holds_quota else AFTER_ADMISSION if after else \
        WHILE_PENDING if reserved is not None else CREATED_INACTIVE
    processed = _true(evicted) and str((evicted or {}).get("reason") or "").startswith("Deactivated")
    return Deactivation(how=how, cause=cause, cause_message=cause_message, processed=processed)


def _backoff(wl: Obj, now: datetime | None) -> Backoff | None:
    state = (wl.get("status") or {}).get("requeueState")
    if not isinstance(state, dict):
        return None
    at = parse_time(state.get("requeueAt"))
    remaining = (at - now).total_seconds() if at is not None and now is not None else None
    return Backoff(count=state.get("count"), requeue_at=state.get("requeueAt"), remaining=remaining)


def _execution(wl: Obj, now: datetime | None) -> Execution | None:
    maximum = (wl.get("spec") or {}).get("maximumExecutionTimeSeconds")
    if not isinstance(maximum, int):
        return None
    accumulated = int((wl.get("status") or {}).get("accumulatedPastExecutionTimeSeconds") or 0)
    admitted = condition(wl, "Admitted")
    since = parse_time((admitted or {}).get("lastTransitionTime")) if _true(admitted) else None
    remaining = maximum - accumulated - (now - since).total_seconds() if since and now else None
    return Execution(maximum=maximum, accumulated=accumulated,
                     admitted_since=(admitted or {}).get("lastTransitionTime") if since else None, remaining=remaining)


GATE_MESSAGES = ("Admission is gated by: ", "AdmissionGatedBy cleared, waiting for quota reservation")
#: granular mode (v0.19 UnadmittedWorkloadsExplicitStatus): written before the scheduler looked at it
PENDING_EVALUATION = "Workload is pending evaluation in the scheduling queue"


def _scheduler_message(wl: Obj) -> str | None:
    """QuotaReserved=False's message unless it records an eviction, a deactivation or the gate."""
    reserved, evicted = condition(wl, "QuotaReserved"), condition(wl, "Evicted")
    if not _false(reserved):
        return None
    message = str((reserved or {}).get("message") or "")
    if not message or message in (DEACTIVATED_MESSAGE, PENDING_EVALUATION) or message.startswith(GATE_MESSAGES) or \
            (evicted is not None and message == evicted.get("message")):
        return None
    return message


def deactivation_word(d: Deactivation) -> str:
    if d.cause:
        return DEACTIVATION_CAUSES.get(d.cause, (d.cause, ""))[0]
    return "Inactive"


def classify(wl: Obj, now: datetime | None, *, admission_gate: bool = True) -> Lifecycle:
    """The Workload's recorded state (module docstring). ``admission_gate``: Kueue's
    AdmissionGatedBy gate (on by default from 0.19; without it the annotation does nothing)."""
    finished, reserved, admitted_c = condition(wl, "Finished"), condition(wl, "QuotaReserved"), \
        condition(wl, "Admitted")
    evicted, requeued = condition(wl, "Evicted"), condition(wl, "Requeued")
    holds, admitted = _true(reserved), _true(admitted_c)
    says = _scheduler_message(wl)
    common: dict[str, Any] = {"holds_quota": holds, "admitted": admitted, "evaluated": says is not None or holds,
                              "kueue_says": says, "evicted": evicted, "requeued": requeued,
                              "backoff": _backoff(wl, now), "execution": _execution(wl, now)}
    if _true(finished):
        return Lifecycle(state=FINISHED, reason="Finished", finished=finished, **common)
    active = (wl.get("spec") or {}).get("active")
    if active is False or _true(condition(wl, "DeactivationTarget")):
        d = _deactivation(wl, holds)
        return Lifecycle(state=INACTIVE, reason=deactivation_word(d), deactivation=d, **common)
    if _true(evicted) and holds:
        reason = str((evicted or {}).get("reason") or "")
        return Lifecycle(state=PREEMPTED if reason == "Preempted" else EVICTED, reason=eviction_word(reason),
                         **common)
    if _false(requeued) and (requeued or {}).get("reason") != "Inadmissible":  # Inadmissible: DRA, the charge's
        return Lifecycle(state=REQUEUING, reason=eviction_word((requeued or {}).get("reason")), **common)
    if holds and not admitted:
        checks = (wl.get("status") or {}).get("admissionChecks")
        if checks:
            return Lifecycle(state=WAITING_FOR_CHECKS, reason="AdmissionCheckPending", **common)
        return Lifecycle(state=QUOTA_RESERVED, reason=(admitted_c or {}).get("reason") or "QuotaReserved", **common)
    if admitted:
        return Lifecycle(state=ADMITTED, reason="Admitted", **common)
    if _true(evicted) and (evicted or {}).get("reason") == "Preempted":
        return Lifecycle(state=PREEMPTED, reason="Preempted", **common)
    gate = ((wl.get("metadata") or {}).get("annotations") or {}).get(ADMISSION_GATE)
    if gate and admission_gate:
        return Lifecycle(state=PENDING, reason="AdmissionGated", gated_by=str(gate), **common)
    return Lifecycle(state=PENDING, reason=None, **common)
