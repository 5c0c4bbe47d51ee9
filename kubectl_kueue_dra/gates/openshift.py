"""OpenShift: the FeatureGate and ClusterVersion singletons, and what the Kueue operator makes of
them (it reads FeatureGate spec only; research openshift-kueue-operator.md §2.3, §4)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .kueue import OPERATOR_WRITES, kueue_default, source_refusal
from .model import DRA, DRA_EXTENDED, DRA_PARTITIONABLE, Evidence, GateState
from .versions import release_of


def openshift_version(cluster_version: dict[str, Any] | None) -> str | None:
    """The version the platform runs: status.desired.version, else the newest history entry."""
    status = (cluster_version or {}).get("status") or {}
    desired = (status.get("desired") or {}).get("version")
    if desired:
        return str(desired)
    history = status.get("history") or []
    return str(history[0].get("version")) if history and history[0].get("version") else None


def openshift_kube_minor(ocp_version: str | None) -> int | None:
    """OCP 4.20 → 1.33, 4.21 → 1.34, 4.22 → 1.35, 4.23 and 5.0 → 1.36 (openshift/api go.mod)."""
    release = release_of(ocp_version)
    if release is None:
        return None
    major, minor = release
    if major == 4 and minor >= 12:
        return minor + 13
    if major == 5 and minor == 0:
        return 36
    return None


#: the first OpenShift release whose Kubernetes serves each path's gate as Red Hat's documentation
#: of the Red Hat build of Kueue requires it ("Integrating Dynamic Resource Allocation": DRA quota
#: needs 4.21 or later, partitionable devices 4.22 or later); the operator takes no capacity sources
OPENSHIFT_MINIMUM: dict[str, tuple[int, int]] = {DRA: (4, 21), DRA_EXTENDED: (4, 21), DRA_PARTITIONABLE: (4, 22)}

#: the FeatureSets of FeatureGate ``cluster`` that turn a Kubernetes DRA gate on, per OpenShift
#: release (openshift/api ``features/features.go`` of each release branch): DRAPartitionableDevices is
#: in TechPreviewNoUpgrade and DevPreviewNoUpgrade from 4.22 (openshift/api#2694); DRAExtendedResource
#: is in no feature set of 4.21 or 4.22. CustomNoUpgrade turns on any gate it names in
#: ``spec.customNoUpgrade.enabled`` (names openshift/api does not know are passed on as they are).
#: From 4.23 (Kubernetes 1.36) openshift/api leaves both to the upstream default, which is on.
_FEATURE_SETS: dict[str, dict[tuple[int, int], tuple[str, ...]]] = {
    DRA_EXTENDED: {(4, 21): (), (4, 22): ()},
    DRA_PARTITIONABLE: {(4, 21): (), (4, 22): ("TechPreviewNoUpgrade", "DevPreviewNoUpgrade")},
}
#: the first release whose Kubernetes has both gates on by default (1.36)
UPSTREAM_DEFAULT_RELEASE = (4, 23)


def enabling_feature_sets(gate: str, release: tuple[int, int] | None) -> str | None:
    """How FeatureGate ``cluster`` turns ``gate`` on in an OpenShift release, in words; None when
    this plugin does not know the release's feature sets (too old, too new, or not a DRA path gate)."""
    if release is None or gate not in _FEATURE_SETS:
        return None
    custom = f"featureSet CustomNoUpgrade with {gate} in spec.customNoUpgrade.enabled"
    if release >= UPSTREAM_DEFAULT_RELEASE:
        return f"on by default in OpenShift {release[0]}.{release[1]} (Kubernetes 1.36), or {custom}"
    known = _FEATURE_SETS[gate].get(release)
    if known is None:
        return None
    sets = " or ".join(f"featureSet {s}" for s in known)
    return f"in OpenShift {release[0]}.{release[1]} {sets + ', or ' if sets else 'only '}{custom} turns it on"


#: the one line verify prints on OpenShift (Red Hat documents the feature as a Technology Preview)
TECHNOLOGY_PREVIEW = ("Kueue's DRA quota management is a Technology Preview feature of the Red Hat build of "
                      "Kueue on OpenShift (not supported for production use)")


def featuregate_status_entry(feature_gate: dict[str, Any] | None, version: str | None
                             ) -> tuple[dict[str, Any] | None, bool]:
    """The status.featureGates entry for ``version`` (exact=True), else the first entry (which the
    config operator writes for its own version), else None."""
    entries = ((feature_gate or {}).get("status") or {}).get("featureGates") or []
    for entry in entries:
        if version and entry.get("version") == version:
            return entry, True
    return (entries[0], False) if entries else (None, False)


def _names(items: Any) -> set[str]:
    return {str(i.get("name")) if isinstance(i, dict) else str(i) for i in items or []}


