"""What ``explain`` hands Kueue's steps before and at the charge: the namespace's LimitRanges
and the RuntimeClasses (from the facts; an unreadable list is None with the reason), the
ResourceClaimTemplates and DeviceClasses the charge engine reads (a what-if's file first), and
what of that file was used instead of the cluster's."""

from __future__ import annotations

from typing import Any

from ...dra.cel import SelectorEvaluator
from ...findings import codes as F
from ...kueue.charge import ChargeInputs
from ...kueue.workloads.adjust import AdjustInputs
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
        evaluator=SelectorEvaluator(ctx.semantics.cel_dialect),
        rules=ctx.rules, adjust=adjust_inputs(facts), unreadable=unreadable)


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

