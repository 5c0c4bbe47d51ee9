"""The answer first: is GPU quota enforced, and for which DeviceClasses.

A DeviceClass's devices are enforced by quota when Kueue runs and counts DRA devices at all (no
check of ``GLOBAL`` fails), the class is charged under a quota resource (its ``deviceClassMappings``
entry, else its ``extendedResourceName`` when it is the class Kueue picks for that name), a
ClusterQueue covers that resource, the gates of its path are on (no check of its path in
``PATH_GATES`` fails), and for a counter-charged mapping some device of the driver consumes the
counter. Unknown when what decides it could not be read, or a deciding check was skipped.

Pure: the facts and the checks in, the verdict (the document's ``verdict``) out.
"""

from __future__ import annotations

from typing import Any

from ...dra.device_classes import extended_resource_winners
from ...kueue.config.mappings import lookup
from ...kueue.queues.cluster_queue import queues_covering
from .facts import Facts
from .model import CLAIMS, EXTENDED, FAIL, PARTITIONABLE, SKIP, WARN, Check
from .registry import plural

#: a failure of one of these keeps every class out of quota
GLOBAL = ("dra-api", "kueue-installed", "kueue-config", "kueue-feature-gates", "kueue-gate-KueueDRAIntegration",
          "openshift-kueue-status")
#: the gate checks each path needs (a failure: not enforced; a skip: unknown)
PATH_GATES = {
    CLAIMS: ("kueue-gate-KueueDRAIntegration",),
    EXTENDED: ("gate-DRAExtendedResource", "kueue-gate-KueueDRAIntegrationExtendedResource"),
    PARTITIONABLE: ("gate-DRAPartitionableDevices", "kueue-gate-KueueDRAIntegrationPartitionableDevices"),
}

ENFORCED, PARTIAL, NOT_ENFORCED, UNKNOWN = "enforced", "partial", "not-enforced", "unknown"


def _entry(name: str, resource: str | None, path: str | None, enforced: bool | None, reason: str) -> dict[str, Any]:
    return {"name": name, "quotaResource": resource, "path": path, "enforced": enforced, "reason": reason}


def _class(f: Facts, dc: dict[str, Any], by_id: dict[str, Check], winners: dict[str, str]) -> dict[str, Any]:
    name = dc["metadata"]["name"]
    if f.mappings is None:
        return _entry(name, None, None, None, "Kueue's deviceClassMappings are unknown")
    mapping = lookup(f.mappings, name)
    ern = (dc.get("spec") or {}).get("extendedResourceName")
    if mapping is not None:
        resource, path = mapping.name, PARTITIONABLE if mapping.sources else CLAIMS
    elif ern and winners.get(ern) == name:
        resource, path = ern, EXTENDED
    elif ern:
        return _entry(name, None, None, False, f"not in deviceClassMappings, and its extendedResourceName {ern} "
                                               f"resolves to {winners.get(ern)}: its devices are outside quota")
    else:
        return _entry(name, None, None, False, "not in deviceClassMappings and no extendedResourceName: its "
                                               "devices are outside quota")
    for cid in GLOBAL + PATH_GATES[path]:
        c = by_id.get(cid)
        if c is not None and c.status == FAIL:
            return _entry(name, resource, path, False, f"{cid}: {c.message}")
    if f.cluster_queues is None:
        return _entry(name, resource, path, None, "the ClusterQueues could not be read")
    if not queues_covering(f.cluster_queues, resource):
        return _entry(name, resource, path, False, f"no ClusterQueue covers {resource}")
    if mapping is not None:
        for s in mapping.counter_sources:
            if f.slices is None:
                return _entry(name, resource, path, None, "the ResourceSlices could not be read")
            if s.name not in f.published(s.driver).counters:
                return _entry(name, resource, path, False,
                              f"no device of {s.driver} consumes counter {s.name}")
    skipped = [cid for cid in PATH_GATES[path] if (c := by_id.get(cid)) is not None and c.status == SKIP]
    if skipped:
        return _entry(name, resource, path, None, f"{skipped[0]}: {by_id[skipped[0]].message}")
    return _entry(name, resource, path, True, f"charged as {resource}, covered by "
                                              f"{', '.join(queues_covering(f.cluster_queues, resource))}")


def _count(n: int, word: str) -> str:
    return plural(n, word, word + "es" if word.endswith("s") else None)


def verdict(f: Facts, checks: list[Check]) -> dict[str, Any]:
    by_id = {c.id: c for c in checks}
    fails, warns = sum(c.status == FAIL for c in checks), sum(c.status == WARN for c in checks)
    tail = f"{_count(fails, 'failure')}, {_count(warns, 'warning')}"
    if f.device_classes is None:
        why = f.unreadable.get("DeviceClass", "the DeviceClasses could not be read")
        return {"state": UNKNOWN, "text": f"GPU quota: UNKNOWN ({why}) — {tail}", "deviceClasses": None,
                "enforced": None, "total": None}
    winners = extended_resource_winners(f.device_classes)
    classes = [_class(f, dc, by_id, winners) for dc in sorted(f.device_classes, key=lambda d: d["metadata"]["name"])]
    enforced = sum(c["enforced"] is True for c in classes)
    unknown = sum(c["enforced"] is None for c in classes)
    total = len(classes)
    if not total:
        state, head = NOT_ENFORCED, "NOT ENFORCED: no DeviceClass exists"
    elif enforced == total:
        state, head = ENFORCED, f"ENFORCED for {enforced} of {_count(total, 'DeviceClass')}"
    elif enforced:
        state, head = PARTIAL, f"ENFORCED for {enforced} of {_count(total, 'DeviceClass')}"
    elif unknown == total:
        state, head = UNKNOWN, f"UNKNOWN for {_count(total, 'DeviceClass')}"
    else:
        state, head = NOT_ENFORCED, f"NOT ENFORCED for any of {_count(total, 'DeviceClass')}"
    if unknown and unknown != total:
        head += f" ({unknown} unknown)"
    return {"state": state, "text": f"GPU quota: {head} — {tail}", "deviceClasses": classes,
            "enforced": enforced, "total": total}
