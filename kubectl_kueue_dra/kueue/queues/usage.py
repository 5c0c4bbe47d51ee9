"""A ClusterQueue's quota beside what Kueue recorded of its use, per flavor and resource, and the
same for each cohort of the cohort tree.

Per ClusterQueue and (flavor, resource) of its ``resourceGroups``: the nominal quota, the
borrowing and lending limits, what Kueue recorded in ``status.flavorsReservation`` (quota reserved,
admitted or not yet) and ``status.flavorsUsage`` (admitted), each with the part borrowed from the
cohort, and — from the cohort tree (``quota_tree``) — the most it can ever get (Kueue's "maximum
capacity") and what is available to it now. Per cohort: its own quota when a Cohort object gives
one, the quota its subtree shares, and what the ClusterQueues under it reserve and borrow.

Pure: ClusterQueues and Cohorts as JSON dicts in, amounts in Kueue's int64 units out.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ..units import sat_add
from .holdings import FlavorResource, amount
from .quota_tree import Node


@dataclass
class Recorded:
    total: int | None = None
    borrowed: int | None = None


@dataclass
class QuotaRow:
    """One (flavor, resource) of a ClusterQueue or a Cohort."""

    flavor: str
    resource: str
    nominal: int | None
    borrowing_limit: int | None = None
    lending_limit: int | None = None
    reserved: Recorded = field(default_factory=Recorded)
    admitted: Recorded = field(default_factory=Recorded)
    maximum: int | None = None  # what the cohort tree can ever give (ClusterQueues)
    available: int | None = None  # what it can give now (ClusterQueues)
    subtree: int | None = None  # the quota the subtree shares (Cohorts)

    @property
    def key(self) -> FlavorResource:
        return (self.flavor, self.resource)


def _recorded(status: dict[str, Any], field_name: str) -> dict[FlavorResource, Recorded]:
    out: dict[FlavorResource, Recorded] = {}
    for flavor in status.get(field_name) or []:
        for r in flavor.get("resources") or []:
            name = str(r.get("name") or "")
            out[(str(flavor.get("name") or ""), name)] = Recorded(amount(name, r.get("total") or "0"),
                                                                 amount(name, r.get("borrowed") or "0"))
    return out


def quota_rows(obj: dict[str, Any]) -> list[QuotaRow]:
    """The (flavor, resource) rows of a ClusterQueue's or Cohort's ``resourceGroups``, in their
    order, with the recorded reservation and usage (ClusterQueues)."""
    status = obj.get("status") or {}
    reserved, admitted = _recorded(status, "flavorsReservation"), _recorded(status, "flavorsUsage")
    rows = []
    for group in (obj.get("spec") or {}).get("resourceGroups") or []:
        for flavor in group.get("flavors") or []:
            for res in flavor.get("resources") or []:
                name = str(res.get("name") or "")
                key = (str(flavor.get("name") or ""), name)
                limits = [None if res.get(k) is None else amount(name, res.get(k))
                          for k in ("borrowingLimit", "lendingLimit")]
                rows.append(QuotaRow(key[0], name, amount(name, res.get("nominalQuota") or "0"), limits[0],
                                     limits[1], reserved.get(key, Recorded()), admitted.get(key, Recorded())))
    return rows


def with_tree(rows: list[QuotaRow], node: Node | None) -> list[QuotaRow]:
    """The rows of a ClusterQueue with what its cohort tree makes of them (``node`` None: the
    tree is unknown, and so are these)."""
    if node is not None:
        for row in rows:
            row.maximum, row.available = node.potential(row.key), max(0, node.available(row.key))
    return rows


def queues_below(node: Node) -> list[Node]:
    out: list[Node] = []
    for child in node.children:
        out.extend([child] if child.kind == "ClusterQueue" else queues_below(child))
    return out


@dataclass
class CohortSummary:
    name: str
    parent: str | None
    has_object: bool
    cohorts: list[str]
    cluster_queues: list[str]
    rows: list[QuotaRow]


def cohort_summary(node: Node, cohort_obj: dict[str, Any] | None,
                   queue_rows: dict[str, list[QuotaRow]]) -> CohortSummary:
    """A cohort: its own quota (from its Cohort object), the quota its subtree shares, and the sum
    of what the ClusterQueues below it reserve and borrow (``queue_rows``: each queue's rows)."""
    own = {r.key: r for r in quota_rows(cohort_obj)} if cohort_obj is not None else {}
    below = [queue_rows.get(q.name, []) for q in queues_below(node)]
    keys: list[FlavorResource] = list(own)
    for rows in below:
        keys.extend(r.key for r in rows if r.key not in keys)
    out = []
    for key in keys:
        mine = own.get(key)
        row = QuotaRow(key[0], key[1], mine.nominal if mine else None,
                       mine.borrowing_limit if mine else None, mine.lending_limit if mine else None)
        row.subtree = node.subtree(key)
        members = [r for rows in below for r in rows if r.key == key]
        row.reserved = Recorded(_sum(r.reserved.total for r in members), _sum(r.reserved.borrowed for r in members))
        row.admitted = Recorded(_sum(r.admitted.total for r in members), _sum(r.admitted.borrowed for r in members))
        out.append(row)
    return CohortSummary(node.name, node.parent.name if node.parent else None, cohort_obj is not None,
                         sorted(c.name for c in node.children if c.kind == "Cohort"),
                         sorted(c.name for c in node.children if c.kind == "ClusterQueue"), out)


def _sum(values: Iterable[int | None]) -> int | None:
    """The sum, or None when any part is unknown."""
    total = 0
    for v in values:
        if v is None:
            return None
        total = sat_add(total, v)
    return total
