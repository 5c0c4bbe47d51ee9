"""Reading feature-gate evidence from a live API server: ``/metrics`` and dry-run probes.

A probe is a server-side dry-run create (``?dryRun=All``): the API server runs defaulting, the
field-dropping of disabled gates and validation, and returns the object it *would* store, but
stores nothing. The object gets a generated name, so it can never collide with a real one.
"""

from __future__ import annotations

from typing import Any

from ..gates import (DRA_CONSUMABLE, DRA_EXTENDED, DRA_PARTITIONABLE, Evidence, FeatureMetric,
                     parse_feature_metrics, probe_evidence)
from . import errors
from .kinds import KINDS

PROBE_NAME_PREFIX = "kueue-dra-probe-"
PROBE_DRIVER = "probe.kueue-dra.invalid"


def _target(verb: str, resource: str, name: str | None = None) -> Any:
    from .client import Target

    return Target(verb, resource, None, name)


def read_feature_metrics(client: Any) -> tuple[dict[str, FeatureMetric] | None, str | None]:
    """The ``kubernetes_feature_enabled`` samples of the serving kube-apiserver, or (None, why)."""
    try:
        text = client.request("GET", "/metrics", _target("get", "/metrics"), text=True)
    except errors.Forbidden as e:
        return None, e.message
    except errors.KubeError as e:
        return None, f"/metrics could not be read: {e.message}"
    return parse_feature_metrics(text), None


def probe_bodies(api_version: str) -> dict[str, tuple[str, dict[str, Any]]]:
    """gate → (kind, object) to dry-run create, in the shape of the served version."""
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


def dry_run_probe(view: Any, gate: str) -> Evidence:
    """Dry-run create an object with the gate's field and report whether the server kept it.
    A 403 (no create permission) or any other refusal is an answer of "could not tell"."""
    kind = KINDS["DeviceClass"]
    version = view.api_version(kind)
    if version is None:
        return Evidence("probe", None, "resource.k8s.io is not served")
    api_version = f"{kind.group}/{version}"
    kind_name, body = probe_bodies(api_version)[gate]
    k = KINDS[kind_name]
    path = f"/apis/{k.group}/{version}/{k.plural}"
    try:
        returned = view.client.request("POST", path, _target("create", k.resource),
                                       query={"dryRun": "All"}, body=body)
    except errors.Forbidden:
        return Evidence("probe", None, f"no permission to dry-run create {k.resource}")
    except errors.KubeError as e:
        return Evidence("probe", None, f"the dry-run create of a {kind_name} was refused: {e.message}")
    return probe_evidence(gate, returned)
