"""Past admission: why an admitted workload's pods are (not) running on the devices Kueue charged.

Pure. The scheduler's ``PodScheduled=False`` message (a FitError, ``0/N nodes are available: …``,
as kube-scheduler's framework formats it) is split into its reasons, each translated with a fix;
when the DRA plugin says ``cannot allocate all claims``, the ResourceSlices' shared counters and the
devices every allocated claim holds tell whether the counter is used up or only fragmented (enough
free in the cluster, not on one counter set, i.e. one GPU).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ...dra.devices import group_pools
from ...dra.quantity import parse_quantity
from ...dra.quantity_value import Quantity
from ...findings import Code
from ...findings import codes as F
from .allocation import claim_results

_FIT = re.compile(r"^0/(\d+) nodes are available: (.*)$", re.S)
_HISTOGRAM_ITEM = re.compile(r"^(\d+) (.+)$")

#: the scheduler's reasons (its plugins' exact words) → (code, what it means, the variant of the code's fix)
_REASONS: list[tuple[re.Pattern[str], Code, str, str]] = [
    (re.compile(r"cannot allocate all claims"), F.DevicesUnavailable,
     "no set of free devices on the node satisfies all the pod's claims (too few devices match the "
     "requests' selectors, or their counters are used by other claims)", ""),
    (re.compile(r"resourceclaim not available on the node"), F.ClaimOnOtherNode,
     "a claim the pod uses is already allocated to devices another node holds", ""),
    (re.compile(r"ResourceClaim not created yet"), F.ClaimNotCreated,
     "the ResourceClaim of the pod's claim template does not exist yet (kube-controller-manager's "
     "resourceclaim controller creates it)", ""),
    (re.compile(r'resourceclaim(?:\.resource\.k8s\.io)? "([^"]+)" not found'), F.ClaimNotFound,
     "a ResourceClaim the pod names does not exist", ""),
    (re.compile(r"resourceclaim in use"), F.ClaimInUse,
     "a claim the pod names is reserved for as many consumers as it can have", ""),
    (re.compile(r"is being deleted"), F.ClaimBeingDeleted, "a claim the pod names is being deleted", ""),
    (re.compile(r"device class (\S+) does not exist"), F.DeviceClassMissing,
     "a request names a DeviceClass that does not exist", "scheduler"),
    (re.compile(r"cannot (?:fit resource|schedule extended resource claim)"), F.ExtendedResourceUnavailable,
     "not enough devices of the DeviceClass behind the extended resource are free on the node", ""),
    (re.compile(r"timed out trying to allocate devices"), F.AllocationTimedOut,
     "the allocator gave up searching (too many device combinations)", ""),
    (re.compile(r"didn't match Pod's node affinity/selector"), F.NodeSelectorUnmatched,
     "the pod's nodeSelector or node affinity (a ResourceFlavor's nodeLabels add to it) matches no "
     "node that has the devices", ""),
    (re.compile(r"had untolerated taint"), F.NodeTainted, "the nodes have taints the pod does not tolerate", ""),
    (re.compile(r"^Insufficient (\S+)"), F.NodeResourcesInsufficient,
     "the nodes lack the pod's requests of a node resource", ""),
]


@dataclass
class FitMessage:
    nodes: int | None  # None: not a FitError
    reasons: list[tuple[int | None, str]]  # (node count or None for a pre-filter reason, the reason)
    post_filter: str | None = None


def parse_fit_message(message: str) -> FitMessage:
    """``0/3 nodes are available: 2 cannot allocate all claims, 1 node(s) didn't match … preemption: …``
    → its node count and reasons (per-node histogram, or one pre-filter message)."""
    m = _FIT.match(message.strip())
    if not m:
        return FitMessage(None, [(None, message.strip())])
    nodes, rest = int(m.group(1)), m.group(2)
    post = None
    at = rest.find("preemption: ")
    if at >= 0:
        post, rest = rest[at:].strip(), rest[:at]
    rest = rest.strip().removesuffix(".")
    items = [i.strip() for i in rest.split(", ")] if rest else []
    parsed = [_HISTOGRAM_ITEM.match(i) for i in items]
    if items and all(parsed):
        return FitMessage(nodes, [(int(p.group(1)), p.group(2)) for p in parsed if p], post)
    return FitMessage(nodes, [(None, rest)] if rest else [], post)


def translate(reason: str) -> tuple[Code, str, str]:
    """(code, what it means, the variant of its fix) of one scheduler reason; an unknown one is
    quoted as it is."""
    for pattern, code, cause, variant in _REASONS:
        if pattern.search(reason):
            return code, cause, variant
    return F.Unschedulable, "the scheduler's reason (not translated)", ""


@dataclass
class CounterSet:
    """One shared counter set of a pool's current generation (one physical GPU in the MIG model)."""
    driver: str
    pool: str
    name: str
    node: str | None
    total: dict[str, Quantity]
    used: dict[str, Quantity] = field(default_factory=dict)

    def free(self, counter: str) -> Quantity | None:
        if counter not in self.total:
            return None
        return self.total[counter] - self.used.get(counter, parse_quantity("0"))


