"""``explain``: gather what Kueue would look at for one workload, run the charge engine, diagnose.

Reads only through the ClusterView (live cluster or snapshot); each kind is listed once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..dra.cel import SelectorEvaluator
from ..errors import UserError
from ..findings import finding
from ..gates.kueue import derive_kueue_gates
from ..kube.refs import Ref
from ..kube.view import ClusterView
from .allocation import allocations, overcharge
from .charge import ChargeEngine, ChargeInputs, ChargeResult, format_usage
from .config import load_kueue_config
from .diagnose import QueuePath, cause_of, compare, condition, is_admitted, queue_findings, recorded_usage
from .names import QUEUE_LABEL
from .namespaces import OPENSHIFT, namespace_rule
from .install import load_kueue_install
from .podsets import PodSet, podsets_from_manifest, podsets_from_workload
from .quota import QuotaWorld, quota_findings, quota_table
from .quota_tree import cohort_of
from .semantics import DEFAULT_VERSION, SUPPORTED, DRAGates, Semantics

JOB_NAME_LABEL = "batch.kubernetes.io/job-name"


@dataclass
class Subject:
    """What is being explained: a Workload in the cluster, or a manifest (what-if)."""

    namespace: str
    podsets: list[PodSet]
    workload: dict[str, Any] | None = None
    manifest: dict[str, Any] | None = None
    owner: dict[str, Any] | None = None  # the Job etc., when known

    @property
    def queue_name(self) -> str | None:
        if self.workload is not None:
            return (self.workload.get("spec") or {}).get("queueName") or None
        labels = ((self.manifest or {}).get("metadata") or {}).get("labels") or {}
        return labels.get(QUEUE_LABEL)


def _owned_by(workload: dict[str, Any], ref: Ref, uid: str | None) -> bool:
    for owner in (workload.get("metadata") or {}).get("ownerReferences") or []:
        group = (owner.get("apiVersion") or "").rpartition("/")[0]
        if owner.get("kind") == ref.kind and owner.get("name") == ref.name and group == ref.group \
                and (uid is None or owner.get("uid") == uid):
            return True
    return False


def _not_managed_reason(view: ClusterView, obj: dict[str, Any], namespace: str) -> str:
    labels = (obj.get("metadata") or {}).get("labels") or {}
    kind = obj.get("kind", "object").lower()
    name = (obj.get("metadata") or {}).get("name")
    if view.live and not view.serves("Workload"):
        return f"{kind}/{name} has no Workload: Kueue is not installed (kueue.x-k8s.io is not served)"
    if QUEUE_LABEL not in labels:
        return (f"{kind}/{name} is not managed by Kueue: it has no {QUEUE_LABEL} label "
                f"(kubectl label -n {namespace} {kind}/{name} {QUEUE_LABEL}=<local-queue>)")
    return (f"{kind}/{name} has no Workload yet: Kueue has not reconciled it — is the namespace managed "
            "(OpenShift: label kueue.openshift.io/managed=true) and the integration enabled in Kueue's "
            "config? Explain the manifest instead with: explain -f <file>")


def resolve(view: ClusterView, ref: Ref, namespace: str) -> Subject:
    """Find the Workload for a reference. Raises UserError with the reason when there is none."""
    if ref.kind == "Workload":
        wl = view.get("Workload", ref.name, namespace)
        if wl is None:
            raise UserError(f'workload "{ref.name}" not found in namespace "{namespace}"')
        return Subject(namespace, podsets_from_workload(wl), workload=wl)

    owner = None
    if ref.kind in ("Job", "Pod"):
        owner = view.get(ref.kind, ref.name, namespace)
        if owner is None:
            raise UserError(f'{ref.kind.lower()} "{ref.name}" not found in namespace "{namespace}"')
        if ref.kind == "Pod":
            for o in (owner.get("metadata") or {}).get("ownerReferences") or []:
                if o.get("controller") and o.get("kind") == "Job":
                    return resolve(view, Ref("Job", "batch", o["name"]), namespace)
    uid = ((owner or {}).get("metadata") or {}).get("uid")
    workloads = [wl for wl in view.list("Workload", namespace) if _owned_by(wl, ref, uid)]
    if not workloads:
        if owner is not None:
            raise UserError(_not_managed_reason(view, owner, namespace))
        raise UserError(f"no Workload in namespace \"{namespace}\" is owned by {ref}",
                        "check the name and namespace (-n), or use workload/<name>")
    if len(workloads) > 1:
        names = ", ".join(sorted(w["metadata"]["name"] for w in workloads))
        raise UserError(f"{ref} has {len(workloads)} Workloads: {names}", "pick one with workload/<name>")
    return Subject(namespace, podsets_from_workload(workloads[0]), workload=workloads[0], owner=owner)


def resolve_in_all_namespaces(view: ClusterView, ref: Ref) -> Subject:
    """``-A``: find the namespace whose Workload belongs to the reference, then resolve there."""
    def matches(wl: dict[str, Any]) -> bool:
        if ref.kind == "Workload":
            return wl["metadata"]["name"] == ref.name
        return _owned_by(wl, ref, None)

    found = sorted({wl["metadata"]["namespace"] for wl in view.list("Workload") if matches(wl)})
    if not found:
        raise UserError(f"no Workload in any namespace belongs to {ref}")
    if len(found) > 1:
        raise UserError(f"{ref} exists in several namespaces: {', '.join(found)}", "pick one with -n")
    return resolve(view, ref, found[0])


def subject_from_manifest(manifest: dict[str, Any], namespace: str) -> Subject:
    ns = (manifest.get("metadata") or {}).get("namespace") or namespace
    return Subject(ns, podsets_from_manifest(manifest), manifest=manifest)


@dataclass
class Settings:
    kueue_version: str | None = None
    kueue_namespace: str | None = None


def explain(view: ClusterView, subject: Subject, settings: Settings) -> dict[str, Any]:
    findings: list[dict[str, Any]] = []
    config = load_kueue_config(view, settings.kueue_namespace)
    if not config.found:
        findings.append(finding("warning", "KueueConfigNotFound",
                                f"Kueue's configuration was not found ({config.problem}): no deviceClassMappings "
                                "are known, so every ResourceClaimTemplate class counts as unmapped",
                                "pass --kueue-namespace if Kueue runs elsewhere"))
    install = load_kueue_install(view, config)
    version, version_source = settings.kueue_version, "flag"
    if not version:
        version, version_source = (install.version, install.version_source) if install.version else \
            (DEFAULT_VERSION, "assumed")
    if version_source == "assumed":
        findings.append(finding("info", "KueueVersionAssumed",
                                f"Kueue's version could not be read from its Deployment; assuming {DEFAULT_VERSION}",
                                "pass --kueue-version to explain with another version's semantics"))
    if not Semantics.supported(version):
        findings.append(finding("warning", "KueueVersionUnsupported",
                                f"Kueue {version} is outside the versions this tool re-derives ({SUPPORTED}); "
                                "the charge below uses the nearest supported semantics", None))
    semantics = Semantics.for_version(version)
    kueue_gates = derive_kueue_gates(version, cli=install.cli_gates, config=install.config_gates,
                                     config_where=install.config_gates_where)
    gate_map = {name: state.on for name, state in kueue_gates.gates.items()}
    gates = DRAGates.from_kueue_gates(kueue_gates)

    ns = subject.namespace
    device_classes = view.try_list("DeviceClass") or []
    templates = {t["metadata"]["name"]: t for t in (view.try_list("ResourceClaimTemplate", ns) or [])}
    slices = _SliceSource(view)
    inputs = ChargeInputs(
        namespace=ns, semantics=semantics, gates=gates, mappings=config.mappings,
        device_classes=device_classes, claim_templates=templates, slices=[], slice_source=slices,
        resource_slice_api=view.serves("ResourceSlice") if view.live else True,
        evaluator=SelectorEvaluator(semantics.cel_dialect),
        exclude_resource_prefixes=tuple(((config.document.get("resources") or {})
                                         .get("excludeResourcePrefixes")) or ()))
    result = ChargeEngine(inputs).compute(subject.podsets)
    binary = inputs.binary_resources() if semantics.counters_binary_rendering else set()
    dra_resources = {m.name for m in config.mappings} | {
        (dc.get("spec") or {}).get("extendedResourceName") for dc in device_classes} - {None}

    podsets_doc = []
    totals: dict[str, int] = {}
    for ps in result.podsets:
        total = ps.total
        for name, v in total.items():
            totals[name] = totals.get(name, 0) + v
        podsets_doc.append({
            "name": ps.name, "count": ps.count,
            "charge": {n: format_usage(n, v, binary) for n, v in total.items()},
            "perPod": {n: format_usage(n, v, binary) for n, v in ps.per_pod.items()},
            "replaced": ps.replaced,
            "lines": [_render_line(line, binary) for line in ps.lines],
        })

    findings.extend(_dra_findings(result, gates))
    recorded_doc = None
    admitted = False
    state = "WhatIf"
    wl = subject.workload
    if wl is not None:
        admitted = is_admitted(wl)
        state = _state(wl)
        source, recorded = recorded_usage(wl)
        if recorded:
            recorded_doc = next(iter(recorded.values())) if len(recorded) == 1 else _sum_recorded(recorded, binary)
            findings.extend(compare(result, recorded, "status.admission" if source == "admission"
                                    else "status.resourceRequests", dra_resources))
        findings.extend(_condition_findings(wl, result))

    # the queue path
    queue_doc = None
    lq_name = subject.queue_name
    local_queue = view.try_get("LocalQueue", lq_name, ns) if lq_name else None
    cq_name = ((local_queue or {}).get("spec") or {}).get("clusterQueue") or \
        (((wl or {}).get("status") or {}).get("admission") or {}).get("clusterQueue")
    cluster_queue = view.try_get("ClusterQueue", cq_name) if cq_name else None
    namespace_obj = view.try_get("Namespace", ns)
    managed = namespace_rule(openshift=config.kind == "Kueue", configuration=config.document,
                             kueue_version=version, kueue_namespace=install.namespace)
    path = QueuePath(lq_name, local_queue, cluster_queue, namespace_obj, managed)
    if not admitted:
        findings.extend(queue_findings(path, totals, ns))
    elif managed.how == OPENSHIFT and namespace_obj is not None and not managed.manages(namespace_obj):
        findings.extend(queue_findings(path, {}, ns)[:1])
    if cluster_queue is not None:
        world = _quota_world(view, cluster_queue)
        queue_doc = {"localQueue": lq_name, "clusterQueue": cq_name, "cohort": cohort_of(cluster_queue),
                     "quota": quota_table(world, totals, binary), "verdict": None}
        if wl is not None and not admitted and not result.rejected:
            quota_found, queue_doc["verdict"] = quota_findings(
                world, [(ps.name, ps.total) for ps in result.podsets], binary)
            findings.extend(quota_found)
        if subject.workload is None and not result.rejected:
            rows = queue_doc["quota"]
            fits = all(r["fits"] for r in rows) and len(rows) == len([n for n, v in totals.items() if v])
            findings.append(finding("info" if fits else "warning", "WhatIfFit",
                                    f"it would {'fit in' if fits else 'not fit in'} ClusterQueue {cq_name} now "
                                    f"({'enough' if fits else 'not enough'} unused quota"
                                    f"{' in its cohort' if queue_doc['cohort'] else ''})",
                                    None if fits else "see the quota table: raise nominalQuota or wait"))

    allocated = _allocations(view, subject, slices)
    findings.extend(_overcharge_findings(allocated, result))
    findings.extend(finding("info", n["code"], n["message"], n.get("fix")) for n in result.notes)
    return {
        "workload": ({"namespace": ns, "name": wl["metadata"]["name"]} if wl is not None else None),
        "manifest": ({"kind": subject.manifest.get("kind"), "namespace": ns,
                      "name": (subject.manifest.get("metadata") or {}).get("name")} if subject.manifest else None),
        "kueueVersion": semantics.version,
        "kueueVersionSource": version_source,
        "kueueGates": gate_map,
        "admitted": admitted,
        "state": state,
        "dra": {"processed": result.dra_processed, "failedStep": result.failed_step,
                "message": result.message, "retried": result.retried if result.rejected else None},
        "podSets": podsets_doc,
        "recorded": recorded_doc,
        "queue": queue_doc,
        "allocations": allocated,
        "partial": bool(view.unreadable),
        "findings": findings,
    }


def _quota_world(view: ClusterView, cluster_queue: dict[str, Any]) -> QuotaWorld:
    """The ClusterQueue, and every ClusterQueue and Cohort when it is in a cohort."""
    if not cohort_of(cluster_queue):
        return QuotaWorld(cluster_queue)
    queues, cohorts = view.try_list("ClusterQueue"), view.try_list("Cohort")
    problem = None
    if queues is None or cohorts is None:
        problem = "the " + " and ".join(k for k, v in (("ClusterQueues", queues), ("Cohorts", cohorts)) if v is None) \
            + " could not be read"
    return QuotaWorld(cluster_queue, queues, cohorts, problem)


class _SliceSource:
    """ResourceSlices as the charge engine asks for them: every slice, or one driver's (on a live
    cluster a ``spec.driver`` field selector, so a MIG counter charge reads only the GPU driver's
    slices); each answer is cached by the view, a driver's list is cut from an earlier full list."""

    def __init__(self, view: ClusterView):
        self.view = view

    def __call__(self, driver: str | None) -> list[dict[str, Any]]:
        if driver is None:
            return self.view.try_list("ResourceSlice") or []
        return self.view.try_list("ResourceSlice", field_selector={"spec.driver": driver}) or []

    def for_drivers(self, drivers: set[str]) -> list[dict[str, Any]]:
        return [s for d in sorted(drivers) for s in self(d)]


