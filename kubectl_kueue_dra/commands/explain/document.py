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

from ...findings import codes as F
from ...findings import is_partial
from ...kube.manifest import manifest_name
from ...kube.view import ClusterView
from ...kueue.charge import ChargeEngine, ChargeLine, ChargeResult, format_usage
from ...kueue.install.command import document_for_cli, map_restart
from ...kueue.install.fix_rights import with_rights
from ...kueue.workloads.lifecycle import FINISHED, PENDING, PREEMPTED, classify
from .context import KueueContext, Settings, kueue_mappings
from .facts import ExplainFacts, gather
from .inputs import charge_inputs, dropped_findings, file_findings
from .partial_report import (
    admissibility_findings,
    admission_counts_findings,
    partial_admission_part,
    unknown_findings,
)
from . import queue_model
from .flavor_findings import waiting_findings
from .pods import past_admission
from .position import position_part
from .queue import queue_part
from .queue_docs import podset_fields, position_doc, preemption_doc
from .queue_world import unblock_command
from .recorded import Fills, dra_findings, recorded_part
from .states import state_part, state_word
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


def explain(view: ClusterView, subject: Subject, settings: Settings, *,
            kueue: KueueContext | None = None) -> dict[str, Any]:
    """The explain document of one subject: its facts gathered once (``facts``), then explained."""
    return explain_facts(gather(view, subject, settings, kueue=kueue))


def explain_facts(facts: ExplainFacts) -> dict[str, Any]:
    ctx, subject, view = facts.kueue, facts.subject, facts.view
    findings = list(ctx.findings)
    ns, wl = subject.namespace, subject.workload
    inputs = charge_inputs(facts)
    result = ChargeEngine(inputs).compute(subject.podsets)
    binary = inputs.binary_resources() if ctx.semantics.counters_binary_rendering else set()
    dra_resources = {m.name for m in kueue_mappings(ctx)} | inputs.extended_resource_names()
    podsets_doc, totals = _podsets_doc(result, binary)
    life = classify(wl, facts.now, admission_gate=facts.kueue_gate("AdmissionGatedBy")) if wl is not None else None
    state = state_part(facts, facts.checks, life) if life is not None else None
    holds, admitted = bool(life and life.holds_quota), bool(life and life.admitted)

    fills = _fills(facts, inputs)
    requeue = dra_findings(result, holds, fills) + admissibility_findings(result, inputs.adjust.limit_ranges, False)
    if life is not None and life.state == FINISHED:
        requeue = []
    elif not holds:  # else Kueue's record stands: what it would say now only matters after an eviction
        findings.extend(requeue)
    findings.extend(unknown_findings(result))
    findings.extend(admission_counts_findings(result))
    recorded_doc = None
    model = queue_model.build(facts.queue_world, subject, result, facts.cluster_queue, binary)
    for ps_doc in podsets_doc:
        ps_doc.update(podset_fields(model, ps_doc["name"]))
    partial_doc, partial_found = partial_admission_part(model, subject.podsets, result, holds, ctx.partial_admission,
                                                        binary)
    full = {ps.name: ps.count for ps in subject.podsets}
    if partial_doc and partial_doc["possible"] and partial_doc["counts"] != full:
        model.partial_counts = partial_doc["counts"]
    said = life.kueue_says if life is not None else None
    queued = life is None or life.state in (PENDING, PREEMPTED)
    queue_doc, queue_found, queue_requeue = queue_part(facts, result, holds, admitted, totals, binary, said, queued,
                                                       model=model)
    stated = {f["code"] for f in state.findings} if state else set()
    queue_found = [f for f in queue_found if f["code"] not in stated]  # the state's finding says it
    if life is not None and life.state == FINISHED:  # it left the queue: what the queue says is not about it
        queue_found, queue_requeue = [f for f in queue_found if f["severity"] == "info"], []
    if wl is not None:  # one fact, one finding: what the queue part states, Kueue's condition does not repeat
        recorded_doc, more = recorded_part(wl, result, binary, dra_resources, {f["code"] for f in queue_found},
                                           life, fills=fills)
        findings.extend(more)
    findings.extend(queue_found)
    if holds:
        findings.extend(if_requeued(requeue + queue_requeue))
    if queued:  # the model's why-it-waits says more than the recorded state's (it knows the queue)
        waiting = waiting_findings(model, holds, unblock_command(ctx))
        said_now = {f["code"] for f in waiting}
        if state is not None:
            state.findings = [f for f in state.findings if f["code"] not in said_now]
        findings = [f for f in findings if f["code"] not in said_now]  # Kueue's condition, said again with names
        findings.extend(waiting)
    findings.extend(partial_found)

    past = past_admission(facts, result)
    findings.extend(past.findings)
    findings.extend(n.finding() for n in result.notes)
    findings.extend(file_findings(subject))
    findings.extend(dropped_findings(facts, inputs))
    recorded_state = dict(state.doc if state else {"eviction": None, "preemption": None, "admissionChecks": [],
                                                   "lifecycle": None})
    if recorded_state["preemption"] is None and queued and not holds:  # a victim's record, else the preemptor's
        recorded_state["preemption"] = preemption_doc(model)
    recorded_state["position"] = _position(position_part(facts, life), position_doc(model), queued and not holds)
    first = (state.findings if state else []) + [f for f in findings if f["code"] in FIRST_REASONS]
    word, reason = state_word(state, first + findings, wl is None)
    cli = facts.cli  # first: a 403 it meets makes the answer partial too
    return with_rights(document_for_cli({
        "workload": ({"namespace": ns, "name": wl["metadata"]["name"]} if wl is not None else None),
        "manifest": _manifest_doc(subject),
        "kueueVersion": ctx.semantics.version,
        "kueueVersionSource": ctx.version_source,
        "kueueGates": ctx.gate_map,
        "kueueInstallation": ctx.installation.to_json() if ctx.installation else None,
        "admitted": admitted,
        "state": word,
        "reason": reason,
        "dra": {"processed": result.dra_processed, "unknown": result.dra_unknown, "failedStep": result.failed_step,
                "message": result.message, "retried": result.retried if result.rejected else None,
                "afterAdmission": holds and result.rejected},
        "podSets": podsets_doc,
        "draCharge": {n: format_usage(n, totals[n], binary) for n in sorted(dra_resources) if totals.get(n)},
        "recorded": recorded_doc,
        "queue": queue_doc,
        "partialAdmission": partial_doc,
        **recorded_state,
        "pods": past.pods,
        "allocations": past.allocations,
        "events": past.events,
        "partial": is_partial(view),
        "findings": (state.findings if state else []) + findings,
    }, cli), view, ctx.config)


