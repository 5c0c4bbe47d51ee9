"""The queue model in the explain document: per pod set the flavors (recorded or predicted) and
every flavor the search tried; ``queue.verdict`` (Kueue's message as predicted); the preemptor's
``preemption``; the derived ``position``.

Pure: the model in, JSON-ready dicts out.
"""

from __future__ import annotations

import re
from typing import Any

from ...findings import codes as F
from ...kueue.scheduler.assignment import Assignment, FlavorTry, PodSetOutcome
from ...kueue.scheduler.modes import MODE_NAMES
from ...kueue.scheduler.preemption import Target
from ...kueue.scheduler.world import QueueWorld, condition, holds_quota, memo, meta
from ...kueue.units import format_usage
from ...kueue.workloads.status import cause_of
from .queue_model import QueueModel

Obj = dict[str, Any]
PENDING_SUFFIX = ". Pending the preemption of {n} workload(s)"
_CODE_ORDER = tuple(c.name for c in (F.ResourceNotCovered, F.QuotaExhausted, F.ExceedsQuota, F.NodeAffinityMismatch,
                                     F.UntoleratedTaint, F.FlavorNotFound, F.TopologyMismatch, F.SelectorError))


def _outcome(asg: Assignment | None, name: str) -> PodSetOutcome | None:
    return next((p for p in (asg.podsets if asg else []) if p.name == name), None)


def _try_doc(t: FlavorTry) -> dict[str, Any]:
    return {"resourceGroup": t.group, "flavor": t.flavor, "outcome": t.outcome,
            "mode": MODE_NAMES[t.mode.mode] if t.mode is not None and t.mismatch is None else None,
            "borrowingLevel": t.mode.borrow if t.mode is not None and t.mismatch is None and t.mode.mode else None,
            "reasons": [{"code": r.code, "resource": r.resource, "message": r.message} for r in t.reasons()],
            "chosen": t.chosen, "predicted": True}


def podset_fields(model: QueueModel, name: str) -> dict[str, Any]:
    """``flavors``, ``flavorsSource``, ``flavorsTried``, ``flavorsAgree`` and ``flavorsMode`` (the
    pod set's mode in the model's search: Fit, Preempt or NoFit) of one pod set."""
    asg = model.assignment
    outcome = _outcome(asg, name)
    predicted = dict(outcome.flavors) if outcome is not None and outcome.flavors else None
    tried = None if outcome is None else [_try_doc(t) for s in outcome.searches for t in s.tries]
    mode = outcome.mode if outcome is not None else None
    recorded = model.recorded.get(name) if model.holds_quota else None
    if recorded:
        agree = None if asg is None or asg.unknown is not None or outcome is None else predicted == recorded
        return {"flavors": recorded, "flavorsSource": "recorded", "flavorsTried": tried, "flavorsAgree": agree,
                "flavorsMode": mode}
    return {"flavors": predicted, "flavorsSource": "predicted" if predicted else None, "flavorsTried": tried,
            "flavorsAgree": None, "flavorsMode": mode}


def pending_preemption(model: QueueModel) -> list[Target]:
    plan = model.plan
    return plan.targets if plan is not None and plan.possible else []


def predicted_message(model: QueueModel) -> str | None:
    """Kueue's QuotaReserved message as the model predicts it (with the preemption suffix)."""
    asg = model.assignment
    if asg is None or asg.mode == "Fit" or asg.message is None or model.missing:
        return None
    targets = pending_preemption(model)
    if asg.mode == "Preempt" and model.plan is not None and model.plan.possible is None:
        return None  # whether Kueue adds ". Pending the preemption of N workload(s)" is unknown
    return asg.message + (PENDING_SUFFIX.format(n=len(targets)) if targets else "")