def _sum_recorded(recorded: dict[str, dict[str, str]], binary: set[str]) -> dict[str, str]:
    from ..dra.quantity import parse_quantity
    from .charge import kueue_int

    sums: dict[str, int] = {}
    for per_ps in recorded.values():
        for name, q in per_ps.items():
            sums[name] = sums.get(name, 0) + kueue_int(name, parse_quantity(q))
    return {n: format_usage(n, v, binary) for n, v in sums.items()}


def _render_line(line: dict[str, Any], binary: set[str]) -> dict[str, Any]:
    out = dict(line)
    resource = line.get("resource")
    if isinstance(line.get("perPod"), int) and resource:
        out["perPod"] = format_usage(resource, line["perPod"], binary)
    elif isinstance(line.get("perPod"), int) and line.get("kind") == "podRequests":
        out["perPod"] = format_usage(line["resource"], line["perPod"], binary)
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


def _dra_findings(result: ChargeResult, gates: KueueGates) -> list[dict[str, Any]]:
    if not result.rejected:
        return []
    found = cause_of(result.message or "")
    code, cause, fix = found if found else ("DRARejected", "Kueue's DRA preprocessing fails", None)
    retry = " Kueue retries it with backoff." if result.retried else ""
    return [finding("error", code, f"Kueue rejects this workload's DRA requests: {cause}.{retry} "
                                   f"Kueue's message: {result.message}", fix, predicted=True)]


