"""Table rendering of ``queues``: each ClusterQueue's quota with a usage bar, the cohort tree, and
(``--workloads``) the Workloads holding quota and those waiting."""

from __future__ import annotations

from typing import Any

from .output import findings_text, table
from .printers.emit import Listing, object_name

BAR_WIDTH = 8

#: -o name, jsonpath and custom-columns see the ClusterQueues
QUEUES_LISTING = Listing("clusterQueues",
                         lambda c: object_name("ClusterQueue", "kueue.x-k8s.io/v1beta2", c["name"]))


def bar(percent: int | None, style: Any) -> str:
    """``[████░░░░] 50%`` (``[####....] 50%`` without colour or UTF-8), as kubectl-view-allocations
    draws it; over 100% (borrowing) the bar is full and the number says how far."""
    if percent is None:
        return "-"
    filled = min(BAR_WIDTH, (percent * BAR_WIDTH + 50) // 100)
    full, empty = ("\u2588", "\u2591") if style.unicode else ("#", ".")
    colour = "green" if percent < 70 else "yellow" if percent < 90 else "red"
    return f"[{style(full * filled, colour)}{empty * (BAR_WIDTH - filled)}] {percent}%"


def _v(value: Any) -> str:
    return "-" if value is None else str(value)


def _classes(dra: dict[str, Any] | None) -> str:
    """The DeviceClasses a DRA quota resource is charged for, and the counters or capacities it
    counts: ``gpu.nvidia.com,mig.nvidia.com (counter memory)``."""
    if not dra:
        return "-"
    counted = [f"counter {c['name']}" for c in dra["counters"]] + [f"capacity {c['name']}" for c in dra["capacities"]]
    return ",".join(dra["deviceClasses"]) + (f" ({', '.join(counted)})" if counted else "")


def _charged_from(dra: dict[str, Any] | None) -> str:
    if not dra:
        return "-"
    sources = [f"counter {c['name']} ({c['driver']})" for c in dra["counters"]]
    sources += [f"capacity {c['name']} ({c['driver']})" for c in dra["capacities"]]
    how = f"mapping {dra['mapping']}" if dra["via"] == "mapping" else "extendedResourceName"
    return how + (": " + ", ".join(sources) if sources else "")


def _workloads_cell(cq: dict[str, Any]) -> str:
    holding = cq["reservingWorkloads"] if cq["reservingWorkloads"] is not None else (
        len(cq["workloads"]) if cq["workloads"] is not None else None)
    pending = cq["pendingWorkloads"] if cq["pendingWorkloads"] is not None else (
        cq["pending"]["count"] if cq["pending"] is not None else None)
    return f"{_v(holding)} holding, {_v(pending)} pending"


def _waiting(cq: dict[str, Any], resource: str, said: set[str]) -> str:
    if resource in said:
        return ""
    said.add(resource)
    if cq["pending"] is None:
        return "?"
    return _v(cq["pending"]["requests"].get(resource))


def queues_table(doc: dict[str, Any], opts: Any) -> str:
    style, wide = opts.style, opts.output == "wide"
    cohorts = any(cq["cohort"] for cq in doc["clusterQueues"])
    headers = ["clusterqueue"] + (["cohort"] if cohorts else []) + [
        "flavor", "resource", "nominal", "reserved", "usage", "waiting", "workloads", "device classes"]
    if wide:
        headers += ["borrowed", "borrowing limit", "lending limit", "admitted", "max", "available", "charged from"]
    rows = []
    for cq in doc["clusterQueues"]:
        said: set[str] = set()
        first = True
        for r in cq["resources"] or [None]:
            if r is None:  # a ClusterQueue without resourceGroups
                rows.append([cq["name"]] + ([_v(cq["cohort"])] if cohorts else []) + ["-"] * 5
                            + ["", _workloads_cell(cq), "-"] + (["-"] * 7 if wide else []))
                continue
            row = [cq["name"] if first else ""] + ([_v(cq["cohort"]) if first else ""] if cohorts else []) + [
                r["flavor"], r["resource"], _v(r["nominalQuota"]), _v(r["reserved"]),
                bar(r["usedPercent"], style), _waiting(cq, r["resource"], said),
                _workloads_cell(cq) if first else "", _classes(r["dra"])]
            if wide:
                row += [_v(r["reservedBorrowed"]), _v(r["borrowingLimit"]), _v(r["lendingLimit"]),
                        _v(r["admitted"]), _v(r["maximumCapacity"]), _v(r["available"]), _charged_from(r["dra"])]
            rows.append(row)
            first = False
    return table(headers, rows, opts.no_headers)


def _tree_rows(doc: dict[str, Any], style: Any) -> list[list[str]]:
    tee, last, bar_, space = ("\u251c\u2500 ", "\u2514\u2500 ", "\u2502  ", "   ") if style.unicode else \
        ("|- ", "`- ", "|  ", "   ")
    cohorts = {c["name"]: c for c in doc["cohorts"]}
    queues = {cq["name"]: cq for cq in doc["clusterQueues"]}
    rows: list[list[str]] = []

    def emit(label: str, cont: str, resources: list[dict[str, Any]], cohort: bool, known: bool = True) -> None:
        v = _v if known else (lambda value: "?")  # a cohort whose Cohort object could not be read
        for i, r in enumerate(resources or [{}]):
            head = label if i == 0 else cont
            if not r:
                rows.append([head] + ["-"] * 8)
                continue
            rows.append([head, r["flavor"], r["resource"], v(r["nominalQuota"]),
                         v(r["subtreeQuota"]) if cohort else "", v(r["lendingLimit"]), v(r["borrowingLimit"]),
                         _v(r["reserved"]), _v(r["reservedBorrowed"])])

    def walk(name: str, prefix: str, is_last: bool, root: bool) -> None:
        c = cohorts[name]
        label = name if root else prefix + (last if is_last else tee) + name
        child_prefix = "" if root else prefix + (space if is_last else bar_)
        kids = [(k, True) for k in c["cohorts"] if k in cohorts] + [(q, False) for q in c["clusterQueues"]
                                                                      if q in queues]
        cont = child_prefix + (bar_ if kids else space)
        emit(label + (" (implicit)" if c["cohortObject"] is False else ""), cont, c["resources"], True,
             c["cohortObject"] is not None)
        for i, (kid, is_cohort) in enumerate(kids):
            end = i == len(kids) - 1
            if is_cohort:
                walk(kid, child_prefix, end, False)
            else:
                emit(child_prefix + (last if end else tee) + kid, child_prefix + (space if end else bar_),
                     queues[kid]["resources"], False)

    for name in sorted(n for n, c in cohorts.items() if c["parent"] not in cohorts):
        walk(name, "", True, True)
    return rows


def queues_text(doc: dict[str, Any], opts: Any, *, workloads: bool = False) -> str:
    style = opts.style
    parts = [queues_table(doc, opts)] if doc["clusterQueues"] else [f"No ClusterQueues found ({doc['source']})."]
    if doc["cohorts"]:
        parts += ["", table(["cohort / clusterqueue", "flavor", "resource", "nominal", "shared", "lending limit",
                             "borrowing limit", "reserved", "borrowed"], _tree_rows(doc, style), opts.no_headers)]
    if workloads:
        parts += ["", workloads_table(doc, opts)]
    if doc["findings"]:
        parts += ["", findings_text(doc["findings"], style)]
    return "\n".join(parts)


def _amounts(items: dict[str, Any] | None) -> str:
    return ", ".join(f"{k}={v}" for k, v in sorted((items or {}).items())) or "-"


def workloads_table(doc: dict[str, Any], opts: Any) -> str:
    """The Workloads holding each ClusterQueue's quota, then those waiting for it."""
    headers = ["clusterqueue", "workload", "state", "priority", "flavor", "holds or requests"]
    if opts.output == "wide":
        headers += ["priority class", "local queue"]
    rows = []
    for cq in doc["clusterQueues"]:
        if cq["workloads"] is None:
            rows.append([cq["name"], "?", "-", "-", "-", "unknown (see below)"] + (["-", "-"] if opts.output == "wide"
                                                                                   else []))
            continue
        listed: list[tuple[dict[str, Any], str, str]] = []
        for w in cq["workloads"]:
            by_flavor: dict[str, dict[str, Any]] = {}
            for u in w["usage"]:
                by_flavor.setdefault(u["flavor"], {})[u["resource"]] = u["amount"]
            listed += [(w, flavor, _amounts(amounts)) for flavor, amounts in by_flavor.items()] or [(w, "-", "-")]
        listed += [(w, "-", "?" if w["requests"] is None else _amounts(w["requests"]))
                   for w in cq["pending"]["workloads"]]
        for w, flavor, amounts in listed:
            row = [cq["name"], f"{w['namespace']}/{w['name']}", w["state"], _v(w["priority"]), flavor, amounts]
            if opts.output == "wide":
                row += [_v(w["priorityClassName"]), _v(w["localQueue"])]
            rows.append(row)
    if not rows:
        return "No Workload holds or waits for quota."
    return table(headers, rows, opts.no_headers)
