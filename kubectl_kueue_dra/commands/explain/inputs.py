"""What ``explain`` hands Kueue's steps before and at the charge: the namespace's LimitRanges
and the RuntimeClasses (from the facts; an unreadable list is None with the reason), the
ResourceClaimTemplates and DeviceClasses the charge engine reads (a what-if's file first), and
what of that file was used instead of the cluster's."""

from __future__ import annotations

from typing import Any

from ... import gates as g
from ...dra.cel import SelectorEvaluator
from ...findings import codes as F
from ...kueue.charge import ChargeInputs
from ...kueue.workloads.adjust import AdjustInputs
from ...kueue.workloads.podsets import is_extended_resource_name
from ..dropped import Dropped, dropped_evidence, dropped_fields, finding, of_kind, together
from ..probes import gate_states_now
from .context import kueue_mappings
from .facts import ExplainFacts
from .subject import Subject


def adjust_inputs(facts: ExplainFacts) -> AdjustInputs:
    """LimitRanges of the namespace, and RuntimeClasses when a pod set names one without an
    overhead; a list that cannot be read is None with the reason."""
    limit_ranges = facts.limit_ranges
    runtime_classes: dict[str, dict[str, Any]] | None = {}
    if any(ps.spec.get("runtimeClassName") and not ps.spec.get("overhead") for ps in facts.subject.podsets):
        listed = facts.runtime_classes
        runtime_classes = None if listed is None else {str(o["metadata"]["name"]): o for o in listed}
    return AdjustInputs(facts.subject.namespace, limit_ranges,
                        _problem(facts, "limitranges") if limit_ranges is None else None,
                        runtime_classes, _problem(facts, "runtimeclasses") if runtime_classes is None else None)


def _problem(facts: ExplainFacts, plural: str) -> str:
    return next((str(e) for e in facts.view.unreadable if plural in str(e)), "not readable")


def charge_inputs(facts: ExplainFacts) -> ChargeInputs:
    ctx, subject, view = facts.kueue, facts.subject, facts.view
    ns = subject.namespace
    listed = facts.claim_templates
    templates = {str(t["metadata"]["name"]): t for t in listed or []}
    classes = facts.device_classes
    unreadable = {kind: view.forbidden(kind) or f"the {kind}s could not be read"
                  for kind, got in (("ResourceClaimTemplate", listed), ("DeviceClass", classes)) if got is None}
    if ctx.config.unreadable:
        unreadable["KueueConfig"] = ctx.config.unreadable
    device_classes = {str(c["metadata"]["name"]): c for c in classes or []}
    if subject.file is not None:  # what the file carries comes before the cluster's
        templates.update(_named(subject.file.companions("ResourceClaimTemplate", ns)))
        device_classes.update(_named(subject.file.companions("DeviceClass")))
    return ChargeInputs(
        namespace=ns, semantics=ctx.semantics, gates=ctx.gates, mappings=kueue_mappings(ctx),
        device_classes=list(device_classes.values()), claim_templates=templates, slices=[],
        slice_source=facts.slices, resource_slice_api=view.serves("ResourceSlice") if view.live else True,
        # one evaluator and one set of device derivations for every workload the run explains
        evaluator=view.memo(("cel-evaluator", ctx.semantics.cel_dialect),
                            lambda: SelectorEvaluator(ctx.semantics.cel_dialect)),
        shared=view.memo(("charge-derivations", ctx.semantics.cel_dialect), dict),
        rules=ctx.rules, adjust=adjust_inputs(facts), unreadable=unreadable, device_models=view.slice_parts)


