"""Checks of the Kubernetes side: the DRA API, the DRA feature gates, and on OpenShift what the
Kueue operator makes of them."""

from __future__ import annotations

from typing import Any

from ... import gates as g
from ..dropped import finding
from . import fixes
from .facts import Facts
from .model import EXTENDED, FAIL, PARTITIONABLE, PASS, SKIP, WARN
from .registry import Result, check

WHY = {
    g.DRA_EXTENDED: "while it is off the API server drops DeviceClass spec.extendedResourceName, so "
                    "pods requesting an extended resource are not backed by DRA devices",
    g.DRA_PARTITIONABLE: "while it is off the API server drops ResourceSlice sharedCounters and "
                         "consumesCounters, so counter-based quota has nothing to count",
    g.DRA_CONSUMABLE: "while it is off the API server drops the consumable-capacity fields of devices, "
                      "so capacity sources have nothing to count",
}


def _extra(state: g.GateState) -> dict[str, Any]:
    return {"learnedFrom": state.learned_from, "gate": state.name, "state": state.state}


@check("dra-api", "gates")
def dra_api(f: Facts) -> Result:
    state = f.k8s_gates[g.DRA]
    if state.learned_from == "discovery":
        if state.on:
            where = f" ({f.server_version})" if f.server_version else ""
            return Result(PASS, f"{g.DRA} is on: {state.detail}{where}", extra=_extra(state))
        return Result(FAIL, f"{state.detail}: Kueue's DRA quota needs resource.k8s.io/v1",
                      "upgrade to Kubernetes 1.34 or later (OpenShift 4.21 or later)", _extra(state))
    if "discovery" in f.unreadable:
        return Result(SKIP, f.unreadable["discovery"], extra=_extra(state))
    if not f.live:
        return Result(SKIP, "the snapshot has no resource.k8s.io objects, so it does not show whether "
                            "the DRA API is served", extra=_extra(state))
    return Result(WARN, f"{g.DRA}: {state.state} ({state.how()})", extra=_extra(state))


def openshift_note(f: Facts, gate: str) -> str:
    """On OpenShift, which FeatureSet of FeatureGate cluster turns ``gate`` on in its release
    (``; in OpenShift 4.22 featureSet TechPreviewNoUpgrade …``); empty elsewhere or when unknown."""
    if not f.openshift:
        return ""
    said = g.enabling_feature_sets(gate, g.release_of(f.openshift_version))
    return f"; {said}" if said else ""


def _gate(f: Facts, gate: str) -> Result:
    state = f.k8s_gates[gate]
    extra = _extra(state)
    note = openshift_note(f, gate)
    if note:
        extra["featureSets"] = note[2:]
    if state.state == g.UNKNOWN:
        if not f.live:
            return Result(SKIP, f"{gate}: cannot tell from a snapshot ({state.detail})", extra=extra)
        return Result(WARN, f"{gate}: could not tell ({state.detail})",
                      "let the plugin read /metrics: ask for the ClusterRole system:monitoring (or "
                      "deploy/rbac/reader-clusterrole.yaml)", extra)
    if state.on:
        if state.conflict:
            return Result(WARN, f"{gate} is on ({state.how()}), but {state.conflict}{note}", extra=extra)
        return Result(PASS, f"{gate} is on ({state.how()}){note}", extra=extra)
    fix = fixes.enable_kubernetes_gate(f, gate)
    if state.learned_from == "default":
        return Result(WARN, f"{gate} is probably off ({state.how()}; nothing else could tell): {WHY[gate]}{note}",
                      fix, extra)
    return Result(FAIL, f"{gate} is off ({state.how()}): {WHY[gate]}{note}", fix, extra)


@check("gate-DRAExtendedResource", "gates", paths=(EXTENDED,))
def extended_gate(f: Facts) -> Result:
    return _gate(f, g.DRA_EXTENDED)


@check("gate-DRAPartitionableDevices", "gates", paths=(PARTITIONABLE,))
def partitionable_gate(f: Facts) -> Result:
    return _gate(f, g.DRA_PARTITIONABLE)


