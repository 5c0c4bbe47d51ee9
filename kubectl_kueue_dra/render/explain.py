"""Text rendering of ``explain``: the charge table, how each line was derived, then findings."""

from typing import Any

from .explain_queue import flavor_cell, flavor_lines, queue_truth_lines
from .output import findings_text, table


def _title(doc: dict[str, Any]) -> str:
    if doc["workload"]:
        w = doc["workload"]
        head = f"Workload {w['namespace']}/{w['name']}"
    else:
        m = doc["manifest"]
        name, note = (m["generateName"], "name generated, not submitted") if m.get("generateName") else \
            (m.get("displayName") or m["name"], "not submitted")
        head = f"What-if: {m['kind']} {m['namespace']}/{name} ({note})"
    queue = doc.get("queue") or {}
    where = f"  ClusterQueue {queue['clusterQueue']}" if queue.get("clusterQueue") else ""
    reason = f" ({doc['reason']})" if doc["workload"] and doc.get("reason") not in (None, doc["state"]) else ""
    return f"{head}{where}  state {doc['state']}{reason}\nKueue {doc['kueueVersion']} ({doc['kueueVersionSource']})"


def _derivation(line: dict[str, Any], wide: bool) -> str:
    kind = line["kind"]
    if kind == "claimTemplate":
        text = (f"claim {line['claim']} → template {line['template']} → {line['devices']} device(s) of "
                f"{line['deviceClass']} → mapping {line['mapping']}")
        if line.get("resource") is None:
            return text + f" ({line['detail']})"
        return text + f" = {line['perPod']} {line['resource']}"
    if kind == "extendedResource":
        via = f"mapping {line['mapping']}" if line.get("mapping") else "its extendedResourceName"
        text = (f"{line['resourceName']} (containers {', '.join(line['containers'])}) → DeviceClass "
                f"{line['deviceClass']} → {via} = {line['perPod']} {line['resource']}")
        if len(line.get("candidates") or []) > 1:
            text += f" [picked from {', '.join(line['candidates'])}: newest, then first by name]"
        return text
    if kind == "counter":
        text = (f"claim {line['claim']} → template {line['template']} → request {line['request']} → "
                f"{line['deviceClass']} → counter {line['counter']} of {line['driver']}: MAX over "
                f"{line['matchedDevices']} matching device(s) = {line['counterValue']} × {line['count']} "
                f"= {line['perPod']} {line['resource']}")
        if wide:
            text += f" [max at {line['maxDevice']}, {line['matchedPools']} pool(s)]"
        return text
    if kind == "capacity":
        return (f"claim {line['claim']} → {line['deviceClass']} → capacity {line['capacity']}: "
                f"{line['detail']} = {line['perPod']} {line['resource']}")
    return f"{line['resource']}: {line['perPod']} ({line.get('detail', '')})"


def explain_texts(doc: dict[str, Any], opts: Any) -> str:
    """One report, or one per workload of a ``List`` (a file with several), a blank line between."""
    if isinstance(doc.get("items"), list):
        return "\n\n".join(explain_text(item, opts) for item in doc["items"])
    return explain_text(doc, opts)


def explain_text(doc: dict[str, Any], opts: Any) -> str:
    style = opts.style
    wide = opts.output == "wide"
    parts = [style(_title(doc), bold=True), ""]
    recorded = doc.get("recorded") or {}
    rows = []
    for ps in doc["podSets"]:
        first = True
        unknown = ps.get("unknown") or {}
        for name in sorted(set(ps["charge"]) | set(unknown)):
            rows.append([ps["name"] if first else "", _count_cell(ps) if first else "", name,
                         "unknown" if name in unknown else ps["perPod"].get(name, ""),
                         "unknown" if name in unknown else ps["charge"][name],
                         recorded.get(name, "-") if len(doc["podSets"]) == 1 else "-", flavor_cell(ps, name)])
            first = False
    if rows:
        parts.append(table(["pod set", "count", "resource", "per pod", "charge", "recorded", "flavor"], rows,
                           opts.no_headers))
    dra = doc["dra"]
    if dra["message"] and dra.get("afterAdmission"):
        parts.append("")
        parts.append(style("If evicted and re-queued now, Kueue would reject the DRA requests: ", "yellow")
                     + dra["message"])
    elif dra["message"]:
        parts.append("")
        parts.append(style("Kueue rejects the DRA requests: ", "red") + dra["message"])
    elif dra.get("unknown"):
        parts.append("")
        parts.append(style("What Kueue makes of the DRA requests is unknown: ", "yellow") + dra["unknown"])
    truth = queue_truth_lines(doc)
    if truth:
        parts.append("")
        parts.extend(truth)
    lines = [(ps["name"], line) for ps in doc["podSets"] for line in ps["lines"]
             if line["kind"] != "podRequests" and (wide or line.get("resource") is not None)]
    if lines:
        parts.append("")
        parts.append("How the device charge is derived:")
        for name, line in lines:
            parts.append(f"  {name}: {_derivation(line, wide)}")
    charged = None if wide else {line["counter"] for ps in doc["podSets"] for line in ps["lines"]
                                 if line["kind"] == "counter"} or None
    claims = _claim_rows(doc.get("pods") or [], doc.get("allocations") or [], charged)
    if claims:
        parts.append("")
        parts.append("Pods and the devices their claims were allocated:")
        parts.append(table(["pod set", "pod", "phase", "node", "claim", "request", "device", "counters", "allocated",
                            "reserved"], claims, opts.no_headers))
    before = _before_charge_lines(doc)
    if before:
        parts.append("")
        parts.append("What Kueue does to the pod requests first:")
        parts.extend(f"  {line}" for line in before)
    queue = doc.get("queue") or {}
    holds = bool((doc.get("lifecycle") or {}).get("holdsQuota"))
    if queue.get("quota") and (wide or not (doc["admitted"] or holds)):
        parts.append("")
        head = ["resource", "flavor", "nominal", "reserved", "free", "request", "fits"]
        rows = [[r["resource"], r["flavor"], r["nominal"], r["reserved"], r["free"], r["request"],
                 "yes" if r["fits"] else "no"] for r in queue["quota"]]
        if queue.get("cohort"):  # what the cohort tree can give: at most, and now
            head[5:5] = ["max (cohort)", "available"]
            for row, r in zip(rows, queue["quota"]):
                row[5:5] = [r.get("maximumCapacity") or "unknown", r.get("available") or "unknown"]
        parts.append(table(head, rows, opts.no_headers))
    tried = flavor_lines(doc) if (wide or not doc["admitted"]) else []
    if tried:
        parts.append("")
        parts.append("Flavors tried, in Kueue's order (predicted):")
        parts.extend(tried)
    events = doc.get("events")
    if events:
        parts.append("")
        parts.append("Events (newest last):")
        parts.append(table(["last seen", "object", "type", "reason", "count", "message"],
                           [[e["lastSeen"] or "-", e["object"], e["type"] or "-", e["reason"] or "-", e["count"],
                             e["message"] or ""] for e in events], opts.no_headers))
    if doc["findings"]:
        parts.append("")
        parts.append(findings_text(doc["findings"], style))
    return "\n".join(parts)


