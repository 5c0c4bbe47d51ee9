"""Why a workload is (not) admitted: compare the predicted charge with what Kueue recorded, and
check the queue path (LocalQueue → ClusterQueue → quota). What the Workload's conditions say is
read by ``status``.

Pure: takes objects and the charge result, returns findings (``findings.finding`` dicts).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..dra.quantity import QuantityError, parse_quantity
from ..findings import finding
from ..k8s.labels import namespace_labels, selector_matches
from .charge import ChargeResult, kueue_int
from .names import OPENSHIFT_MANAGED_LABEL
from .queues.namespaces import OPENSHIFT, ManagedNamespaces
from .queues.cluster_queue import covered_resources
from .workloads.status import NAMESPACE_MISMATCH, condition


def compare(result: ChargeResult, recorded: dict[str, dict[str, str]], source: str,
            dra_resources: set[str]) -> list[dict[str, Any]]:
    """Numeric comparison, per pod set and resource, of the prediction with Kueue's record: for
    the admitted count of pods (partial admission), leaving out what is unknown."""
    findings = []
    for ps in result.podsets:
        rec = recorded.get(ps.name)
        if rec is None:
            continue
        predicted = ps.total
        for name in sorted(set(rec) | (set(predicted) & dra_resources)):
            if name in ps.unknown or (result.dra_unknown and name not in predicted):
                continue  # what Kueue recorded for a charge this tool cannot know is not a mismatch
            if name not in rec:
                if name in dra_resources and predicted.get(name):
                    findings.append(finding(
                        "warning", "ChargeMismatch",
                        f"pod set {ps.name}: Kueue recorded no {name}, this tool predicts {predicted[name]} "
                        "units", "likely causes: the resource got no flavor (not covered), or Kueue's config "
                        "changed since admission"))
                continue
            try:
                got = kueue_int(name, parse_quantity(rec[name]))
            except QuantityError:
                continue
            want = predicted.get(name)
            if want is None:
                if name in dra_resources:
                    findings.append(finding(
                        "warning", "ChargeMismatch",
                        f"pod set {ps.name}: Kueue recorded {name}={rec[name]} in {source}, this tool "
                        "predicts none", _MISMATCH_FIX))
                continue
            if got != want:
                findings.append(finding(
                    "warning", "ChargeMismatch",
                    f"pod set {ps.name}: Kueue recorded {name}={rec[name]} in {source}, this tool predicts "
                    f"{want if name != 'cpu' else str(want) + 'm'} (base units, for {ps.charged_count} pods)",
                    _MISMATCH_FIX))
    return findings


_MISMATCH_FIX = ("Kueue computes the charge once, while the workload is pending: ResourceSlices, DeviceClasses, "
                 "the namespace's LimitRanges or RuntimeClasses changed since then, the config changed without a "
                 "restart, or the Kueue version differs (pass --kueue-version)")


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
