"""What differs between Kueue versions in DRA accounting (research: kueue-dra.md §11).

``Semantics.for_version("0.19.2")`` gives the switches the charge engine follows. Versions before
0.18 are outside what this tool re-derives (other gate names, other API versions); they are
reported as such rather than guessed.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...dra.cel.errors import KUEUE_DRA_V036, CelDialect
from ...gates.kueue import (KUEUE_CONSUMABLE, KUEUE_DRA, KUEUE_EXTENDED, KUEUE_PARTITIONABLE, KUEUE_REJECT,
                            KueueGates, default_on)
from ...gates.versions import DEFAULT_KUEUE_MINOR, DEFAULT_KUEUE_VERSION, SUPPORTED, is_supported, parse_version

#: the version whose semantics apply when the installation's cannot be read (gates/versions)
DEFAULT_VERSION = DEFAULT_KUEUE_VERSION
__all__ = ["DEFAULT_VERSION", "SUPPORTED", "DRAGates", "Semantics", "parse_version"]


@dataclass(frozen=True)
class Semantics:
    version: str
    #: mapping lookup: 0.19 takes the first mapping listing a class, 0.18 the last
    last_mapping_wins: bool
    #: 0.19: every counter source of every mapping of a class; 0.18: the first source of the last
    multi_counter: bool
    #: 0.18 looked only at the first consumesCounters entry holding the counter, per device
    first_counter_entry_only: bool
    #: 0.19: consumable-capacity sources exist (alpha gate)
    capacity_sources: bool
    #: < 0.18.2 rejected devices.constraints and devices.config
    rejects_constraints_and_config: bool
    #: >= 0.18.4 renders counter-charged names in BinarySI (4864Mi), before as plain bytes
    counters_binary_rendering: bool
    #: >= 0.18.5 / 0.19.1: extended resources resolve to the class the scheduler picks
    er_scheduler_class_choice: bool
    #: >= 0.18.5 / 0.19.1: transformation outputs are summed apart from the requests (negatives
    #: floored, the retained input not multiplied); before, one map in Go's iteration order
    separate_transform_outputs: bool = True
    #: how Kueue's vendored k8s.io/dynamic-resource-allocation builds ``device`` and words CEL errors
    #: (v0.18.x: v0.36.1, v0.19.x: v0.36.2, the same cel/compile.go; both with Features{})
    cel_dialect: CelDialect = KUEUE_DRA_V036

    @staticmethod
    def supported(version: str) -> bool:
        v = parse_version(version)
        return v is not None and is_supported(v)

    @classmethod
    def for_version(cls, version: str | None) -> Semantics:
        text = version or DEFAULT_VERSION
        v = parse_version(text) or parse_version(DEFAULT_VERSION)
        assert v is not None
        v19 = v >= (0, 19, 0)
        return cls(
            version=text.lstrip("v"),
            last_mapping_wins=not v19,
            multi_counter=v19,
            first_counter_entry_only=not v19,
            capacity_sources=default_on(KUEUE_CONSUMABLE, v[:2]) is not None,  # their gate exists
            rejects_constraints_and_config=v < (0, 18, 2),
            counters_binary_rendering=v >= (0, 18, 4),
            er_scheduler_class_choice=v >= (0, 19, 1) or (0, 18, 5) <= v < (0, 19, 0),
            separate_transform_outputs=v >= (0, 19, 1) or (0, 18, 5) <= v < (0, 19, 0),
        )


def _default(gate: str) -> bool:
    """Whether ``gate`` is on by default in the default Kueue version (the gate registry says)."""
    return bool(default_on(gate, DEFAULT_KUEUE_MINOR))


@dataclass(frozen=True)
class DRAGates:
    """The Kueue gates the charge engine follows (derived by ``gates.kueue.derive_kueue_gates``;
    unset, each is its default in the default Kueue version)."""

    dra: bool = _default(KUEUE_DRA)
    extended_resource: bool = _default(KUEUE_EXTENDED)
    partitionable: bool = _default(KUEUE_PARTITIONABLE)
    consumable_capacity: bool = _default(KUEUE_CONSUMABLE)
    reject_when_disabled: bool = _default(KUEUE_REJECT)

    @classmethod
    def from_kueue_gates(cls, gates: KueueGates) -> DRAGates:
        return cls(dra=gates.on(KUEUE_DRA), extended_resource=gates.on(KUEUE_EXTENDED),
                   partitionable=gates.on(KUEUE_PARTITIONABLE), consumable_capacity=gates.on(KUEUE_CONSUMABLE),
                   reject_when_disabled=gates.on(KUEUE_REJECT))
