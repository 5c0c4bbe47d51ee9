"""The queue truth of ``explain`` in a few lines of the table: the eviction, who preempted it,
its admission checks, and its position in the queue (each only when the document has it)."""

from typing import Any


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


def _position(p: dict[str, Any]) -> str:
    if p.get("unknown"):
        return f"Position: unknown — {p['unknown']}"
    where = f"#{p['clusterQueue'] + 1} in ClusterQueue" if p.get("clusterQueue") is not None else ""
    local = f", #{p['localQueue'] + 1} in its LocalQueue" if p.get("localQueue") is not None else ""
    ahead = f" ({p['ahead']} ahead)" if p.get("ahead") is not None else ""
    return f"Position: {where}{local}{ahead} [{p.get('source')}]"


def queue_truth_lines(doc: dict[str, Any]) -> list[str]:
    out = []
    if doc.get("eviction"):
        out.append(_eviction(doc["eviction"]))
    if doc.get("preemption"):
        line = _preemption(doc["preemption"])
        if line:
            out.append(line)
    checks = doc.get("admissionChecks") or []
    if checks:
        out.append("Admission checks:")
        out.extend(_check(c) for c in checks)
    if doc.get("position"):
        out.append(_position(doc["position"]))
    return out
