"""The order of Kueue's workload reconciler: the DRA gate check, the ResourceClaim rejection,
then the four paths (templates, extended resources, counters, capacity) each stopping at its
first error with Kueue's message, then the per-pod requests as Kueue counts them, with replaced
extended resources removed and the DRA charges added."""

from __future__ import annotations

from typing import Any

from ...dra.quantity import QuantityError, parse_quantity
from ...findings import codes as F
from ..fielderrors import aggregate
from ..units import kueue_int_value, sat_add
from ..workloads.adjust import adjust
from ..workloads.podsets import PodSet, is_extended_resource_name, pod_requests
from ..workloads.transform import apply_rules
from . import capacity, counters, extended, templates
from .common import Tally, claims
from .inputs import ChargeInputs
from .results import ChargeResult, Note, PodRequestsLine, PodSetCharge, Stop, Unknowable

MSG_DRA_DISABLED = "Workload uses DRA resources but the KueueDRAIntegration feature gate is not enabled"
MSG_CLAIMS = "KueueDRAIntegration feature does not support use of resource claims"
MSG_CLAIMS_REQUEUED = "DRA resource claims not supported"


def has_dra(podsets: list[PodSet]) -> bool:
    """``workload.HasDRA``: some pod set names a claim template or a claim."""
    return any(c.get("resourceClaimTemplateName") or c.get("resourceClaimName")
               for ps in podsets for c in claims(ps.spec))


def needs_dra_reconcile(podsets: list[PodSet], inputs: ChargeInputs) -> bool:
    """``NeedsDRAReconcile``, on the Workload *as stored* (before limits become requests)."""
    if has_dra(podsets):
        return True
    if not inputs.gates.extended_resource:
        return False
    # the DeviceClasses unread: any extended resource may be backed; the extended path says unknown
    backed = inputs.extended_resource_names() if "DeviceClass" not in inputs.unreadable else None
    for ps in podsets:
        for key in ("initContainers", "containers"):
            for c in ps.spec.get(key) or []:
                for name, value in (((c.get("resources") or {}).get("requests")) or {}).items():
                    if (backed is None or name in backed) and is_extended_resource_name(name) and \
                            _nonzero(value):
                        return True
    return False


def dra_candidates(inputs: ChargeInputs, ps: PodSet) -> list[str]:
    """The quota resources a pod set's DRA requests could be charged under, when the charge
    cannot be computed: the mapping names of the classes its templates name (every mapping when
    the templates are unknown), and the extended resources it requests that a class may back.
    With the mappings unknown too, the claims themselves (``DRA devices``)."""
    names: list[str] = []
    classes: set[str] | None = set()
    for claim in claims(ps.spec):
        template = inputs.claim_templates.get(claim.get("resourceClaimTemplateName") or "")
        if template is None:
            classes = None
            break
        for req in ((((template.get("spec") or {}).get("spec") or {}).get("devices") or {}).get("requests") or []):
            for sub in [req.get("exactly") or {}] + list(req.get("firstAvailable") or []):
                if sub.get("deviceClassName") and classes is not None:
                    classes.add(str(sub["deviceClassName"]))
    if "KueueConfig" not in inputs.unreadable:
        names += [m.name for m in inputs.mappings if classes is None or classes & set(m.device_class_names)]
    elif has_dra([ps]):
        names.append("DRA devices")
    backed = inputs.extended_resource_names() if "DeviceClass" not in inputs.unreadable else None
    for key in ("initContainers", "containers"):
        for c in ps.spec.get(key) or []:
            for name in ((c.get("resources") or {}).get("requests") or {}):
                if is_extended_resource_name(name) and (backed is None or name in backed):
                    names.append(name)
    return list(dict.fromkeys(names))


def _nonzero(value: Any) -> bool:
    try:
        return parse_quantity(value).value != 0
    except QuantityError:
        return False


