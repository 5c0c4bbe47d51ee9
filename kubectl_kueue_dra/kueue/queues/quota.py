"""Quota verdicts exactly as Kueue's flavor assigner computes them (``pkg/scheduler/flavorassigner``).

Pod set by pod set, for each resource group the pod set requests, the group's flavors are tried in
order; a flavor fits when every requested resource of the group fits in it (``fitsResourceQuota``):

* request + what earlier pod sets took of that flavor > the ClusterQueue's potential (the
  "maximum capacity" of the cohort tree, ``quota_tree``): ``insufficient quota for R in flavor F,
  previously considered podsets requests (A) + current podset request (B) > maximum capacity (C)``
  - it never fits (ExceedsQuota);
* > what is available now: ``insufficient unused quota for R in flavor F, N more needed`` - it fits
  once others finish (QuotaExhausted).

The first pod set without a flavor ends the attempt: ``couldn't assign flavors to pod set P: `` and
the reasons of every flavor tried, sorted, joined with ", ". Fair sharing changes whom Kueue may
preempt, not these numbers. Kueue walks a pod set's resources in map order and stops a flavor at
its first failing resource, so when two resources fail in one flavor (or two groups fail) the
message is one of several: the verdict keeps the code and its ``message`` is None.

Preemption is not simulated: a QuotaExhausted workload may still get in by preempting others when
the ClusterQueue's preemption policies allow it.

Pure: objects in, verdicts and findings out.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...findings import codes as F
from ..units import format_usage
from .quota_tree import FlavorResource, Node, TreeError, build_tree, cohort_of

EXCEEDS = F.ExceedsQuota.name
EXHAUSTED = F.QuotaExhausted.name


@dataclass
class Reason:
    code: str
    resource: str
    flavor: str
    text: str
    request: int
    maximum: int
    available: int


@dataclass
class Verdict:
    """Why Kueue's scheduler gives a pending workload no flavor; None-free when predicted."""

    code: str
    pod_set: str
    reasons: list[Reason] = field(default_factory=list)
    #: Kueue's condition message, when it is determined (see the module docstring)
    message: str | None = None


@dataclass
class QuotaWorld:
    """The ClusterQueue and, when it is in a cohort, the tree around it."""

    cluster_queue: dict[str, Any]
    cluster_queues: list[dict[str, Any]] | None = None
    cohorts: list[dict[str, Any]] | None = None
    #: why the tree could not be read, when it could not
    problem: str | None = None

    def node(self) -> Node:
        """Raises TreeError when the cohort tree cannot be known."""
        name = (self.cluster_queue.get("metadata") or {}).get("name") or ""
        if not cohort_of(self.cluster_queue):
            return build_tree([self.cluster_queue], [])[name]
        if self.problem or self.cluster_queues is None or self.cohorts is None:
            raise TreeError(self.problem or "the ClusterQueues and Cohorts of the cohort were not read")
        others = [cq for cq in self.cluster_queues if (cq.get("metadata") or {}).get("name") != name]
        return build_tree([self.cluster_queue, *others], self.cohorts)[name]


def _fmt(resource: str, value: int, binary: set[str]) -> str:
    return format_usage(resource, value, binary)


def _reason(node: Node, fr: FlavorResource, assumed: int, request: int, binary: set[str]) -> Reason | None:
    flavor, res = fr
    val = assumed + request
    maximum, available = node.potential(fr), max(0, node.available(fr))
    if val > maximum:
        return Reason(EXCEEDS, res, flavor,
                      f"insufficient quota for {res} in flavor {flavor}, previously considered podsets requests "
                      f"({_fmt(res, assumed, binary)}) + current podset request ({_fmt(res, request, binary)}) > "
                      f"maximum capacity ({_fmt(res, maximum, binary)})", val, maximum, available)
    if val > available:
        return Reason(EXHAUSTED, res, flavor, f"insufficient unused quota for {res} in flavor {flavor}, "
                      f"{_fmt(res, val - available, binary)} more needed", val, maximum, available)
    return None


def _groups(cq: dict[str, Any]) -> list[tuple[set[str], list[str]]]:
    return [(set(g.get("coveredResources") or []), [f.get("name") or "" for f in g.get("flavors") or []])
            for g in (cq.get("spec") or {}).get("resourceGroups") or []]


def verdict(world: QuotaWorld, podsets: list[tuple[str, dict[str, int]]], binary: set[str]) -> Verdict | None:
    """The verdict for a workload that is not admitted, None when every pod set gets a flavor.
    ``podsets``: (name, {resource: total in Kueue's units}) in the workload's order. Resources no
    group covers are left out (that is ResourceNotCovered, found elsewhere). Raises TreeError."""
    node = world.node()
    taken: dict[FlavorResource, int] = {}
    for ps_name, totals in podsets:
        failed: list[list[list[Reason]]] = []
        for covered, flavors in _groups(world.cluster_queue):
            requests = {r: v for r, v in totals.items() if r in covered}
            if not requests:
                continue
            tried: list[list[Reason]] = []
            for flavor in flavors:
                fails = [r for r in (_reason(node, (flavor, res), taken.get((flavor, res), 0), v, binary)
                                     for res, v in requests.items()) if r is not None]
                if not fails:
                    for res, v in requests.items():
                        taken[(flavor, res)] = taken.get((flavor, res), 0) + v
                    break
                tried.append(fails)
            else:
                failed.append(tried)
        if failed:
            reasons = [r for group in failed for fails in group for r in fails]
            code = EXHAUSTED if any(r.code == EXHAUSTED for r in reasons) else EXCEEDS
            determined = len(failed) == 1 and all(len(fails) == 1 for fails in failed[0])
            message = (f"couldn't assign flavors to pod set {ps_name}: "
                       + ", ".join(sorted(r.text for r in reasons))) if determined else None
            return Verdict(code, ps_name, reasons, message)
    return None