def counter_supply(slices: list[dict[str, Any]], claims: list[dict[str, Any]]) -> list[CounterSet]:
    """Every shared counter set of the pools' current generations, with what the devices of every
    allocated claim consume from it."""
    sets: dict[tuple[str, str, str], CounterSet] = {}
    devices: dict[tuple[str, str, str], dict[str, Any]] = {}
    for pool in group_pools(slices):
        for s in pool.slices:
            spec = s.get("spec") or {}
            for cs in spec.get("sharedCounters") or []:
                total = {n: parse_quantity((v or {}).get("value", "0")) for n, v in (cs.get("counters") or {}).items()}
                sets[(pool.driver, pool.name, cs.get("name") or "")] = CounterSet(
                    pool.driver, pool.name, cs.get("name") or "", spec.get("nodeName"), total)
            for d in spec.get("devices") or []:
                devices[(pool.driver, pool.name, d.get("name") or "")] = d
    for claim in claims:
        for r in claim_results(claim):
            device = devices.get((r.get("driver") or "", r.get("pool") or "", r.get("device") or ""))
            for consumption in (device or {}).get("consumesCounters") or []:
                target = sets.get((r.get("driver") or "", r.get("pool") or "", consumption.get("counterSet") or ""))
                if target is None:
                    continue
                for n, v in (consumption.get("counters") or {}).items():
                    amount = parse_quantity((v or {}).get("value", "0"))
                    target.used[n] = target.used[n] + amount if n in target.used else amount
    return sorted(sets.values(), key=lambda c: (c.driver, c.pool, c.name))


