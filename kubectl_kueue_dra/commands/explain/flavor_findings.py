"""Why the flavor search (and preemption) leaves a workload waiting, in our words, with a fix to
paste: the flavors whose node labels the pod's node selection excludes, the taint a pod does not
tolerate, a ResourceFlavor that does not exist, quota it can never get or does not get now, the
workloads Kueue would preempt or why it preempts none. Kueue's message is quoted beside it
(``kueueMessage``), the recorded one when it names the same failure.

Pure: the model in, findings out.
"""

from __future__ import annotations

import json
from typing import Any

from ...findings import codes as F
from ...kueue.scheduler.assignment import Assignment, FlavorTry, PodSetOutcome
from ...kueue.scheduler.flavor_match import NODE_AFFINITY, UNTOLERATED_TAINT, flavor_selector
from ...kueue.queues.quota_tree import cohort_of
from ...kueue.scheduler.world import pods_not_ready
from ...kueue.workloads.status import cause_of
from ...kueue.units import format_usage
from .queue_docs import pending_preemption, predicted_message, victims_of
from .queue_model import QueueModel

Obj = dict[str, Any]


def _labels(flavor: Obj | None) -> dict[str, str]:
    return {str(k): str(v) for k, v in (((flavor or {}).get("spec") or {}).get("nodeLabels") or {}).items()}


def _selection(pod_spec: Obj, keys: set[str]) -> str:
    selector, terms = flavor_selector(pod_spec, keys)
    parts = [f"nodeSelector {k}={v}" for k, v in sorted(selector.items())]
    for term in terms or []:
        parts.append("node affinity " + " and ".join(
            f"{e.get('key')} {e.get('operator')} {list(e.get('values') or [])}".replace(" []", "") for e in term))
    return "; ".join(parts) or "no node selection"


def _affinity_finding(model: QueueModel, ps: PodSetOutcome, tries: list[FlavorTry], spec: Obj, severe: bool,
                      cq: str) -> dict[str, Any]:
    flavors = {f.get("metadata", {}).get("name"): f for f in model.world.items("ResourceFlavor")}
    keys = {k for t in tries for k in _labels(flavors.get(t.flavor))}
    asked = _selection(spec, keys)
    have = "; ".join(f"flavor {t.flavor} has " + (", ".join(f"{k}={v}" for k, v in sorted(_labels(
        flavors.get(t.flavor)).items())) or "no labels") for t in tries)
    selector = {k: v for k, v in (spec.get("nodeSelector") or {}).items() if k in keys}
    variant, fix_args = "", dict[str, str]()
    if selector:
        k, want = sorted(selector.items())[0]
        offer = next(((t.flavor, _labels(flavors.get(t.flavor))[k]) for t in tries
                      if k in _labels(flavors.get(t.flavor))), None)
        patch = json.dumps({"spec": {"nodeLabels": {k: want}}}, separators=(",", ":"))
        change = f"change the job's nodeSelector to {k}={offer[1]} (flavor {offer[0]}), or " if offer else ""
        variant, fix_args = "selector", {"change": change, "key": k, "value": want, "flavor": tries[0].flavor,
                                         "patch": patch}
    where = "no flavor of ClusterQueue " + cq + " matches it" if severe else "so these flavors are not options"
    return F.NodeAffinityMismatch.make(
        f"pod set {ps.name} selects nodes by {asked}; Kueue compares that with each flavor's nodeLabels (only the "
        f"keys a flavor labels) and {where}: {have}", severity="error" if severe else "info", variant=variant,
        extra={"predicted": True}, **fix_args)


