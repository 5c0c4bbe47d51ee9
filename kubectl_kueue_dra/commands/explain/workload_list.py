"""``explain`` with no TYPE/NAME: every Workload in scope, each explained by the same engine as one
``explain workload/NAME``, summarised one line each (the ``get workloads`` view with the DRA charge).

The view caches each list, so the kinds are read once per run whatever the number of Workloads.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...k8s.envelope import owner_references
from ...kube.view import ClusterView
from ...kueue.workloads.podsets import podsets_from_workload
from .context import Settings, kueue_context
from .facts import ExplainFacts, gather
from .subject import Subject

@dataclass
class Scope:
    """Which Workloads to list: one namespace, or all, optionally of one queue."""

    namespace: str | None  # None: every namespace (-A)
    cluster_queue: str | None = None
    local_queue: str | None = None
    selector: str | None = None  # -l, passed to the server (a snapshot: matched here)
    field_selector: str | None = None


def in_scope(facts: ExplainFacts, scope: Scope) -> bool:
    """Whether the Workload is in the queue the list names (--local-queue, --cluster-queue)."""
    if scope.local_queue and facts.local_queue_name != scope.local_queue:
        return False
    return not scope.cluster_queue or facts.cluster_queue_name == scope.cluster_queue


def _sort_key(wl: dict[str, Any]) -> tuple[str, str]:
    meta = wl.get("metadata") or {}
    return str(meta.get("namespace") or ""), str(meta.get("name") or "")


def workloads_in_scope(view: ClusterView, scope: Scope) -> list[dict[str, Any]]:
    """The Workloads to list (the server filters by -l and --field-selector), sorted like kubectl:
    by namespace, then name. Which are in the queues' scope is decided on their facts."""
    listed = view.list("Workload", scope.namespace, label_selector=scope.selector or None,
                       fields=scope.field_selector or None, on_server=True)
    return sorted(listed, key=_sort_key)


def _owner_of(wl: dict[str, Any]) -> str | None:
    refs = owner_references(wl)
    for owner in refs:
        if owner.get("controller") or len(refs) == 1:
            return f"{str(owner.get('kind', '')).lower()}/{owner.get('name')}"
    return None


def _flavors(doc: dict[str, Any]) -> tuple[list[str], str | None]:
    """The flavors of the workload's pod sets (first appearance first), and whether Kueue recorded
    them or the model predicts them."""
    names: list[str] = []
    source = None
    for ps in doc.get("podSets") or []:
        for flavor in (ps.get("flavors") or {}).values():
            if flavor not in names:
                names.append(flavor)
        source = source or ps.get("flavorsSource")
    return names, source if names else None


def summary(wl: dict[str, Any], doc: dict[str, Any]) -> dict[str, Any]:
    """One Workload's line: who owns it, its queue, its flavors, its state, the DRA charge and the
    short reason."""
    queue = doc.get("queue") or {}
    flavors, source = _flavors(doc)
    return {
        "namespace": wl["metadata"].get("namespace"),
        "name": wl["metadata"]["name"],
        "owner": _owner_of(wl),
        "localQueue": (wl.get("spec") or {}).get("queueName"),
        "clusterQueue": queue.get("clusterQueue"),
        "flavors": flavors,
        "flavorsSource": source,
        "state": doc["state"],
        "draCharge": doc.get("draCharge") or {},
        "reason": doc.get("reason"),
    }


def explain_all(view: ClusterView, scope: Scope, settings: Settings) -> list[dict[str, Any]]:
    """Every Workload in scope explained (Kueue's context read once for all); each document gains
    its one-line ``summary``."""
    from .document import explain_facts

    docs = []
    kueue = None
    for wl in workloads_in_scope(view, scope):
        ns = wl["metadata"].get("namespace") or ""
        kueue = kueue or kueue_context(view, settings)
        facts = gather(view, Subject(ns, podsets_from_workload(wl), workload=wl), settings, kueue=kueue)
        if not in_scope(facts, scope):
            continue
        doc = explain_facts(facts)
        doc["summary"] = summary(wl, doc)
        docs.append(doc)
    return docs
