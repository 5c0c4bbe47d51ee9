"""Kubernetes DRA gates: upstream defaults per version, the /metrics series, dry-run probe results,
stored objects, and the resolution of all of them (with the OpenShift FeatureGate)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from operator import methodcaller
from typing import Any, Protocol

from .model import (DRA, DRA_CONSUMABLE, DRA_EXTENDED, DRA_PARTITIONABLE, K8S_GATES, Evidence,
                    GateState, resolve)
from .openshift import featuregate_spec, featuregate_spec_evidence, featuregate_status_evidence
from .versions import kube_minor  # noqa: F401  (gates.kube_minor: the one parser of a server's version)

# Upstream stage and default per Kubernetes minor: the versioned feature specs of k8s.io/kubernetes
# pkg/features/kube_features.go (v1.36.3), the 1.37 entry from the research notes (k8s-dra-api.md
# §6). A minor not listed takes the nearest lower one; below the first, the gate does not exist
# (its fields are not served, so it is off). The four gates Kueue's paths need come first; the
# other DRA gates are listed so that ``verify`` can say the state of every one.
_K8S_SPECS: dict[str, dict[int, tuple[str, bool]]] = {
    DRA: {26: ("ALPHA", False), 32: ("BETA", False), 34: ("GA", True)},
    DRA_EXTENDED: {34: ("ALPHA", False), 36: ("BETA", True), 37: ("GA", True)},
    DRA_PARTITIONABLE: {33: ("ALPHA", False), 36: ("BETA", True)},
    DRA_CONSUMABLE: {34: ("ALPHA", False), 36: ("BETA", True)},
    "DRAAdminAccess": {32: ("ALPHA", False), 34: ("BETA", True), 36: ("GA", True)},
    "DRADeviceBindingConditions": {34: ("ALPHA", False), 36: ("BETA", True)},
    "DRADeviceTaintRules": {35: ("ALPHA", False), 36: ("BETA", False)},
    "DRADeviceTaints": {33: ("ALPHA", False), 36: ("BETA", True)},
    "DRAListTypeAttributes": {36: ("ALPHA", False)},
    "DRANodeAllocatableResources": {36: ("ALPHA", False)},
    "DRAPrioritizedList": {33: ("ALPHA", False), 34: ("BETA", True), 36: ("GA", True)},
    "DRAResourceClaimDeviceStatus": {32: ("ALPHA", False), 33: ("BETA", True)},
    "DRAResourceClaimGranularStatusAuthorization": {36: ("BETA", True)},
    "DRAResourcePoolStatus": {36: ("ALPHA", False)},
    "DRASchedulerFilterTimeout": {34: ("BETA", True)},
    "DRAWorkloadResourceClaims": {36: ("ALPHA", False)},
}
#: every DRA gate this plugin knows: the four the paths need, then the others by name
DRA_GATES = K8S_GATES + tuple(sorted(set(_K8S_SPECS) - set(K8S_GATES)))

#: the Kubernetes minor from which resource.k8s.io/v1 is served (DynamicResourceAllocation GA):
#: Kueue's DRA integration reads only v1
DRA_V1_MINOR = 34


def is_dra_gate(name: str) -> bool:
    """A Kubernetes gate of DRA: DynamicResourceAllocation and every DRA* gate."""
    return name == DRA or name.startswith("DRA")


def minimum_minor(gate: str) -> int:
    """The first Kubernetes minor where Kueue can use the feature of ``gate``: the gate exists and
    resource.k8s.io/v1 is served."""
    return max(DRA_V1_MINOR, min(_K8S_SPECS[gate]))


def default_on_minor(gate: str) -> int | None:
    """The first Kubernetes minor where ``gate`` is on by default (None: not yet)."""
    on = [m for m, (_, default) in _K8S_SPECS[gate].items() if default]
    return min(on) if on else None


def kubernetes_default(gate: str, minor: int) -> tuple[str, bool] | None:
    """(stage, default) of a gate in a Kubernetes minor; None when the gate does not exist yet."""
    spec = _K8S_SPECS.get(gate) or {}
    known = [m for m in spec if m <= minor]
    return spec[max(known)] if known else None


def default_evidence(gate: str, minor: int | None, where: str = "") -> Evidence:
    if minor is None:
        return Evidence("default", None, "the Kubernetes version is unknown")
    found = kubernetes_default(gate, minor)
    suffix = f" ({where})" if where else ""
    if found is None:
        return Evidence("default", False, f"{gate} does not exist in Kubernetes 1.{minor}{suffix}")
    stage, default = found
    return Evidence("default", default, f"{stage.lower()}, {'on' if default else 'off'} by default in "
                                        f"Kubernetes 1.{minor}{suffix}")


# ---- /metrics -----------------------------------------------------------------------------------

@dataclass(frozen=True)
class FeatureMetric:
    enabled: bool
    stage: str


_SAMPLE = re.compile(r"^kubernetes_feature_enabled\{(?P<labels>.*)\}\s+(?P<value>\S+)")
_LABEL = re.compile(r'\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*"((?:[^"\\]|\\.)*)"\s*,?')


def _unescape(value: str) -> str:
    return re.sub(r'\\(.)', lambda m: "\n" if m.group(1) == "n" else m.group(1), value)


def parse_feature_metrics(text: str) -> dict[str, FeatureMetric]:
    """``kubernetes_feature_enabled{name="X",stage="BETA"} 1`` samples from the Prometheus text
    format, by gate name. Comments, other series and malformed samples are ignored."""
    found: dict[str, FeatureMetric] = {}
    for line in text.splitlines():
        if not line.startswith("kubernetes_feature_enabled{"):
            continue
        match = _SAMPLE.match(line.strip())
        if not match:
            continue
        labels = {k: _unescape(v) for k, v in _LABEL.findall(match.group("labels"))}
        try:
            value = float(match.group("value"))
        except ValueError:
            continue
        if "name" not in labels or value != value:  # NaN
            continue
        found[labels["name"]] = FeatureMetric(value != 0, labels.get("stage", ""))
    return found


def metrics_evidence(gate: str, metrics: dict[str, FeatureMetric] | None, problem: str | None) -> Evidence:
    if metrics is None:
        return Evidence("metrics", None, problem or "/metrics was not read")
    sample = metrics.get(gate)
    if sample is None:
        if not metrics:
            return Evidence("metrics", None, "/metrics has no kubernetes_feature_enabled series")
        return Evidence("metrics", False, f"{gate} is not registered in this kube-apiserver")
    stage = sample.stage.lower() or "GA"
    return Evidence("metrics", sample.enabled,
                    f'kubernetes_feature_enabled{{name="{gate}"}} {1 if sample.enabled else 0} ({stage})')


# ---- evidence from stored objects and dry-run probes --------------------------------------------

class ModelsOf(Protocol):
    """What the reader found of the slices' device lists (``dra.devices.DeviceModels``)."""

    def models_of(self, items: list[Any]) -> tuple[tuple[Any, ...], tuple[Any, ...]] | None: ...