def _taint_finding(ps: PodSetOutcome, t: FlavorTry, severe: bool) -> dict[str, Any]:
    taint = t.mismatch.taint if t.mismatch else None
    taint = taint or {}
    key, value, effect = taint.get("key") or "", taint.get("value") or "", taint.get("effect") or ""
    toleration = {"key": key, "operator": "Equal" if value else "Exists", **({"value": value} if value else {}),
                  "effect": effect}
    return F.UntoleratedTaint.make(
        f"flavor {t.flavor} is tainted {key}{'=' + value if value else ''}:{effect} and pod set {ps.name} does not "
        "tolerate it (nor does the flavor's own spec.tolerations)", severity="error" if severe else "info",
        toleration=json.dumps(toleration), flavor=t.flavor, extra={"predicted": True})


#: the words of Kueue's message for each reason the flavor search gives
_WORDS = {F.QuotaExhausted.name: "insufficient unused quota", F.ExceedsQuota.name: "maximum capacity",
          F.NodeAffinityMismatch.name: "doesn't match node affinity", F.UntoleratedTaint.name: "untolerated taint",
          F.FlavorNotFound.name: "not found"}


def _names(message: str | None, code: str) -> bool:
    return bool(message) and _WORDS.get(code, "\0") in (message or "")


#: a full count's quota failure when partial admission fits (Kueue then writes no such message)
_PARTIAL = " with all its pods: Kueue's partial admission admits it with fewer (see PartialAdmissionFits)"


def _quota_findings(model: QueueModel, ps: PodSetOutcome, binary: set[str], quote: Any) -> list[dict[str, Any]]:
    cq = str((model.cluster_queue or {}).get("metadata", {}).get("name"))
    in_cohort = bool(cohort_of(model.cluster_queue or {}))
    where = f"ClusterQueue {cq}" + (" and its cohort" if in_cohort else "")
    out, seen = [], set()
    preempting = {(t.info.namespace, t.info.name) for t in pending_preemption(model)}
    for s in ps.searches:
        for t in s.tries:
            for c in t.checks:
                r = c.reason
                if r is None or (r.code, c.flavor, c.resource) in seen:
                    continue
                seen.add((r.code, c.flavor, c.resource))

                def fmt(v: int, res: str = c.resource) -> str:
                    return format_usage(res, v, binary)
                need = fmt(c.assumed + c.request)
                if r.code == F.ExceedsQuota.name:
                    severe = ps.mode == "NoFit" and not model.partial_counts
                    tail = ": it waits forever" if severe else (_PARTIAL if model.partial_counts else "")
                    out.append(F.ExceedsQuota.make(
                        f"pod set {ps.name} needs {need} of {c.resource}, more than {where} can ever give in flavor "
                        f"{c.flavor} ({fmt(c.maximum)})" + tail + quote(r.code),
                        severity="error" if severe else "info", variant="cohort" if in_cohort else "",
                        resource=c.resource, cluster_queue=cq,
                        extra={"predicted": True, "kueueMessage": quote(r.code, raw=True)}))
                else:
                    then = (": Kueue makes room by preempting (see Preempting)" if preempting and t.chosen else
                            _PARTIAL if model.partial_counts else ": it waits until other workloads finish")
                    out.append(F.QuotaExhausted.make(
                        f"pod set {ps.name} needs {need} of {c.resource}; {where} has {fmt(c.available)} unused in "
                        f"flavor {c.flavor} (at most {fmt(c.maximum)}){then}{quote(r.code)}", cluster_queue=cq,
                        variant="cohort" if in_cohort else "",
                        extra={"predicted": True, "kueueMessage": quote(r.code, raw=True)}))
    return out


