"""What a DRA driver's ResourceSlices publish: the counter names its devices consume
(``consumesCounters[].counters``) and the capacity names they have (``capacity``), with how many
devices of the driver carry each. Any pool and generation: the question is which names the
driver uses at all (``map`` refuses a name no slice publishes, ``verify`` and ``map`` warn)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from itertools import chain
from dataclasses import dataclass, field
from operator import methodcaller
from typing import Any

COUNTER, CAPACITY = "counter", "capacity"


@dataclass
class Published:
    slices: int = 0  # ResourceSlices of the driver
    counters: dict[str, int] = field(default_factory=dict)  # counter name -> devices consuming it
    capacities: dict[str, int] = field(default_factory=dict)  # capacity name -> devices having it

    def names(self, kind: str) -> dict[str, int]:
        return self.counters if kind == COUNTER else self.capacities


def published(slices: Iterable[dict[str, Any]], driver: str) -> Published:
    out = Published()
    # devices of one model share their counter consumptions and capacities (``kube/compact.py``
    # makes equal ones one object): each distinct object's names are read once, with how many
    # devices hold it (counted by identity, at C speed); names still count in the order they are
    # first met
    device_lists = []
    for s in slices:
        spec = s.get("spec") or {}
        if spec.get("driver") != driver:
            continue
        out.slices += 1
        device_lists.append(spec.get("devices") or [])
    held: dict[str, Counter[int]] = {}  # kind -> id -> devices
    values: dict[int, Any] = {}  # id -> the object (the devices keep it alive)
    for kind, part in _PARTS:
        found = list(filter(None, map(part, chain.from_iterable(device_lists))))
        held[kind] = Counter(map(id, found))
        values.update(zip(map(id, found), found))
    for kind, counts in held.items():
        table = out.names(kind)
        for key, devices in counts.items():
            value = values[key]
            names = {n for e in value for n in (e.get("counters") or {})} if kind == COUNTER else value
            for name in names:
                table[name] = table.get(name, 0) + devices
    return out


_PARTS = ((COUNTER, methodcaller("get", "consumesCounters")), (CAPACITY, methodcaller("get", "capacity")))
