"""The queue path of ``explain``: LocalQueue → ClusterQueue → quota (and its cohort), read through
the view, and why it does (not) admit the workload: a missing queue name or queue, a stopped or
inactive ClusterQueue, a namespace it does not select or Kueue does not manage, a resource it does
not cover, the queue model's verdict (flavor search and preemption, ``queue_model``), and for a
what-if whether it would fit now.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...findings import finding
from ...k8s.labels import namespace_labels, selector_matches
from ...kube.view import ClusterView
from ...kueue.charge import ChargeResult
from ...kueue.names import OPENSHIFT_MANAGED_LABEL
from ...kueue.queues.cluster_queue import covered_resources
from ...kueue.queues.namespaces import OPENSHIFT, ManagedNamespaces, namespace_rule
from ...kueue.queues.quota import quota_table
from ...kueue.queues.quota_tree import TreeError, cohort_of
from ...kueue.queues.snapshot import Snapshot
from ...kueue.workloads.status import NAMESPACE_MISMATCH, condition, kueue_says
from .context import KueueContext
from .flavor_findings import model_findings
from .queue_docs import verdict_doc
from .queue_model import QueueModel
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
        out.append(finding("error", "NoQueueName",
                           "the workload names no LocalQueue (label kueue.x-k8s.io/queue-name): Kueue does not "
                           "manage it unless manageJobsWithoutQueueName is set",
                           _queue_name_fix(path.holder, namespace)))
        return out
    if path.namespace is not None and not path.managed.manages(path.namespace):
        if path.managed.how == OPENSHIFT:
            out.append(finding(
                "error", "NamespaceNotManaged",
                f"namespace {namespace} lacks the label {OPENSHIFT_MANAGED_LABEL}=true: the Kueue operator's "
                "webhooks ignore it, so its jobs run WITHOUT quota — GPUs are not counted at all",
                f"kubectl label namespace {namespace} {OPENSHIFT_MANAGED_LABEL}=true"))
        else:
            out.append(finding(
                "error", "NamespaceNotManaged",
                f"namespace {namespace} does not match Kueue's {path.managed.describe().removeprefix('the ')}: "
                "its jobs bypass quota", "label the namespace to match managedJobsNamespaceSelector"))
    if path.local_queue is None and "LocalQueue" in path.unreadable:
        return out
    if path.local_queue is None:
        out.append(finding("error", "LocalQueueMissing",
                           f"LocalQueue {namespace}/{path.local_queue_name} does not exist",
                           f"create it: a LocalQueue named {path.local_queue_name} in {namespace} pointing at a "
                           "ClusterQueue"))
        return out
    cq_name = (path.local_queue.get("spec") or {}).get("clusterQueue")
    cq = path.cluster_queue
    if cq is None and "ClusterQueue" in path.unreadable:
        return out
    if cq is None:
        out.append(finding("error", "ClusterQueueMissing",
                           f"ClusterQueue {cq_name} (of LocalQueue {path.local_queue_name}) does not exist",
                           f"create ClusterQueue {cq_name} or point the LocalQueue at an existing one"))
        return out
    spec = cq.get("spec") or {}
    if spec.get("stopPolicy") in ("Hold", "HoldAndDrain"):
        out.append(finding("error", "ClusterQueueStopped",
                           f"ClusterQueue {cq_name} has stopPolicy {spec['stopPolicy']}: it admits nothing",
                           f"kubectl patch clusterqueue {cq_name} --type=merge "
                           "-p '{\"spec\":{\"stopPolicy\":\"None\"}}'"))
    active = condition(cq, "Active")
    if active and active.get("status") == "False":
        out.append(finding("error", "ClusterQueueInactive",
                           f"ClusterQueue {cq_name} is not active: {active.get('reason')}: {active.get('message')}",
                           "fix what the condition says (often a missing ResourceFlavor or AdmissionCheck)"))
    out.extend(_selector_findings(cq_name, spec, path, namespace))
    covered = covered_resources(cq)
    for name in sorted(totals):
        if name not in covered and totals[name] > 0:
            out.append(finding("error", "ResourceNotCovered",
                               f"ClusterQueue {cq_name} does not cover {name}: the workload cannot be admitted "
                               f"(\"resource {name} unavailable in ClusterQueue\")",
                               f"add {name} to coveredResources of ClusterQueue {cq_name} with a nominalQuota"))
    return out


def _queue_name_fix(holder: str | None, namespace: str) -> str:
    if holder is None:
        return "add the label kueue.x-k8s.io/queue-name: <local-queue> to metadata.labels in the file"
    if holder.startswith("workload/"):
        return f"set spec.queueName of {holder} in namespace {namespace} to a LocalQueue"
    return f"kubectl label -n {namespace} {holder} kueue.x-k8s.io/queue-name=<local-queue>"


def _selector_findings(cq_name: object, spec: dict[str, Any], path: QueuePath,
                       namespace: str) -> list[dict[str, Any]]:
    """Kueue turns the ClusterQueue's namespaceSelector into a selector with
    LabelSelectorAsSelector, for which a missing one selects nothing: no namespace can use the queue."""
    selector = spec.get("namespaceSelector")
    if selector is None:
        return [finding("error", "NamespaceNotSelected",
                        f"ClusterQueue {cq_name} has no namespaceSelector, which Kueue reads as selecting no "
                        f"namespace: nothing is admitted through it (\"{NAMESPACE_MISMATCH}\")",
                        f"set spec.namespaceSelector of ClusterQueue {cq_name} to {{}} (every namespace) "
                        "or to a selector that matches the namespaces meant to use it")]
    if path.namespace is None or selector_matches(selector, namespace_labels(path.namespace)):
        return []
    return [finding("error", "NamespaceNotSelected",
                    f"ClusterQueue {cq_name}'s namespaceSelector does not match namespace {namespace} "
                    f"(\"{NAMESPACE_MISMATCH}\")",
                    "label the namespace or widen the ClusterQueue's namespaceSelector")]


def cluster_queue_of(view: ClusterView, subject: Subject) -> dict[str, Any] | None:
    """The ClusterQueue of the subject's LocalQueue (or of its admission); cached by the view."""
    lq_name = subject.queue_name
    local_queue = view.try_get("LocalQueue", lq_name, subject.namespace) if lq_name else None
    cq_name = ((local_queue or {}).get("spec") or {}).get("clusterQueue") or \
        (((subject.workload or {}).get("status") or {}).get("admission") or {}).get("clusterQueue")
    return view.try_get("ClusterQueue", cq_name) if cq_name else None


