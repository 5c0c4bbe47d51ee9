"""ClusterQueue facts the commands need: which resources each queue covers."""

from typing import Any


def covered_resources(cluster_queue: dict[str, Any]) -> set[str]:
    covered: set[str] = set()
    for group in (cluster_queue.get("spec") or {}).get("resourceGroups") or []:
        covered.update(group.get("coveredResources") or [])
    return covered


def queues_covering(cluster_queues: list[dict[str, Any]], resource: str) -> list[str]:
    return sorted(cq["metadata"]["name"] for cq in cluster_queues if resource in covered_resources(cq))
