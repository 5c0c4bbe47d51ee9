"""What the OpenShift Kueue operator renders from the Kueue CR and the FeatureGate, and whether the
rendered ConfigMap (what Kueue reads) is that render: a **stale render** is a CR or FeatureGate
change the operator has not written yet.

The operator re-renders on any event of the Kueue CR (and every 5 minutes); it does not watch the
FeatureGate, so a FeatureGate change waits for the next CR event. It reads the FeatureGate only on
OpenShift (``project.openshift.io`` served) and only ``spec.customNoUpgrade.enabled``; when it
cannot read it, it keeps what it read last. Pure: takes objects already read.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...gates.kueue import OPERATOR_WRITES, SOURCE_GATES
from ..config.mappings import Mapping, parse_mappings

DRA_GATES = tuple(OPERATOR_WRITES.values())
RECONCILE_ANNOTATION = "kueue-dra.io/reconcile"
RECONCILE_COMMAND = (f"oc annotate kueues.kueue.openshift.io cluster {RECONCILE_ANNOTATION}=\"$(date +%s)\" "
                     "--overwrite")


@dataclass(frozen=True)
class ExpectedRender:
    mappings: tuple[Mapping, ...]
    feature_gates: dict[str, bool]
    gates_known: bool  # False: the operator keeps gates it read earlier (no FeatureGate readable now)
    why: str  # how the gates were decided


def _custom_enabled(feature_gate: dict[str, Any] | None) -> set[str]:
    spec = (feature_gate or {}).get("spec") or {}
    if spec.get("featureSet") != "CustomNoUpgrade":
        return set()
    return {str(g) for g in ((spec.get("customNoUpgrade") or {}).get("enabled") or [])}


def dra_inputs(feature_gate: dict[str, Any] | None, *, openshift: bool) -> tuple[set[str], bool, str]:
    """(Kubernetes DRA gates the operator sees enabled, whether that is known, why)."""
    if not openshift:
        return set(), True, "not OpenShift to the operator (project.openshift.io not served): FeatureGate not read"
    if feature_gate is None:
        return set(), False, "no FeatureGate cluster: the operator keeps the gates it read last (none at start)"
    spec = feature_gate.get("spec") or {}
    feature_set = spec.get("featureSet") or "Default"
    if feature_set != "CustomNoUpgrade":
        return set(), True, f"FeatureGate featureSet {feature_set}: the operator reads spec.customNoUpgrade only"
    return _custom_enabled(feature_gate), True, "FeatureGate spec.customNoUpgrade.enabled"


def expected_render(cr: dict[str, Any] | None, feature_gate: dict[str, Any] | None, *,
                    openshift: bool) -> ExpectedRender:
    config = ((cr or {}).get("spec") or {}).get("config") or {}
    mappings = tuple(parse_mappings((config.get("resources") or {}).get("deviceClassMappings")))
    enabled, known, why = dra_inputs(feature_gate, openshift=openshift)
    gates: dict[str, bool] = {}
    for k8s_gate, kueue_gate in OPERATOR_WRITES.items():
        # a source gate only once a mapping has sources
        if k8s_gate in enabled and (kueue_gate not in SOURCE_GATES.values() or any(m.sources for m in mappings)):
            gates[kueue_gate] = True
    integrations = config.get("integrations") or {}
    if "SparkApplication" in (integrations.get("frameworks") or []):
        gates["SparkApplicationIntegration"] = True
    if integrations.get("externalFrameworks") or ((config.get("multiKueue") or {}).get("externalFrameworks")):
        gates["ShortWorkloadNames"] = True
    return ExpectedRender(mappings, gates, known, why)


def _mapping_text(m: Mapping) -> str:
    sources = "".join(f" +{s.type} {s.name}@{s.driver}" for s in m.sources)
    return f"{m.name} ({', '.join(m.device_class_names)}){sources}"


def stale_differences(expected: ExpectedRender, rendered: dict[str, Any]) -> list[str]:
    """What the rendered configuration lacks of the expected render (empty: up to date)."""
    out = []
    got = {m.name: m for m in parse_mappings((rendered.get("resources") or {}).get("deviceClassMappings"))}
    want = {m.name: m for m in expected.mappings}
    for name in sorted(set(want) | set(got)):
        if name not in got:
            out.append(f"mapping {_mapping_text(want[name])} is in the CR but not rendered")
        elif name not in want:
            out.append(f"mapping {_mapping_text(got[name])} is rendered but no longer in the CR")
        elif got[name] != want[name]:
            out.append(f"mapping {name} is rendered as {_mapping_text(got[name])}, the CR says "
                       f"{_mapping_text(want[name])}")
    gates = rendered.get("featureGates") or {}
    for gate in sorted(set(expected.feature_gates) | {g for g in gates if gates.get(g)}):
        if gate in DRA_GATES and not expected.gates_known:
            continue
        want_on, got_on = bool(expected.feature_gates.get(gate)), bool(gates.get(gate))
        if want_on != got_on:
            out.append(f"featureGates {gate} is rendered {'on' if got_on else 'off'}, the operator would now "
                       f"write it {'on' if want_on else 'off'} ({expected.why})")
    return out
