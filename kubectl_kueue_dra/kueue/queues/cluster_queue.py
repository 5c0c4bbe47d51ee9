"""ClusterQueue facts the commands need: which resources each queue covers, its cohort, and the
quotas it gives."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

Obj = dict[str, Any]


def cohort_of(cluster_queue: Obj) -> str | None:
    """The cohort a ClusterQueue is in (None: none, or an empty name)."""
    spec = cluster_queue.get("spec") or {}
    return spec.get("cohortName") or spec.get("cohort") or None  # v1beta2 / v1beta1


def cluster_queue_of(local_queue: Obj) -> str | None:
    """The ClusterQueue a LocalQueue points at (``spec.clusterQueue``; None: none)."""
    target = (local_queue.get("spec") or {}).get("clusterQueue")
    return None if target is None else str(target)


def covered_resources(cluster_queue: dict[str, Any]) -> set[str]:
    covered: set[str] = set()
    for group in (cluster_queue.get("spec") or {}).get("resourceGroups") or []:
        covered.update(group.get("coveredResources") or [])
    return covered


def queues_covering(cluster_queues: list[dict[str, Any]], resource: str) -> list[str]:
    return sorted(cq["metadata"]["name"] for cq in cluster_queues if resource in covered_resources(cq))


@dataclass(frozen=True)
class QuotaEntry:
    cluster_queue: str
    cohort: str | None
    flavor: str
    text: str
    path: str  # JSON pointer of the nominalQuota, for patches


def quota_entries(cluster_queues: Sequence[Obj], resource: str) -> list[QuotaEntry]:
    """Every nominalQuota given for ``resource``, in the order of the queues, groups and flavors."""
    out = []
    for cq in cluster_queues:
        spec = cq.get("spec") or {}
        cohort = cohort_of(cq)
        for gi, group in enumerate(spec.get("resourceGroups") or []):
            for fi, flavor in enumerate(group.get("flavors") or []):
                for ri, res in enumerate(flavor.get("resources") or []):
                    if res.get("name") == resource and res.get("nominalQuota") is not None:
                        out.append(QuotaEntry(cq["metadata"]["name"], cohort, str(flavor.get("name")),
                                              str(res["nominalQuota"]),
                                              f"/spec/resourceGroups/{gi}/flavors/{fi}/resources/{ri}/nominalQuota"))
    return out
