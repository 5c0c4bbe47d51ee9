"""Evidence about a gate, its resolved state, and the precedence of the ways of learning it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from collections.abc import Iterable

ON, OFF, UNKNOWN = "on", "off", "unknown"

DRA = "DynamicResourceAllocation"
DRA_EXTENDED = "DRAExtendedResource"
DRA_PARTITIONABLE = "DRAPartitionableDevices"
DRA_CONSUMABLE = "DRAConsumableCapacity"
K8S_GATES = (DRA, DRA_EXTENDED, DRA_PARTITIONABLE, DRA_CONSUMABLE)

METHODS = ("discovery", "featuregate-status", "metrics", "probe", "featuregate-spec", "objects", "default")
METHOD_LABELS = {
    "discovery": "API discovery",
    "featuregate-status": "OpenShift FeatureGate status",
    "metrics": "kube-apiserver /metrics",
    "probe": "dry-run probe",
    "featuregate-spec": "OpenShift FeatureGate spec",
    "objects": "existing objects",
    "default": "upstream default",
    "kueue-args": "Kueue --feature-gates",
    "kueue-config": "Kueue configuration",
    "operator": "Kueue operator",
    "kueue-default": "Kueue default",
}


@dataclass(frozen=True)
class Evidence:
    """One way of learning a gate. ``enabled`` None: this method could not tell (``detail`` why)."""

    method: str
    enabled: bool | None
    detail: str

    def to_json(self) -> dict[str, Any]:
        return {"method": self.method, "enabled": self.enabled, "detail": self.detail}


@dataclass
class GateState:
    name: str
    state: str  # on | off | unknown
    learned_from: str | None  # a METHODS entry (or a Kueue source), None when unknown
    detail: str
    evidence: list[Evidence] = field(default_factory=list)
    conflict: str | None = None  # another method disagrees (e.g. a rollout in progress)

    @property
    def on(self) -> bool:
        return self.state == ON

    def how(self) -> str:
        label = METHOD_LABELS.get(self.learned_from or "", self.learned_from or "nothing answered")
        return f"{label}: {self.detail}" if self.detail else label

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "state": self.state, "learnedFrom": self.learned_from,
                "detail": self.detail, "conflict": self.conflict,
                "evidence": [e.to_json() for e in self.evidence]}


def state_of(enabled: bool | None) -> str:
    return UNKNOWN if enabled is None else (ON if enabled else OFF)


def resolve(name: str, evidence: Iterable[Evidence], order: tuple[str, ...] = METHODS) -> GateState:
    """The gate's state from the strongest method that could tell."""
    evidence = sorted(evidence, key=lambda e: order.index(e.method) if e.method in order else len(order))
    decisive = [e for e in evidence if e.enabled is not None]
    if not decisive:
        why = "; ".join(e.detail for e in evidence if e.detail) or "no method could tell"
        return GateState(name, UNKNOWN, None, why, list(evidence))
    best = decisive[0]
    state = GateState(name, state_of(best.enabled), best.method, best.detail, list(evidence))
    # Weaker methods that only record the past or a default are not a conflict.
    live = {"featuregate-status", "metrics", "probe"}
    for other in decisive[1:]:
        if other.enabled != best.enabled and other.method in live and best.method in live:
            state.conflict = (f"{METHOD_LABELS[other.method]} says {state_of(other.enabled)} "
                              f"({other.detail}); a rollout may be in progress")
            break
    return state