def verdict_doc(model: QueueModel, binary: set[str]) -> dict[str, Any] | None:
    """``queue.verdict``: why Kueue's scheduler gives the workload no flavor now (null when it fits)."""
    asg = model.assignment
    if asg is None or asg.unknown is not None or asg.mode == "Fit" or model.partial_counts:
        return None  # it fits (partial admission: with fewer pods)
    failing = next((p for p in asg.podsets if not p.fit), None)
    if failing is None:  # a Workload without pod sets (the API server does not allow one)
        return None
    message = predicted_message(model)
    codes = {r.code for p in asg.podsets for r in p.reasons}
    found = cause_of(message) if message else None
    code = found.code.name if found and found.code.name in codes else next((c for c in _CODE_ORDER if c in codes),
                                                                           None)
    reasons = []
    for p in asg.podsets:
        for s in p.searches:
            for t in s.tries:
                if t.mismatch is not None:
                    reasons.append({"code": t.mismatch.code, "podSet": p.name, "resource": None, "flavor": t.flavor,
                                    "message": t.mismatch.message})
                for c in t.checks:
                    if c.reason is not None:
                        res = c.resource
                        reasons.append({"code": c.reason.code, "podSet": p.name, "resource": res,
                                        "flavor": c.flavor, "message": c.reason.message,
                                        "request": format_usage(res, c.assumed + c.request, binary),
                                        "maximumCapacity": format_usage(res, c.maximum, binary),
                                        "available": format_usage(res, c.available, binary)})
            if s.group < 0:
                reasons.extend({"code": r.code, "podSet": p.name, "resource": r.resource, "flavor": None,
                                "message": r.message} for r in s.reasons)
    return {"code": code, "podSet": failing.name, "mode": asg.mode, "message": message,
            "messages": asg.messages() if message is None and len(asg.messages()) > 1 else None,
            "reasons": reasons, "caveats": list(asg.caveats), "predicted": True}


def _ref(obj: Obj) -> dict[str, Any]:
    m = meta(obj)
    return {"namespace": m.get("namespace"), "name": m.get("name")}


_PREEMPTOR_UID = re.compile(r"^Preempted to accommodate a workload \(UID: ([^,]*),")


def _victims(world: QueueWorld) -> dict[str, list[Obj]]:
    """Preemptor UID -> the workloads still holding quota that Kueue evicted for it."""
    out: dict[str, list[Obj]] = {}
    for wl in world.items("Workload"):
        preempted = condition(wl, "Preempted")
        if preempted and preempted.get("status") == "True" and holds_quota(wl):
            found = _PREEMPTOR_UID.match(str(preempted.get("message") or ""))
            if found:
                out.setdefault(found.group(1), []).append(wl)
    return out


def victims_of(model: QueueModel) -> list[Obj]:
    """Workloads still holding quota that Kueue evicted for this workload (their Preempted
    condition names its UID)."""
    uid = model.preemptor.uid if model.preemptor else ""
    return list(memo(model.world, "Workload", "victims", lambda: _victims(model.world)).get(uid, [])) if uid else []


def preemption_doc(model: QueueModel) -> dict[str, Any] | None:
    """The preemptor role of ``preemption`` (null unless its flavors need preemption)."""
    waiting = victims_of(model)
    plan = model.plan
    if plan is None and not waiting:
        return None
    targets = [{"namespace": t.info.namespace, "name": t.info.name, "priority": t.info.priority,
                "clusterQueue": t.info.cluster_queue, "reason": t.reason, "evicted": t.info.evicted}
               for t in (plan.targets if plan else [])]
    prio = model.priority
    return {"role": "preemptor", "priority": prio.value if prio else None,
            "prioritySource": prio.source if prio else None, "possible": plan.possible if plan else None,
            "targets": targets,
            "waitingFor": [dict(_ref(w), clusterQueue=((w.get("status") or {}).get("admission") or {})
                                .get("clusterQueue")) for w in waiting],
            "why": plan.why if plan else None, "unknown": plan.unknown if plan else None, "predicted": True}


def position_doc(model: QueueModel) -> dict[str, Any] | None:
    pos = model.position
    if pos is None:
        if model.position_unknown is None or model.position_unknown.startswith("not pending"):
            return None
        return {"clusterQueue": None, "localQueue": None, "source": "derived", "unknown": model.position_unknown}
    return {"clusterQueue": pos.in_cluster_queue, "localQueue": pos.in_local_queue, "source": "derived",
            "ahead": pos.in_cluster_queue, "pending": len(pos.pending), "head": _ref(pos.head.obj),
            "blockedBy": _ref(pos.blocked_by.obj) if pos.blocked_by else None, "strategy": pos.strategy,
            "caveats": pos.caveats}
