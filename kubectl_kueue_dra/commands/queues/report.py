"""The ``queues`` document: each ClusterQueue's quota per flavor and resource beside what Kueue
recorded, the Workloads holding it and those waiting, and the cohort tree.

Pure: the objects read (None: could not be read) in, the JSON document parts out.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...findings import codes as F
from ...kueue.config.dra_resources import DraResource
from ...kueue.queues.holdings import Holder, QueueWorkloads, Waiter
from ...kueue.queues.quota_tree import Node, TreeError, build_forest, cohort_of
from ...kueue.queues.usage import QuotaRow, cohort_summary, quota_rows, with_tree
from ...kueue.units import format_usage
from ...kueue.workloads.status import condition

Obj = dict[str, Any]


@dataclass(frozen=True, kw_only=True)
class Inputs:
    cluster_queues: list[Obj]
    #: the Cohort objects; None when they could not be read (what a cohort gives is then unknown)
    cohorts: list[Obj] | None
    #: ClusterQueue name -> its Workloads; None when they could not be known (``workloads_unknown``)
    workloads: dict[str, QueueWorkloads] | None
    workloads_unknown: str | None
    dra: dict[str, DraResource]
    live: bool = True  # read from a cluster (else from a snapshot: what is missing is added to it)
    binary: set[str]


def _fmt(inp: Inputs, resource: str, value: int | None) -> str | None:
    return None if value is None else format_usage(resource, value, inp.binary)


def percent(used: int | None, nominal: int | None) -> int | None:
    """``used`` as a whole percentage of ``nominal`` (rounded half up); None without a positive
    nominal quota, or for a negative amount (Kueue never records one: no share of anything)."""
    if used is None or nominal is None or nominal <= 0 or used < 0:
        return None
    return (200 * used + nominal) // (2 * nominal)


def _row(inp: Inputs, row: QuotaRow, queue: bool) -> Obj:
    def f(value: int | None) -> str | None:
        return _fmt(inp, row.resource, value)

    out: Obj = {"flavor": row.flavor, "resource": row.resource, "nominalQuota": f(row.nominal),
                "borrowingLimit": f(row.borrowing_limit), "lendingLimit": f(row.lending_limit),
                "reserved": f(row.reserved.total), "reservedBorrowed": f(row.reserved.borrowed),
                "admitted": f(row.admitted.total), "admittedBorrowed": f(row.admitted.borrowed)}
    if queue:
        out.update({"usedPercent": percent(row.reserved.total, row.nominal),
                    "maximumCapacity": f(row.maximum), "available": f(row.available)})
    else:
        out["subtreeQuota"] = f(row.subtree)
    dra = inp.dra.get(row.resource)
    out["dra"] = dra.to_json() if dra is not None else None
    return out


def _holder(inp: Inputs, h: Holder) -> Obj:
    return {"namespace": h.namespace, "name": h.name, "state": h.state, "localQueue": h.local_queue,
            "priority": h.priority, "priorityClassName": h.priority_class,
            "usage": [{"flavor": fl, "resource": res, "amount": _fmt(inp, res, v)}
                      for (fl, res), v in h.usage.items()]}


def _waiter(inp: Inputs, w: Waiter) -> Obj:
    return {"namespace": w.namespace, "name": w.name, "state": w.state, "localQueue": w.local_queue,
            "priority": w.priority, "priorityClassName": w.priority_class,
            "requests": None if w.requests is None else {r: _fmt(inp, r, v) for r, v in sorted(w.requests.items())}}


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _cluster_queue(inp: Inputs, cq: Obj, node: Node | None) -> Obj:
    name = str(cq["metadata"]["name"])
    status, spec = cq.get("status") or {}, cq.get("spec") or {}
    active = condition(cq, "Active")
    found = None if inp.workloads is None else inp.workloads.get(name, QueueWorkloads())
    pending = None
    if found is not None:
        pending = {"workloads": [_waiter(inp, w) for w in found.waiters], "count": len(found.waiters),
                   "withoutRequests": found.without_requests(),
                   "requests": {r: _fmt(inp, r, v) for r, v in sorted(found.demand().items())}}
    return {
        "name": name, "cohort": cohort_of(cq),
        "active": None if active is None else active.get("status") == "True",
        "stopPolicy": spec.get("stopPolicy"),
        "pendingWorkloads": _int(status.get("pendingWorkloads")),
        "reservingWorkloads": _int(status.get("reservingWorkloads")),
        "admittedWorkloads": _int(status.get("admittedWorkloads")),
        "resources": [_row(inp, r, True) for r in with_tree(quota_rows(cq), node)],
        "workloads": None if found is None else [_holder(inp, h) for h in found.holders],
        "pending": pending,
    }


def _ancestors(node: Node | None) -> list[str]:
    out = []
    while node is not None and node.parent is not None:
        node = node.parent
        out.append(node.name)
    return out


def queues_report(inp: Inputs, only: str | None = None) -> tuple[list[Obj], list[Obj], list[Obj]]:
    """(clusterQueues, cohorts, findings); ``only`` narrows them to one ClusterQueue and its cohorts."""
    findings: list[Obj] = []
    if inp.workloads_unknown:
        findings.append(F.WorkloadsUnknown.make(
            f"{inp.workloads_unknown}: which Workloads hold quota and which wait is unknown",
            variant="" if inp.live else "snapshot"))
    try:
        queues, cohort_nodes = build_forest(inp.cluster_queues, inp.cohorts or [])
    except TreeError as e:
        findings.append(F.CohortCycle.make(
            f"{e}: Kueue cannot build the cohort tree, so what each ClusterQueue can borrow is unknown"))
        queues, cohort_nodes = {}, {}
    chosen = sorted((cq for cq in inp.cluster_queues if only is None or cq["metadata"]["name"] == only),
                    key=lambda cq: str(cq["metadata"]["name"]))
    def node(cq: Obj) -> Node | None:
        found = queues.get(str(cq["metadata"]["name"]))
        return None if found is not None and found.parent is not None and inp.cohorts is None else found

    cq_docs = [_cluster_queue(inp, cq, node(cq)) for cq in chosen]
    wanted = None if only is None else set(_ancestors(queues.get(only)))
    objects = {str((c.get("metadata") or {}).get("name")): c for c in inp.cohorts or []}
    rows = {str(cq["metadata"]["name"]): with_tree(quota_rows(cq), node(cq)) for cq in inp.cluster_queues}
    cohort_docs = []
    for name in sorted(cohort_nodes):
        if wanted is not None and name not in wanted:
            continue
        s = cohort_summary(cohort_nodes[name], objects.get(name), rows)
        if inp.cohorts is None:  # its own quota, and so what it shares, is unknown
            for r in s.rows:
                r.subtree = None
        cohort_docs.append({"name": s.name, "parent": s.parent,
                            "cohortObject": None if inp.cohorts is None else s.has_object,
                            "cohorts": s.cohorts, "clusterQueues": s.cluster_queues,
                            "resources": [_row(inp, r, False) for r in s.rows]})
    return cq_docs, cohort_docs, findings
