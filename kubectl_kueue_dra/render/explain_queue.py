"""The queue truth of ``explain`` in a few lines of the table: the flavors each pod set's search
tried, the eviction, who preempted it or whom it must preempt, its admission checks, and its
position in the queue (each only when the document has it)."""

from __future__ import annotations

from typing import Any


def flavor_cell(ps: dict[str, Any], resource: str) -> str:
    """The flavor of a resource in the pod-set table: recorded, or "(predicted)"."""
    flavor = (ps.get("flavors") or {}).get(resource)
    if flavor is None:
        return "-"
    return flavor if ps.get("flavorsSource") == "recorded" else f"{flavor} (predicted)"


def _try_text(t: dict[str, Any]) -> str:
    outcome = t["outcome"]
    if t.get("mode") and outcome == "preempt":
        outcome = {"noPreemptionCandidates": "preempt, no candidates", "reclaim": "reclaim"}.get(t["mode"], outcome)
    if t.get("borrowingLevel"):
        outcome += f", borrowing at level {t['borrowingLevel']}"
    reasons = "; ".join(r["message"] for r in t.get("reasons") or [] if r.get("message"))
    return f"{t['flavor']} {outcome}" + (f" ({reasons})" if reasons else "") + (" ← chosen" if t.get("chosen") else "")


def flavor_lines(doc: dict[str, Any]) -> list[str]:
    """Per pod set and resource group, the flavors in Kueue's order with what each gave (nothing
    when every group has one flavor and it fits)."""
    tried = [t for ps in doc.get("podSets") or [] for t in ps.get("flavorsTried") or []]
    groups_seen = {(ps["name"], t["resourceGroup"]) for ps in doc.get("podSets") or []
                   for t in ps.get("flavorsTried") or []}
    if len(tried) == len(groups_seen) and all(t["outcome"] == "fit" for t in tried):
        return []
    out = []
    for ps in doc.get("podSets") or []:
        tried = ps.get("flavorsTried")
        if not tried:
            continue
        groups: dict[int, list[dict[str, Any]]] = {}
        for t in tried:
            groups.setdefault(t["resourceGroup"], []).append(t)
        for group, tries in groups.items():
            out.append(f"  {ps['name']}, resource group {group}: " + "; ".join(_try_text(t) for t in tries))
    return out


def preemption_lines(doc: dict[str, Any]) -> list[str]:
    p = doc.get("preemption")
    if not p or p.get("role") != "preemptor":
        return []
    out = []
    if p.get("waitingFor"):
        out.append("Waiting for " + str(len(p["waitingFor"])) + " preempted workload(s) to release their quota: "
                   + ", ".join(f"{w['namespace']}/{w['name']}" for w in p["waitingFor"]))
    if p.get("possible"):
        out.append("Preemption (predicted): " + ", ".join(
            f"{t['namespace']}/{t['name']} (priority {t['priority']}, {t['clusterQueue']}, {t['reason']})"
            for t in p["targets"]))
    elif p.get("possible") is False:
        out.append(f"Preemption (predicted): none possible: {p.get('why')}")
    elif p.get("unknown"):
        out.append(f"Preemption: unknown: {p['unknown']}")
    return out


def _yes(value: Any) -> str:
    return "unknown" if value is None else ("yes" if value else "no")


def _eviction(ev: dict[str, Any]) -> str:
    since = f" since {ev['since']}" if ev.get("since") else ""
    if ev.get("holdingQuota"):
        after = "its pods are stopping, it still holds quota"
    elif ev.get("requeued") is None:
        after = "not re-queued yet"
    elif ev["requeued"]:
        after = f"re-queued ({ev.get('requeueReason')})"
    else:
        after = f"kept out of the queue ({ev.get('requeueReason')})"
    backoff = ""
    if ev.get("requeueAt"):
        left = ev.get("backoffSeconds")
        backoff = f", backoff until {ev['requeueAt']}" + (f" ({left}s)" if left is not None and left > 0 else
                                                          " (passed)" if left is not None else "")
    count = f", re-queued {ev['requeueCount']}x" if ev.get("requeueCount") else ""
    state = "Evicted" if ev.get("active") else "Was evicted"
    return f"{state}: {ev.get('reason')}{since} — {ev.get('cause')}; {after}{backoff}{count}"


def _preemption(p: dict[str, Any]) -> str:
    if p.get("role") != "victim":
        return ""
    pre = p.get("preemptor") or {}
    who = f"{pre['namespace']}/{pre['name']}" if pre.get("name") else f"unknown ({pre.get('unknown')})"
    where = f", ClusterQueue {pre['clusterQueue']}" if pre.get("clusterQueue") else ""
    priority = f", priority {pre['priority']}" if pre.get("priority") is not None else ""
    policy = f"; {p['policy']}" if p.get("policy") else ""
    return f"Preempted by: {who}{priority}{where} ({p.get('reason')}{policy})"


def _check(c: dict[str, Any]) -> str:
    claim = {True: "active", False: "NOT active", None: "activity unknown"}[c.get("active")]
    if c.get("exists") is False:
        claim = "AdmissionCheck missing"
    message = f": {c['message']}" if c.get("message") else ""
    state = c.get("state") or "not synced"
    return f"  {c['name']}: {state} ({c.get('controllerName') or 'no controller'}, {claim}){message}"


def _nth(n: int) -> str:
    return f"{n + 1}{'th' if 10 <= (n + 1) % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get((n + 1) % 10, 'th')}"


def _position(p: dict[str, Any], queue: str | None) -> str:
    if p.get("unknown"):
        return f"Position: unknown — {p['unknown']}"
    text = f"Position ({p.get('source')}): "
    if p.get("clusterQueue") is not None:
        of = f" of {p['pending']} pending" if p.get("pending") is not None else ""
        strategy = f" ({p['strategy']})" if p.get("strategy") else ""
        text += f"{_nth(p['clusterQueue'])}{of} in ClusterQueue {queue}{strategy}"
    if p.get("localQueue") is not None:
        text += f", {_nth(p['localQueue'])} in its LocalQueue"
    blocked = p.get("blockedBy")
    if blocked:
        text += f"; blocked by {blocked['namespace']}/{blocked['name']}, first in line"
    return text


def queue_truth_lines(doc: dict[str, Any]) -> list[str]:
    out = []
    if doc.get("eviction"):
        out.append(_eviction(doc["eviction"]))
    if doc.get("preemption"):
        line = _preemption(doc["preemption"])
        out.extend([line] if line else preemption_lines(doc))
    checks = doc.get("admissionChecks") or []
    if checks:
        out.append("Admission checks:")
        out.extend(_check(c) for c in checks)
    if doc.get("position"):
        out.append(_position(doc["position"], (doc.get("queue") or {}).get("clusterQueue")))
    return out
