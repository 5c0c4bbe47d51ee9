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

Kueue keeps each Cohort's usage as a running sum (``addUsage``/``removeUsage``); the derived sum
here is equal to it, so a simulated removal only changes a ClusterQueue's own usage. The
borrowing level (``classical.FindHeightOfLowestSubtreeThatFits``) and the checks preemption uses
(within nominal, fits in quota) are here too. The flavor assigner built on it is ``assigner.py``.

Pure: ClusterQueues and Cohorts come in as JSON dicts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
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
    #: ClusterQueues: the quota its workloads hold (from the Workloads, or status.flavorsReservation);
    #: changed in place to simulate removals
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


    def has_parent(self) -> bool:
        return self.parent is not None

    def nominal(self, fr: FlavorResource) -> int:
        return self.quotas[fr].nominal if fr in self.quotas else 0

    def local_available(self, fr: FlavorResource) -> int:
        """``LocalAvailable``: what the lending limit keeps here and is not used."""
        return max(0, self.local(fr) - self.usage(fr))

    def borrowing_with(self, fr: FlavorResource, value: int) -> bool:
        """``BorrowingWith``: usage plus ``value`` goes beyond the quota of this node."""
        return self.subtree(fr) < self.usage(fr) + value

    def within_nominal(self, frs: set[FlavorResource]) -> bool:
        """``IsWithinNominalInResources``."""
        return all(self.subtree(fr) >= self.usage(fr) for fr in frs)

    def fits_in_quota(self, requests: dict[FlavorResource, int]) -> tuple[bool, dict[FlavorResource, int]]:
        """``QuantitiesFitInQuota``: whether the requests fit the node's own quota, and what is
        left of them after its local quota."""
        fits = all(self.subtree(fr) >= self.usage(fr) + v for fr, v in requests.items())
        return fits, {fr: max(0, v - self.local_available(fr)) for fr, v in requests.items()}

    def ancestors(self) -> list[Node]:
        """The parent, its parent, … up to the root (``PathParentToRoot``)."""
        out, node = [], self.parent
        while node is not None:
            out.append(node)
            node = node.parent
        return out

    def root(self) -> Node:
        up = self.ancestors()
        return up[-1] if up else self

    def height(self) -> int:
        """A Cohort's distance to its furthest leaf (``getNodeHeight``)."""
        if self.kind == "ClusterQueue":
            return 0
        return max([min(len(self.children), 1)] + [c.height() + 1 for c in self.children if c.kind == "Cohort"])

    def cluster_queues_below(self) -> list[Node]:
        if self.kind == "ClusterQueue":
            return [self]
        return [q for c in self.children for q in c.cluster_queues_below()]

    def borrowing_level(self, fr: FlavorResource, value: int) -> tuple[int, bool]:
        """``FindHeightOfLowestSubtreeThatFits``: the height of the lowest cohort whose quota
        holds ``value`` (0 without borrowing), and whether quota may still be reclaimed above it."""
        if not self.borrowing_with(fr, value) or self.parent is None:
            return 0, self.parent is not None
        remaining = value - self.local_available(fr)
        for node in self.ancestors():
            if not node.borrowing_with(fr, remaining):
                return node.height(), node.parent is not None
            remaining -= node.local_available(fr)
        return self.root().height(), False


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


def reservation(cq: dict[str, Any]) -> dict[FlavorResource, int]:
    """The ClusterQueue's ``status.flavorsReservation``: the quota its workloads hold, as Kueue sums it."""
    out: dict[FlavorResource, int] = {}
    for fu in (cq.get("status") or {}).get("flavorsReservation") or []:
        for r in fu.get("resources") or []:
            out[(fu.get("name") or "", r.get("name") or "")] = _quantity(r.get("name") or "", r.get("total"))
    return out


def build_tree(cluster_queues: Sequence[dict[str, Any]], cohorts: Sequence[dict[str, Any]],
               usage: Mapping[str, dict[FlavorResource, int]] | None = None) -> dict[str, Node]:
    """ClusterQueue name -> its node, linked into the cohort tree. A cohort named by a ClusterQueue
    or a Cohort's ``parentName`` without a Cohort object is an implicit cohort without quota.
    ``usage``: ClusterQueue name -> the quota its workloads hold; without it, each ClusterQueue's
    ``status.flavorsReservation``."""
    return build_forest(cluster_queues, cohorts, usage)[0]


def build_forest(cluster_queues: Sequence[dict[str, Any]], cohorts: Sequence[dict[str, Any]],
                 usage: Mapping[str, dict[FlavorResource, int]] | None = None
                 ) -> tuple[dict[str, Node], dict[str, Node]]:
    """(ClusterQueue name -> node, cohort name -> node) of the whole forest, implicit cohorts
    included (``usage`` as build_tree's). Raises TreeError on a cycle."""
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
        held = dict(usage.get(name) or {}) if usage is not None else reservation(obj)
        node = Node("ClusterQueue", name, _quotas(obj.get("spec") or {}), reserved=held)
        parent_name = cohort_of(obj)
        if parent_name:
            node.parent = cohort(parent_name)
            node.parent.children.append(node)
        queues[name] = node
    return queues, nodes