def _condition_findings(wl: dict[str, Any], result: ChargeResult) -> list[dict[str, Any]]:
    out = []
    qr = condition(wl, "QuotaReserved")
    if qr is None or qr.get("status") != "False":
        return out
    message = qr.get("message") or ""
    if result.message and message == result.message:
        return out  # already explained by the predicted DRA failure
    found = cause_of(message)
    if found:
        code, cause, fix = found
        out.append(finding("error" if code not in ("QuotaExhausted",) else "warning", code,
                           f"Kueue says: {message} — {cause}", fix, reason=qr.get("reason")))
    elif message:
        out.append(finding("warning", "NotAdmitted", f"Kueue says: {message}", None, reason=qr.get("reason")))
    if result.message and message and message != result.message and qr.get("reason") in ("Inadmissible", "Misconfigured"):
        out.append(finding("warning", "PredictionDiffers",
                           "Kueue's recorded DRA error differs from what this tool predicts now; the cluster "
                           "changed since Kueue evaluated it, or the Kueue version differs", None))
    return out


def _workload_pods(view: ClusterView, subject: Subject) -> list[dict[str, Any]]:
    owner = subject.owner
    if owner is None:
        return []
    name = owner["metadata"]["name"]
    if owner.get("kind") == "Pod":
        return [owner]
    pods = view.try_list("Pod", subject.namespace, label_selector=f"{JOB_NAME_LABEL}={name}") or []
    return [p for p in pods if any(o.get("uid") == owner["metadata"].get("uid")
                                   for o in (p.get("metadata") or {}).get("ownerReferences") or [])] or pods


