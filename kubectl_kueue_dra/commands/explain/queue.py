"""The queue path of ``explain``: LocalQueue → ClusterQueue → quota (and its cohort), read through
the view, and why it does (not) admit the workload: a missing queue name or queue, a stopped or
inactive ClusterQueue, a namespace it does not select or Kueue does not manage, a resource it does
not cover, the flavor assigner's quota verdict, and for a what-if whether it would fit now.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...findings import codes as F
from ...k8s.labels import namespace_labels, selector_matches
from ...kube.view import ClusterView
from ...kueue.charge import ChargeResult
from ...kueue.names import OPENSHIFT_MANAGED_LABEL
from ...kueue.queues.cluster_queue import covered_resources
from ...kueue.queues.namespaces import OPENSHIFT, ManagedNamespaces, namespace_rule
from ...kueue.queues.quota import QuotaWorld, quota_findings, quota_table
from ...kueue.queues.quota_tree import cohort_of
from ...kueue.workloads.status import NAMESPACE_MISMATCH, condition, kueue_says
from .context import KueueContext
from .subject import Subject


@dataclass
class QueuePath:
    local_queue_name: str | None
    local_queue: dict[str, Any] | None
    cluster_queue: dict[str, Any] | None
    namespace: dict[str, Any] | None
    managed: ManagedNamespaces  # the namespaces Kueue manages
    #: what carries the queue name: "job/train" (its label), "workload/x" (spec.queueName), or None
    #: for a what-if (the file's metadata.labels)
    holder: str | None = None
    #: kind → the 403 that left the LocalQueue, ClusterQueue or Namespace above None: unknown, not missing
    unreadable: dict[str, str] = field(default_factory=dict)


def queue_findings(path: QueuePath, totals: dict[str, int], namespace: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    if not path.local_queue_name:
        out.append(F.NoQueueName.make("the workload names no LocalQueue (label kueue.x-k8s.io/queue-name): Kueue "
                                      "does not manage it unless manageJobsWithoutQueueName is set",
                                      variant=_queue_name_fix(path.holder), holder=path.holder,
                                      namespace=namespace))
        return out
    if path.namespace is not None and not path.managed.manages(path.namespace):
        if path.managed.how == OPENSHIFT:
            out.append(F.NamespaceNotManaged.make(
                f"namespace {namespace} lacks the label {OPENSHIFT_MANAGED_LABEL}=true: the Kueue operator's "
                "webhooks ignore it, so its jobs run WITHOUT quota — GPUs are not counted at all",
                variant="openshift", namespace=namespace, label=OPENSHIFT_MANAGED_LABEL))
        else:
            out.append(F.NamespaceNotManaged.make(
                f"namespace {namespace} does not match Kueue's {path.managed.describe().removeprefix('the ')}: "
                "its jobs bypass quota"))
    if path.local_queue is None and "LocalQueue" in path.unreadable:
        return out
    if path.local_queue is None:
        out.append(F.LocalQueueMissing.make(f"LocalQueue {namespace}/{path.local_queue_name} does not exist",
                                            local_queue=path.local_queue_name, namespace=namespace))
        return out
    cq_name = (path.local_queue.get("spec") or {}).get("clusterQueue")
    cq = path.cluster_queue
    if cq is None and "ClusterQueue" in path.unreadable:
        return out
    if cq is None:
        out.append(F.ClusterQueueMissing.make(
            f"ClusterQueue {cq_name} (of LocalQueue {path.local_queue_name}) does not exist", cluster_queue=cq_name))
        return out
    spec = cq.get("spec") or {}
    if spec.get("stopPolicy") in ("Hold", "HoldAndDrain"):
        out.append(F.ClusterQueueStopped.make(
            f"ClusterQueue {cq_name} has stopPolicy {spec['stopPolicy']}: it admits nothing", cluster_queue=cq_name))
    active = condition(cq, "Active")
    if active and active.get("status") == "False":
        out.append(F.ClusterQueueInactive.make(
            f"ClusterQueue {cq_name} is not active: {active.get('reason')}: {active.get('message')}"))
    out.extend(_selector_findings(cq_name, spec, path, namespace))
    covered = covered_resources(cq)
    for name in sorted(totals):
        if name not in covered and totals[name] > 0:
            out.append(F.ResourceNotCovered.make(
                f"ClusterQueue {cq_name} does not cover {name}: the workload cannot be admitted "
                f"(\"resource {name} unavailable in ClusterQueue\")", resource=name, cluster_queue=cq_name))
    return out


def _queue_name_fix(holder: str | None) -> str:
    """The fix of NoQueueName for what carries the queue name: a file's labels, a Workload, a Job."""
    if holder is None:
        return "what-if"
    return "workload" if holder.startswith("workload/") else ""


def _selector_findings(cq_name: object, spec: dict[str, Any], path: QueuePath,
                       namespace: str) -> list[dict[str, Any]]:
    """Kueue turns the ClusterQueue's namespaceSelector into a selector with
    LabelSelectorAsSelector, for which a missing one selects nothing: no namespace can use the queue."""
    selector = spec.get("namespaceSelector")
    if selector is None:
        return [F.NamespaceNotSelected.make(
            f"ClusterQueue {cq_name} has no namespaceSelector, which Kueue reads as selecting no namespace: nothing "
            f"is admitted through it (\"{NAMESPACE_MISMATCH}\")", variant="no-selector", cluster_queue=cq_name)]
    if path.namespace is None or selector_matches(selector, namespace_labels(path.namespace)):
        return []
    return [F.NamespaceNotSelected.make(f"ClusterQueue {cq_name}'s namespaceSelector does not match namespace "
                                        f"{namespace} (\"{NAMESPACE_MISMATCH}\")")]


def cluster_queue_of(view: ClusterView, subject: Subject) -> dict[str, Any] | None:
    """The ClusterQueue of the subject's LocalQueue (or of its admission); cached by the view."""
    lq_name = subject.queue_name
    local_queue = view.try_get("LocalQueue", lq_name, subject.namespace) if lq_name else None
    cq_name = ((local_queue or {}).get("spec") or {}).get("clusterQueue") or \
        (((subject.workload or {}).get("status") or {}).get("admission") or {}).get("clusterQueue")
    return view.try_get("ClusterQueue", cq_name) if cq_name else None


def queue_part(view: ClusterView, subject: Subject, ctx: KueueContext, result: ChargeResult, admitted: bool,
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
            findings.append(F.QuotaVerdictUnknown.make(
                f"whether it fits ClusterQueue {cq_name} is unknown: the charge of {', '.join(unknown)} is unknown "
                "(see ChargeUnknown)"))
    uncovered = any(f["code"] == F.ResourceNotCovered.name for f in findings)  # it says the workload cannot fit
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
        return F.WhatIfFit.make(f"it would fit in ClusterQueue {cq_name} now (enough unused quota{where})",
                                severity="info", variant="fits")
    if verdict is not None and verdict["code"] == F.ExceedsQuota.name:
        return F.WhatIfFit.make(f"it would never fit in ClusterQueue {cq_name}: it asks for more than the queue"
                                f"{' and its cohort' if queue_doc['cohort'] else ''} can ever give (see ExceedsQuota)",
                                variant="never")
    return F.WhatIfFit.make(f"it would not fit in ClusterQueue {cq_name} now (not enough unused quota{where})")


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
