"""Devices allocated outside Kueue's accounting: ResourceClaims whose devices are held by pods no
admitted Workload accounts for (namespaces Kueue does not manage, pods without a queue), or whose
DeviceClass Kueue charges nothing for (not in deviceClassMappings). Such devices use quota's GPUs
without being charged (the leak Kueue's documentation warns about).

A pod counts as charged when one of its ``ownerReferences`` (or the pod itself) owns an admitted
Workload, or when it carries the pod-set label Kueue writes on the pods of the pod sets it
admits. A device counts as charged when its class is in deviceClassMappings, or it sits in the
claim the scheduler made for the pod's extended resources (Kueue charged the extended resource).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...findings import codes as F
from ...k8s.envelope import owner_references
from ...kube.view import ClusterView
from ..config.mappings import Mapping
from ..workloads.allocation import PODSET_LABEL, claim_results
from ..workloads.status import is_admitted

#: the scheduler's annotation on the claim it creates for a pod's extended resources
EXTENDED_CLAIM = "resource.kubernetes.io/extended-resource-claim"


@dataclass
class Uncharged:
    """What was found: per driver the uncharged devices, each with its claim, pods and why."""
    devices: list[dict[str, Any]] = field(default_factory=list)
    problem: str | None = None  # what could not be read (the answer is then unknown)

    def by_driver(self) -> dict[str, list[dict[str, Any]]]:
        out: dict[str, list[dict[str, Any]]] = {}
        for d in self.devices:
            out.setdefault(d["driver"], []).append(d)
        return dict(sorted(out.items()))

    def doc(self) -> dict[str, Any]:
        return {"devices": None if self.problem else self.devices, "problem": self.problem,
                "byDriver": {k: len(v) for k, v in self.by_driver().items()}}

    def unmapped_classes(self) -> list[str]:
        """The DeviceClasses of uncharged devices that no mapping names, by name."""
        return sorted({str(d["deviceClass"]) for d in self.devices if d["reason"].startswith("class ")})

    def fix(self, map_command: str = "") -> str | None:
        """What to do, for the reasons found; ``map_command`` maps the unmapped classes (the caller
        knows the queues and the installation it is written for)."""
        variant = self.fix_variant()
        args: dict[str, object] = {"map_command": map_command} if variant in ("unmapped", "both") else {}
        return None if variant is None else F.UnchargedDevices.fix_text(variant, **args)

    def fix_variant(self) -> str | None:
        """The fix of UnchargedDevices for the reasons found: pods outside Kueue, unmapped classes, or both."""
        outside = any(not d["reason"].startswith("class ") for d in self.devices)
        unmapped = any(d["reason"].startswith("class ") for d in self.devices)
        if not (outside or unmapped):
            return None
        return "both" if outside and unmapped else "unmapped" if unmapped else ""

    def summaries(self, limit: int = 3) -> list[str]:
        """'12 device(s) of gpu.nvidia.com are allocated to pods Kueue does not charge: 12 in sandbox
        (no admitted Workload: jupyter-00, …)', one per driver, grouped by namespace and reason."""
        out = []
        for driver, devices in self.by_driver().items():
            groups: dict[tuple[str, str], list[str]] = {}
            for d in devices:
                groups.setdefault((str(d["namespace"]), d["reason"]), []).extend(d["pods"] or [d["claim"]])
            parts = []
            for (ns, reason), holders in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
                named = sorted(set(holders))
                more = f" and {len(named) - limit} more" if len(named) > limit else ""
                parts.append(f"{len(holders)} in {ns} ({reason}: {', '.join(named[:limit])}{more})")
            out.append(f"{len(devices)} device(s) of {driver} are allocated to pods Kueue does not charge: "
                       + ", ".join(parts))
        return out


def _request_class(claim: dict[str, Any], request: str | None) -> str | None:
    """The DeviceClass of a result's request (``req`` or ``req/subrequest`` of firstAvailable)."""
    name, _, sub = (request or "").partition("/")
    for r in (((claim.get("spec") or {}).get("devices") or {}).get("requests") or []):
        if r.get("name") != name:
            continue
        if sub:
            found = next((s.get("deviceClassName") for s in r.get("firstAvailable") or [] if s.get("name") == sub),
                         None)
        else:
            found = (r.get("exactly") or {}).get("deviceClassName") or r.get("deviceClassName")
        return found if isinstance(found, str) else None
    return None