def _fills(facts: ExplainFacts, inputs: Any) -> Fills:
    """What the fixes of Kueue's DRA messages are filled with (``recorded.Fills``), from the facts read."""
    mappings = kueue_mappings(facts.kueue)
    charged = None if facts.device_classes is None else \
        {m.name for m in mappings} | inputs.extended_resource_names()
    drivers = {kind: tuple(sorted({s.driver for m in mappings for s in m.sources if s.type == kind}))
               for kind in ("counter", "capacity")}
    return Fills(cluster_queue=facts.cluster_queue, charged=charged, restart=map_restart(facts.kueue.config.kind),
                 drivers=drivers)


def _position(asked: dict[str, Any] | None, derived: dict[str, Any] | None, queued: bool) -> dict[str, Any] | None:
    """The position Kueue's visibility API gives; where it cannot answer (a snapshot, no rights, no
    API), the queue model's derived one, labelled so, with why the API did not answer."""
    if asked is not None and (asked.get("source") == "visibility" or derived is None):
        return asked
    if derived is None or not queued:
        return asked
    return dict(derived, visibilityUnknown=(asked or {}).get("unknown"))


#: findings that say why a pending workload waits before any other (the queue checks, the gate)
FIRST_REASONS = {c.name for c in (F.NoQueueName, F.LocalQueueMissing, F.LocalQueueStopped, F.ClusterQueueMissing,
                                   F.ClusterQueueStopped, F.ClusterQueueInactive, F.AdmissionGated)}


_DRA_PREFIX = "Kueue rejects this workload's DRA requests: "
_ADMISSIBILITY_PREFIX = "Kueue keeps it waiting before it looks at quota: "


def if_requeued(found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What Kueue would reject a workload for that holds quota, as warnings about a re-queue (Kueue
    never re-checks an admitted workload: its admission stands until it is evicted)."""
    return [F.RejectedIfRequeued.make(
        "if this workload were evicted and re-queued now, Kueue would reject it: "
        + f["message"].removeprefix(_DRA_PREFIX).removeprefix(_ADMISSIBILITY_PREFIX),
        variant="" if f.get("fix") else "no-fix", **({"fix": f["fix"]} if f.get("fix") else {}),
        extra={"cause": f["code"], "afterAdmission": True,
               **({"kueueMessage": f["kueueMessage"]} if f.get("kueueMessage") else {})})
        for f in found if f["severity"] == "error"]


def _manifest_doc(subject: Subject) -> dict[str, Any] | None:
    """The what-if's kind, namespace and name; ``generateName`` when the API server would pick the
    name (``displayName`` shows either the way the text does)."""
    if subject.manifest is None:
        return None
    meta = subject.manifest.get("metadata") or {}
    return {"apiVersion": subject.manifest.get("apiVersion"), "kind": subject.manifest.get("kind"),
            "namespace": subject.namespace, "name": meta.get("name"),
            "generateName": None if meta.get("name") else meta.get("generateName"),
            "displayName": manifest_name(subject.manifest)}


def _render_line(line: ChargeLine, binary: set[str]) -> dict[str, Any]:
    out = line.doc()
    if line.resource is not None:
        out["perPod"] = format_usage(line.resource, line.per_pod, binary)
    return out
