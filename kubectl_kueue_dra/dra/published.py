"""What a DRA driver's ResourceSlices publish: the counter names its devices consume
(``consumesCounters[].counters``) and the capacity names they have (``capacity``), with how many
devices of the driver carry each. Any pool and generation: the question is which names the
driver uses at all (``map`` refuses a name no slice publishes, ``verify`` and ``map`` warn)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
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
    for s in slices:
        spec = s.get("spec") or {}
        if spec.get("driver") != driver:
            continue
        out.slices += 1
        for device in spec.get("devices") or []:
            for name in {n for e in device.get("consumesCounters") or [] for n in (e.get("counters") or {})}:
                out.counters[name] = out.counters.get(name, 0) + 1
            for name in device.get("capacity") or {}:
                out.capacities[name] = out.capacities.get(name, 0) + 1
    return out
