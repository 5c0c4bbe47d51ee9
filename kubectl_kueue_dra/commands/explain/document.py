"""``explain``: one workload (or a manifest's pod sets) through Kueue's steps, in order — Kueue's
configuration and version (``context``), the objects the charge reads (``inputs``), the charge
engine, what Kueue recorded (``recorded``), the queue model (``queue_world``, ``queue_model``:
flavors, preemption, position), the queue path and quota (``queue``), partial admission and
admissibility (``partial_report``), the pods and their devices (``pods``) — put together into the
explain document.

Reads only through the ClusterView (live cluster or snapshot); each kind is listed once.
"""

from __future__ import annotations

from typing import Any

from ...findings import finding, is_partial
from ...kube.manifest import manifest_name
from ...kube.view import ClusterView
from ...kueue.charge import ChargeEngine, ChargeLine, ChargeResult, format_usage
from ...kueue.install.command import cli_of, document_for_cli
from ...kueue.workloads.status import is_admitted
from .context import Settings, kueue_context, kueue_mappings
from .inputs import charge_inputs, file_findings
from .partial_report import (
    admissibility_findings,
    admission_counts_findings,
    partial_admission_part,
    unknown_findings,
)
from .pods import SliceSource, past_admission
from . import queue_model
from .flavor_findings import waiting_findings
from .queue import cluster_queue_of, queue_part
from .queue_docs import podset_fields, position_doc, preemption_doc
from .queue_world import queue_world
from .recorded import dra_findings, recorded_part, workload_state
from .subject import Subject


def _podsets_doc(result: ChargeResult, binary: set[str]) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """The ``podSets`` of the document, and the workload's total per resource."""
    docs = []
    totals: dict[str, int] = {}
    for ps in result.podsets:
        total = ps.total
        for name, v in total.items():
            totals[name] = totals.get(name, 0) + v
        docs.append({
            "name": ps.name, "count": ps.count,
            "charge": {n: format_usage(n, v, binary) for n, v in total.items()},
            "perPod": {n: format_usage(n, v, binary) for n, v in ps.per_pod.items() if n not in ps.unknown},
            "replaced": ps.replaced,
            "lines": [_render_line(line, binary) for line in ps.lines],
            "minCount": ps.min_count,
            "admittedCount": ps.admitted_count,
            "adjustments": [a.doc() for a in ps.adjustments],
            "transformations": [t.doc() for t in ps.transformations],
            "excluded": ps.excluded,
            "unknown": dict(ps.unknown),
        })
    return docs, totals


def explain(view: ClusterView, subject: Subject, settings: Settings) -> dict[str, Any]:
    ctx = kueue_context(view, settings)
    findings = list(ctx.findings)
    ns, wl = subject.namespace, subject.workload
    slices = SliceSource(view)
    inputs = charge_inputs(view, ctx, subject, slices)
    result = ChargeEngine(inputs).compute(subject.podsets)
    binary = inputs.binary_resources() if ctx.semantics.counters_binary_rendering else set()
    dra_resources = {m.name for m in kueue_mappings(ctx)} | inputs.extended_resource_names()
    podsets_doc, totals = _podsets_doc(result, binary)

    findings.extend(dra_findings(result))
    findings.extend(unknown_findings(result))
    findings.extend(admission_counts_findings(result))
    recorded_doc = None
    admitted = wl is not None and is_admitted(wl)
    findings.extend(admissibility_findings(result, inputs.adjust.limit_ranges, admitted))
    world = queue_world(view, ctx, what_if=wl is None)
    model = queue_model.build(world, subject, result, cluster_queue_of(view, subject), binary)
    for ps_doc in podsets_doc:
        ps_doc.update(podset_fields(model, ps_doc["name"]))
    queue_doc, queue_found = queue_part(view, subject, ctx, result, admitted, totals, binary, model)
    if wl is not None:  # one fact, one finding: what the queue part states, Kueue's condition does not repeat
        recorded_doc, more = recorded_part(wl, result, binary, dra_resources, {f["code"] for f in queue_found})
        findings.extend(more)
    findings.extend(queue_found)
    findings.extend(waiting_findings(model, admitted))
    partial_doc, more = partial_admission_part(model, subject.podsets, result, admitted, ctx.partial_admission, binary)
    findings.extend(more)

    past = past_admission(view, subject, slices, result)
    findings.extend(past.findings)
    findings.extend(finding("info", n.code, n.message, n.fix) for n in result.notes)
    findings.extend(file_findings(subject))
    cli = cli_of(view, ctx.config)  # first: a 403 it meets makes the answer partial too
    return document_for_cli({
        "workload": ({"namespace": ns, "name": wl["metadata"]["name"]} if wl is not None else None),
        "manifest": _manifest_doc(subject),
        "kueueVersion": ctx.semantics.version,
        "kueueVersionSource": ctx.version_source,
        "kueueGates": ctx.gate_map,
        "kueueInstallation": ctx.installation.to_json() if ctx.installation else None,
        "admitted": admitted,
        "state": workload_state(wl) if wl is not None else "WhatIf",
        "dra": {"processed": result.dra_processed, "unknown": result.dra_unknown, "failedStep": result.failed_step,
                "message": result.message, "retried": result.retried if result.rejected else None},
        "podSets": podsets_doc,
        "draCharge": {n: format_usage(n, totals[n], binary) for n in sorted(dra_resources) if totals.get(n)},
        "recorded": recorded_doc,
        "queue": queue_doc,
        "preemption": preemption_doc(model) if not admitted and not model.holds_quota else None,
        "position": position_doc(model),
        "partialAdmission": partial_doc,
        "pods": past.pods,
        "allocations": past.allocations,
        "events": past.events,
        "partial": is_partial(view),
        "findings": findings,
    }, cli)


def _manifest_doc(subject: Subject) -> dict[str, Any] | None:
    """The what-if's kind, namespace and name; ``generateName`` when the API server would pick the
    name (``displayName`` shows either the way the text does)."""
    if subject.manifest is None:
        return None
    meta = subject.manifest.get("metadata") or {}
    return {"kind": subject.manifest.get("kind"), "namespace": subject.namespace, "name": meta.get("name"),
            "generateName": None if meta.get("name") else meta.get("generateName"),
            "displayName": manifest_name(subject.manifest)}


def _render_line(line: ChargeLine, binary: set[str]) -> dict[str, Any]:
    out = line.doc()
    if line.resource is not None:
        out["perPod"] = format_usage(line.resource, line.per_pod, binary)
    return out
