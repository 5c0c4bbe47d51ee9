"""Normalise DRA objects of older API versions to the ``resource.k8s.io/v1`` shape.

``v1beta2`` already has the v1 shape. ``v1beta1`` differs in two places:
  * ResourceSlice devices wrap their fields in ``basic``;
  * claim requests carry the ``exactly`` fields flat on the request.
Everything else (field names, value encodings) is the same, so the conversion is a reshaping and
unknown fields pass through untouched. Objects are converted in place and returned.
"""

from typing import Any

_EXACT_FIELDS = ("deviceClassName", "selectors", "allocationMode", "count", "adminAccess",
                 "tolerations", "capacity")


def _flatten_device(device: dict[str, Any]) -> dict[str, Any]:
    basic = device.pop("basic", None)
    if isinstance(basic, dict):
        for key, value in basic.items():
            device.setdefault(key, value)
    return device


def _nest_request(request: dict[str, Any]) -> dict[str, Any]:
    if "exactly" in request or "firstAvailable" in request:
        return request
    exactly = {f: request.pop(f) for f in _EXACT_FIELDS if f in request}
    if exactly:
        request["exactly"] = exactly
    return request


def _claim_spec(spec: dict[str, Any] | None) -> None:
    for request in ((spec or {}).get("devices") or {}).get("requests") or []:
        _nest_request(request)


def to_v1(obj: dict[str, Any]) -> dict[str, Any]:
    """Reshape one ``resource.k8s.io`` object to v1; other objects are returned unchanged."""
    api_version = obj.get("apiVersion", "")
    if not api_version.startswith("resource.k8s.io/") or api_version == "resource.k8s.io/v1":
        return obj
    kind = obj.get("kind")
    if api_version == "resource.k8s.io/v1beta1":
        if kind == "ResourceSlice":
            for device in (obj.get("spec") or {}).get("devices") or []:
                _flatten_device(device)
        elif kind == "ResourceClaim":
            _claim_spec(obj.get("spec"))
        elif kind == "ResourceClaimTemplate":
            _claim_spec((obj.get("spec") or {}).get("spec"))
    if kind in ("DeviceClass", "ResourceSlice", "ResourceClaim", "ResourceClaimTemplate"):
        obj["apiVersion"] = "resource.k8s.io/v1"
    return obj