def objects_evidence(gate: str, device_classes: list[dict[str, Any]] | None,
                     slices: list[dict[str, Any]] | None, models: ModelsOf | None = None) -> Evidence | None:
    """Only positive: a stored gated field shows the gate was on when the object was written.
    ``models``: what the reader found of the slices' devices; a device list alike its models holds
    their fields, so the distinct models are looked at, once for every list alike them."""
    if gate == DRA_EXTENDED:
        for dc in device_classes or []:
            if (dc.get("spec") or {}).get("extendedResourceName"):
                return Evidence("objects", True, f"DeviceClass {dc['metadata']['name']} has "
                                                 "spec.extendedResourceName (kept only while the gate is on)")
    if gate in (DRA_PARTITIONABLE, DRA_CONSUMABLE):
        plain: set[int] = set()  # capacities without a requestPolicy (devices of a model share one)
        looked: set[int] = set()  # ids of the distinct models of lists looked at
        for s in slices or []:
            spec = s.get("spec") or {}
            devices = spec.get("devices") or []
            found = models.models_of(devices) if models is not None else None
            if found is not None:
                devices = [] if id(found[1]) in looked else list(found[1])
                looked.add(id(found[1]))
            if gate == DRA_PARTITIONABLE and any(map(_CONSUMES, devices)):
                return Evidence("objects", True, f"ResourceSlice {s['metadata']['name']} has "
                                                 "consumesCounters (kept only while the gate is on)")
            if gate == DRA_CONSUMABLE and (any(map(_MULTIPLE, devices)) or _has_request_policy(devices, plain)):
                return Evidence("objects", True, f"ResourceSlice {s['metadata']['name']} has "
                                                 "consumable-capacity fields (kept only while the gate is on)")
            if gate == DRA_PARTITIONABLE and spec.get("sharedCounters"):
                return Evidence("objects", True, f"ResourceSlice {s['metadata']['name']} has "
                                                 "sharedCounters (kept only while the gate is on)")
    return None


