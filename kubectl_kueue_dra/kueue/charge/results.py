"""What the charge engine returns: per pod set the amounts and the lines that derive them.

Every line is a frozen dataclass with a ``doc()`` giving its ``explain -o json`` form (the
documented keys; ``perPod`` is still Kueue's int64 there, the caller formats it).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from ...findings import Code
from ..fielderrors import FieldError
from ..units import sat_mul
from ..workloads.adjust import Adjustment
from ..workloads.transform import TransformLine


@dataclass(frozen=True)
class RequestRef:
    """Where an ``exactly`` request sits: claim, template, request name, its class and count."""

    claim: str | None
    template: str
    request: str | None
    device_class: str
    count: int

    def doc(self) -> dict[str, Any]:
        return {"claim": self.claim, "template": self.template, "request": self.request,
                "deviceClass": self.device_class, "count": self.count}


@dataclass(frozen=True)
class PodRequestsLine:
    resource: str
    per_pod: int
    detail: str = "containers and init containers, as the scheduler sums them"
    kind: ClassVar[str] = "podRequests"

    def doc(self) -> dict[str, Any]:
        return {"kind": self.kind, "resource": self.resource, "perPod": self.per_pod, "detail": self.detail}


@dataclass(frozen=True, kw_only=True)
class ClaimTemplateLine:
    claim: str | None
    template: str
    device_class: str
    mapping: str
    devices: int
    #: None for a class charged by the counter or capacity path (this line then charges nothing)
    resource: str | None
    per_pod: int
    detail: str
    kind: ClassVar[str] = "claimTemplate"

    def doc(self) -> dict[str, Any]:
        return {"kind": self.kind, "claim": self.claim, "template": self.template,
                "deviceClass": self.device_class, "mapping": self.mapping, "devices": self.devices,
                "resource": self.resource, "perPod": self.per_pod, "detail": self.detail}


@dataclass(frozen=True, kw_only=True)
class ExtendedResourceLine:
    resource_name: str
    device_class: str
    candidates: list[str]
    mapping: str | None
    resource: str
    per_pod: int
    containers: list[str]
    detail: str
    kind: ClassVar[str] = "extendedResource"

    def doc(self) -> dict[str, Any]:
        return {"kind": self.kind, "resourceName": self.resource_name, "deviceClass": self.device_class,
                "candidates": list(self.candidates), "mapping": self.mapping, "resource": self.resource,
                "perPod": self.per_pod, "containers": list(self.containers), "detail": self.detail}


@dataclass(frozen=True, kw_only=True)
class CounterLine:
    ref: RequestRef
    resource: str
    counter: str
    driver: str
    matched_devices: int
    matched_pools: int
    max_device: str
    counter_value: str
    per_pod: int
    detail: str
    kind: ClassVar[str] = "counter"

    @property
    def mapping(self) -> str:
        return self.resource

    def doc(self) -> dict[str, Any]:
        return dict(self.ref.doc(), kind=self.kind, mapping=self.mapping, resource=self.resource,
                    counter=self.counter, driver=self.driver, matchedDevices=self.matched_devices,
                    matchedPools=self.matched_pools, maxDevice=self.max_device, counterValue=self.counter_value,
                    perPod=self.per_pod, detail=self.detail)


@dataclass(frozen=True, kw_only=True)
class CapacityLine:
    ref: RequestRef
    resource: str
    capacity: str
    driver: str
    matched_devices: int
    matched_pools: int
    per_pod: int
    detail: str
    kind: ClassVar[str] = "capacity"

    @property
    def mapping(self) -> str:
        return self.resource

    def doc(self) -> dict[str, Any]:
        return dict(self.ref.doc(), kind=self.kind, mapping=self.mapping, resource=self.resource,
                    capacity=self.capacity, driver=self.driver, matchedDevices=self.matched_devices,
                    matchedPools=self.matched_pools, perPod=self.per_pod, detail=self.detail)


ChargeLine = PodRequestsLine | ClaimTemplateLine | ExtendedResourceLine | CounterLine | CapacityLine


@dataclass(frozen=True)
class Note:
    """Something true about the charge that is not an error (becomes an info finding)."""

    code: Code
    message: str
    #: what the code's fix is filled with
    fix_args: dict[str, Any] = field(default_factory=dict)

    def finding(self) -> dict[str, Any]:
        return self.code.make(self.message, **self.fix_args)


@dataclass
class PodSetCharge:
    name: str
    count: int
    per_pod: dict[str, int] = field(default_factory=dict)  # Kueue's int64 units (cpu: milli)
    lines: list[ChargeLine] = field(default_factory=list)
    replaced: list[str] = field(default_factory=list)
    #: what AdjustResources set in the pod spec, and where each amount came from
    adjustments: list[Adjustment] = field(default_factory=list)
    #: the configuration's transformations applied to the pod's requests
    transformations: list[TransformLine] = field(default_factory=list)
    excluded: list[str] = field(default_factory=list)
    #: resource -> why its amount cannot be known (it is then left out of ``total``)
    unknown: dict[str, str] = field(default_factory=dict)
    min_count: int | None = None
    #: ``status.admission.podSetAssignments[].count`` of an admitted Workload
    admitted_count: int | None = None
    #: the pod spec after AdjustResources (what Kueue validates and counts)
    adjusted_spec: dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def charged_count(self) -> int:
        """The pods Kueue charges: the admitted count when admitted (partial admission), else all."""
        return self.count if self.admitted_count is None else min(self.count, self.admitted_count)

    @property
    def total(self) -> dict[str, int]:
        return {name: sat_mul(max(0, v), self.charged_count) for name, v in self.per_pod.items()
                if name not in self.unknown}


@dataclass
class ChargeResult:
    podsets: list[PodSetCharge]
    errors: list[FieldError] = field(default_factory=list)
    #: which step rejected the workload: dra-disabled, resource-claims, claim-templates,
    #: extended-resources, counters, capacity
    failed_step: str | None = None
    #: the QuotaReserved / Requeued condition messages Kueue writes on failure
    message: str | None = None
    requeued_message: str | None = None
    #: None: unknown (``dra_unknown`` says why)
    dra_processed: bool | None = False
    notes: list[Note] = field(default_factory=list)
    #: why the DRA charge cannot be known: a list it depends on could not be read
    dra_unknown: str | None = None

    @property
    def rejected(self) -> bool:
        return self.message is not None

    @property
    def retried(self) -> bool:
        """Kueue retries the workload with backoff (Internal errors)."""
        return any(e.internal for e in self.errors)


class Unknowable(Exception):
    """A step needs a list that could not be read: its outcome (charge or rejection) is unknown."""

    def __init__(self, step: str, reason: str):
        super().__init__(reason)
        self.step, self.reason = step, reason


class Stop(Exception):
    """A step failed; carries Kueue's errors."""

    def __init__(self, step: str, errors: list[FieldError]):
        super().__init__(step)
        self.step, self.errors = step, errors
