"""What the scheduler actually allocated to a workload's pods, beside what Kueue charged.

Pods → their ResourceClaims (``status.resourceClaimStatuses`` for template claims, the scheduler's
extended-resource claim) → ``status.allocation.devices.results`` → the device in its
ResourceSlice → the counters it consumes.
"""

from typing import Any

from ..dra.quantity import parse_quantity


def _claim_names(pod: dict[str, Any]) -> list[tuple[str, str]]:
    """(pod claim name, ResourceClaim name) for every claim the pod has."""
    spec, status = pod.get("spec") or {}, pod.get("status") or {}
    generated = {s.get("name"): s.get("resourceClaimName") for s in status.get("resourceClaimStatuses") or []}
    out = []
    for c in spec.get("resourceClaims") or []:
        name = c.get("resourceClaimName") or generated.get(c.get("name"))
        if name:
            out.append((c.get("name"), name))
    er = (status.get("extendedResourceClaimStatus") or {}).get("resourceClaimName")
    if er:
        out.append(("(extended resources)", er))
    return out


def _device_index(slices: list[dict[str, Any]]) -> dict[tuple[Any, Any, Any], dict[str, Any]]:
    """Devices by (driver, pool, name) as the slices spell them (a missing field is None)."""
    index: dict[tuple[Any, Any, Any], dict[str, Any]] = {}
    for s in slices:
        spec = s.get("spec") or {}
        for d in spec.get("devices") or []:
            index[(spec.get("driver"), (spec.get("pool") or {}).get("name"), d.get("name"))] = d
    return index


def _reserved(claim: dict[str, Any] | None) -> bool | None:
    """Whether a pod holds the claim (``status.reservedFor``); None when the claim could not be read."""
    return None if claim is None else bool((claim.get("status") or {}).get("reservedFor"))


def allocations(pods: list[dict[str, Any]], claims: list[dict[str, Any]] | None,
                slices: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    """One entry per allocated device of each pod's claims (or one per claim without an allocation);
    ``claims`` None (unreadable) leaves ``allocated`` and ``reserved`` None: unknown, not false;
    ``slices`` None (unreadable) leaves each device's ``counters`` None."""
    by_name = {c["metadata"]["name"]: c for c in claims or []}
    devices = _device_index(slices or [])
    out = []
    for pod in sorted(pods, key=lambda p: p["metadata"]["name"]):
        for pod_claim, claim_name in _claim_names(pod):
            claim = by_name.get(claim_name)
            results = ((((claim or {}).get("status") or {}).get("allocation") or {}).get("devices") or {}).get(
                "results") or []
            reserved = _reserved(claim) if claims is not None else None
            if not results:
                out.append({"pod": pod["metadata"]["name"], "claim": claim_name, "podClaim": pod_claim,
                            "request": None, "device": None, "counters": {},
                            "allocated": False if claims is not None else None, "reserved": reserved})
            for r in results:
                device = devices.get((r.get("driver"), r.get("pool"), r.get("device"))) or {}
                counters = _consumed(device) if slices is not None else None
                out.append({"pod": pod["metadata"]["name"], "claim": claim_name, "podClaim": pod_claim,
                            "request": r.get("request"),
                            "device": f"{r.get('driver')}/{r.get('pool')}/{r.get('device')}",
                            "counters": counters, "allocated": True, "reserved": reserved})
    return out


def _consumed(device: dict[str, Any]) -> dict[str, str]:
    counters: dict[str, str] = {}
    for consumption in device.get("consumesCounters") or []:
        for name, value in (consumption.get("counters") or {}).items():
            counters[name] = str(parse_quantity((value or {}).get("value", "0")))
    return counters


def overcharge(allocated: list[dict[str, Any]], counter: str, charged_per_device: str) -> list[str]:
    """Devices whose consumed counter is below what Kueue charged per device (MAX charging)."""
    charged = parse_quantity(charged_per_device)
    return [a["device"] for a in allocated
            if counter in (a["counters"] or {}) and parse_quantity(a["counters"][counter]) < charged]
