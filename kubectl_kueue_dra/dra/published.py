"""What a DRA driver's ResourceSlices publish: the counter names its devices consume
(``consumesCounters[].counters``) and the capacity names they have (``capacity``), with how many
devices of the driver carry each. Any pool and generation: the question is which names the
driver uses at all (``map`` refuses a name no slice publishes, ``verify`` and ``map`` warn)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from itertools import chain
from dataclasses import dataclass, field
from operator import methodcaller
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .devices import DeviceModels

COUNTER, CAPACITY = "counter", "capacity"


@dataclass
class Published:
    slices: int = 0  # ResourceSlices of the driver
    counters: dict[str, int] = field(default_factory=dict)  # counter name -> devices consuming it
    capacities: dict[str, int] = field(default_factory=dict)  # capacity name -> devices having it

    def names(self, kind: str) -> dict[str, int]:
        return self.counters if kind == COUNTER else self.capacities


def published(slices: Iterable[dict[str, Any]], driver: str, models: DeviceModels | None = None) -> Published:
    """``models``: what the reader found of the slices' devices (``DeviceModels``): a device list
    alike its models holds their parts, so a sequence of models met again is counted, not read."""
    out = Published()
    # devices of one model share their counter consumptions and capacities (``kube/compact.py``
    # makes equal ones one object): each distinct object's names are read once, with how many
    # devices hold it (counted by identity, at C speed); names still count in the order they are
    # first met
    held: dict[str, Counter[int]] = {COUNTER: Counter(), CAPACITY: Counter()}  # kind -> id -> devices
    values: dict[int, Any] = {}  # id -> the object (the devices keep it alive)
    again: dict[int, list[Any]] = {}  # id of a sequence of models -> [its parts' counts, times met]
    unread: list[Sequence[Any]] = []  # device lists not read yet (read together, in order)
    for s in slices:
        spec = s.get("spec") or {}
        if spec.get("driver") != driver:
            continue
        out.slices += 1
        devices = spec.get("devices") or []
        found = models.models_of(devices) if models is not None else None
        if found is None:
            unread.append(devices)
            continue
        seen = again.get(id(found[0]))
        if seen is not None:
            seen[1] += 1
            continue
        _count(unread, held, values)
        unread = []
        again[id(found[0])] = [_count([found[0]], held, values), 1]
    _count(unread, held, values)
    for counts, times in again.values():
        for kind, by_id in counts.items():
            for key, n in by_id.items():
                held[kind][key] += n * (times - 1)
    for kind, by_kind in held.items():
        table = out.names(kind)
        for key, devices in by_kind.items():
            value = values[key]
            names = {n for e in value for n in (e.get("counters") or {})} if kind == COUNTER else value
            for name in names:
                table[name] = table.get(name, 0) + devices
    return out


def _count(device_lists: list[Sequence[Any]], held: dict[str, Counter[int]],
           values: dict[int, Any]) -> dict[str, Counter[int]]:
    """Add the parts the devices hold to ``held`` (and ``values``); what these devices hold."""
    out = {}
    for kind, part in _PARTS:
        found = list(filter(None, map(part, chain.from_iterable(device_lists))))
        out[kind] = Counter(map(id, found))
        held[kind].update(out[kind])
        values.update(zip(map(id, found), found))
    return out


_PARTS = ((COUNTER, methodcaller("get", "consumesCounters")), (CAPACITY, methodcaller("get", "capacity")))
