"""What keeps a Workload from its ClusterQueue before the scheduler looks at quota: the checks
Kueue's workload controller makes, first match wins, with the message it writes into
``QuotaReserved=False`` (legacy reason ``Inadmissible``):

1. the LocalQueue does not exist — ``LocalQueue <lq> doesn't exist``;
2. the LocalQueue is stopped (``stopPolicy`` Hold or HoldAndDrain) — ``LocalQueue <lq> is inactive``;
3. its ClusterQueue does not exist — ``ClusterQueue <cq> doesn't exist``;
4. its ClusterQueue is inactive (stopped, a missing flavor or check, an inactive check) —
   ``ClusterQueue <cq> is inactive``.

For a Workload that holds quota but is not admitted yet (waiting for checks), the same causes
cancel the reservation (``LocalQueue <lq> is stopped``, ``… is terminating or missing``,
``ClusterQueue <cq> is stopped``); an admitted Workload is only affected by ``HoldAndDrain``
(evicted, reason LocalQueueStopped or ClusterQueueStopped). ``Hold`` lets it run.

Each blocker carries our words and a fix to paste (``kubectl``; the document rewrites it for
``oc`` on OpenShift). Pure.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ...findings import Code
from ...findings import codes as F
from .activity import Activity, Cause
from .lookup import stop_policy
from .proposals import apply_command, local_queue

Obj = dict[str, Any]
_NONE = "'{\"spec\":{\"stopPolicy\":\"None\"}}'"
#: every message of the queue checks above (and the scheduler's inactive/not-found ClusterQueue)
_BLOCKER_MESSAGE = re.compile(r"^(LocalQueue|ClusterQueue) \S+ (doesn't exist|is inactive|is stopped|"
                              r"is terminating or missing|not found)$")


def is_blocker_message(message: str | None) -> bool:
    """Whether Kueue's QuotaReserved=False message is one of a queue check's."""
    return bool(_BLOCKER_MESSAGE.match(message or ""))


@dataclass(frozen=True, kw_only=True)
class Blocker:
    #: LocalQueueMissing | LocalQueueStopped | ClusterQueueMissing | ClusterQueueStopped | ClusterQueueInactive
    code: Code
    #: what Kueue writes (QuotaReserved=False) for a workload without quota
    kueue_message: str
    message: str  # our words
    variant: str = ""  # the code's fix, and what it is filled with
    fix_args: dict[str, Any] = field(default_factory=dict)

    def finding(self) -> dict[str, Any]:
        return self.code.make(self.message, variant=self.variant, extra={"kueueMessage": self.kueue_message},
                              **self.fix_args)


@dataclass(frozen=True, kw_only=True)
class QueueState:
    """The queue path of one Workload, as read: names, objects, what could not be read."""

    namespace: str
    local_queue_name: str
    local_queue: Obj | None
    cluster_queue_name: str | None
    cluster_queue: Obj | None
    activity: Activity | None
    #: kind → why the LocalQueue / ClusterQueue above is None though it may exist (a 403)
    unknown: dict[str, str]


def local_queue_fix(namespace: str, name: str, cluster_queue: str | None, why: str = "") -> str:
    """The LocalQueue to create; without a ClusterQueue to point at, a placeholder and ``why``."""
    command = apply_command(local_queue(namespace, name, cluster_queue or "<cluster-queue>"))
    return command + (f"  # {why}" if why else "")


def stopped_fix(kind: str, name: str, namespace: str | None = None) -> str:
    ns = f" -n {namespace}" if namespace else ""
    return f"kubectl patch {kind} {name}{ns} --type=merge -p {_NONE}"


def cause_fix(cq: str, cause: Cause) -> str:
    """The fix of one cause of an inactive ClusterQueue."""
    if cause.reason == "Stopped":
        return stopped_fix("clusterqueue", cq)
    if cause.reason == "FlavorNotFound":
        return "; ".join(apply_command({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor",
                                 "metadata": {"name": f}}) for f in cause.names) + \
            " (add spec.nodeLabels if the flavor should select nodes)"
    if cause.reason == "AdmissionCheckNotFound":
        return (f"create AdmissionCheck(s) {', '.join(cause.names)} with the spec.controllerName of the controller "
                f"that runs them, or remove them from spec.admissionChecksStrategy of ClusterQueue {cq}")
    if cause.reason == "AdmissionCheckInactive":
        return (f"start the controller of AdmissionCheck(s) {', '.join(cause.names)} (kubectl get admissioncheck "
                f"{' '.join(cause.names)} -o yaml: spec.controllerName and the Active condition say which and why), "
                f"or remove them from spec.admissionChecksStrategy of ClusterQueue {cq}")
    return f"change ClusterQueue {cq} as the message says (kubectl get clusterqueue {cq} -o yaml)"


def _inactive(cq: str, activity: Activity) -> Blocker:
    stopped = any(c.reason == "Stopped" for c in activity.causes) or activity.reason == "Stopped"
    causes = activity.causes or []
    words = activity.message or "Can't admit new workloads."
    derived = "" if activity.recorded is not None else " (derived from the objects: it has no Active condition)"
    fix = "; ".join(cause_fix(cq, c) for c in causes) or cause_fix(cq, Cause(reason="", text=""))
    return Blocker(code=F.ClusterQueueStopped if stopped else F.ClusterQueueInactive,
                   kueue_message=f"ClusterQueue {cq} is inactive",
                   message=f"ClusterQueue {cq} admits nothing: {words}{derived}",
                   variant="command" if stopped else "causes", fix_args={"command": fix})


def queue_blocker(q: QueueState, *, holds_quota: bool = False, admitted: bool = False) -> Blocker | None:
    """The first blocker in Kueue's order (module docstring), or None; None too when an object it
    depends on could not be read (the caller says so). For a Workload holding quota the texts
    are those of a cancelled reservation; for an admitted one only HoldAndDrain blocks."""
    lq, ns = q.local_queue_name, q.namespace
    if q.local_queue is None:
        if "LocalQueue" in q.unknown or admitted:
            return None
        text = f"LocalQueue {lq} is terminating or missing" if holds_quota else f"LocalQueue {lq} doesn't exist"
        return Blocker(code=F.LocalQueueMissing, kueue_message=text, message=f"LocalQueue {ns}/{lq} does not exist",
                       variant="apply", fix_args={"command": local_queue_fix(ns, lq, None)})
    lq_policy = stop_policy(q.local_queue)
    if lq_policy != "None" and (not admitted or lq_policy == "HoldAndDrain"):
        text = f"LocalQueue {lq} is stopped" if holds_quota else f"LocalQueue {lq} is inactive"
        return Blocker(code=F.LocalQueueStopped, kueue_message=text,
                       message=f"LocalQueue {ns}/{lq} has stopPolicy {lq_policy}: Kueue admits none of its workloads"
                               + (" and evicts the admitted ones" if lq_policy == "HoldAndDrain" else ""),
                       fix_args={"command": stopped_fix("localqueue", lq, ns)})
    cq = q.cluster_queue_name or str((q.cluster_queue or {}).get("metadata", {}).get("name") or "")
    if q.cluster_queue is None:
        if "ClusterQueue" in q.unknown or admitted or not cq:
            return None
        text = f"ClusterQueue {cq} is terminating or missing" if holds_quota else f"ClusterQueue {cq} doesn't exist"
        return Blocker(code=F.ClusterQueueMissing, kueue_message=text,
                       message=f"ClusterQueue {cq} (of LocalQueue {ns}/{lq}) does not exist",
                       variant="recreate", fix_args={"cluster_queue": cq, "namespace": ns, "local_queue": lq})
    cq_policy = stop_policy(q.cluster_queue)
    if admitted:
        if cq_policy == "HoldAndDrain":
            return Blocker(code=F.ClusterQueueStopped, kueue_message="The ClusterQueue is stopped",
                           message=f"ClusterQueue {cq} has stopPolicy HoldAndDrain: it evicts its admitted workloads",
                           variant="command", fix_args={"command": stopped_fix("clusterqueue", cq)})
        return None
    if holds_quota and cq_policy != "None":
        return Blocker(code=F.ClusterQueueStopped, kueue_message=f"ClusterQueue {cq} is stopped",
                       message=f"ClusterQueue {cq} has stopPolicy {cq_policy}: it admits nothing",
                       variant="command", fix_args={"command": stopped_fix("clusterqueue", cq)})
    if q.activity is not None and q.activity.active is False and not holds_quota:
        return _inactive(cq, q.activity)
    return None