def _allocations(view: ClusterView, subject: Subject, slices: _SliceSource) -> list[dict[str, Any]]:
    pods = _workload_pods(view, subject)
    if not any((p.get("spec") or {}).get("resourceClaims") or
               (p.get("status") or {}).get("extendedResourceClaimStatus") for p in pods):
        return []
    claims = view.try_list("ResourceClaim", subject.namespace) or []
    drivers = {r.get("driver") for c in claims
               for r in ((((c.get("status") or {}).get("allocation") or {}).get("devices") or {}).get("results") or [])
               if isinstance(r.get("driver"), str)}
    return allocations(pods, claims, slices.for_drivers(drivers))


def _overcharge_findings(allocated: list[dict[str, Any]], result: ChargeResult) -> list[dict[str, Any]]:
    out = []
    for ps in result.podsets:
        for line in ps.lines:
            if line.get("kind") != "counter":
                continue
            low = overcharge(allocated, line["counter"], line["counterValue"])
            if low:
                out.append(finding(
                    "info", "ChargedAboveAllocation",
                    f"Kueue charges {line['counterValue']} of {line['counter']} per device (the MAX over every "
                    f"device the request could get), but {len(low)} allocated device(s) consume less "
                    f"({', '.join(low[:3])}{'…' if len(low) > 3 else ''})",
                    "narrow the request's CEL selector to one device shape to make the charge exact"))
    return out