_CONSUMES = methodcaller("get", "consumesCounters")
_MULTIPLE = methodcaller("get", "allowMultipleAllocations")
_CAPACITY = methodcaller("get", "capacity")


def _has_request_policy(devices: list[Any], plain: set[int]) -> bool:
    """Whether a capacity of a device has a requestPolicy; ``plain`` holds the ids of the
    capacities already found without one (a shared capacity is looked at once; the devices keep
    them alive)."""
    held = list(filter(None, map(_CAPACITY, devices)))
    for key, capacity in dict(zip(map(id, held), held)).items():
        if key in plain:
            continue
        if any(isinstance(c, dict) and c.get("requestPolicy") for c in capacity.values()):
            return True
        plain.add(key)
    return False


#: the fields the API server drops from what it stores while each gate is off (the
#: ``dropDisabledFields`` of the DeviceClass and ResourceSlice strategies), by kind and path; ``*``
#: is every item of a list or value of a map (``k8s/written``)
GATED_FIELDS: dict[str, tuple[tuple[str, tuple[str, ...]], ...]] = {
    DRA_EXTENDED: (("DeviceClass", ("spec", "extendedResourceName")),),
    DRA_PARTITIONABLE: (("ResourceSlice", ("spec", "sharedCounters")),
                        ("ResourceSlice", ("spec", "devices", "*", "consumesCounters"))),
    DRA_CONSUMABLE: (("ResourceSlice", ("spec", "devices", "*", "allowMultipleAllocations")),
                     ("ResourceSlice", ("spec", "devices", "*", "capacity", "*", "requestPolicy"))),
}

#: what each probe sends and the field whose survival tells the gate's state
PROBED_FIELD = {
    DRA_EXTENDED: ("DeviceClass", "spec.extendedResourceName"),
    DRA_PARTITIONABLE: ("ResourceSlice", "spec.sharedCounters"),
    DRA_CONSUMABLE: ("ResourceSlice", "spec.devices[0].allowMultipleAllocations"),
}


def probe_field_kept(gate: str, returned: dict[str, Any]) -> bool:
    spec = returned.get("spec") or {}
    if gate == DRA_EXTENDED:
        return bool(spec.get("extendedResourceName"))
    if gate == DRA_PARTITIONABLE:
        return bool(spec.get("sharedCounters"))
    if gate == DRA_CONSUMABLE:
        devices = spec.get("devices") or [{}]
        device = devices[0]
        return bool(device.get("allowMultipleAllocations") or (device.get("basic") or {}).get(
            "allowMultipleAllocations"))
    raise KeyError(gate)


PROBE_NAME_PREFIX = "kueue-dra-probe-"
PROBE_DRIVER = "probe.kueue-dra.invalid"


def probe_bodies(api_version: str) -> dict[str, tuple[str, dict[str, Any]]]:
    """gate → (kind, object) to dry-run create, in the shape of the served ``api_version``. Each
    object has a generated name, so it can never collide with a real one."""
    meta = {"generateName": PROBE_NAME_PREFIX,
            "labels": {"app.kubernetes.io/managed-by": "kueue-dra-verify-probe"}}
    pool = {"name": "probe", "generation": 1, "resourceSliceCount": 1}
    device: dict[str, Any] = {"name": "probe", "allowMultipleAllocations": True,
                              "capacity": {"probe": {"value": "1"}}}
    if api_version == "resource.k8s.io/v1beta1":
        device = {"name": "probe", "basic": {k: v for k, v in device.items() if k != "name"}}
    return {
        DRA_EXTENDED: ("DeviceClass", {
            "apiVersion": api_version, "kind": "DeviceClass", "metadata": meta,
            "spec": {"extendedResourceName": "probe.kueue-dra.invalid/device"}}),
        # Since 1.35 a slice holds either devices or shared counters, so this one has only counters.
        DRA_PARTITIONABLE: ("ResourceSlice", {
            "apiVersion": api_version, "kind": "ResourceSlice", "metadata": meta,
            "spec": {"driver": PROBE_DRIVER, "pool": pool, "allNodes": True,
                     "sharedCounters": [{"name": "probe", "counters": {"probe": {"value": "1"}}}]}}),
        DRA_CONSUMABLE: ("ResourceSlice", {
            "apiVersion": api_version, "kind": "ResourceSlice", "metadata": meta,
            "spec": {"driver": PROBE_DRIVER, "pool": pool, "allNodes": True, "devices": [device]}}),
    }