def verdict_doc(v: Verdict, binary: set[str]) -> dict[str, Any]:
    """``queue.verdict`` of ``explain -o json``."""
    return {"code": v.code, "podSet": v.pod_set, "message": v.message,
            "reasons": [{"code": r.code, "resource": r.resource, "flavor": r.flavor,
                         "request": _fmt(r.resource, r.request, binary),
                         "maximumCapacity": _fmt(r.resource, r.maximum, binary),
                         "available": _fmt(r.resource, r.available, binary)} for r in v.reasons]}


def verdict_findings(v: Verdict, cq_name: str, in_cohort: bool, binary: set[str],
                     said: str | None = None) -> list[dict[str, Any]]:
    """The verdict as findings, quoting ``said`` (Kueue's recorded message) when it names the same
    failure, else the message Kueue would write."""
    out = []
    quoted = said if said and _names(said, v.code) else v.message
    for r in v.reasons[:1] if v.message is None else v.reasons:
        where = f"ClusterQueue {cq_name}" + (" and its cohort" if in_cohort else "")
        kueue_says = f" (Kueue says: \"{quoted}\")" if quoted else ""
        if r.code == EXCEEDS:
            out.append(F.ExceedsQuota.make(
                f"pod set {v.pod_set} needs {_fmt(r.resource, r.request, binary)} of {r.resource}, more than "
                f"{where} can ever give in flavor {r.flavor} ({_fmt(r.resource, r.maximum, binary)}): it waits "
                f"forever{kueue_says}", variant="cohort" if in_cohort else "", resource=r.resource,
                cluster_queue=cq_name, extra={"predicted": True, "kueueMessage": quoted}))
        else:
            out.append(F.QuotaExhausted.make(
                f"pod set {v.pod_set} needs {_fmt(r.resource, r.request, binary)} of {r.resource}; {where} has "
                f"{_fmt(r.resource, r.available, binary)} unused in flavor {r.flavor} (at most "
                f"{_fmt(r.resource, r.maximum, binary)}): it waits until other workloads finish{kueue_says}",
                cluster_queue=cq_name, extra={"predicted": True, "kueueMessage": quoted}))
    return out


def _names(message: str, code: str) -> bool:
    """Whether Kueue's message reports the failure ``code`` (its words for quota failures)."""
    return ("insufficient unused quota" if code == EXHAUSTED else "maximum capacity") in message


def quota_findings(world: QuotaWorld, podsets: list[tuple[str, dict[str, int]]], binary: set[str],
                   said: str | None = None) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """Findings and ``queue.verdict`` for a workload that is not admitted."""
    cq_name = (world.cluster_queue.get("metadata") or {}).get("name") or ""
    try:
        v = verdict(world, podsets, binary)
    except TreeError as e:
        return [F.QuotaVerdictUnknown.make(f"ClusterQueue {cq_name} is in cohort {cohort_of(world.cluster_queue)}; "
                                           f"its quota verdict is unknown: {e}", variant="cohort")], None
    if v is None:
        return [], None
    return verdict_findings(v, cq_name, bool(cohort_of(world.cluster_queue)), binary, said), verdict_doc(v, binary)


def quota_table(world: QuotaWorld, totals: dict[str, int], binary: set[str]) -> list[dict[str, Any]]:
    """Per resource the workload uses, the first flavor offering it: nominal, reserved, free (of the
    nominal quota), the limits, and what the cohort tree makes of them (``maximumCapacity`` and
    ``available``; None when the tree could not be read)."""
    try:
        node: Node | None = world.node()
    except TreeError:
        node = None
    own = build_tree([world.cluster_queue], [])[(world.cluster_queue.get("metadata") or {}).get("name") or ""]
    rows: list[dict[str, Any]] = []
    for group in (world.cluster_queue.get("spec") or {}).get("resourceGroups") or []:
        for flavor in group.get("flavors") or []:
            for res in flavor.get("resources") or []:
                name = res.get("name")
                if name not in totals or any(r["resource"] == name for r in rows):
                    continue
                fr = (flavor.get("name") or "", name)
                nominal, used = own.subtree(fr), own.usage(fr)
                rows.append({"resource": name, "flavor": fr[0],
                             "nominal": _fmt(name, nominal, binary), "reserved": _fmt(name, used, binary),
                             "free": _fmt(name, max(0, nominal - used), binary),
                             "borrowingLimit": res.get("borrowingLimit"), "lendingLimit": res.get("lendingLimit"),
                             "maximumCapacity": None if node is None else _fmt(name, node.potential(fr), binary),
                             "available": None if node is None else _fmt(name, max(0, node.available(fr)), binary),
                             "request": _fmt(name, totals[name], binary),
                             "fits": totals[name] <= (nominal - used if node is None else node.available(fr))})
    return rows