def featuregate_status_evidence(gate: str, feature_gate: dict[str, Any] | None,
                                version: str | None) -> Evidence | None:
    if feature_gate is None:
        return None
    entry, exact = featuregate_status_entry(feature_gate, version)
    if entry is None:
        return Evidence("featuregate-status", None, "FeatureGate cluster has no status.featureGates")
    which = f"version {entry.get('version')}" + ("" if exact or not version else
                                                  f", none for the current {version}")
    if gate in _names(entry.get("enabled")):
        return Evidence("featuregate-status", True, f"enabled in FeatureGate cluster status ({which})")
    if gate in _names(entry.get("disabled")):
        return Evidence("featuregate-status", False, f"disabled in FeatureGate cluster status ({which})")
    return Evidence("featuregate-status", None,
                    f"not listed in FeatureGate cluster status ({which}): the upstream default applies")


@dataclass(frozen=True)
class FeatureGateSpec:
    feature_set: str
    enabled: tuple[str, ...]
    disabled: tuple[str, ...]

    @property
    def custom(self) -> bool:
        return self.feature_set == "CustomNoUpgrade"


def featuregate_spec(feature_gate: dict[str, Any] | None) -> FeatureGateSpec | None:
    if feature_gate is None:
        return None
    spec = feature_gate.get("spec") or {}
    custom = spec.get("customNoUpgrade") or {}
    return FeatureGateSpec(str(spec.get("featureSet") or ""), tuple(custom.get("enabled") or ()),
                           tuple(custom.get("disabled") or ()))


def featuregate_spec_evidence(gate: str, spec: FeatureGateSpec | None) -> Evidence | None:
    if spec is None:
        return None
    if spec.custom and gate in spec.enabled:
        return Evidence("featuregate-spec", True, "in FeatureGate spec.customNoUpgrade.enabled")
    if spec.custom and gate in spec.disabled:
        return Evidence("featuregate-spec", False, "in FeatureGate spec.customNoUpgrade.disabled")
    return Evidence("featuregate-spec", None,
                    f"FeatureGate spec.featureSet is {spec.feature_set or 'Default'}; the spec does not say")


@dataclass(frozen=True)
class DetectionGap:
    gate: str  # the Kubernetes gate
    how_on: str  # how the gate is on although the operator does not see it
    consequence: str


def operator_detection_gaps(k8s: dict[str, GateState], spec: FeatureGateSpec | None,
                            kueue_version: tuple[int, int], *, counter_sources: bool,
                            extended_classes: bool) -> list[DetectionGap]:
    """Gates that are on in the cluster but that the operator does not see, because it reads only
    FeatureGate spec.customNoUpgrade.enabled (not status, TechPreviewNoUpgrade or defaults)."""
    gaps = []
    seen = set(spec.enabled) if spec is not None and spec.custom else set()
    for gate, kueue_gate in OPERATOR_WRITES.items():
        state = k8s.get(gate)
        if state is None or not state.on or gate in seen:
            continue
        how = state.how()
        if spec is not None and spec.feature_set and not spec.custom:
            how = f"featureSet {spec.feature_set}; {how}"
        default_on = kueue_default(kueue_gate, kueue_version)
        kueue_on_anyway = bool(default_on and default_on[1])
        if gate == DRA_EXTENDED:
            if kueue_on_anyway:
                consequence = (f"the operator does not write {kueue_gate}; Kueue "
                               f"{'.'.join(map(str, kueue_version))} has it on by default, so extended "
                               "resources are still charged")
            else:
                consequence = (f"the operator leaves {kueue_gate} off (off by default in Kueue "
                               f"{'.'.join(map(str, kueue_version))}): pods requesting an extendedResourceName"
                               " are not translated to DRA quota")
                if not extended_classes:
                    consequence += " (no DeviceClass uses extendedResourceName yet)"
        else:
            if not counter_sources:
                consequence = ("the operator would not enable counter-based quota; no mapping has sources "
                               "yet, so nothing breaks now")
            elif kueue_on_anyway:
                consequence = (f"Kueue {'.'.join(map(str, kueue_version))} has {kueue_gate} on by default so "
                               "counters are charged, but the Kueue CR reports Degraded/MissingDependencies "
                               "(\"DRA Partitionable Devices requires the DRAPartitionableDevices K8s feature "
                               "gate to be enabled\")")
            else:
                consequence = (f"the operator writes the counter sources without {kueue_gate}: Kueue "
                               f"{'.'.join(map(str, kueue_version))} refuses the configuration "
                               f"(\"{source_refusal('counter')}\") and the new pod crash-loops; the Kueue CR "
                               "reports Degraded/MissingDependencies")
        gaps.append(DetectionGap(gate, how, consequence))
    return gaps