def probe_evidence(gate: str, returned: dict[str, Any]) -> Evidence:
    kind, path = PROBED_FIELD[gate]
    if probe_field_kept(gate, returned):
        return Evidence("probe", True, f"a dry-run create of a {kind} kept {path} (nothing was persisted)")
    return Evidence("probe", False, f"a dry-run create of a {kind} dropped {path} (nothing was persisted)")


# ---- resolving the Kubernetes gates -------------------------------------------------------------

@dataclass
class KubernetesInputs:
    """Everything the Kubernetes gate resolution looks at; None = not available."""

    dra_served: bool | None = None  # resource.k8s.io/v1 served
    dra_versions: list[str] | None = None  # served resource.k8s.io versions
    minor: int | None = None
    minor_source: str = ""  # "/version", "OpenShift 4.21", ...
    metrics: dict[str, FeatureMetric] | None = None
    metrics_problem: str | None = None
    probes: dict[str, Evidence] = field(default_factory=dict)
    feature_gate: dict[str, Any] | None = None
    openshift_version: str | None = None
    device_classes: list[dict[str, Any]] | None = None
    slices: list[dict[str, Any]] | None = None
    device_models: ModelsOf | None = field(default=None, repr=False, compare=False)  # of the slices
    #: gate → a stored object that was written with the gate's field, which the server dropped
    dropped: dict[str, Evidence] = field(default_factory=dict)
    #: gate → what the stored objects say of it, looked for once (the classes and slices do not
    #: change while the gates are resolved again after each probe)
    _stored: dict[str, Evidence | None] = field(default_factory=dict, repr=False, compare=False)

    def stored_evidence(self, gate: str) -> Evidence | None:
        if gate not in self._stored:
            self._stored[gate] = objects_evidence(gate, self.device_classes, self.slices, self.device_models)
        return self._stored[gate]


def resolve_kubernetes_gates(inp: KubernetesInputs) -> dict[str, GateState]:
    spec = featuregate_spec(inp.feature_gate)
    out: dict[str, GateState] = {}
    for gate in dra_gate_names(inp):
        evidence: list[Evidence] = []
        if gate == DRA and inp.dra_versions is not None:
            if inp.dra_served:
                evidence.append(Evidence("discovery", True, "resource.k8s.io/v1 is served"))
            elif inp.dra_versions:
                evidence.append(Evidence("discovery", False, "only resource.k8s.io/" + ", ".join(
                    inp.dra_versions) + " is served; Kueue needs v1"))
            else:
                evidence.append(Evidence("discovery", False, "resource.k8s.io is not served"))
        for found in (featuregate_status_evidence(gate, inp.feature_gate, inp.openshift_version),
                      featuregate_spec_evidence(gate, spec)):
            if found is not None:
                evidence.append(found)
        if inp.metrics is not None or inp.metrics_problem:
            evidence.append(metrics_evidence(gate, inp.metrics, inp.metrics_problem))
        if gate in inp.probes:
            evidence.append(inp.probes[gate])
        found = inp.stored_evidence(gate) or inp.dropped.get(gate)
        if found is not None:
            evidence.append(found)
        if gate in _K8S_SPECS:
            evidence.append(default_evidence(gate, inp.minor, inp.minor_source))
        else:
            evidence.append(Evidence("default", None, f"{gate} is not in this plugin's table of "
                                                      "Kubernetes gates, so its default is not known"))
        out[gate] = resolve(gate, evidence)
    return out


def dra_gate_names(inp: KubernetesInputs) -> list[str]:
    """The DRA gates to resolve: those this plugin knows, then any other DRA gate the server's
    /metrics or the OpenShift FeatureGate names (a newer Kubernetes)."""
    seen = set(inp.metrics or {})
    for entry in ((inp.feature_gate or {}).get("status") or {}).get("featureGates") or []:
        for key in ("enabled", "disabled"):
            seen |= {str(i.get("name")) if isinstance(i, dict) else str(i) for i in entry.get(key) or []}
    extra = sorted(n for n in seen if is_dra_gate(n) and n not in DRA_GATES)
    return list(DRA_GATES) + extra
