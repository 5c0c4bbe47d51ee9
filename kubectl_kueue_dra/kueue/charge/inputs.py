"""Everything the charge engine looks at, handed in by the caller (the engine does no I/O)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ...dra.cel import SelectorEvaluator
from ...dra.devices import DeviceModels, Pool, group_pools
from ..config.mappings import Mapping, Source, lookup
from ..install.semantics import DRAGates, Semantics
from ..workloads.adjust import AdjustInputs
from ..workloads.transform import ResourceRules
from .results import Unknowable


@dataclass
class ChargeInputs:
    namespace: str
    semantics: Semantics
    gates: DRAGates
    mappings: list[Mapping]
    device_classes: list[dict[str, Any]]
    claim_templates: dict[str, dict[str, Any]]  # name -> ResourceClaimTemplate, in the namespace
    slices: list[dict[str, Any]]
    resource_slice_api: bool = True
    #: excludeResourcePrefixes and transformations of Kueue's configuration
    rules: ResourceRules = field(default_factory=ResourceRules)
    #: LimitRanges and RuntimeClasses for AdjustResources
    adjust: AdjustInputs = field(default_factory=AdjustInputs)
    #: None: one in the Kueue version's CEL dialect (``Semantics.cel_dialect``)
    evaluator: SelectorEvaluator = None  # type: ignore[assignment]
    #: when set, ResourceSlices come from here instead of ``slices``, read only when a path needs
    #: them: ``slice_source(None)`` every slice, ``slice_source(driver)`` that driver's (a field
    #: selector on a live cluster). Every slice is asked for first when it is needed at all, so
    #: no slice is read twice. It raises ``Unknowable`` when the slices cannot be read.
    slice_source: Callable[[str | None], list[dict[str, Any]]] | None = None
    #: what could not be read, kind → the reason (``ResourceSlice``, ``DeviceClass``,
    #: ``ResourceClaimTemplate``, and ``KueueConfig`` when the mappings are unknown): a step that
    #: needs one of them has an unknown outcome (``Unknowable``), never one computed from an empty list
    unreadable: dict[str, str] = field(default_factory=dict)
    #: what depends only on the slices and the CEL dialect (pools per driver, device matches, the
    #: devices a check walks): pass one dict to every workload's inputs of a run (``explain -A``)
    #: and each is derived once, not once per workload
    shared: dict[tuple[Any, ...], Any] = field(default_factory=dict)
    #: what the reader found of the slices' devices (``dra.devices.DeviceModels``), for the grouping
    device_models: DeviceModels | None = None

    def __post_init__(self) -> None:
        if self.evaluator is None:
            self.evaluator = SelectorEvaluator(self.semantics.cel_dialect)
        self.classes_by_name = {dc["metadata"]["name"]: dc for dc in self.device_classes}

    def derived(self, key: tuple[Any, ...], fn: Callable[[], Any]) -> Any:
        """``fn()``, once per ``key`` for every inputs that share ``shared`` (what raises is not kept)."""
        if key not in self.shared:
            self.shared[key] = fn()
        return self.shared[key]

    def require(self, kind: str, step: str) -> None:
        """Raise ``Unknowable`` when ``kind`` could not be read."""
        if kind in self.unreadable:
            raise Unknowable(step, self.unreadable[kind])

    def all_slices(self) -> list[dict[str, Any]]:
        self.require("ResourceSlice", "claim-templates")
        return self.slices if self.slice_source is None else self.slice_source(None)

    def driver_slices(self, driver: str) -> list[dict[str, Any]]:
        self.require("ResourceSlice", "counters")
        if self.slice_source is not None:
            return self.slice_source(driver)
        return [s for s in self.slices if (s.get("spec") or {}).get("driver") == driver]

    def pools(self, driver: str) -> list[Pool]:
        return self.derived(("pools", driver), lambda: group_pools(self.driver_slices(driver), self.device_models))  # type: ignore[no-any-return]

    def mapping_for(self, device_class: str) -> Mapping | None:
        return lookup(self.mappings, device_class, last_wins=self.semantics.last_mapping_wins)

    def counter_configs(self, device_class: str) -> list[tuple[str, Source]]:
        """(quota resource, counter source) pairs Kueue charges for a class."""
        if self.semantics.multi_counter:
            return [(m.name, s) for m in self.mappings if device_class in m.device_class_names
                    for s in m.sources if s.type == "counter"]
        m = lookup(self.mappings, device_class, last_wins=True)
        if m and m.sources and m.sources[0].type == "counter":
            return [(m.name, m.sources[0])]
        return []

    def capacity_configs(self, device_class: str) -> list[Source]:
        if not self.semantics.capacity_sources:
            return []
        return [s for m in self.mappings if device_class in m.device_class_names
                for s in m.sources if s.type == "capacity"]

    def charged_by_device_path(self, device_class: str) -> bool:
        """Whether the counter or capacity path (not a device count) charges this class."""
        return bool(self.counter_configs(device_class) or self.capacity_configs(device_class))

    def binary_resources(self) -> set[str]:
        """Quota names Kueue renders in BinarySI: those with counter (or capacity) sources."""
        names = {m.name for m in self.mappings if m.counter_sources}
        if self.semantics.capacity_sources:
            for m in self.mappings:
                for dc in m.device_class_names:
                    if self.capacity_configs(dc):
                        found = self.mapping_for(dc)
                        if found:
                            names.add(found.name)
        return names

    def extended_resource_names(self) -> set[str]:
        """The ``extendedResourceName`` of every DeviceClass that has one."""
        return {name for dc in self.device_classes
                if isinstance(name := (dc.get("spec") or {}).get("extendedResourceName"), str) and name}