def queue_part(view: ClusterView, subject: Subject, ctx: KueueContext, result: ChargeResult, admitted: bool,
               totals: dict[str, int], binary: set[str],
               model: QueueModel) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
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
    table = model.snapshot if not model.holds_quota else _unexcluded(model, cluster_queue)
    chosen = {r: f for ps in model.recorded.values() for r, f in ps.items()} if model.holds_quota else \
        {r: f for ps in (model.assignment.podsets if model.assignment else []) for r, f in ps.flavors.items()}
    queue_doc: dict[str, Any] = {"localQueue": lq_name, "clusterQueue": cq_name,
                                 "cohort": cohort_of(cluster_queue),
                                 "quota": quota_table(cluster_queue, table.node if table else None, totals, binary,
                                                      chosen), "verdict": None}
    if not admitted and not model.holds_quota and not result.rejected:  # a waiting workload, or a what-if
        if model.snapshot is None and model.unknown:
            findings.append(finding("info", "QuotaVerdictUnknown",
                                    f"ClusterQueue {cq_name} is in cohort {cohort_of(cluster_queue)}; its quota "
                                    f"verdict is unknown: {model.unknown}",
                                    "grant list on clusterqueues and cohorts (kueue.x-k8s.io)"))
        else:
            queue_doc["verdict"] = verdict_doc(model, binary)
            findings.extend(model_findings(model, binary, kueue_says(wl)))
        unknown = sorted({name for ps in result.podsets for name in ps.unknown})
        if unknown and queue_doc["verdict"] is None:  # what is known fits; with the rest, it may not
            findings.append(finding("info", "QuotaVerdictUnknown",
                                    f"whether it fits ClusterQueue {cq_name} is unknown: the charge of "
                                    f"{', '.join(unknown)} is unknown (see ChargeUnknown)", None))
    uncovered = any(f["code"] == "ResourceNotCovered" for f in findings)  # it says the workload cannot fit
    if wl is None and not result.rejected and not uncovered:
        findings.append(_what_if_fit(queue_doc, model, cq_name))
    return queue_doc, findings


def _unexcluded(model: QueueModel, cluster_queue: dict[str, Any]) -> Snapshot | None:
    """The snapshot with the workload's own quota in it (the table shows the queue as it is)."""
    try:
        return Snapshot(model.world, cluster_queue)
    except TreeError:
        return None


def _what_if_fit(queue_doc: dict[str, Any], model: QueueModel, cq_name: str | None) -> dict[str, Any]:
    """Would the manifest fit now, by the flavor assigner's verdict (preemption included)."""
    verdict = queue_doc["verdict"]
    where = " in its cohort" if queue_doc["cohort"] else ""
    asg = model.assignment
    if asg is None or asg.unknown is not None:
        return finding("info", "WhatIfFit", f"whether it would fit in ClusterQueue {cq_name} now is unknown: "
                                            f"{model.unknown or (asg.unknown if asg else 'no flavor search')}")
    if asg.mode == "Fit":
        return finding("info", "WhatIfFit", f"it would fit in ClusterQueue {cq_name} now (enough unused quota{where})")
    if verdict is not None and verdict["code"] == "ExceedsQuota" and asg.mode == "NoFit":
        return finding("warning", "WhatIfFit", f"it would never fit in ClusterQueue {cq_name}: it asks for more than "
                       f"the queue{' and its cohort' if queue_doc['cohort'] else ''} can ever give (see ExceedsQuota)",
                       "raise the quota or shrink the workload")
    targets = len(model.plan.targets) if model.plan and model.plan.possible else 0
    if targets:
        return finding("info", "WhatIfFit", f"it would fit in ClusterQueue {cq_name} after Kueue preempts {targets} "
                       "workload(s) (see Preempting)")
    return finding("warning", "WhatIfFit", f"it would not fit in ClusterQueue {cq_name} now (see the findings above)",
                   "see the quota table: raise nominalQuota or wait")