def _charged_owners(workloads: list[dict[str, Any]]) -> set[str]:
    """The uids of what owns an admitted Workload (its Job, JobSet, plain Pod…)."""
    return {o["uid"] for wl in workloads if is_admitted(wl)
            for o in owner_references(wl) if isinstance(o.get("uid"), str) and o["uid"]}


def _pod_charged(pod: dict[str, Any], owners: set[str]) -> bool:
    meta = pod.get("metadata") or {}
    uids = [meta.get("uid")] + [o.get("uid") for o in owner_references(pod)]
    return PODSET_LABEL in (meta.get("labels") or {}) or any(isinstance(u, str) and u in owners for u in uids)


def uncharged_devices(claims: list[dict[str, Any]], pods: list[dict[str, Any]], workloads: list[dict[str, Any]],
                      device_classes: list[dict[str, Any]], mappings: list[Mapping]) -> Uncharged:
    """Every allocated device of a claim a pod holds that Kueue does not charge, with why."""
    owners = _charged_owners(workloads)
    by_pod = {((p.get("metadata") or {}).get("namespace"), (p.get("metadata") or {}).get("name")): p for p in pods}
    mapped = {c for m in mappings for c in m.device_class_names}
    out = Uncharged()
    for claim in claims:
        meta = claim.get("metadata") or {}
        ns = meta.get("namespace")
        holders = [r.get("name") for r in (claim.get("status") or {}).get("reservedFor") or []
                   if isinstance(r, dict) and r.get("resource") == "pods" and r.get("name")]
        if not holders:
            continue
        held_by = [by_pod.get((ns, h)) for h in holders]
        charged_pods = [p for p in held_by if p is not None and _pod_charged(p, owners)]
        extended = (meta.get("annotations") or {}).get(EXTENDED_CLAIM) == "true"
        for r in claim_results(claim):
            if not all(isinstance(r.get(k), str) for k in ("driver", "pool", "device")):
                continue  # names no device (the API server requires all three)
            device_class = _request_class(claim, r.get("request"))
            if not charged_pods:
                reason = "no admitted Workload" if all(p is not None for p in held_by) else "pod not found"
            elif device_class is not None and device_class not in mapped and not extended:
                reason = f"class {device_class} not mapped"
            else:
                continue
            out.devices.append({"namespace": ns, "claim": meta.get("name"), "pods": sorted(holders),
                                "driver": r["driver"], "pool": r["pool"], "device": r["device"],
                                "deviceClass": device_class, "reason": reason})
    return out


def read_uncharged(view: ClusterView, device_classes: list[dict[str, Any]] | None,
                   mappings: list[Mapping] | None) -> Uncharged:
    """Read every ResourceClaim and Workload, and the pods of the namespaces whose claims are held."""
    claims = view.try_list("ResourceClaim")
    workloads = view.try_list("Workload")
    missing = [k for k, v in (("ResourceClaims", claims), ("Workloads", workloads), ("DeviceClasses", device_classes))
               if v is None]
    if mappings is None:
        missing.append("Kueue's deviceClassMappings")
    if missing or claims is None or workloads is None or device_classes is None or mappings is None:
        return Uncharged(problem=f"{' and '.join(missing)} could not be read")
    namespaces = sorted({str((c.get("metadata") or {}).get("namespace")) for c in claims
                         if (c.get("status") or {}).get("reservedFor") and claim_results(c)})
    pods: list[dict[str, Any]] = []
    for ns in namespaces:
        listed = view.try_list("Pod", ns)
        if listed is None:
            return Uncharged(problem=f"the pods of namespace {ns} could not be read")
        pods.extend(listed)
    return uncharged_devices(claims, pods, workloads, device_classes, mappings)


def uncharged_findings(found: Uncharged, map_command: str = "") -> list[dict[str, Any]]:
    """The findings of what was found; ``map_command`` as in ``Uncharged.fix``."""
    if found.problem:
        return [F.UnchargedDevicesUnknown.make(
            f"whether devices are allocated outside Kueue's accounting is unknown: {found.problem}")]
    variant = found.fix_variant() or ""
    args: dict[str, Any] = {"map_command": map_command} if variant in ("unmapped", "both") else {}
    return [F.UnchargedDevices.make(text, variant=variant, **args) for text in found.summaries()]