def counter_verdict(supply: list[CounterSet], driver: str, counter: str, per_device: str,
                    devices: int) -> dict[str, Any] | None:
    """Whether ``devices`` devices that each consume up to ``per_device`` of ``counter`` can be
    carved from the free counters: "exhausted" (not enough free in the cluster), "fragmented"
    (enough in the cluster, but no counter set has one device's worth) or None (it fits, or the
    driver publishes no such counter)."""
    sets = [(c, c.free(counter)) for c in supply if c.driver == driver and c.free(counter) is not None]
    if not sets:
        return None
    need = parse_quantity(per_device)
    zero = parse_quantity("0")
    free_total = zero
    for _, f in sets:
        free_total = free_total + (f if f is not None and f > zero else zero)
    largest, most = max(sets, key=lambda cf: cf[1] or zero)
    per_node: dict[str, Quantity] = {}
    for c, f in sets:
        if c.node and f is not None and f > zero:
            per_node[c.node] = per_node.get(c.node, zero) + f
    base = {"counter": counter, "driver": driver, "perDevice": str(need), "devices": devices,
            "freeInCluster": str(free_total), "largestFree": str(most), "largestAt": _where(largest),
            "freePerNode": {n: str(v) for n, v in sorted(per_node.items())}}
    if free_total < need * devices:
        return dict(base, verdict="exhausted")
    fitting = sum(int(f.value // need.value) for _, f in sets if f is not None and f >= need) if need > zero \
        else devices
    if fitting < devices:
        return dict(base, verdict="fragmented")
    return None


def _where(c: CounterSet) -> str:
    return f"counter set {c.name} of pool {c.pool}" + (f" on node {c.node}" if c.node else "")


def verdict_text(v: dict[str, Any]) -> str:
    need = f"{v['devices']} device(s) consuming up to {v['perDevice']} {v['counter']} each"
    free = f"{v['freeInCluster']} {v['counter']} is free in the cluster, at most {v['largestFree']} on one " \
        f"counter set ({v['largestAt']})"
    if v["verdict"] == "exhausted":
        return f"counter {v['counter']} of {v['driver']} is used up: the pod needs {need}; only {free}"
    return (f"counter {v['counter']} of {v['driver']} is fragmented: the pod needs {need}; {free}, so the free "
            f"amount is spread over GPUs none of which holds one device's worth")


def unscheduled_findings(pods: list[dict[str, Any]], counter_needs: dict[str, list[tuple[str, str, str, int]]],
                         supply: list[CounterSet] | None) -> list[dict[str, Any]]:
    """One finding per distinct scheduler message of the pods that are not scheduled, translated;
    ``counter_needs``: pod set → (driver, counter, per-device charge, devices per pod) of its
    counter lines; ``supply`` None: the slices or claims could not be read (no counter verdict)."""
    groups: dict[tuple[str | None, str], list[dict[str, Any]]] = {}
    for p in pods:
        sched = p.get("scheduled") or {}
        if sched.get("status") != "False" or p.get("node"):
            continue
        groups.setdefault((p.get("podSet"), sched.get("message") or sched.get("reason") or ""), []).append(p)
    out = []
    for (pod_set, message), members in sorted(groups.items(), key=lambda kv: (str(kv[0][0]), kv[0][1])):
        fit = parse_fit_message(message)
        causes, fixes, codes, variants = [], [], [], []
        for count, reason in fit.reasons:
            code, cause, variant = translate(reason)
            codes.append(code)
            variants.append(variant)
            on = f"on {count} of {fit.nodes} node(s) " if count is not None and fit.nodes else ""
            causes.append(f"{on}{cause}" if code is not F.Unschedulable else f"{reason!r} ({cause})")
            fix = code.fix_text(variant)
            if fix and fix not in fixes:
                fixes.append(fix)
        verdicts = []
        if F.DevicesUnavailable in codes and supply is not None:
            for driver, counter, per_device, n in counter_needs.get(pod_set or "", []):
                v = counter_verdict(supply, driver, counter, per_device, n)
                if v is not None:
                    verdicts.append(v)
        names = ", ".join(m["name"] for m in members[:3]) + ("…" if len(members) > 3 else "")
        of = f" of pod set {pod_set}" if pod_set else ""
        text = (f"{len(members)} pod(s){of} not scheduled ({names}): " + "; ".join(causes or ["no reason given"])
                + "".join(f"; {verdict_text(v)}" for v in verdicts) + f". The scheduler says: {message}")
        fragmented = any(v["verdict"] == "fragmented" for v in verdicts)  # only DevicesUnavailable has verdicts
        extra = {"pods": [m["name"] for m in members], "reasons": [c.name for c in codes], "counters": verdicts}
        if len(codes) == 1:  # one reason: its own code and fix
            out.append(codes[0].make(text, variant="fragmented" if fragmented else variants[0], extra=extra))
        else:  # several (or none): each reason's fix, in order
            out.append(F.Unschedulable.make(text, variant=("fragmented" if fragmented else "several") if fixes else "",
                                            fixes="; ".join(fixes), extra=extra))
    return out