@check("gate-DRAConsumableCapacity", "gates", paths=(PARTITIONABLE,),
       applies=lambda f: f.capacity_sources())
def consumable_gate(f: Facts) -> Result:
    return _gate(f, g.DRA_CONSUMABLE)


def _operator_managed(f: Facts) -> bool:
    return f.install.openshift


@check("openshift-operator-gates", "gates", applies=_operator_managed)
def operator_detection(f: Facts) -> Result:
    if f.feature_gate is None and "FeatureGate" in f.unreadable:
        return Result(SKIP, f.unreadable["FeatureGate"])  # what the operator reads is unknown
    spec = g.featuregate_spec(f.feature_gate)
    gaps = g.operator_detection_gaps(f.k8s_gates, spec, f.kueue_gates.version,
                                     counter_sources=f.counter_sources(),
                                     extended_classes=bool(f.extended_classes()))
    seen = sorted(set(spec.enabled) & set(g.OPERATOR_WRITES)) if spec and spec.custom else []
    if not gaps:
        if f.feature_gate is None and "FeatureGate" in f.unreadable:
            return Result(SKIP, f"{f.unreadable['FeatureGate']}: which Kueue DRA gates the operator turns on "
                                "is unknown")
        if f.feature_gate is None:
            where = "" if f.live else " in the snapshot"
            return Result(PASS, f"there is no FeatureGate cluster{where}: the operator turns no Kueue DRA gate on "
                                "(Kueue's defaults apply)")
        if spec is None or not spec.custom:
            feature_set = (spec.feature_set if spec is not None else None) or "Default"
            return Result(PASS, f"the operator sees what is on: FeatureGate featureSet {feature_set} has no "
                                "spec.customNoUpgrade.enabled, so the operator turns no Kueue DRA gate on")
        said = ", ".join(seen) if seen else "no DRA gate"
        return Result(PASS, f"the operator sees what is on: FeatureGate spec.customNoUpgrade.enabled has {said}")
    parts = [f"{gap.gate} is on ({gap.how_on}) but the operator reads only FeatureGate "
             f"spec.customNoUpgrade.enabled: {gap.consequence}" for gap in gaps]
    fix_gate = gaps[0].gate
    if f.kueue_gates.version < (0, 19):
        fix = ("upgrade the Kueue operator to 1.5 (Kueue 0.19+ has the DRA gates on by default); or "
               + fixes.enable_kubernetes_gate(f, fix_gate))
    else:
        fix = fixes.enable_kubernetes_gate(f, fix_gate)
    return Result(WARN, "; ".join(parts), fix, {"gaps": [gap.gate for gap in gaps]})


@check("dropped-fields", "gates", applies=lambda f: bool(f.dropped))
def dropped_fields(f: Facts) -> Result:
    """Objects written with a gated field the API server did not store: what the gate's state was
    when they were written, whatever it is now; they must be written again."""
    shown = "; ".join(d.message(f.k8s_gates.get(d.gate)) for d in f.dropped[:3])
    more = f" (and {len(f.dropped) - 3} more)" if len(f.dropped) > 3 else ""
    first = finding(f.dropped[0], now=f.k8s_gates.get(f.dropped[0].gate), openshift=f.openshift,
                    openshift_release=g.release_of(f.openshift_version))
    return Result(WARN, f"{len(f.dropped)} field(s) written but not stored: {shown}{more}", first["fix"],
                  {"dropped": [d.to_json() for d in f.dropped], "code": first["code"]})


@check("malformed-objects", "devices", applies=lambda f: bool(f.malformed))
def malformed_objects(f: Facts) -> Result:
    """Fields of the wrong type: removed where they were read, so every check below treats them
    as absent; each one named."""
    shown = "; ".join(m.message() for m in f.malformed[:5])
    more = f" (and {len(f.malformed) - 5} more)" if len(f.malformed) > 5 else ""
    return Result(WARN, f"{len(f.malformed)} field(s) of the wrong type: {shown}{more}",
                  "fix the fields named; checks that read them are answered as if they were absent",
                  {"malformed": [{"object": m.object_ref, "field": m.path, "value": m.value} for m in f.malformed]})
