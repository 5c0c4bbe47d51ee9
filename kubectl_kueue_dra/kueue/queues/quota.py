"""The quota table of a ClusterQueue for one workload: per resource it requests, the flavor the
flavor assigner picks (else the first offering it), the ClusterQueue's nominal quota, what its
workloads hold and what is free of it, its limits, and what the cohort tree makes of them — the
most it can ever get (Kueue's "maximum capacity") and what is available now.

Pure.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..units import format_usage
from .quota_tree import Node, build_tree


def quota_table(cluster_queue: dict[str, Any], node: Node | None, totals: Mapping[str, int], binary: set[str],
                chosen: Mapping[str, str] | None = None) -> list[dict[str, Any]]:
    """One row per resource of ``totals`` the ClusterQueue gives quota for. ``node``: the
    ClusterQueue in its cohort tree (None: the tree could not be read; its columns are then None);
    ``chosen``: resource -> the flavor the assigner picks."""
    name = (cluster_queue.get("metadata") or {}).get("name") or ""
    own = node if node is not None else build_tree([cluster_queue], [])[name]
    offers: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    for group in (cluster_queue.get("spec") or {}).get("resourceGroups") or []:
        for flavor in group.get("flavors") or []:
            for res in flavor.get("resources") or []:
                if res.get("name") in totals:
                    offers.setdefault(res["name"], []).append((flavor.get("name") or "", res))
    rows: list[dict[str, Any]] = []
    for res_name, options in offers.items():
        want = (chosen or {}).get(res_name)
        flavor_name, res = next((o for o in options if o[0] == want), options[0])
        fr = (flavor_name, res_name)
        nominal, used = own.nominal(fr), own.usage(fr)
        fmt = _formatter(res_name, binary)
        rows.append({"resource": res_name, "flavor": flavor_name,
                     "nominal": fmt(nominal), "reserved": fmt(used), "free": fmt(max(0, nominal - used)),
                     "borrowingLimit": res.get("borrowingLimit"), "lendingLimit": res.get("lendingLimit"),
                     "maximumCapacity": None if node is None else fmt(node.potential(fr)),
                     "available": None if node is None else fmt(max(0, node.available(fr))),
                     "request": fmt(totals[res_name]),
                     "fits": totals[res_name] <= (nominal - used if node is None else node.available(fr))})
    return rows


def _formatter(resource: str, binary: set[str]) -> Any:
    return lambda value: format_usage(resource, value, binary)
