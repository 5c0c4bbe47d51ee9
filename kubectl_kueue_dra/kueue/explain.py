"""``explain``: gather what Kueue would look at for one workload, run the charge engine, diagnose.

Reads only through the ClusterView (live cluster or snapshot); each kind is listed once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..dra.cel import SelectorEvaluator
from ..findings import config_unknown_finding, finding, is_partial
from ..kube.manifest import manifest_name
from ..kube.view import ClusterView
from .charge import (
    ChargeEngine,
    ChargeInputs,
    ChargeLine,
    ChargeResult,
    format_usage,
)
from .install.command import cli_of, document_for_cli
from .config.load import KueueConfig, load_kueue_config
from .explain_pods import SliceSource, past_admission
from .diagnose import QueuePath, compare, queue_findings
from .workloads.status import cause_of, condition, is_admitted, recorded_usage
from .explain_inputs import adjust_inputs, gate_on, resource_rules
from .install.model import KueueInstallation, installation_of
from .config.mappings import Mapping
from .queues.namespaces import OPENSHIFT, namespace_rule
from .queues.quota import QuotaWorld, quota_findings, quota_table
from .queues.quota_tree import cohort_of
from .partial_report import (
    admissibility_findings,
    admission_counts_findings,
    partial_admission_part,
    unknown_findings,
)
from .install.semantics import DEFAULT_VERSION, SUPPORTED, DRAGates, Semantics
from .subject import (
    Subject,
)
from .workloads.transform import ResourceRules


@dataclass
class Settings:
    kueue_version: str | None = None
    kueue_namespace: str | None = None


@dataclass
class KueueContext:
    """Kueue's configuration, version and gates, with the findings about how they were found."""

    config: KueueConfig
    semantics: Semantics
    version_source: str | None  # None: the installation did not say where its version came from
    gate_map: dict[str, bool]
    gates: DRAGates
    findings: list[dict[str, Any]]
    rules: ResourceRules
    #: Kueue's PartialAdmission gate (beta, on by default since 0.5)
    partial_admission: bool = True
    kueue_namespace: str | None = None
    installation: KueueInstallation | None = None  # the one installation model (kueue/installation)


def kueue_context(view: ClusterView, settings: Settings) -> KueueContext:
    findings: list[dict[str, Any]] = []
    config = load_kueue_config(view, settings.kueue_namespace)
    if config.unreadable:
        findings.append(config_unknown_finding(config.unreadable))
    elif not config.found:
        findings.append(finding("warning", "KueueConfigNotFound",
                                f"Kueue's configuration was not found ({config.problem}): no deviceClassMappings "
                                "are known, so every ResourceClaimTemplate class counts as unmapped",
                                "pass --kueue-namespace if Kueue runs elsewhere"))
    install = installation_of(view, config, kueue_version=settings.kueue_version)
    version, version_source = (install.version, install.version_source) if install.version else \
        (DEFAULT_VERSION, "assumed")
    if version_source == "assumed":
        denied = view.forbidden("Deployment")
        why = f" ({denied})" if denied else ""
        findings.append(finding("info", "KueueVersionAssumed",
                                f"Kueue's version could not be read from its Deployment{why}; assuming "
                                f"{DEFAULT_VERSION}",
                                "pass --kueue-version to explain with another version's semantics"))
    if not Semantics.supported(version):
        findings.append(finding("warning", "KueueVersionUnsupported",
                                f"Kueue {version} is outside the versions this tool re-derives ({SUPPORTED}); "
                                "the charge below uses the nearest supported semantics", None))
    kueue_gates = install.gates
    rules, more = resource_rules(config)
    findings.extend(more)
    return KueueContext(config, Semantics.for_version(version), version_source,
                        {name: state.on for name, state in kueue_gates.gates.items()},
                        DRAGates.from_kueue_gates(kueue_gates), findings, rules,
                        gate_on("PartialAdmission", install.cli_gates, install.config_gates), install.namespace,
                        install)


def _mappings(ctx: KueueContext) -> list[Mapping]:
    """The deviceClassMappings Kueue reads (on OpenShift the ConfigMap the operator rendered)."""
    return ctx.installation.effective.mappings if ctx.installation else ctx.config.mappings