class ChargeEngine:
    def __init__(self, inputs: ChargeInputs):
        self.inputs = inputs

    def compute(self, podsets: list[PodSet]) -> ChargeResult:
        inp = self.inputs
        tallies = [Tally(PodSetCharge(ps.name, ps.count, min_count=ps.min_count, admitted_count=ps.admitted_count))
                   for ps in podsets]
        result = ChargeResult([t.charge for t in tallies])
        # AdjustResources runs before the DRA step and before the queue counts anything;
        # NeedsDRAReconcile looks at the Workload as stored.
        adjusted = []
        for ps, tally in zip(podsets, tallies):
            a = adjust(ps.spec, inp.adjust)
            tally.charge.adjustments, tally.charge.unknown = a.adjustments, dict(a.unknown)
            tally.charge.adjusted_spec = a.spec
            adjusted.append(PodSet(ps.name, ps.count, {"spec": a.spec}, ps.min_count, ps.admitted_count))
        if not inp.gates.dra:
            if inp.gates.reject_when_disabled and has_dra(podsets):
                result.failed_step = "dra-disabled"
                result.message = result.requeued_message = MSG_DRA_DISABLED
                return result
            if has_dra(podsets):
                result.notes.append(Note(F.DRAIgnored, "KueueDRAIntegration and KueueDRARejectWorkloadsWhenDRADisabled "
                                                       "are off: Kueue ignores the resource claims, the devices are "
                                                       "not charged"))
        elif needs_dra_reconcile(podsets, inp):
            if any(c.get("resourceClaimName") for ps in adjusted for c in claims(ps.spec)):
                result.failed_step = "resource-claims"
                result.message, result.requeued_message = MSG_CLAIMS, MSG_CLAIMS_REQUEUED
                return result
            try:
                self._dra_paths(adjusted, tallies)
            except Stop as stop:
                result.failed_step = stop.step
                result.errors = stop.errors
                result.message = result.requeued_message = aggregate(stop.errors)
                return result
            except Unknowable as unknown:
                # Kueue's answer depends on a list that could not be read: neither a charge nor a
                # rejection is known, and nothing of the DRA charge is counted
                result.dra_processed, result.dra_unknown = None, unknown.reason
                for ps, tally in zip(adjusted, tallies):
                    tally.dra.clear()
                    tally.replaced.clear()
                    tally.charge.lines.clear()
                    for name in dra_candidates(inp, ps):
                        tally.charge.unknown[name] = unknown.reason
            else:
                result.dra_processed = True
        else:
            for ps, tally in zip(podsets, tallies):
                result.notes.extend(self._limits_only_notes(ps))
                result.notes.extend(self._defaulted_notes(tally.charge))
        for ps, tally in zip(adjusted, tallies):
            self._standard_requests(ps.spec, tally)
        return result

    def _dra_paths(self, podsets: list[PodSet], tallies: list[Tally]) -> None:
        inp = self.inputs
        templates.run(inp, podsets, tallies)
        if inp.gates.extended_resource:
            extended.run(inp, podsets, tallies)
        if inp.gates.partitionable and inp.resource_slice_api:
            counters.run(inp, podsets, tallies)
        if inp.gates.consumable_capacity and inp.resource_slice_api and inp.semantics.capacity_sources:
            capacity.run(inp, podsets, tallies)

    def _standard_requests(self, spec: dict[str, Any], tally: Tally) -> None:
        """``totalRequestsFromPodSets``: the pod's requests, excluded prefixes dropped, the
        transformations applied, replaced extended resources removed, the DRA charges added."""
        per_pod: dict[str, int] = {}
        charge = tally.charge
        t = apply_rules(pod_requests(spec), self.inputs.rules, self.inputs.semantics.separate_transform_outputs)
        for name, value in t.requests.items():
            if name in tally.replaced:
                continue
            per_pod[name] = kueue_int_value(name, value)
            if name not in charge.unknown:  # a request whose charge is unknown is no charge line
                charge.lines.insert(0, PodRequestsLine(name, per_pod[name]))
        for name, amount in tally.dra.items():
            per_pod[name] = sat_add(per_pod.get(name, 0), amount)
        charge.per_pod = {n: max(0, v) for n, v in sorted(per_pod.items())}
        charge.replaced = sorted(tally.replaced)
        charge.transformations, charge.excluded = t.lines, t.excluded
        charge.unknown.update(t.ambiguous)

    def _defaulted_notes(self, charge: PodSetCharge) -> list[Note]:
        """An extended resource of a DeviceClass that only a LimitRange default puts in the pod:
        Kueue decides whether the workload uses DRA before AdjustResources, so it is charged
        under its own name (oracle scenario lr-extended-resource-no-claim)."""
        if not self.inputs.gates.extended_resource:
            return []
        backed = self.inputs.extended_resource_names()
        names = sorted({a.resource for a in charge.adjustments
                        if a.step == "limitRangeDefaultRequest" and a.resource in backed})
        return [Note(F.DefaultedExtendedResource,
                     f"pod set {charge.name}: {name} comes only from a LimitRange default: Kueue decides whether a "
                     f"workload uses DRA before it applies LimitRange defaults, so {name} is charged under its own "
                     "name, not through its DeviceClass", {"resource": name})
                for name in names]

    def _limits_only_notes(self, ps: PodSet) -> list[Note]:
        if not self.inputs.gates.extended_resource:
            return []
        backed = self.inputs.extended_resource_names()
        notes = []
        for c in (ps.spec.get("containers") or []) + (ps.spec.get("initContainers") or []):
            res = c.get("resources") or {}
            for name in (res.get("limits") or {}):
                if name in backed and name not in (res.get("requests") or {}):
                    notes.append(Note(
                        F.LimitsOnlyExtendedResource,
                        f"container {c.get('name')} sets {name} only in limits: Kueue decides whether a workload "
                        f"uses DRA before it copies limits into requests, so {name} is charged under its own name, "
                        "not through its DeviceClass (kubernetes-sigs/kueue#14393)", {"resource": name}))
        return notes