def _count_cell(ps: dict[str, Any]) -> str:
    """"4", or "4 requested, 3 admitted" after partial admission."""
    admitted = ps.get("admittedCount")
    if admitted is not None and admitted != ps["count"]:
        return f"{ps['count']} requested, {admitted} admitted"
    return str(ps["count"])


def _before_charge_lines(doc: dict[str, Any]) -> list[str]:
    """Where the cpu/memory amounts came from: AdjustResources (RuntimeClass overhead, LimitRange
    defaults, limits used as requests), excluded prefixes, transformations."""
    out = []
    for ps in doc["podSets"]:
        for a in ps.get("adjustments") or []:
            out.append(f"{ps['name']}: {_adjustment_text(a)}")
        if ps.get("excluded"):
            out.append(f"{ps['name']}: not counted (excludeResourcePrefixes): {', '.join(ps['excluded'])}")
        for t in ps.get("transformations") or []:
            by = f" × {t['multiplyBy']} {t['multiplier']}" if t.get("multiplier") else ""
            outs = ", ".join(f"{v} {k}" for k, v in t["outputs"].items()) or "nothing"
            kept = "kept" if t["strategy"] == "Retain" else "replaced"
            out.append(f"{ps['name']}: transformation {t['input']} {t['amount']}{by} → {outs} per pod "
                       f"({t['strategy']}: {t['input']} {kept})")
        for name, why in sorted((ps.get("unknown") or {}).items()):
            if why != (doc.get("dra") or {}).get("unknown"):  # the DRA step's, said above
                out.append(f"{ps['name']}: {name} unknown — {why}")
    return out


_STEP_TEXT = {"runtimeClassOverhead": "pod overhead", "limitRangeDefault": "default limit",
              "limitRangeDefaultRequest": "default request", "limitAsRequest": "request = limit"}


def _adjustment_text(a: dict[str, Any]) -> str:
    return f"{a['target']}: {_STEP_TEXT.get(a['step'], a['step'])} {a['resource']}={a['value']} from {a['source']}"


def _yes_no(value: bool | None) -> str:
    return "unknown" if value is None else ("yes" if value else "no")


def _counters_cell(a: dict[str, Any], only: set[str] | None) -> str:
    """The counters the device consumes (only those Kueue charges, when it charges counters)."""
    counters = a.get("counters")
    if counters is None:
        why = "older pool generation" if a.get("generation") == "stale" else "device not published"
        return f"unknown ({why})"
    return ", ".join(f"{k}={v}" for k, v in sorted(counters.items()) if only is None or k in only) or "-"


def _claim_rows(pods: list[dict[str, Any]], allocated: list[dict[str, Any]],
                charged: set[str] | None) -> list[list[Any]]:
    """The pods (phase, node) and their ResourceClaims' devices, one row per device (the ``get pods``
    and ``get resourceclaims`` steps); a pod without claims gets one row."""
    by_pod: dict[str, list[dict[str, Any]]] = {}
    for a in allocated:
        by_pod.setdefault(a["pod"], []).append(a)
    rows = []
    states = pods or [{"name": name} for name in by_pod]
    for p in states:
        head = [p.get("podSet") or "-", p["name"], p.get("phase") or "unknown", p.get("node") or "-"]
        claims = by_pod.get(p["name"]) or []
        if not claims:
            rows.append(head + ["-"] * 6)
        for i, a in enumerate(claims):
            rows.append((head if i == 0 else [""] * 4) + [
                a["claim"], a.get("request") or "-", a.get("device") or "-", _counters_cell(a, charged),
                _yes_no(a.get("allocated")), _yes_no(a.get("reserved"))])
    return rows
