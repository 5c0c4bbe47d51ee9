"""Where a pending workload stands in its queue, as Kueue's visibility API says
(``positionInClusterQueue``, ``positionInLocalQueue``, 0-based, in Kueue's queue order: priority,
then the queue-order timestamp). Only a workload Kueue queues has a position: one that holds quota,
is inactive, finished or gated has none. When the API cannot answer, the position is unknown with
the reason (a derived order, labelled ``derived``, may stand in for it).
"""

from __future__ import annotations

from typing import Any

from ...kueue.queues.lookup import stop_policy
from ...kueue.workloads import lifecycle as lc
from ...kueue.workloads.lifecycle import Lifecycle
from .facts import ExplainFacts

_QUEUED = (lc.PENDING, lc.PREEMPTED, lc.REQUEUING)


def _ref(item: dict[str, Any]) -> dict[str, Any]:
    meta = item.get("metadata") or {}
    return {"namespace": meta.get("namespace"), "name": meta.get("name")}


def position_part(facts: ExplainFacts, life: Lifecycle | None) -> dict[str, Any] | None:
    """``position`` of the document, or None when Kueue does not queue the workload."""
    if life is None or life.state not in _QUEUED or life.holds_quota or life.reason == "AdmissionGated":
        return None
    if facts.local_queue is None or stop_policy(facts.local_queue) != "None":
        return None  # Kueue's queue manager has no such queue: nothing is queued in it
    strategy = ((facts.cluster_queue or {}).get("spec") or {}).get("queueingStrategy") or "BestEffortFIFO"
    doc: dict[str, Any] = {"clusterQueue": None, "localQueue": None, "source": None, "ahead": None, "head": None,
                           "blockedBy": None, "strategy": strategy, "unknown": None}
    answer = facts.pending_workloads
    if answer is None:
        return None
    if answer.items is None:
        doc["unknown"] = answer.problem
        return doc
    meta = (facts.workload or {}).get("metadata") or {}
    mine = next((i for i in answer.items if (i.get("metadata") or {}).get("name") == meta.get("name") and
                 (i.get("metadata") or {}).get("namespace") in (None, meta.get("namespace"))), None)
    if mine is None:
        doc["unknown"] = (f"Kueue's visibility API does not list it among the {len(answer.items)} pending "
                          f"workload(s) of LocalQueue {facts.local_queue_name} (not queued yet, or it just left)")
        return doc
    cq_pos, lq_pos = mine.get("positionInClusterQueue"), mine.get("positionInLocalQueue")
    head = next((i for i in answer.items if i.get("positionInClusterQueue") == 0), None)
    doc.update(clusterQueue=cq_pos, localQueue=lq_pos, source="visibility", ahead=cq_pos,
               head=_ref(head) if head is not None else None)
    if strategy == "StrictFIFO" and isinstance(cq_pos, int) and cq_pos > 0 and head is not None:
        doc["blockedBy"] = _ref(head)  # under StrictFIFO nothing behind the head is evaluated
    return doc