def _preemption_findings(model: QueueModel) -> list[dict[str, Any]]:
    plan, waiting = model.plan, victims_of(model)
    cq = str((model.cluster_queue or {}).get("metadata", {}).get("name"))
    if waiting:
        names = ", ".join(f"{w['metadata'].get('namespace')}/{w['metadata'].get('name')}" for w in waiting)
        return [F.Preempting.make(f"Kueue preempted {len(waiting)} workload(s) for it ({names}); it is admitted once "
                                  "they release their quota")]
    if plan is None:
        return []
    if plan.possible:
        names = ", ".join(f"{t.info.namespace}/{t.info.name} (priority {t.info.priority}, ClusterQueue "
                          f"{t.info.cluster_queue}, {t.reason})" for t in plan.targets)
        return [F.Preempting.make(f"to admit it Kueue preempts {len(plan.targets)} workload(s): {names}",
                                  extra={"predicted": True})]
    if plan.possible is None:
        return [F.PreemptionUnknown.make(f"whether Kueue can preempt for it is unknown: {plan.unknown}")]
    message = f"it needs quota that other workloads hold, and Kueue may preempt none of them: {plan.why}"
    variant = {"within": "never", "reclaim": "reclaim", "threshold": "threshold"}.get(plan.remedy, "")
    return [F.NoPreemptionCandidates.make(message, variant=variant, cluster_queue=cq, threshold=plan.threshold,
                                          extra={"predicted": True})]


def model_findings(model: QueueModel, binary: set[str], said: str | None) -> list[dict[str, Any]]:
    """The findings of a workload that does not hold quota (``said``: Kueue's recorded message)."""
    asg: Assignment | None = model.assignment
    if asg is None or asg.unknown is not None:
        why = model.unknown or (asg.unknown if asg else None)
        return [F.FlavorsUnknown.make(f"which flavors Kueue would assign is unknown: {why}")] \
            if why and not why.startswith("Kueue rejects") else []
    predicted = None if model.partial_counts else predicted_message(model)  # admitted with fewer pods: no message

    def quote(code: str, raw: bool = False) -> Any:
        """Kueue's recorded message when it names this failure (``kueueMessage`` is only ever text
        Kueue wrote), else the message the model predicts it would write, said as a prediction."""
        if said and _names(said, code):
            return said if raw else f" (Kueue says: \"{said}\")"
        if raw:
            return None
        return f" (Kueue would say: \"{predicted}\")" if predicted else ""

    out: list[dict[str, Any]] = []
    cq = str((model.cluster_queue or {}).get("metadata", {}).get("name"))
    specs = {ps.name: dict(ps.pod_spec) for ps in (model.preemptor.podsets if model.preemptor else [])}
    for ps in asg.podsets:
        if ps.fit:
            continue
        severe = ps.mode == "NoFit"
        tries = [t for s in ps.searches for t in s.tries if t.mismatch is not None]
        affinity = [t for t in tries if t.mismatch and t.mismatch.code == NODE_AFFINITY]
        if affinity:
            out.append(_affinity_finding(model, ps, affinity, specs.get(ps.name, {}), severe, cq))
        out.extend(_taint_finding(ps, t, severe) for t in tries if t.mismatch and t.mismatch.code == UNTOLERATED_TAINT)
        for t in tries:
            if t.mismatch and t.mismatch.code == F.FlavorNotFound.name:
                out.append(F.FlavorNotFound.make(f"ClusterQueue {cq} names ResourceFlavor {t.flavor}, which does not "
                                                 "exist", severity="error" if severe else "warning", flavor=t.flavor,
                                                 cluster_queue=cq, extra={"predicted": True}))
            elif t.mismatch and t.mismatch.code == F.TopologyMismatch.name:
                out.append(F.TopologyMismatch.make(f"flavor {t.flavor} serves only pod sets that request "
                                                   f"topology-aware scheduling; pod set {ps.name} does not",
                                                   extra={"predicted": True}))
        out.extend(_quota_findings(model, ps, binary, quote))
    out.extend(_preemption_findings(model))
    out.extend(F.QueueModelCaveat.make(c) for c in asg.caveats)
    return out


