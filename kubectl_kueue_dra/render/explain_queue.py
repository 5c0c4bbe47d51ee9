"""The queue model's lines of the ``explain`` text: the flavors each pod set's search tried, the
preemption a pending workload needs, and its position in the queue."""

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


def _nth(n: int) -> str:
    return f"{n + 1}{'th' if 10 <= (n + 1) % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get((n + 1) % 10, 'th')}"


def position_lines(doc: dict[str, Any]) -> list[str]:
    pos = doc.get("position")
    if not pos:
        return []
    if pos.get("unknown"):
        return [f"Position: unknown: {pos['unknown']}"]
    queue = (doc.get("queue") or {}).get("clusterQueue")
    text = (f"Position ({pos.get('source')}): {_nth(pos['clusterQueue'])} of {pos['pending']} pending in ClusterQueue "
            f"{queue} ({pos['strategy']}), {_nth(pos['localQueue'])} in its LocalQueue")
    if pos.get("blockedBy"):
        text += f"; blocked by {pos['blockedBy']['namespace']}/{pos['blockedBy']['name']}, first in line"
    return [text]