def _charge_inputs(view: ClusterView, ctx: KueueContext, subject: Subject, slices: SliceSource) -> ChargeInputs:
    ns = subject.namespace
    listed = view.try_list("ResourceClaimTemplate", ns)
    templates = {str(t["metadata"]["name"]): t for t in listed or []}
    classes = view.try_list("DeviceClass")
    unreadable = {kind: view.forbidden(kind) or f"the {kind}s could not be read"
                  for kind, got in (("ResourceClaimTemplate", listed), ("DeviceClass", classes)) if got is None}
    if ctx.config.unreadable:
        unreadable["KueueConfig"] = ctx.config.unreadable
    device_classes = {str(c["metadata"]["name"]): c for c in classes or []}
    if subject.file is not None:  # what the file carries comes before the cluster's
        templates.update(_named(subject.file.companions("ResourceClaimTemplate", ns)))
        device_classes.update(_named(subject.file.companions("DeviceClass")))
    return ChargeInputs(
        namespace=ns, semantics=ctx.semantics, gates=ctx.gates, mappings=_mappings(ctx),
        device_classes=list(device_classes.values()), claim_templates=templates, slices=[], slice_source=slices,
        resource_slice_api=view.serves("ResourceSlice") if view.live else True,
        evaluator=SelectorEvaluator(ctx.semantics.cel_dialect),
        rules=ctx.rules, adjust=adjust_inputs(view, ns, subject.podsets), unreadable=unreadable)


