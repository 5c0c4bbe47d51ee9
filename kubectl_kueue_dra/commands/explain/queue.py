"""The queue path of ``explain``: LocalQueue → ClusterQueue → quota (and its cohort), read through
the view, and why it does (not) admit the workload: a missing queue name or queue, a stopped or
inactive ClusterQueue, a namespace it does not select or Kueue does not manage, a resource it does
not cover, the queue model's verdict (flavor search and preemption, ``queue_model``), and for a
what-if whether it would fit now.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ...findings import codes as F
from ...k8s.labels import namespace_labels, selector_matches
from ...dra.cel import SelectorEvaluator
from ...dra.devices import group_pools
from ...kueue.charge import ChargeResult, Unknowable, format_usage
from ...kueue.config.dra_resources import dra_resources
from ...kueue.names import OPENSHIFT_MANAGED_LABEL
from ...kueue.queues.activity import Activity, cluster_queue_activity
from ...kueue.queues.blockers import QueueState, is_blocker_message, local_queue_fix, queue_blocker
from ...kueue.queues.cluster_queue import covered_resources
from ...kueue.queues.namespaces import OPENSHIFT, ManagedNamespaces
from ...kueue.queues.proposals import cluster_queue_for, cover_command, fitting_cluster_queues, local_queue_for, \
    queue_note, selecting_labels
from ...kueue.queues.quota import quota_table
from ...kueue.queues.quota_tree import TreeError, cohort_of
from ...kueue.queues.supply import resource_supply
from ...kueue.scheduler.snapshot import Snapshot
from ...kueue.workloads.status import NAMESPACE_MISMATCH
from .context import kueue_mappings
from .facts import ExplainFacts
from .flavor_findings import model_findings
from .queue_docs import verdict_doc
from .queue_model import QueueModel


@dataclass(kw_only=True)
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
    cluster_queue_name: str | None = None
    activity: Activity | None = None  # whether the ClusterQueue admits (derived once, in the facts)
    holds_quota: bool = False  # the workload holds quota (its reservation, not a new admission, is at stake)
    admitted: bool = False
    #: the LocalQueues of the namespace (read only for a workload that names none; None: unknown)
    local_queues: list[dict[str, Any]] | None = None
    cluster_queues: list[dict[str, Any]] | None = None  # every ClusterQueue, for the same (None: unknown)
    #: quotaCheckStrategy IgnoreUndeclared in effect: an uncovered resource is admitted uncharged
    ignores_undeclared: bool = False
    #: what the cluster has of a resource (the quota a fix proposes) as text, or None; and of what, or why not
    supply: Callable[[str], tuple[str | None, str]] = lambda name: (None, "not computed")


def queue_findings(path: QueuePath, totals: dict[str, int], namespace: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    if not path.local_queue_name:
        variant = _queue_name_fix(path.holder)
        wanted = [r for r, v in totals.items() if v > 0]
        choice = local_queue_for(path.local_queues, namespace, cluster_queues=path.cluster_queues, resources=wanted)
        here = sorted(str(q["metadata"]["name"]) for q in path.local_queues or []
                      if q["metadata"].get("namespace") == namespace)
        note = "" if path.local_queues is None and choice is None else \
            queue_note(choice, namespace, here, comment=variant == "")
        out.append(F.NoQueueName.make("the workload names no LocalQueue (label kueue.x-k8s.io/queue-name): Kueue "
                                      "does not manage it unless manageJobsWithoutQueueName is set",
                                      variant=variant, holder=path.holder, namespace=namespace,
                                      local_queue=choice.value if choice else "<local-queue>", note=note))
        return out
    if path.namespace is not None and not path.managed.manages(path.namespace):
        labels = selecting_labels(path.managed.selector)
        if path.managed.how == OPENSHIFT:
            out.append(F.NamespaceNotManaged.make(
                f"namespace {namespace} lacks the label {OPENSHIFT_MANAGED_LABEL}=true: the Kueue operator's "
                "webhooks ignore it, so its jobs run WITHOUT quota — GPUs are not counted at all",
                variant="openshift", namespace=namespace, label=OPENSHIFT_MANAGED_LABEL))
        else:
            out.append(F.NamespaceNotManaged.make(
                f"namespace {namespace} does not match Kueue's {path.managed.describe().removeprefix('the ')}: "
                "its jobs bypass quota", variant="labels" if labels else "", namespace=namespace, labels=labels))
    cq_name = path.cluster_queue_name or ((path.local_queue or {}).get("spec") or {}).get("clusterQueue")
    blocker = queue_blocker(QueueState(
        namespace=namespace, local_queue_name=path.local_queue_name, local_queue=path.local_queue,
        cluster_queue_name=cq_name, cluster_queue=path.cluster_queue,
        activity=path.activity or (cluster_queue_activity(path.cluster_queue, None, None)
                                   if path.cluster_queue is not None else None),
        unknown=path.unreadable), holds_quota=path.holds_quota, admitted=path.admitted)
    if blocker is not None:
        out.append(blocker.finding())
    cq = path.cluster_queue
    if path.local_queue is None or cq is None:
        return out
    spec = cq.get("spec") or {}
    out.extend(_selector_findings(cq_name, spec, path, namespace))
    covered = covered_resources(cq)
    for name in sorted(totals):
        if name not in covered and totals[name] > 0:
            have, what = path.supply(name)
            command = cover_command(cq, name, have, what=what)
            if path.ignores_undeclared:
                out.append(F.ResourceNotCovered.make(
                    f"ClusterQueue {cq_name} does not cover {name}, and Kueue's quotaCheckStrategy is "
                    f"IgnoreUndeclared: it admits the workload without charging {name}, used outside any quota",
                    severity="warning", command=command))
                continue
            out.append(F.ResourceNotCovered.make(
                f"ClusterQueue {cq_name} does not cover {name}: the workload cannot be admitted "
                f"(\"resource {name} unavailable in ClusterQueue\")", command=command))
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
    labels = selecting_labels(selector)
    return [F.NamespaceNotSelected.make(f"ClusterQueue {cq_name}'s namespaceSelector does not match namespace "
                                        f"{namespace} (\"{NAMESPACE_MISMATCH}\")", variant="labels" if labels else "",
                                        namespace=namespace, labels=labels, cluster_queue=cq_name)]


#: what a workload holding quota would meet if it were evicted and queued again (not its verdict now)
REQUEUE_CHECKS = (F.NamespaceNotSelected.name, F.ResourceNotCovered.name)


def queue_part(facts: ExplainFacts, result: ChargeResult, holds_quota: bool, admitted: bool, totals: dict[str, int],
               binary: set[str], said: str | None, queued: bool, *,
               model: QueueModel) -> tuple[dict[str, Any] | None, list[dict[str, Any]], list[dict[str, Any]]]:
    """The queue path: LocalQueue → ClusterQueue → quota, and why it does (not) admit. Returns the
    ``queue`` part, the findings, and (for a workload holding quota) what would keep it out if it
    were evicted and queued again now. ``said``: Kueue's last word on why it waits (the scheduler's
    or the queue checks' QuotaReserved=False message, not an eviction's record). ``queued``: Kueue's
    scheduler may evaluate it (pending, not inactive or kept out of the queue): only then is the
    quota verdict why it waits."""
    findings: list[dict[str, Any]] = []
    subject, wl, managed = facts.subject, facts.workload, facts.managed
    ns, cq_name = subject.namespace, facts.cluster_queue_name
    holder = subject.job_reference or (f"workload/{wl['metadata']['name']}" if wl is not None else None)
    unnamed = not facts.local_queue_name  # the LocalQueues are read only to name one
    path = QueuePath(local_queue_name=facts.local_queue_name, local_queue=facts.local_queue,
                     cluster_queue=facts.cluster_queue, namespace=facts.namespace, managed=managed, holder=holder,
                     unreadable=facts.unreadable, cluster_queue_name=cq_name, activity=facts.activity,
                     holds_quota=holds_quota, admitted=admitted,
                     ignores_undeclared=facts.queue_world.ignores_undeclared,
                     local_queues=facts.local_queues if unnamed else None,
                     cluster_queues=facts.cluster_queues if unnamed else None,
                     supply=lambda name: _supply(facts, name, totals, binary))
    found = queue_findings(path, totals, ns)
    for f in found:
        if f["code"] == F.LocalQueueMissing.name and facts.local_queue_name:
            f["fix"] = _local_queue_fix(facts, facts.local_queue_name, totals)
    requeue: list[dict[str, Any]] = []
    if not holds_quota:
        findings.extend(found)
        findings.extend(_stale(said, found))
    else:  # Kueue's record stands: only what acts on it now, and what a re-queue would meet
        acts_now = [f for f in found if f["code"] not in REQUEUE_CHECKS or f["severity"] != "error"]  # uncharged
        findings.extend(f for f in acts_now if f["code"] != F.NamespaceNotManaged.name or managed.how == OPENSHIFT)
        requeue.extend(f for f in found if f not in acts_now)
    cluster_queue = facts.cluster_queue
    if cluster_queue is None:
        return None, findings, requeue
    table = model.snapshot if not model.holds_quota else _unexcluded(model, cluster_queue)
    chosen = {r: f for ps in model.recorded.values() for r, f in ps.items()} if model.holds_quota else \
        {r: f for ps in (model.assignment.podsets if model.assignment else []) for r, f in ps.flavors.items()}
    queue_doc: dict[str, Any] = {"localQueue": facts.local_queue_name, "clusterQueue": cq_name,
                                 "cohort": cohort_of(cluster_queue),
                                 "quota": quota_table(cluster_queue, table.node if table else None, totals, binary,
                                                      chosen), "verdict": None}
    if queued and not holds_quota and not result.rejected:  # a waiting workload, or a what-if manifest
        if model.snapshot is None and model.unknown:
            findings.append(F.QuotaVerdictUnknown.make(
                f"ClusterQueue {cq_name}"
                + (f" is in cohort {cohort_of(cluster_queue)};" if cohort_of(cluster_queue) else "")
                + f" its quota verdict is unknown: {model.unknown}", variant="cohort"))
        else:
            queue_doc["verdict"] = verdict_doc(model, binary)
            findings.extend(model_findings(model, binary, said))
            findings.extend(_older_message(queue_doc["verdict"], said))
        unknown = sorted({name for ps in result.podsets for name in ps.unknown})
        if unknown and queue_doc["verdict"] is None:  # what is known fits; with the rest, it may not
            findings.append(F.QuotaVerdictUnknown.make(
                f"whether it fits ClusterQueue {cq_name} is unknown: the charge of {', '.join(unknown)} is unknown "
                "(see ChargeUnknown)"))
    uncovered = any(f["code"] == F.ResourceNotCovered.name and f["severity"] == "error"  # it cannot fit
                    for f in findings)
    if wl is None and not result.rejected and not uncovered:
        findings.append(_what_if_fit(queue_doc, model, cq_name))
    return queue_doc, findings, requeue


def _unexcluded(model: QueueModel, cluster_queue: dict[str, Any]) -> Snapshot | None:
    """The snapshot with the workload's own quota in it (the table shows the queue as it is)."""
    try:
        return Snapshot(model.world, cluster_queue)
    except TreeError:
        return None


