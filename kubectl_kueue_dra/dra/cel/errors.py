"""What a CEL selector can fail with, and the dialects: how each evaluator that runs DRA
selectors builds ``device`` and words its runtime errors.

``k8s.io/dynamic-resource-allocation/cel`` decides both, from the ``Features`` its caller passes
and from what the caller copies into ``cel.Device``:

* kube-scheduler passes its feature gates (``DRAConsumableCapacity``, ``DRAListTypeAttributes``)
  and copies ``allowMultipleAllocations``; the 1.37 development branch adds a hint after
  ``no such key`` (``cel.EnhanceRuntimeError``);
* Kueue v0.18.x and v0.19.x (which vendor v0.36.1 and v0.36.2, whose ``cel/compile.go`` is the
  same) pass ``Features{}`` and copy only ``Driver``, ``Attributes`` and ``Capacity``
  (``pkg/dra/claims.go`` ``buildDeviceListFromSlices``, ``counters.go``
  ``matchDevicesWithSelectors``).

Selectors compile in the ``StoredExpressions`` environment, which ignores the features' gating
of declarations: ``device.allowMultipleAllocations`` and ``includes()`` are always declared (seen
on the real Kueue: a selector on ``allowMultipleAllocations`` is admitted). What the features do
change is evaluation: ``DeviceMatches`` sets ``allowMultipleAllocations`` from what the caller
copied, so for Kueue it is always false, whatever the ResourceSlice says; without list
attributes a list-valued attribute is the runtime error ``attribute <name>: unsupported
attribute value``. Kueue's runtime errors carry no hint.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

#: what parts of ``device`` an expression reads (``analysis``)
Footprint = frozenset[tuple[Any, ...]]

__all__ = [
    "KUEUE_DRA_V036",
    "MAX_EXPRESSION_LENGTH",
    "NO_SUCH_KEY_HINT",
    "SCHEDULER",
    "CelCompileError",
    "CelDialect",
    "CelError",
    "CelEvalError",
    "Footprint",
]

MAX_EXPRESSION_LENGTH = 10240  # resource.CELSelectorExpressionMaxLength, in bytes
NO_SUCH_KEY_HINT = (
    "consider using CEL optional chaining (.? followed by orValue()) or guarding the check "
    "with has() for optional fields"
)



@dataclass(frozen=True)
class CelDialect:
    """One evaluator's ``device`` model and error wording."""

    name: str
    #: ``device.allowMultipleAllocations`` is the device's own (the caller copies it), else false
    copies_allow_multiple_allocations: bool
    #: list-valued attributes convert (``Features.EnableListTypeAttributes``), else are an error
    list_attributes: bool
    #: the ``has()`` / ``.?`` hint after ``no such key`` (``cel.EnhanceRuntimeError``, 1.37+)
    no_such_key_hint: bool


#: kube-scheduler with DRAConsumableCapacity and DRAListTypeAttributes on, 1.37 wording
SCHEDULER = CelDialect("kube-scheduler", copies_allow_multiple_allocations=True, list_attributes=True,
                       no_such_key_hint=True)
#: Kueue v0.18.x / v0.19.x: k8s.io/dynamic-resource-allocation v0.36, Features{}
KUEUE_DRA_V036 = CelDialect("Kueue (k8s.io/dynamic-resource-allocation v0.36, Features{})",
                            copies_allow_multiple_allocations=False, list_attributes=False, no_such_key_hint=False)


class CelError(Exception):
    """A selector that cannot be compiled or evaluated; ``str()`` is one readable line."""

    def __init__(self, expression: str, detail: str):
        super().__init__(detail)
        self.expression = expression
        self.detail = detail


class CelCompileError(CelError):
    """Does not compile (``unsupported=False``) or is not evaluable by this tool (``True``)."""

    def __init__(self, expression: str, detail: str, unsupported: bool = False):
        super().__init__(expression, detail)
        self.unsupported = unsupported

    def __str__(self) -> str:
        if self.unsupported:
            return f"valid in Kubernetes but not evaluable by this tool: {self.detail}"
        return f"does not compile: {self.detail}"


class CelEvalError(CelError):
    """A runtime error: the scheduler would fail the allocation attempt, not skip the device."""

    def __str__(self) -> str:
        return f"runtime error: {self.detail}"
