"""A workload's recorded state: finished, deactivated, evicted or preempted, kept out of the queue,
gated, waiting for admission checks; and what Kueue's recorded messages say about the queue now.

Fixes the plugin composes from the cluster's objects (a LocalQueue to apply, a stopPolicy patch,
the command that reactivates a workload) are filled into the templates here as ``{command}``."""

from .code import Code

#: the fix of a workload Kueue deactivated itself
_CAUSE_FIRST = "fix the cause first ({why}); then {command}"
_RECREATE = ("fix the cause first ({why}); then recreate {job} (delete and create it again): Kueue builds a new "
             "Workload for it")


#: the fix of a workload Kueue deactivated itself that is now kept out of the queue (Requeued=False)
_REQUEUED = "recreate {job} (delete and create it again): Kueue builds a new Workload for it and queues that one"


def _deactivated(name: str, means: str) -> Code:
    return Code(name, "error", means=means, fix=_CAUSE_FIRST, variants={"recreate": _RECREATE, "requeued": _REQUEUED})


Finished = Code(
    "Finished", "info",
    means="Kueue declared the workload finished: it holds no quota and is no longer queued.")
Inactive = Code(
    "Inactive", "warning",
    means="The workload is inactive (spec.active: false): Kueue does not queue it.",
    fix="{command}", variants={"cause": _CAUSE_FIRST, "recreate": _RECREATE})
RequeuingLimitExceeded = _deactivated(
    "RequeuingLimitExceeded", "Kueue deactivated the workload: its pods missed the PodsReady timeout more often "
    "than waitForPodsReady.requeuingStrategy.backoffLimitCount allows.")
MaximumExecutionTimeExceeded = _deactivated(
    "MaximumExecutionTimeExceeded", "Kueue deactivated the workload: it ran longer than its "
    "maximumExecutionTimeSeconds.")
EvictedOnManagerCluster = _deactivated(
    "EvictedOnManagerCluster", "Kueue deactivated the workload: the MultiKueue manager cluster evicted it.")
Evicting = Code(
    "Evicting", "warning",
    means="Kueue is evicting the workload: its pods are stopping, then it releases the quota.")
Preempted = Code(
    "Preempted", "warning",
    means="Another workload preempted this one; Kueue names it, the policy that allowed it, and whether this one "
          "goes back to the queue.",
    fix="nothing to fix: it runs again when quota frees up; to keep it from being preempted, give it a higher "
        "WorkloadPriorityClass (label kueue.x-k8s.io/priority-class on the job) or raise the quota of ClusterQueue "
        "{cluster_queue}",
    variants={"reclaimed": "nothing to fix: it runs again when quota frees up; borrowed quota can be reclaimed — "
                           "raise the nominalQuota of ClusterQueue {cluster_queue} to keep it from borrowing",
              "not-requeued": None})
PodsReadyTimeout = Code(
    "PodsReadyTimeout", "warning",
    means="Kueue evicted the workload because its pods did not all become ready within waitForPodsReady.timeout; "
          "it re-queues it after a backoff.",
    fix="nothing to do but wait for the backoff; if its pods keep failing to start, check them (kubectl describe "
        "pods) or raise waitForPodsReady.timeout")
NodeFailures = Code(
    "NodeFailures", "warning",
    means="Kueue evicted the workload because a node it ran on failed and no replacement was found.")
FlavorMigration = Code(
    "FlavorMigration", "warning",
    means="Kueue evicted the workload to move it to a more favourable ResourceFlavor.")
Deactivated = Code(
    "Deactivated", "warning",
    means="Kueue evicted the workload because it was deactivated (spec.active: false); it re-queues it once "
          "reactivated.")
Requeuing = Code(
    "Requeuing", "warning",
    means="Kueue evicted the workload for a reason this tool does not know (``cause``) and keeps it out of the "
          "queue.")
AdmissionGated = Code(
    "AdmissionGated", "warning",
    means="Kueue does not queue the workload while its kueue.x-k8s.io/admission-gated-by annotation is set.",
    fix="to admit it without waiting: kubectl annotate workload {name} -n {namespace} {annotation}-")
AdmissionGateIgnored = Code(
    "AdmissionGateIgnored", "info",
    means="The admission-gated-by annotation has no effect: Kueue runs without the AdmissionGatedBy feature gate.")
MaximumExecutionTime = Code(
    "MaximumExecutionTime", "info",
    means="How long the admitted workload may still run under its maximumExecutionTimeSeconds.")
QuotaReserved = Code(
    "QuotaReserved", "info",
    means="Quota is reserved for the workload but Kueue has not admitted it yet.")
AdmissionCheckPending = Code(
    "AdmissionCheckPending", "warning",
    means="Admission waits for an admission check that is not Ready; whether a controller runs it is said.",
    fix="start the controller of AdmissionCheck {check}, or remove the check from ClusterQueue {cluster_queue}",
    variants={"active": "wait for {controller}; its message says what it waits for"})
AdmissionCheckRetry = Code(
    "AdmissionCheckRetry", "warning",
    means="An admission check asks for a retry: Kueue evicts the workload, resets its checks and queues it again "
          "after the check's backoff.",
    fix="nothing to do unless it keeps failing: see what {controller} reports (kubectl get workload {name} -n "
        "{namespace} -o yaml: status.admissionChecks)",
    variants={"requeued": None})
AdmissionCheckRejected = Code(
    "AdmissionCheckRejected", "error",
    means="An admission check rejected the workload: Kueue deactivates it (spec.active: false).",
    fix="fix what {controller} reports, then {command}",
    variants={"cause": _CAUSE_FIRST, "recreate": _RECREATE, "requeued": _REQUEUED})
NotEvaluatedYet = Code(
    "NotEvaluatedYet", "info",
    means="Kueue's scheduler has not evaluated the workload since it was queued, so Kueue has not written why it "
          "waits; what explain says about the queue is its prediction.")
LocalQueueStopped = Code(
    "LocalQueueStopped", "error",
    means="The LocalQueue's stopPolicy is Hold or HoldAndDrain: Kueue admits none of its workloads (and with "
          "HoldAndDrain evicts the admitted ones).",
    fix="{command}", variants={"unknown": None})
StaleKueueMessage = Code(
    "StaleKueueMessage", "info",
    means="Kueue's recorded message names a queue problem that is gone or another one: Kueue rewrites it only "
          "when it next evaluates the workload.")
RejectedIfRequeued = Code(
    "RejectedIfRequeued", "warning",
    means="A workload holding quota would be rejected if it were evicted and queued again now (Kueue never "
          "re-checks an admitted workload); ``cause`` names why.",
    fix="{fix}", variants={"no-fix": None})
