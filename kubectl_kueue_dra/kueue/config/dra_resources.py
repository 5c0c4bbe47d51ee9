"""The quota resources Kueue charges DRA devices under, and the DeviceClasses each one comes from.

Two ways a quota resource is a DRA one: it is the name of a ``deviceClassMappings`` entry (its
``deviceClassNames``, and its counter or capacity sources when it has them), or it is the
``extendedResourceName`` of a DeviceClass that no mapping lists (a mapped class is charged under
the mapping name; of several classes naming one resource the scheduler and Kueue pick one,
``dra/device_classes``). ``classes``, ``verify`` and ``queues`` all ask this one question here.

Pure: mappings and DeviceClass objects in.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...dra.device_classes import extended_resource_winners
from .mappings import Mapping, Source, lookup

MAPPING = "mapping"
EXTENDED_RESOURCE = "extendedResourceName"


@dataclass(frozen=True)
class DraResource:
    """A quota resource DRA devices are charged under."""

    name: str
    via: str  # MAPPING | EXTENDED_RESOURCE
    classes: tuple[str, ...]
    mapping: Mapping | None = None

    @property
    def sources(self) -> tuple[Source, ...]:
        return self.mapping.sources if self.mapping is not None else ()

    def describe(self) -> str:
        if self.mapping is not None:
            return f"{self.name} (mapping)"
        return f"{self.name} (extendedResourceName of {', '.join(self.classes)})"

    def to_json(self) -> dict[str, Any]:
        return {"via": self.via, "mapping": self.mapping.name if self.mapping is not None else None,
                "deviceClasses": list(self.classes),
                "counters": [{"name": s.name, "driver": s.driver} for s in self.sources if s.type == "counter"],
                "capacities": [{"name": s.name, "driver": s.driver} for s in self.sources if s.type == "capacity"]}


def dra_resources(mappings: list[Mapping] | None, device_classes: list[dict[str, Any]] | None) -> list[DraResource]:
    """Every DRA quota resource: the mappings in their order, then the extendedResourceNames no
    mapping takes over, by name. None inputs (unknown) contribute nothing."""
    out = [DraResource(m.name, MAPPING, m.device_class_names, m) for m in mappings or []]
    for ern, name in sorted(extended_resource_winners(device_classes or []).items()):
        if mappings and lookup(mappings, name) is not None:
            continue  # the mapping name wins; the class is charged under it
        if not any(r.name == ern for r in out):
            out.append(DraResource(ern, EXTENDED_RESOURCE, (name,)))
    return out


def binary_resources(mappings: list[Mapping] | None) -> set[str]:
    """The quota names Kueue writes in BinarySI (``4864Mi``): those charged from counters or
    capacities (in the driver's units, bytes for memory)."""
    return {m.name for m in mappings or [] if m.sources}