def _named(objects: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {str(o["metadata"]["name"]): o for o in objects if (o.get("metadata") or {}).get("name")}


def file_findings(subject: Subject) -> list[dict[str, Any]]:
    """What of the what-if's file explain used instead of the cluster's, and what it did not read."""
    file = subject.file
    if file is None:
        return []
    out = []
    named = {str(c.get("resourceClaimTemplateName")) for ps in subject.podsets
             for c in (ps.spec.get("resourceClaims") or []) if isinstance(c, dict)}
    used = [f"ResourceClaimTemplate {n}" for n in sorted(_named(file.companions("ResourceClaimTemplate",
                                                                                  subject.namespace))) if n in named]
    used += [f"DeviceClass {n}" for n in sorted(_named(file.companions("DeviceClass")))]
    if used:
        out.append(F.FromManifest.make(f"taken from {file.source} before the cluster's: {', '.join(used)}"))
    if file.ignored_kinds():
        out.append(F.ManifestObjectsNotRead.make(f"{file.source} also holds {', '.join(file.ignored_kinds())}: "
                                                 "explain reads these kinds from the cluster only"))
    return out



def _extended_requests(subject: Subject) -> set[str]:
    return {name for ps in subject.podsets for key in ("initContainers", "containers")
            for c in ps.spec.get(key) or [] if isinstance(c, dict)
            for name in ((c.get("resources") or {}).get("requests") or {}) if is_extended_resource_name(name)}


def _requested_classes(facts: ExplainFacts, inputs: ChargeInputs) -> set[str]:
    """The DeviceClasses the pod sets' claim templates request."""
    out = set()
    for ps in facts.subject.podsets:
        for claim in ps.spec.get("resourceClaims") or []:
            template = inputs.claim_templates.get(str((claim or {}).get("resourceClaimTemplateName")))
            requests = ((((template or {}).get("spec") or {}).get("spec") or {}).get("devices") or {}).get("requests")
            for r in requests or []:
                for sub in [r.get("exactly") or {}, *(r.get("firstAvailable") or [])]:
                    if isinstance(sub, dict) and sub.get("deviceClassName"):
                        out.add(str(sub["deviceClassName"]))
    return out


def _dropped_counters(facts: ExplainFacts, inputs: ChargeInputs) -> list[dict[str, Any]]:
    """The slices of the drivers whose counters this workload is charged by, where the API server
    dropped the counter sets the driver wrote: Kueue finds no consumesCounters there."""
    sources = {(name, s.driver) for c in _requested_classes(facts, inputs) for name, s in inputs.counter_configs(c)}
    drivers = tuple(sorted({driver for _, driver in sources}))
    lost = facts.view.memo(("dropped-counters", drivers), lambda: [
        d for d in dropped_fields(of_kind(facts.slices.for_drivers(set(drivers)) if drivers else None, "ResourceSlice"))
        if d.gate == g.DRA_PARTITIONABLE])
    if not lost:
        return []
    now = gate_states_now(facts.view, [g.DRA_PARTITIONABLE], dropped=dropped_evidence(lost))[g.DRA_PARTITIONABLE]
    out = []
    for d in together(lost):
        f = finding(d, now=now, openshift=facts.cli == "oc")
        charged = ", ".join(sorted(name for name, _ in sources))
        f["message"] = f"the counters {charged} charges are not where the driver wrote them: {f['message']}"
        out.append(f)
    return out


def dropped_findings(facts: ExplainFacts, inputs: ChargeInputs) -> list[dict[str, Any]]:
    """What the API server dropped of the objects this charge reads (``commands/dropped``): the
    counter sets of the drivers it charges by counters; and an extended resource the pods request
    that no DeviceClass backs, where a DeviceClass was written with an extendedResourceName the
    server dropped — Kueue then charges the name as a plain resource, and the scheduler looks for
    a device plugin."""
    return _dropped_counters(facts, inputs) + _dropped_extended(facts, inputs)


def _dropped_extended(facts: ExplainFacts, inputs: ChargeInputs) -> list[dict[str, Any]]:
    unbacked = sorted(_extended_requests(facts.subject) - inputs.extended_resource_names())
    if not unbacked:
        return []
    lost = [d for d in dropped_fields(of_kind(facts.device_classes, "DeviceClass"))
            if d.written.field == "spec.extendedResourceName"]
    out = []
    now = gate_states_now(facts.view, [g.DRA_EXTENDED], dropped=dropped_evidence(lost))[g.DRA_EXTENDED] if lost \
        else None
    for name in unbacked:
        known = [d for d in lost if name in [str(v) for v in d.written.values]]
        unknown = [d for d in lost if not d.written.values]
        said = [(d, "") for d in known]
        if not known and unknown:  # one finding for the classes whose value is not on record
            said.append((Dropped(kind="DeviceClass", name=unknown[0].name, gate=g.DRA_EXTENDED,
                                 written=unknown[0].written, others=tuple(d.name for d in unknown[1:])),
                         f" (the value{'s' if len(unknown) > 1 else ''} written {'are' if len(unknown) > 1 else 'is'} "
                         f"not on record: whether {'one of them' if len(unknown) > 1 else 'it'} was {name} is "
                         "unknown)"))
        for d, which in said:
            f = finding(d, now=now, openshift=facts.cli == "oc")
            f["message"] = (f"{name} is backed by no DeviceClass, so Kueue charges it as {name} itself, not as DRA "
                            f"devices: {f['message']}{which}")
            out.append(f)
    return out
