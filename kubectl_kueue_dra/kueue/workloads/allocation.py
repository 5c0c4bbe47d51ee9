"""What the scheduler actually allocated to a workload's pods, beside what Kueue charged.

Pods → their ResourceClaims (``status.resourceClaimStatuses`` for template claims, the scheduler's
extended-resource claim) → ``status.allocation.devices.results`` → the device in its pool's
current generation (``dra/devices.group_pools``) → the counters it consumes. A device found only
in a slice of an older generation is reported as such, never with that slice's values.
"""

from typing import Any

from ...dra.devices import group_pools
from ...dra.quantity import parse_quantity

#: the label Kueue writes on the pods of an admitted pod set (their pod set's name)
PODSET_LABEL = "kueue.x-k8s.io/podset"


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


DeviceKey = tuple[Any, Any, Any]


class DeviceIndex:
    """Devices by (driver, pool, name): those of each pool's current generation, and, apart, the
    generations older slices still name (a device the allocation names only there is stale)."""

    def __init__(self, slices: list[dict[str, Any]]):
        self.current: dict[DeviceKey, dict[str, Any]] = {}
        self.node: dict[DeviceKey, str | None] = {}
        self.generation: dict[tuple[Any, Any], int] = {}
        self.stale: dict[DeviceKey, int] = {}
        pools = group_pools(slices)
        for pool in pools:
            self.generation[(pool.driver, pool.name)] = pool.generation
            for s in pool.slices:
                spec = s.get("spec") or {}
                for d in spec.get("devices") or []:
                    key = (pool.driver, pool.name, d.get("name"))
                    self.current[key] = d
                    self.node[key] = d.get("nodeName") or spec.get("nodeName")
        for s in slices:
            spec = s.get("spec") or {}
            ref = spec.get("pool") or {}
            generation = int(ref.get("generation") or 0)
            if generation >= self.generation.get((spec.get("driver") or "", ref.get("name") or ""), 0):
                continue
            for d in spec.get("devices") or []:
                key = (spec.get("driver") or "", ref.get("name") or "", d.get("name"))
                if key not in self.current:
                    self.stale[key] = max(generation, self.stale.get(key, 0))

    def lookup(self, driver: Any, pool: Any, device: Any) -> tuple[str, dict[str, Any] | None]:
        """("current", device), ("stale", None) or ("missing", None)."""
        key = (driver, pool, device)
        if key in self.current:
            return "current", self.current[key]
        return ("stale" if key in self.stale else "missing"), None


def consumed_counters(device: dict[str, Any]) -> dict[str, str]:
    """counter name → the amount the device consumes (summed over its counter sets)."""
    counters: dict[str, str] = {}
    for consumption in device.get("consumesCounters") or []:
        for name, value in (consumption.get("counters") or {}).items():
            amount = parse_quantity((value or {}).get("value", "0"))
            counters[name] = str(parse_quantity(counters[name]) + amount if name in counters else amount)
    return counters


def _reserved(claim: dict[str, Any] | None) -> bool | None:
    """Whether a pod holds the claim (``status.reservedFor``); None when the claim could not be read."""
    return None if claim is None else bool((claim.get("status") or {}).get("reservedFor"))


def claim_results(claim: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The claim's ``status.allocation.devices.results`` (empty when it is not allocated)."""
    return list(((((claim or {}).get("status") or {}).get("allocation") or {}).get("devices") or {}).get(
        "results") or [])


def pod_state(pod: dict[str, Any]) -> dict[str, Any]:
    """A pod as ``get pods -o wide`` shows it, with its PodScheduled condition."""
    status = pod.get("status") or {}
    meta = pod.get("metadata") or {}
    scheduled = next((c for c in status.get("conditions") or [] if c.get("type") == "PodScheduled"), None)
    return {"name": meta.get("name"), "podSet": (meta.get("labels") or {}).get(PODSET_LABEL),
            "phase": status.get("phase"), "node": (pod.get("spec") or {}).get("nodeName"),
            "scheduled": None if scheduled is None else {
                "status": scheduled.get("status"), "reason": scheduled.get("reason"),
                "message": scheduled.get("message")}}


def allocations(pods: list[dict[str, Any]], claims: list[dict[str, Any]] | None,
                slices: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    """One entry per allocated device of each pod's claims (or one per claim without an allocation);
    ``claims`` None (unreadable) leaves ``allocated`` and ``reserved`` None: unknown, not false.
    ``device`` is looked up in its pool's current generation: ``generation`` says "current",
    "stale" (only an older generation names it) or "missing"; the counters of a device not in the
    current generation are None (unknown), and so are the generation and counters
    of every device when ``slices`` is None (unreadable)."""
    by_name = {c["metadata"]["name"]: c for c in claims or []}
    devices = DeviceIndex(slices or [])
    out = []
    for pod in sorted(pods, key=lambda p: p["metadata"]["name"]):
        pod_name = pod["metadata"]["name"]
        for pod_claim, claim_name in _claim_names(pod):
            claim = by_name.get(claim_name)
            results = claim_results(claim)
            reserved = _reserved(claim) if claims is not None else None
            if not results:
                out.append({"pod": pod_name, "claim": claim_name, "podClaim": pod_claim,
                            "request": None, "device": None, "pool": None, "node": None, "generation": None,
                            "counters": {}, "allocated": False if claims is not None else None,
                            "reserved": reserved})
            for r in results:
                where: str | None
                where, device = devices.lookup(r.get("driver"), r.get("pool"), r.get("device")) \
                    if slices is not None else (None, None)
                key = (r.get("driver"), r.get("pool"), r.get("device"))
                out.append({"pod": pod_name, "claim": claim_name, "podClaim": pod_claim,
                            "request": r.get("request"),
                            "device": f"{r.get('driver')}/{r.get('pool')}/{r.get('device')}",
                            "pool": f"{r.get('driver')}/{r.get('pool')}",
                            "node": devices.node.get(key), "generation": where,
                            "counters": consumed_counters(device) if device is not None else None,
                            "allocated": True, "reserved": reserved})
    return out


def overcharge(allocated: list[dict[str, Any]], counter: str, charged_per_device: str) -> list[tuple[str, str]]:
    """(device, what it consumes) for each allocated device whose consumed counter is below what
    Kueue charged per device (MAX charging)."""
    charged = parse_quantity(charged_per_device)
    return [(a["device"], a["counters"][counter]) for a in allocated
            if counter in (a["counters"] or {}) and parse_quantity(a["counters"][counter]) < charged]
