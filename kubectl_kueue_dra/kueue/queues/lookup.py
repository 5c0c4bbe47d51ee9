"""Which ClusterQueue a Workload goes to, the way Kueue's queue manager finds it: ``spec.queueName``
→ LocalQueue ``<namespace>/<queueName>`` → ``spec.clusterQueue``; a Workload holding quota names
its ClusterQueue in ``status.admission`` (that record wins: it is where the quota is held).

Pure: objects in, names out. The reads are the caller's (``commands/explain/facts``).
"""

from __future__ import annotations

from typing import Any

Obj = dict[str, Any]


def queue_name_of(workload: Obj | None) -> str | None:
    """``spec.queueName`` of a Workload (None when it names no LocalQueue)."""
    return ((workload or {}).get("spec") or {}).get("queueName") or None


def admitted_cluster_queue(workload: Obj | None) -> str | None:
    """The ClusterQueue the Workload holds quota in (``status.admission.clusterQueue``), or None."""
    name = (((workload or {}).get("status") or {}).get("admission") or {}).get("clusterQueue")
    return str(name) if name else None


def cluster_queue_name_of(workload: Obj | None, local_queue: Obj | None) -> str | None:
    """The ClusterQueue of a Workload: where it holds quota, else the one its LocalQueue points at."""
    admitted = admitted_cluster_queue(workload)
    if admitted:
        return admitted
    name = ((local_queue or {}).get("spec") or {}).get("clusterQueue")
    return str(name) if name else None


def stop_policy(queue: Obj | None) -> str:
    """``spec.stopPolicy`` of a ClusterQueue or LocalQueue: None (the default), Hold or HoldAndDrain."""
    return str(((queue or {}).get("spec") or {}).get("stopPolicy") or "None")