def _local_queue_fix(facts: ExplainFacts, name: str, totals: dict[str, int]) -> str:
    """The LocalQueue to create, pointing at the one ClusterQueue that selects the namespace and
    covers what the workload requests (else the ClusterQueues to pick from are named)."""
    wanted = [r for r, v in totals.items() if v > 0]
    choice = cluster_queue_for(facts.cluster_queues, namespace=facts.namespace, resources=wanted)
    if choice is not None:
        return local_queue_fix(facts.subject.namespace, name, choice.value, choice.why)
    fit = fitting_cluster_queues(facts.cluster_queues, namespace=facts.namespace, resources=wanted)
    every = sorted(str(q["metadata"]["name"]) for q in facts.cluster_queues or [])
    why = (f"<cluster-queue>: one of {', '.join(fit)}" if fit else
           f"<cluster-queue>: no ClusterQueue selects namespace {facts.subject.namespace} and covers "
           f"{', '.join(sorted(wanted))} (ClusterQueues: {', '.join(every)})" if every else
           "<cluster-queue>: the ClusterQueues could not be read" if facts.cluster_queues is None else
           "<cluster-queue>: no ClusterQueue exists; create one first")
    return local_queue_fix(facts.subject.namespace, name, None, why)


def _supply(facts: ExplainFacts, name: str, totals: dict[str, int], binary: set[str]) -> tuple[str | None, str]:
    """The nominal quota a fix covering ``name`` proposes: what the cluster's devices give of a DRA
    resource, else what this workload requests of it."""
    resource = next((r for r in dra_resources(kueue_mappings(facts.kueue), facts.device_classes) if r.name == name),
                    None)
    if resource is None:
        return format_usage(name, totals[name], binary), "what this workload requests"
    try:
        slices = facts.slices(None)
    except Unknowable as e:
        return None, e.reason
    have, what = resource_supply(group_pools(slices), classes=resource.classes, mapping=resource.mapping,
                                 device_classes=facts.device_classes, evaluator=SelectorEvaluator())
    return (None if have is None else str(have)), what


