"""Text rendering of ``explain``: the charge table, how each line was derived, then findings."""

from typing import Any

from .output import findings_text, table


def _title(doc: dict[str, Any]) -> str:
    if doc["workload"]:
        w = doc["workload"]
        head = f"Workload {w['namespace']}/{w['name']}"
    else:
        m = doc["manifest"]
        head = f"What-if: {m['kind']} {m['namespace']}/{m['name']} (not submitted)"
    queue = doc.get("queue") or {}
    where = f"  ClusterQueue {queue['clusterQueue']}" if queue.get("clusterQueue") else ""
    return f"{head}{where}  state {doc['state']}\nKueue {doc['kueueVersion']} ({doc['kueueVersionSource']})"


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


def explain_text(doc: dict[str, Any], opts: Any) -> str:
    style = opts.style
    wide = opts.output == "wide"
    parts = [style(_title(doc), bold=True), ""]
    recorded = doc.get("recorded") or {}
    rows = []
    for ps in doc["podSets"]:
        first = True
        for name in sorted(ps["charge"]):
            rows.append([ps["name"] if first else "", str(ps["count"]) if first else "", name,
                         ps["perPod"].get(name, ""), ps["charge"][name],
                         recorded.get(name, "-") if len(doc["podSets"]) == 1 else "-"])
            first = False
    if rows:
        parts.append(table(["pod set", "count", "resource", "per pod", "charge", "recorded"], rows, opts.no_headers))
    dra = doc["dra"]
    if dra["message"]:
        parts.append("")
        parts.append(style("Kueue rejects the DRA requests: ", "red") + dra["message"])
    lines = [(ps["name"], line) for ps in doc["podSets"] for line in ps["lines"]
             if line["kind"] != "podRequests" and (wide or line.get("resource") is not None)]
    if lines:
        parts.append("")
        parts.append("How the device charge is derived:")
        for name, line in lines:
            parts.append(f"  {name}: {_derivation(line, wide)}")
    queue = doc.get("queue") or {}
    if queue.get("quota") and (wide or not doc["admitted"]):
        parts.append("")
        head = ["resource", "flavor", "nominal", "reserved", "free", "request", "fits"]
        rows = [[r["resource"], r["flavor"], r["nominal"], r["reserved"], r["free"], r["request"],
                 "yes" if r["fits"] else "no"] for r in queue["quota"]]
        if queue.get("cohort"):  # what the cohort tree can give: at most, and now
            head[5:5] = ["max (cohort)", "available"]
            for row, r in zip(rows, queue["quota"]):
                row[5:5] = [r.get("maximumCapacity") or "unknown", r.get("available") or "unknown"]
        parts.append(table(head, rows, opts.no_headers))
    if doc["findings"]:
        parts.append("")
        parts.append(findings_text(doc["findings"], style))
    return "\n".join(parts)