def _named(objects: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {str(o["metadata"]["name"]): o for o in objects if (o.get("metadata") or {}).get("name")}


def _file_findings(subject: Subject) -> list[dict[str, Any]]:
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
        out.append(finding("info", "FromManifest", f"taken from {file.source} before the cluster's: {', '.join(used)}",
                           None))
    if file.ignored_kinds():
        out.append(finding("info", "ManifestObjectsNotRead",
                           f"{file.source} also holds {', '.join(file.ignored_kinds())}: explain reads these kinds "
                           "from the cluster only", None))
    return out


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


def _recorded_part(wl: dict[str, Any], result: ChargeResult, binary: set[str], dra_resources: set[str],
                   stated: set[str]) -> tuple[dict[str, str] | None, list[dict[str, Any]]]:
    """What Kueue recorded for the Workload, and the findings of comparing it with the prediction."""
    findings: list[dict[str, Any]] = []
    recorded_doc = None
    source, recorded = recorded_usage(wl)
    if recorded:  # in the charge's own form, so that equal amounts read equal (5100273664 is 4864Mi)
        recorded_doc = _sum_recorded(recorded, binary)
        findings.extend(compare(result, recorded, "status.admission" if source == "admission"
                                else "status.resourceRequests", dra_resources))
    findings.extend(_condition_findings(wl, result, stated))
    return recorded_doc, findings


def _cluster_queue(view: ClusterView, subject: Subject) -> dict[str, Any] | None:
    """The ClusterQueue of the subject's LocalQueue (or of its admission); cached by the view."""
    lq_name = subject.queue_name
    local_queue = view.try_get("LocalQueue", lq_name, subject.namespace) if lq_name else None
    cq_name = ((local_queue or {}).get("spec") or {}).get("clusterQueue") or \
        (((subject.workload or {}).get("status") or {}).get("admission") or {}).get("clusterQueue")
    return view.try_get("ClusterQueue", cq_name) if cq_name else None


def _queue_part(view: ClusterView, subject: Subject, ctx: KueueContext, result: ChargeResult, admitted: bool,
                totals: dict[str, int], binary: set[str]) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
    """The queue path: LocalQueue → ClusterQueue → quota, and why it does (not) admit."""
    findings: list[dict[str, Any]] = []
    ns, wl, config = subject.namespace, subject.workload, ctx.config
    lq_name = subject.queue_name
    local_queue = view.try_get("LocalQueue", lq_name, ns) if lq_name else None
    cq_name = ((local_queue or {}).get("spec") or {}).get("clusterQueue") or \
        (((wl or {}).get("status") or {}).get("admission") or {}).get("clusterQueue")
    cluster_queue = view.try_get("ClusterQueue", cq_name) if cq_name else None
    namespace_obj = view.try_get("Namespace", ns)
    managed = namespace_rule(openshift=config.kind == "Kueue", configuration=config.document,
                             kueue_version=ctx.semantics.version, kueue_namespace=ctx.kueue_namespace)
    holder = subject.job_reference or (f"workload/{wl['metadata']['name']}" if wl is not None else None)
    unread = {kind: why for kind, got in (("LocalQueue", local_queue), ("ClusterQueue", cluster_queue),
                                          ("Namespace", namespace_obj))
              if got is None and (why := view.forbidden(kind))}
    path = QueuePath(lq_name, local_queue, cluster_queue, namespace_obj, managed, holder, unread)
    if not admitted:
        findings.extend(queue_findings(path, totals, ns))
    elif managed.how == OPENSHIFT and namespace_obj is not None and not managed.manages(namespace_obj):
        findings.extend(queue_findings(path, {}, ns)[:1])
    if cluster_queue is None:
        return None, findings
    world = quota_world(view, cluster_queue)
    queue_doc: dict[str, Any] = {"localQueue": lq_name, "clusterQueue": cq_name,
                                 "cohort": cohort_of(cluster_queue),
                                 "quota": quota_table(world, totals, binary), "verdict": None}
    if not admitted and not result.rejected:  # a waiting workload, or a what-if manifest
        quota_found, queue_doc["verdict"] = quota_findings(world, [(ps.name, ps.total) for ps in result.podsets],
                                                           binary, kueue_says(wl))
        findings.extend(quota_found)
        unknown = sorted({name for ps in result.podsets for name in ps.unknown})
        if unknown and queue_doc["verdict"] is None:  # what is known fits; with the rest, it may not
            findings.append(finding("info", "QuotaVerdictUnknown",
                                    f"whether it fits ClusterQueue {cq_name} is unknown: the charge of "
                                    f"{', '.join(unknown)} is unknown (see ChargeUnknown)", None))
    uncovered = any(f["code"] == "ResourceNotCovered" for f in findings)  # it says the workload cannot fit
    if wl is None and not result.rejected and not uncovered:
        findings.append(_what_if_fit(queue_doc, totals, cq_name))
    return queue_doc, findings


def _what_if_fit(queue_doc: dict[str, Any], totals: dict[str, int], cq_name: str | None) -> dict[str, Any]:
    """Would the manifest fit now: the flavor assigner's verdict when the cohort tree was read,
    else the rows' nominal-quota view. Resources the ClusterQueue does not cover never fit."""
    rows = queue_doc["quota"]
    covered = len(rows) == len([n for n, v in totals.items() if v])
    known = all(r.get("maximumCapacity") is not None for r in rows)
    verdict = queue_doc["verdict"]
    fits = covered and (verdict is None if known else all(r["fits"] for r in rows))
    where = " in its cohort" if queue_doc["cohort"] else ""
    if fits:
        return finding("info", "WhatIfFit", f"it would fit in ClusterQueue {cq_name} now (enough unused quota{where})")
    if verdict is not None and verdict["code"] == "ExceedsQuota":
        return finding("warning", "WhatIfFit", f"it would never fit in ClusterQueue {cq_name}: it asks for more than "
                       f"the queue{' and its cohort' if queue_doc['cohort'] else ''} can ever give (see ExceedsQuota)",
                       "raise the quota or shrink the workload")
    return finding("warning", "WhatIfFit", f"it would not fit in ClusterQueue {cq_name} now (not enough unused "
                   f"quota{where})", "see the quota table: raise nominalQuota or wait")


def quota_world(view: ClusterView, cluster_queue: dict[str, Any]) -> QuotaWorld:
    """The ClusterQueue, and every ClusterQueue and Cohort when it is in a cohort."""
    if not cohort_of(cluster_queue):
        return QuotaWorld(cluster_queue)
    queues, cohorts = view.try_list("ClusterQueue"), view.try_list("Cohort")
    problem = None
    if queues is None or cohorts is None:
        problem = "the " + " and ".join(k for k, v in (("ClusterQueues", queues), ("Cohorts", cohorts)) if v is None) \
            + " could not be read"
    return QuotaWorld(cluster_queue, queues, cohorts, problem)


def explain(view: ClusterView, subject: Subject, settings: Settings) -> dict[str, Any]:
    ctx = kueue_context(view, settings)
    findings = list(ctx.findings)
    ns, wl = subject.namespace, subject.workload
    slices = SliceSource(view)
    inputs = _charge_inputs(view, ctx, subject, slices)
    result = ChargeEngine(inputs).compute(subject.podsets)
    binary = inputs.binary_resources() if ctx.semantics.counters_binary_rendering else set()
    dra_resources = {m.name for m in _mappings(ctx)} | inputs.extended_resource_names()
    podsets_doc, totals = _podsets_doc(result, binary)

    findings.extend(_dra_findings(result))
    findings.extend(unknown_findings(result))
    findings.extend(admission_counts_findings(result))
    recorded_doc = None
    admitted = wl is not None and is_admitted(wl)
    findings.extend(admissibility_findings(result, inputs.adjust.limit_ranges, admitted))
    queue_doc, queue_found = _queue_part(view, subject, ctx, result, admitted, totals, binary)
    if wl is not None:  # one fact, one finding: what the queue part states, Kueue's condition does not repeat
        recorded_doc, more = _recorded_part(wl, result, binary, dra_resources, {f["code"] for f in queue_found})
        findings.extend(more)
    findings.extend(queue_found)
    cluster_queue = _cluster_queue(view, subject)
    partial_doc, more = partial_admission_part(quota_world(view, cluster_queue) if cluster_queue else None,
                                               subject.podsets, result, admitted, ctx.partial_admission, binary)
    findings.extend(more)

    past = past_admission(view, subject, slices, result)
    findings.extend(past.findings)
    findings.extend(finding("info", n.code, n.message, n.fix) for n in result.notes)
    findings.extend(_file_findings(subject))
    cli = cli_of(view, ctx.config)  # first: a 403 it meets makes the answer partial too
    return document_for_cli({
        "workload": ({"namespace": ns, "name": wl["metadata"]["name"]} if wl is not None else None),
        "manifest": _manifest_doc(subject),
        "kueueVersion": ctx.semantics.version,
        "kueueVersionSource": ctx.version_source,
        "kueueGates": ctx.gate_map,
        "kueueInstallation": ctx.installation.to_json() if ctx.installation else None,
        "admitted": admitted,
        "state": _state(wl) if wl is not None else "WhatIf",
        "dra": {"processed": result.dra_processed, "unknown": result.dra_unknown, "failedStep": result.failed_step,
                "message": result.message, "retried": result.retried if result.rejected else None},
        "podSets": podsets_doc,
        "draCharge": {n: format_usage(n, totals[n], binary) for n in sorted(dra_resources) if totals.get(n)},
        "recorded": recorded_doc,
        "queue": queue_doc,
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


def _sum_recorded(recorded: dict[str, dict[str, str]], binary: set[str]) -> dict[str, str]:
    from ..dra.quantity import QuantityError, parse_quantity
    from .charge import kueue_int

    sums: dict[str, int] = {}
    unreadable: dict[str, str] = {}
    for per_ps in recorded.values():
        for name, q in per_ps.items():
            try:
                sums[name] = sums.get(name, 0) + kueue_int(name, parse_quantity(q))
            except QuantityError:
                unreadable[name] = str(q)  # shown as Kueue wrote it; compare() names the bad value
    return {n: format_usage(n, v, binary) for n, v in sums.items() if n not in unreadable} | unreadable


def _render_line(line: ChargeLine, binary: set[str]) -> dict[str, Any]:
    out = line.doc()
    if line.resource is not None:
        out["perPod"] = format_usage(line.resource, line.per_pod, binary)
    return out


def _state(wl: dict[str, Any]) -> str:
    for ctype in ("Finished", "Admitted", "QuotaReserved"):
        c = condition(wl, ctype)
        if c and c.get("status") == "True":
            return ctype
    c = condition(wl, "QuotaReserved")
    if c and c.get("reason") in ("Inadmissible", "Misconfigured"):
        return "Inadmissible"
    return "Pending"


def _dra_findings(result: ChargeResult) -> list[dict[str, Any]]:
    if not result.rejected:
        return []
    found = cause_of(result.message or "")
    code, cause, fix = found if found else ("DRARejected", "Kueue's DRA preprocessing fails", None)
    retry = " Kueue retries it with backoff." if result.retried else ""
    return [finding("error", code, f"Kueue rejects this workload's DRA requests: {cause}.{retry} "
                                   f"Kueue's message: {result.message}", fix, predicted=True)]


def kueue_says(wl: dict[str, Any] | None) -> str | None:
    """Kueue's own words on why the Workload has no quota (its QuotaReserved=False message)."""
    qr = condition(wl, "QuotaReserved") if wl is not None else None
    return (qr.get("message") or None) if qr is not None and qr.get("status") == "False" else None


def _condition_findings(wl: dict[str, Any], result: ChargeResult, stated: set[str]) -> list[dict[str, Any]]:
    """Kueue's recorded reason, unless a finding of ours already states the same fact (``stated``:
    the codes of the quota verdict, which quotes Kueue's words)."""
    out: list[dict[str, Any]] = []
    qr = condition(wl, "QuotaReserved")
    if qr is None or qr.get("status") != "False":
        return out
    message = qr.get("message") or ""
    if result.message and message == result.message:
        return out  # already explained by the predicted DRA failure
    found = cause_of(message)
    if found and found[0] in stated:
        return out
    if found:
        code, cause, fix = found
        out.append(finding("error" if code not in ("QuotaExhausted",) else "warning", code,
                           f"Kueue says: {message} — {cause}", fix, reason=qr.get("reason")))
    elif message:
        out.append(finding("warning", "NotAdmitted", f"Kueue says: {message}", None, reason=qr.get("reason")))
    if result.message and message and message != result.message and \
            qr.get("reason") in ("Inadmissible", "Misconfigured"):
        out.append(finding("warning", "PredictionDiffers",
                           "Kueue's recorded DRA error differs from what this tool predicts now; the cluster "
                           "changed since Kueue evaluated it, or the Kueue version differs", None))
    return out
