"""Evictions as Kueue records them on the Workload: the ``Evicted`` condition (every reason Kueue
writes), the ``Requeued`` condition that follows once the job's pods are gone, and for a victim of
preemption who preempted it, why, and under which ClusterQueue policy.

Kueue's victim message (its scheduler's ``preemptionMessage``)::

    Preempted to accommodate a workload (UID: <uid>, JobUID: <job uid>) due to <why>;
    preemptor path: /<cohorts…>/<cq>; preemptee path: /<cohorts…>/<cq>

with ``<why>`` the text of the ``Preempted`` condition's reason (InClusterQueue, InCohortReclamation,
InCohortFairSharing, InCohortReclaimWhileBorrowing). The preemptor is looked up by UID among the
Workloads. Once the job's pods are gone Kueue writes ``Requeued``: True for ``Preempted`` and
``NodeFailures`` (False for a Workload a single Pod owns when SkipReassignmentForPodOwnedWorkloads
is on), False otherwise — those wait for a backoff, a restarted queue or a reactivation.

Pure: objects in, facts out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ...k8s.envelope import owner_references
from .status import condition

Obj = dict[str, Any]

_PREEMPTION = re.compile(r"Preempted to accommodate a workload \(UID: (?P<uid>[^,]*), JobUID: (?P<job>[^)]*)\) "
                         r"due to (?P<why>.*?); preemptor path: (?P<preemptor>[^;]*); "
                         r"preemptee path: (?P<preemptee>[^;]*)")

#: Preempted condition reason → (the ClusterQueue policy that allowed it, our words)
PREEMPTION_POLICIES: dict[str, tuple[str, str]] = {
    "InClusterQueue": ("withinClusterQueue", "a workload of higher priority in the same ClusterQueue needed its quota"),
    "InCohortReclamation": ("reclaimWithinCohort", "another ClusterQueue of the cohort reclaimed the quota this "
                            "one had borrowed"),
    "InCohortFairSharing": ("reclaimWithinCohort (fair sharing)", "fair sharing gave the quota to another "
                            "ClusterQueue of the cohort"),
    "InCohortReclaimWhileBorrowing": ("borrowWithinCohort", "a workload of higher priority of another ClusterQueue, "
                                      "itself borrowing, reclaimed the quota"),
}

#: Evicted reasons → the one word ``explain`` reports and what happened, in our words
EVICTION_CAUSES: dict[str, tuple[str, str]] = {
    "Preempted": ("Preempted", "it was preempted"),
    "PodsReadyTimeout": ("PodsReadyTimeout", "its pods did not all become ready within waitForPodsReady.timeout"),
    "AdmissionCheck": ("AdmissionCheckRetry", "an admission check asked for a retry"),
    "ClusterQueueStopped": ("ClusterQueueStopped", "its ClusterQueue was stopped with stopPolicy HoldAndDrain"),
    "LocalQueueStopped": ("LocalQueueStopped", "its LocalQueue was stopped with stopPolicy HoldAndDrain"),
    "Deactivated": ("Deactivated", "it was deactivated (spec.active: false)"),
    "NodeFailures": ("NodeFailures", "a node it ran on failed and Kueue found no replacement"),
    "FlavorMigration": ("FlavorMigration", "Kueue moved it to a more favourable ResourceFlavor"),
}
DEACTIVATED_DUE_TO = "DeactivatedDueTo"
#: DeactivationTarget reasons (Kueue deactivating a workload itself) → the word and our words
DEACTIVATION_CAUSES: dict[str, tuple[str, str]] = {
    "RequeuingLimitExceeded": ("RequeuingLimitExceeded", "its pods missed the PodsReady timeout more often than "
                               "waitForPodsReady.requeuingStrategy.backoffLimitCount allows"),
    "MaximumExecutionTimeExceeded": ("MaximumExecutionTimeExceeded", "it ran longer than its "
                                     "maximumExecutionTimeSeconds"),
    "AdmissionCheck": ("AdmissionCheckRejected", "an admission check rejected it"),
    "EvictedOnManagerCluster": ("EvictedOnManagerCluster", "the MultiKueue manager cluster evicted it"),
}


def eviction_word(reason: str | None) -> str | None:
    """The one word for an Evicted or Requeued reason (``DeactivatedDueToX`` → X's word)."""
    if not reason:
        return None
    if reason.startswith(DEACTIVATED_DUE_TO):
        cause = reason[len(DEACTIVATED_DUE_TO):]
        return DEACTIVATION_CAUSES.get(cause, (cause, ""))[0]
    return EVICTION_CAUSES.get(reason, (reason, ""))[0]


def eviction_cause(reason: str | None) -> str:
    """What the Evicted reason means, in our words."""
    if reason and reason.startswith(DEACTIVATED_DUE_TO):
        cause = reason[len(DEACTIVATED_DUE_TO):]
        return "Kueue deactivated it: " + DEACTIVATION_CAUSES.get(cause, (cause, f"cause {cause}"))[1]
    return EVICTION_CAUSES.get(reason or "", ("", f"Kueue evicted it ({reason})"))[1]


@dataclass(frozen=True, kw_only=True)
class Preemption:
    """The victim side of a preemption, from Kueue's message and the Workloads."""

    reason: str | None  # the Preempted condition's reason (InClusterQueue, …)
    uid: str | None
    job_uid: str | None
    why: str | None  # Kueue's words after "due to"
    preemptor_path: str | None
    preemptee_path: str | None
    #: the preemptor, looked up by UID: None when it is not among the Workloads (or they were unreadable)
    preemptor: Obj | None
    #: why the preemptor is unknown, when it is
    unknown: str | None

    @property
    def preemptor_cluster_queue(self) -> str | None:
        if self.preemptor is not None:
            name = ((self.preemptor.get("status") or {}).get("admission") or {}).get("clusterQueue")
            if name:
                return str(name)
        return self.preemptor_path.rsplit("/", 1)[-1] if self.preemptor_path else None

    def preemptor_doc(self) -> dict[str, Any]:
        meta = (self.preemptor or {}).get("metadata") or {}
        return {"uid": self.uid, "jobUid": self.job_uid, "namespace": meta.get("namespace"),
                "name": meta.get("name"), "clusterQueue": self.preemptor_cluster_queue,
                "priority": ((self.preemptor or {}).get("spec") or {}).get("priority") if self.preemptor else None,
                "unknown": self.unknown}


def parse_preemption(message: str | None) -> dict[str, str] | None:
    """The fields of Kueue's preemption message, or None when the message is not one."""
    m = _PREEMPTION.search(message or "")
    return m.groupdict() if m else None


def preemption_of(workload: Obj, workloads: list[Obj] | None, unreadable: str | None = None) -> Preemption | None:
    """For a Workload Kueue preempted (``Evicted`` reason Preempted, or a ``Preempted`` condition
    True), who preempted it; None otherwise. ``workloads``: where to look the preemptor up
    (None: they could not be read, ``unreadable`` says why)."""
    evicted, preempted = condition(workload, "Evicted"), condition(workload, "Preempted")
    if not ((evicted and evicted.get("status") == "True" and evicted.get("reason") == "Preempted") or
            (preempted and preempted.get("status") == "True")):
        return None
    message = (preempted or {}).get("message") or (evicted or {}).get("message")
    fields = parse_preemption(message) or {}
    uid = fields.get("uid")
    found, unknown = None, None
    if not uid or uid == "UNKNOWN":
        unknown = "Kueue did not record the preemptor's UID"
    elif workloads is None:
        unknown = f"the Workloads could not be read ({unreadable or 'forbidden'})"
    else:
        found = next((w for w in workloads if (w.get("metadata") or {}).get("uid") == uid), None)
        if found is None:
            unknown = f"no Workload has UID {uid} any more (finished and deleted, or removed)"
    return Preemption(reason=(preempted or {}).get("reason") if preempted and preempted.get("status") == "True"
                      else None,
                      uid=uid, job_uid=fields.get("job"), why=fields.get("why"),
                      preemptor_path=fields.get("preemptor"), preemptee_path=fields.get("preemptee"),
                      preemptor=found, unknown=unknown)


def owned_by_single_pod(workload: Obj) -> bool:
    """Kueue's OwnedBySinglePod: the Workload's one owner is a Pod (not a pod group's Workload)."""
    owners = owner_references(workload)
    annotations = (workload.get("metadata") or {}).get("annotations") or {}
    if len(owners) != 1 or annotations.get("kueue.x-k8s.io/is-group-workload") == "true":
        return False
    return owners[0].get("kind") == "Pod" and owners[0].get("apiVersion") == "v1"


def will_be_requeued(workload: Obj, reason: str | None, skip_pod_owned: bool) -> bool:
    """What Kueue writes into Requeued once the job's pods are gone (True: back in the queue at
    once; False: it waits for a backoff, a restart of its queue or a reactivation)."""
    requeue = reason in ("Preempted", "NodeFailures")
    return requeue and not (skip_pod_owned and owned_by_single_pod(workload))
