"""Kueue's cohort tree: what a ClusterQueue can get at most, and now, from its cohorts.

Kueue's scheduler cache (``pkg/cache/scheduler/resource_node.go``) keeps, per node of the cohort
tree (ClusterQueues are leaves, Cohorts inner nodes) and per (flavor, resource):

* ``subtree``: a ClusterQueue's nominal quota; a Cohort's own nominal quota plus, for each child,
  what the child lends up (its subtree minus its local quota);
* ``local``: the part a ``lendingLimit`` keeps from the parent, ``max(0, subtree - lendingLimit)``
  (0 without a lending limit);
* ``usage``: a ClusterQueue's reserved quota; a Cohort's sum of what its children use beyond their
  local quota;
* ``potential`` ("maximum capacity"): the root's subtree; below it, ``local + potential(parent)``,
  capped by ``subtree + borrowingLimit`` when a borrowing limit is set;
* ``available``: the same with usage taken off.

The verdicts built on it are in ``quota.py``.

Pure: ClusterQueues and Cohorts come in as JSON dicts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...dra.quantity import QuantityError, parse_quantity
from ..units import kueue_int
from .cluster_queue import cohort_of as cohort_of  # the one definition; importable from here too

FlavorResource = tuple[str, str]


@dataclass(frozen=True)
class Quota:
    nominal: int
    borrowing: int | None = None
    lending: int | None = None


@dataclass
class Node:
    """A ClusterQueue or a Cohort of Kueue's cohort tree."""

    kind: str
    name: str
    quotas: dict[FlavorResource, Quota] = field(default_factory=dict)
    parent: Node | None = None
    children: list[Node] = field(default_factory=list)
    #: ClusterQueues: reserved quota from status.flavorsReservation
    reserved: dict[FlavorResource, int] = field(default_factory=dict)

    def subtree(self, fr: FlavorResource) -> int:
        own = self.quotas[fr].nominal if fr in self.quotas else 0
        if self.kind == "ClusterQueue":
            return own
        return own + sum(c.subtree(fr) - c.local(fr) for c in self.children)

    def local(self, fr: FlavorResource) -> int:
        lending = self.quotas[fr].lending if fr in self.quotas else None
        return max(0, self.subtree(fr) - lending) if lending is not None else 0

    def usage(self, fr: FlavorResource) -> int:
        if self.kind == "ClusterQueue":
            return self.reserved.get(fr, 0)
        return sum(max(0, c.usage(fr) - c.local(fr)) for c in self.children)

    def borrowing(self, fr: FlavorResource) -> int | None:
        return self.quotas[fr].borrowing if fr in self.quotas else None

    def potential(self, fr: FlavorResource) -> int:
        if self.parent is None:
            return self.subtree(fr)
        avail = self.local(fr) + self.parent.potential(fr)
        borrowing = self.borrowing(fr)
        if borrowing is not None:
            avail = min(avail, self.subtree(fr) + borrowing)
        return avail

    def available(self, fr: FlavorResource) -> int:
        if self.parent is None:
            return self.subtree(fr) - self.usage(fr)
        parent_available = self.parent.available(fr)
        borrowing = self.borrowing(fr)
        if borrowing is not None:
            lq = self.local(fr)
            stored = self.subtree(fr) - lq
            used = max(0, self.usage(fr) - lq)
            parent_available = min(stored - used + borrowing, parent_available)
        return max(0, self.local(fr) - self.usage(fr)) + parent_available


class TreeError(Exception):
    """The cohort tree cannot be built (a cycle): Kueue deactivates such ClusterQueues."""


def _quantity(resource: str, value: Any) -> int:
    try:
        return kueue_int(resource, parse_quantity(value if value is not None else "0"))
    except QuantityError:
        return 0


def _quotas(spec: dict[str, Any]) -> dict[FlavorResource, Quota]:
    out: dict[FlavorResource, Quota] = {}
    for group in spec.get("resourceGroups") or []:
        for flavor in group.get("flavors") or []:
            for res in flavor.get("resources") or []:
                name = res.get("name") or ""
                b, lend = res.get("borrowingLimit"), res.get("lendingLimit")
                out[(flavor.get("name") or "", name)] = Quota(
                    _quantity(name, res.get("nominalQuota")),
                    None if b is None else _quantity(name, b), None if lend is None else _quantity(name, lend))
    return out


def _reserved(cq: dict[str, Any]) -> dict[FlavorResource, int]:
    out: dict[FlavorResource, int] = {}
    for fu in (cq.get("status") or {}).get("flavorsReservation") or []:
        for r in fu.get("resources") or []:
            out[(fu.get("name") or "", r.get("name") or "")] = _quantity(r.get("name") or "", r.get("total"))
    return out


def build_tree(cluster_queues: list[dict[str, Any]], cohorts: list[dict[str, Any]]) -> dict[str, Node]:
    """ClusterQueue name -> its node, linked into the cohort tree. A cohort named by a ClusterQueue
    or a Cohort's ``parentName`` without a Cohort object is an implicit cohort without quota."""
    return build_forest(cluster_queues, cohorts)[0]


def build_forest(cluster_queues: list[dict[str, Any]],
                 cohorts: list[dict[str, Any]]) -> tuple[dict[str, Node], dict[str, Node]]:
    """(ClusterQueue name -> node, cohort name -> node) of the whole forest, implicit cohorts
    included. Raises TreeError on a cycle."""
    nodes: dict[str, Node] = {}

    def cohort(name: str) -> Node:
        if name not in nodes:
            nodes[name] = Node("Cohort", name)
        return nodes[name]

    parents: dict[str, str] = {}
    for obj in cohorts:
        name = (obj.get("metadata") or {}).get("name") or ""
        spec = obj.get("spec") or {}
        node = cohort(name)
        node.quotas = _quotas(spec)
        parent = spec.get("parentName") or spec.get("parent")
        if parent:
            parents[name] = parent
    for child, parent in parents.items():
        seen = {child}
        up: str | None = parent
        while up is not None:
            if up in seen:
                raise TreeError(f"the cohorts {', '.join(sorted(seen))} form a cycle")
            seen.add(up)
            up = parents.get(up)
        cohort(child).parent = cohort(parent)
        cohort(parent).children.append(cohort(child))
    queues: dict[str, Node] = {}
    for obj in cluster_queues:
        name = (obj.get("metadata") or {}).get("name") or ""
        node = Node("ClusterQueue", name, _quotas(obj.get("spec") or {}), reserved=_reserved(obj))
        parent_name = cohort_of(obj)
        if parent_name:
            node.parent = cohort(parent_name)
            node.parent.children.append(node)
        queues[name] = node
    return queues, nodes