_BLOCKERS = {c.name for c in (F.LocalQueueMissing, F.LocalQueueStopped, F.ClusterQueueMissing,
                               F.ClusterQueueStopped, F.ClusterQueueInactive)}


#: how Kueue's flavor assigner starts every message it writes on a workload it gives no flavor
_FLAVOR_MESSAGE = "couldn't assign flavors"


def _older_message(verdict: dict[str, Any] | None, said: str | None) -> list[dict[str, Any]]:
    """Kueue's recorded flavor message beside the one the queues give now: ``matchesKueue`` on the
    verdict, and when they differ, a finding that Kueue's is older (it rewrites it only when it
    evaluates the workload again)."""
    if verdict is None or not said or not said.startswith(_FLAVOR_MESSAGE):
        return []
    predicted = verdict.get("message")
    verdict["matchesKueue"] = None if predicted is None else predicted == said
    if verdict["matchesKueue"] is not False:
        return []
    return [F.StaleKueueMessage.make(f"Kueue's message \"{said}\" is older than the queues: now it would say "
                                     f"\"{predicted}\"; Kueue rewrites it when it next evaluates the workload",
                                     extra={"kueueMessage": said})]


def _stale(said: str | None, found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Kueue rewrites a queue check's message only when it evaluates the workload again: a message
    naming a blocker that is gone (or another one) is older than the queue's state."""
    if not is_blocker_message(said):
        return []
    now = next((f.get("kueueMessage") for f in found if f["code"] in _BLOCKERS), None)
    if now == said:
        return []
    current = f"now: {now}" if now else "the queue path is clear now"
    return [F.StaleKueueMessage.make(f"Kueue's message \"{said}\" is older than the queues ({current}); Kueue "
                                     "rewrites it when it next evaluates the workload", extra={"kueueMessage": said})]


def _what_if_fit(queue_doc: dict[str, Any], model: QueueModel, cq_name: str | None) -> dict[str, Any]:
    """Would the manifest fit now, by the flavor assigner's verdict (preemption included)."""
    verdict = queue_doc["verdict"]
    where = " in its cohort" if queue_doc["cohort"] else ""
    asg = model.assignment
    if asg is None or asg.unknown is not None:
        return F.WhatIfFit.make(f"whether it would fit in ClusterQueue {cq_name} now is unknown: "
                                f"{model.unknown or (asg.unknown if asg else 'no flavor search')}", severity="info",
                                variant="unknown")
    if asg.mode == "Fit":
        return F.WhatIfFit.make(f"it would fit in ClusterQueue {cq_name} now (enough unused quota{where})",
                                severity="info", variant="fits")
    if verdict is not None and verdict["code"] == F.ExceedsQuota.name and asg.mode == "NoFit":
        return F.WhatIfFit.make(f"it would never fit in ClusterQueue {cq_name}: it asks for more than the queue"
                                f"{' and its cohort' if queue_doc['cohort'] else ''} can ever give (see ExceedsQuota)",
                                variant="never")
    targets = len(model.plan.targets) if model.plan and model.plan.possible else 0
    if targets:
        return F.WhatIfFit.make(f"it would fit in ClusterQueue {cq_name} after Kueue preempts {targets} workload(s) "
                                "(see Preempting)", severity="info", variant="preempt")
    return F.WhatIfFit.make(f"it would not fit in ClusterQueue {cq_name} now (see the findings above)")