def _pods_ready_block(model: QueueModel, fits: str, qr: dict[str, Any] | None, unblock: str) -> dict[str, Any] | None:
    """``waitForPodsReadyIfNeeded``: a workload that fits waits, and with it Kueue's scheduler, while
    a workload holding quota (in any ClusterQueue) has pods that are not all ready."""
    if not model.world.block_admission:
        return None
    waiting = pods_not_ready(model.world)
    if waiting is None:  # the Workloads could not be read: the partial answer says so
        return None
    if not waiting:
        recorded = cause_of(str((qr or {}).get("message") or ""))  # the reason is Waiting before 0.19
        if recorded is None or recorded.code is not F.WaitingForPodsReady:
            return None
        return F.WaitingForPodsReady.make(
            f"it fits now ({fits}, predicted); Kueue held it back until every workload that holds quota had all its "
            "pods ready (waitForPodsReady.blockAdmission), and all of them do now: Kueue admits it when its "
            "scheduler goes on", severity="info", variant="ready", extra={"predicted": True})
    names = [f"{w['metadata'].get('namespace')}/{w['metadata'].get('name')}" for w in waiting]
    shown = ", ".join(f"{n} (ClusterQueue {((w.get('status') or {}).get('admission') or {}).get('clusterQueue')})"
                      for n, w in zip(names[:5], waiting)) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
    return F.WaitingForPodsReady.make(
        f"it fits now ({fits}, predicted), but waitForPodsReady.blockAdmission is on: Kueue admits no workload, in "
        f"any ClusterQueue, while a workload that holds quota has pods that are not all ready; not ready now: "
        f"{shown}", workloads=", ".join(names[:5]) + (" and the others" if len(names) > 5 else ""),
        command=unblock, extra={"predicted": True})


def waiting_findings(model: QueueModel, admitted: bool, unblock: str = "") -> list[dict[str, Any]]:
    """Why a pending workload waits when it is not its quota: a StrictFIFO head that blocks it, the
    pods of admitted workloads that Kueue waits for (waitForPodsReady.blockAdmission), or it fits
    now and Kueue has not looked again (never evaluated, or its message is older). ``unblock``: the
    change that turns blockAdmission off here."""
    pos, asg, wl = model.position, model.assignment, None
    if admitted or model.holds_quota or pos is None:
        return []
    wl = next((q.obj for q in pos.pending if q.key == f"{model.preemptor.namespace}/{model.preemptor.name}"), None) \
        if model.preemptor else None
    out = []
    if pos.blocked_by is not None:
        head = pos.blocked_by
        out.append(F.BlockedByHead.make(
            f"ClusterQueue {pos.cluster_queue} is StrictFIFO and {head.key} (priority {head.priority}) is first in "
            "line; Kueue retries it every cycle and looks at no workload behind it until it is admitted or removed "
            f"({pos.in_cluster_queue} workload(s) ahead of this one)", head=head.key, cluster_queue=pos.cluster_queue))
    elif asg is not None and asg.unknown is None and asg.mode == "Fit" and model.snapshot is not None and \
            model.snapshot.rules.name not in model.snapshot.inactive and wl is not None:
        qr = next((c for c in (wl.get("status") or {}).get("conditions") or [] if c.get("type") == "QuotaReserved"),
                  None)
        flavors = ", ".join(f"{r}={f}" for ps in asg.podsets for r, f in sorted(ps.flavors.items()))
        blocked = _pods_ready_block(model, flavors, qr, unblock)
        if blocked is not None:
            out.append(blocked)
        elif qr is None:
            out.append(F.NotEvaluatedYet.make(
                f"it fits now ({flavors}, predicted); Kueue has not evaluated it yet (no QuotaReserved condition): "
                f"{pos.in_cluster_queue} workload(s) are ahead of it in ClusterQueue {pos.cluster_queue}"))
        else:
            out.append(F.FitsNow.make(
                f"it fits now ({flavors}, predicted), but Kueue's last evaluation said otherwise: the quota was freed "
                "since (Kueue evaluates it again once it is requeued), or a workload taken earlier in the same "
                "scheduling cycle held it (not visible in the objects)"))
    return out
