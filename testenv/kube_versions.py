"""What differs between the kube-apiserver versions the tests run against (1.34, 1.35, 1.36), as
the test side knows it: the DRA gates of Kueue's paths (stage and default per minor), and the
ResourceSlice layout of partitionable devices.

This is the tests' own table, measured on the real servers (``kubernetes_feature_enabled`` in
each one's /metrics with no ``--feature-gates``), not the plugin's (``kubectl_kueue_dra/gates``):
``tests/cluster/test_versions.py`` holds both to the server they run against.

The layout: 1.34 refuses a device whose ``consumesCounters`` names a counter set that is not in
the device's own slice ("must reference a counterSet defined in the ResourceSlice
sharedCounters"); 1.35 and later refuse a slice with both ``devices`` and ``sharedCounters`` ("only
one of `sharedCounters` or `devices` is allowed"). The scenarios are written in the 1.35 layout
(counter sets in slices of their own); ``slices_for`` writes them in the layout of the server.
"""

from __future__ import annotations

import copy
import os
from typing import Any

DRA_EXTENDED = "DRAExtendedResource"
DRA_PARTITIONABLE = "DRAPartitionableDevices"
DRA_CONSUMABLE = "DRAConsumableCapacity"
#: the Kubernetes gates whose fields Kueue's DRA paths read: extendedResourceName, counters, capacity
PATH_GATES = (DRA_EXTENDED, DRA_PARTITIONABLE, DRA_CONSUMABLE)

_ALPHA, _BETA = ("ALPHA", False), ("BETA", True)
#: (stage, default) of each path gate per kube-apiserver minor, as each server's /metrics says
DEFAULTS: dict[int, dict[str, tuple[str, bool]]] = {
    34: dict.fromkeys(PATH_GATES, _ALPHA),
    35: dict.fromkeys(PATH_GATES, _ALPHA),
    36: dict.fromkeys(PATH_GATES, _BETA),
}
#: the first minor whose slices hold either devices or counter sets, never both
SEPARATE_COUNTER_SLICES = 35
#: the extra versions scripts/test runs the version-marked tests on (the default runs everything)
EXTRA_VERSIONS_ENV = "KUEUE_DRA_EXTRA_KUBE_VERSIONS"


class UnknownVersion(ValueError):
    pass


def minor(version: str) -> int:
    """``v1.34.4`` → 34."""
    parts = version.lstrip("v").split(".")
    if len(parts) < 2 or parts[0] != "1" or not parts[1].isdigit():
        raise UnknownVersion(f"not a Kubernetes version: {version!r}")
    return int(parts[1])


def defaults(version: str) -> dict[str, tuple[str, bool]]:
    """(stage, default) of each path gate on ``version``; a version not measured is refused."""
    m = minor(version)
    if m not in DEFAULTS:
        raise UnknownVersion(f"no DRA gates known for kube-apiserver {version} "
                             f"(known: {', '.join(f'1.{k}' for k in DEFAULTS)})")
    return DEFAULTS[m]


def default_on(version: str, gate: str) -> bool:
    return defaults(version)[gate][1]


def alpha_gates(version: str) -> tuple[str, ...]:
    """The path gates that are alpha (off by default) on ``version``: the ones a test turns on."""
    return tuple(g for g, (stage, _) in defaults(version).items() if stage == "ALPHA")


def extra_versions(default: str, available: list[str]) -> list[str]:
    """The versions besides ``default`` to run the version-marked tests on: KUEUE_DRA_EXTRA_KUBE_VERSIONS
    (comma separated; empty: none), else every version there is a module for, newest first."""
    said = os.environ.get(EXTRA_VERSIONS_ENV)
    if said is not None:
        return [v.strip() for v in said.split(",") if v.strip()]
    return sorted((v for v in available if v != default), key=minor, reverse=True)


# ---- the ResourceSlice layout ----------------------------------------------------------------------
def _sets(s: dict) -> list[dict]:
    return list((s.get("spec") or {}).get("sharedCounters") or [])


def _consumed(devices: list[dict]) -> list[str]:
    return list(dict.fromkeys(e.get("counterSet") for d in devices for e in d.get("consumesCounters") or []))


def _fits(entry: dict, sets: dict[str, dict]) -> bool:
    """A consumesCounters entry 1.34 stores: its set is defined, and so is each counter it names."""
    counters = (sets.get(entry.get("counterSet")) or {}).get("counters")
    return counters is not None and set(entry.get("counters") or {}) <= set(counters)


def slices_for(objects: list[dict[str, Any]], version: str) -> list[dict[str, Any]]:
    """``objects`` with their ResourceSlices in the layout ``version`` accepts; other objects as
    they are. On 1.35 and later, unchanged. On 1.34, the counter sets of a pool (driver, pool,
    generation) move into the device slices that consume from them, and the slices that held only
    counter sets go, with ``resourceSliceCount`` lowered by as many. A device that consumes from a
    set no slice of its pool defines, or a counter its set does not define, cannot be written on
    1.34 (the server refuses it: "must reference a counter defined in the ResourceSlice
    sharedCounters"): it is left out. The objects given are not changed."""
    if minor(version) >= SEPARATE_COUNTER_SLICES:
        return objects
    slices = [o for o in objects if o.get("kind") == "ResourceSlice"]
    pools: dict[tuple, list[dict]] = {}
    for s in slices:
        spec = s.get("spec") or {}
        pool = spec.get("pool") or {}
        pools.setdefault((spec.get("driver"), pool.get("name"), pool.get("generation")), []).append(s)
    out: dict[int, dict | None] = {}
    for group in pools.values():
        sets = {cs["name"]: cs for s in group for cs in _sets(s)}
        holders = [s for s in group if _sets(s) and not (s.get("spec") or {}).get("devices")]
        users = [s for s in group if (s.get("spec") or {}).get("devices")]
        moved = bool(holders) and any(_consumed(s["spec"]["devices"]) for s in users)
        for s in group:
            new = copy.deepcopy(s)
            spec = new["spec"]
            if s in holders and moved:
                out[id(s)] = None
                continue
            if s in users:
                devices = [d for d in spec["devices"] if all(_fits(e, sets) for e in d.get("consumesCounters") or [])]
                spec["devices"] = devices
                wanted = [sets[n] for n in _consumed(devices)]
                if wanted:
                    spec["sharedCounters"] = copy.deepcopy(wanted)
            if moved:
                spec["pool"]["resourceSliceCount"] -= len(holders)
            out[id(s)] = new
    return [out[id(o)] if o.get("kind") == "ResourceSlice" else o for o in objects
            if o.get("kind") != "ResourceSlice" or out[id(o)] is not None]


# ---- the gated fields a set of objects uses ----------------------------------------------------------
def gates_used(objects: list[dict[str, Any]]) -> set[str]:
    """The path gates whose fields these objects write (the server drops them while the gate is off)."""
    used = set()
    for o in objects:
        spec = o.get("spec") or {}
        if o.get("kind") == "DeviceClass" and spec.get("extendedResourceName"):
            used.add(DRA_EXTENDED)
        if o.get("kind") != "ResourceSlice":
            continue
        if spec.get("sharedCounters"):
            used.add(DRA_PARTITIONABLE)
        for d in spec.get("devices") or []:
            if d.get("consumesCounters"):
                used.add(DRA_PARTITIONABLE)
            if d.get("allowMultipleAllocations") or any(isinstance(c, dict) and c.get("requestPolicy")
                                                        for c in (d.get("capacity") or {}).values()):
                used.add(DRA_CONSUMABLE)
    return used
