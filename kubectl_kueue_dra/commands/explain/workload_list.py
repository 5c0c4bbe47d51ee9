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
from .subject import Subject

_SEVERITY_ORDER = {"error": 0, "warning": 1}


@dataclass
class Scope:
    """Which Workloads to list: one namespace, or all, optionally of one queue."""

    namespace: str | None  # None: every namespace (-A)
    cluster_queue: str | None = None
    local_queue: str | None = None


def _cluster_queue_of(view: ClusterView, wl: dict[str, Any]) -> str | None:
    admitted_to = ((wl.get("status") or {}).get("admission") or {}).get("clusterQueue")
    if admitted_to:
        return str(admitted_to)
    lq_name = (wl.get("spec") or {}).get("queueName")
    lq = view.try_get("LocalQueue", lq_name, wl["metadata"].get("namespace")) if lq_name else None
    cq = ((lq or {}).get("spec") or {}).get("clusterQueue")
    return str(cq) if cq else None


def _in_scope(view: ClusterView, wl: dict[str, Any], scope: Scope) -> bool:
    if scope.local_queue and (wl.get("spec") or {}).get("queueName") != scope.local_queue:
        return False
    return not scope.cluster_queue or _cluster_queue_of(view, wl) == scope.cluster_queue


def _sort_key(wl: dict[str, Any]) -> tuple[str, str]:
    meta = wl.get("metadata") or {}
    return str(meta.get("namespace") or ""), str(meta.get("name") or "")


def workloads_in_scope(view: ClusterView, scope: Scope) -> list[dict[str, Any]]:
    """The Workloads to list, sorted like kubectl: by namespace, then name."""
    return sorted((wl for wl in view.list("Workload", scope.namespace) if _in_scope(view, wl, scope)),
                  key=_sort_key)


def _owner_of(wl: dict[str, Any]) -> str | None:
    refs = owner_references(wl)
    for owner in refs:
        if owner.get("controller") or len(refs) == 1:
            return f"{str(owner.get('kind', '')).lower()}/{owner.get('name')}"
    return None


def short_reason(doc: dict[str, Any]) -> str | None:
    """The most severe finding's code: the one word an on-call admin reads first."""
    ranked = sorted((f for f in doc.get("findings") or [] if f.get("severity") in _SEVERITY_ORDER),
                    key=lambda f: _SEVERITY_ORDER[f["severity"]])
    return str(ranked[0]["code"]) if ranked else None


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
        "reason": short_reason(doc),
    }


def explain_all(view: ClusterView, scope: Scope, settings: Any) -> list[dict[str, Any]]:
    """Every Workload in scope explained; each document gains its one-line ``summary``."""
    from .document import explain

    docs = []
    for wl in workloads_in_scope(view, scope):
        ns = wl["metadata"].get("namespace") or ""
        doc = explain(view, Subject(ns, podsets_from_workload(wl), workload=wl), settings)
        doc["summary"] = summary(wl, doc)
        docs.append(doc)
    return docs
