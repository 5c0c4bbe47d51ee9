"""Queues and quota: what keeps a workload from its ClusterQueue, and the quota verdict."""

from .code import Code


NoQueueName = Code(
    "NoQueueName", "error",
    means="The workload names no LocalQueue, so Kueue leaves it alone unless manageJobsWithoutQueueName is set.",
    fix="kubectl label -n {namespace} {holder} kueue.x-k8s.io/queue-name={local_queue}{note}",
    variants={"workload": "set spec.queueName of {holder} in namespace {namespace} to {local_queue}{note}",
              "what-if": "add the label kueue.x-k8s.io/queue-name: {local_queue} to metadata.labels in the file{note}"})
NamespaceNotManaged = Code(
    "NamespaceNotManaged", "error",
    means="Kueue's webhooks do not act on the workload's namespace, so its jobs run without quota.",
    fix="label the namespace to match managedJobsNamespaceSelector",
    variants={"openshift": "kubectl label namespace {namespace} {label}=true",
              "labels": "kubectl label namespace {namespace} {labels}"})
NamespaceNotSelected = Code(
    "NamespaceNotSelected", "error",
    means="The ClusterQueue's namespaceSelector does not select the workload's namespace (one without a "
          "namespaceSelector selects none).",
    fix="label the namespace or widen the ClusterQueue's namespaceSelector",
    variants={"no-selector": "kubectl patch clusterqueue {cluster_queue} --type=merge -p "
                             "'{{\"spec\":{{\"namespaceSelector\":{{}}}}}}'  # {{}} selects every namespace; or "
                             "a selector that matches the namespaces meant to use it",
              "labels": "kubectl label namespace {namespace} {labels}  # or widen the namespaceSelector of "
                        "ClusterQueue {cluster_queue}",
              "kueue-condition": "label the namespace, or set the ClusterQueue's namespaceSelector ({{}} selects "
                                 "every namespace)"})
LocalQueueMissing = Code(
    "LocalQueueMissing", "error",
    means="The LocalQueue the workload names does not exist in its namespace.",
    fix="create it: a LocalQueue named {local_queue} in {namespace} pointing at a ClusterQueue",
    variants={"apply": "{command}"})
ClusterQueueMissing = Code(
    "ClusterQueueMissing", "error",
    means="The ClusterQueue the LocalQueue points at does not exist.",
    fix="create ClusterQueue {cluster_queue} or point the LocalQueue at an existing one",
    variants={"recreate": "create ClusterQueue {cluster_queue} (kubectl get clusterqueues -o yaml shows the others), "
                          "or recreate LocalQueue {namespace}/{local_queue} with spec.clusterQueue set to an existing "
                          "one (the field is immutable)"})
ClusterQueueStopped = Code(
    "ClusterQueueStopped", "error",
    means="The ClusterQueue's stopPolicy is Hold or HoldAndDrain: it admits nothing.",
    fix="kubectl patch clusterqueue {cluster_queue} --type=merge -p '{{\"spec\":{{\"stopPolicy\":\"None\"}}}}'",
    variants={"command": "{command}", "unknown": None})
ClusterQueueInactive = Code(
    "ClusterQueueInactive", "error",
    means="The ClusterQueue's Active condition is False, so it admits nothing.",
    fix="fix what the condition says (often a missing ResourceFlavor or AdmissionCheck)",
    variants={"causes": "{command}"})
ResourceNotCovered = Code(
    "ResourceNotCovered", ("error", "warning"),
    means="The ClusterQueue does not list a resource the workload is charged in its coveredResources, so the "
          "workload cannot be admitted (a warning under quotaCheckStrategy IgnoreUndeclared: it is admitted and "
          "that resource is not charged).",
    fix="{command}",
    variants={"kueue-condition": "add the resource (mapping name or extendedResourceName) to the "
                                 "ClusterQueue's coveredResources"})
NotCoveredByQueue = Code(
    "NotCoveredByQueue", "warning",
    means="No ClusterQueue covers a quota resource a DeviceClass or mapping charges, so workloads charged it "
          "are never admitted.",
    fix="{prefix}{command}",
    variants={"no-queue": "create a ClusterQueue that covers {resource} with a nominalQuota (none exists)"})
QuotaExhausted = Code(
    "QuotaExhausted", "warning",
    means="The ClusterQueue, with what its cohort can lend, has not enough unused quota now; the workload "
          "waits for others to finish.",
    fix="wait, raise nominalQuota, or allow borrowing in a cohort; see who holds it: "
        "kubectl kueue-dra queues {cluster_queue} --workloads",
    variants={"kueue-condition": "wait, raise nominalQuota, or allow borrowing in a cohort; see who holds it: "
                                 "kubectl kueue-dra queues --workloads",
              "cohort": "wait, or raise the quota it can reach: its nominalQuota, or what its cohort lends (the "
                        "other ClusterQueues' nominalQuota and lendingLimit, its own borrowingLimit); see who holds "
                        "it: kubectl kueue-dra queues {cluster_queue} --workloads"})
ExceedsQuota = Code(
    "ExceedsQuota", ("error", "info"),
    means="The workload asks for more than the ClusterQueue can ever get (its nominal quota plus what the "
          "cohort tree can lend it, capped by its borrowingLimit): it waits forever.",
    fix="raise nominalQuota of {resource} in ClusterQueue {cluster_queue}, or shrink the workload; see "
        "kubectl kueue-dra queues {cluster_queue}",
    variants={"cohort": "raise nominalQuota of {resource} in ClusterQueue {cluster_queue} (or its borrowingLimit, "
                        "or other queues' lendingLimit in the cohort), or shrink the workload; see "
                        "kubectl kueue-dra queues {cluster_queue}",
              "kueue-condition": "raise the ClusterQueue's nominalQuota / borrowingLimit (or other queues' "
                                 "lendingLimit) or shrink the workload; kubectl kueue-dra queues shows its "
                                 "quota and cohort"})
QuotaVerdictUnknown = Code(
    "QuotaVerdictUnknown", "info",
    means="Whether the workload fits its ClusterQueue is unknown: part of its charge, or its cohort's "
          "quotas, could not be known.",
    variants={"cohort": "grant list on clusterqueues and cohorts (kueue.x-k8s.io)"})
WhatIfFit = Code(
    "WhatIfFit", ("warning", "info"),
    means="Whether a what-if workload (explain -f) would fit its ClusterQueue now: info when it would, a "
          "warning when it would not, now or ever.",
    fix="see the quota table: raise nominalQuota or wait",
    variants={"never": "raise the quota or shrink the workload", "fits": None, "unknown": None, "preempt": None})
PartiallyAdmitted = Code(
    "PartiallyAdmitted", "info",
    means="Kueue admitted fewer pods of a pod set than it asks for (partial admission) and charges only those.")
PartialAdmissionFits = Code(
    "PartialAdmissionFits", "info",
    means="A waiting workload that allows partial admission fits now with fewer pods, the counts Kueue's "
          "pod-count search would pick.")
PartialAdmissionDoesNotFit = Code(
    "PartialAdmissionDoesNotFit", "warning",
    means="A waiting workload that allows partial admission does not fit even at its minimum pod counts.",
    fix="wait for quota, lower minCount (kueue.x-k8s.io/job-min-parallelism) or raise nominalQuota")
NotAdmitted = Code(
    "NotAdmitted", "warning",
    means="Kueue recorded why it does not admit the workload in words this tool does not translate; they are "
          "quoted.")
PredictionDiffers = Code(
    "PredictionDiffers", "warning",
    means="The DRA error Kueue recorded differs from the one this tool predicts now: the cluster changed "
          "since, or the Kueue version differs.")
ChargeMismatch = Code(
    "ChargeMismatch", "warning",
    means="What Kueue recorded for a resource differs from what this tool computes for it now.",
    fix="Kueue computes the charge once, while the workload is pending: ResourceSlices, DeviceClasses, the "
        "namespace's LimitRanges or RuntimeClasses changed since then, the config changed without a restart, or "
        "the Kueue version differs (pass --kueue-version)",
    variants={"not-recorded": "likely causes: the resource got no flavor (not covered), or Kueue's config changed "
                              "since admission"})
WorkloadsUnknown = Code(
    "WorkloadsUnknown", "info",
    means="The Workloads could not be read: which hold a ClusterQueue's quota and which wait for it is unknown.",
    fix="grant list on workloads (kueue.x-k8s.io)",
    variants={"snapshot": "add them to the snapshot: kubectl get workloads.kueue.x-k8s.io -A -o yaml >> SNAPSHOT"})
CohortCycle = Code(
    "CohortCycle", "warning",
    means="The Cohorts' parentName links form a cycle: Kueue cannot build the cohort tree, so what each "
          "ClusterQueue can borrow is unknown.",
    fix="set spec.parentName of one of these Cohorts so that they form a tree")

# The scheduler's flavor search and preemption, as the queue model predicts them
NodeAffinityMismatch = Code(
    "NodeAffinityMismatch", ("error", "info"),
    means="The pod's nodeSelector or required node affinity excludes a flavor's nodeLabels (Kueue compares only "
          "the label keys each flavor sets): an error when no flavor is left, info when other flavors remain.",
    fix="change the required node affinity of the job's pod template, or the nodeLabels of a flavor",
    variants={"selector": "{change}add {key}: {value} to the nodeLabels of a flavor whose nodes carry that label: "
                          "kubectl patch resourceflavor {flavor} --type=merge -p '{patch}'"})
UntoleratedTaint = Code(
    "UntoleratedTaint", ("error", "info"),
    means="A flavor's nodeTaints (NoSchedule/NoExecute) are tolerated neither by the pod nor by the flavor's own "
          "tolerations.",
    fix="add to the job's pod template: tolerations: [{toleration}], or give ResourceFlavor {flavor} that "
        "toleration in spec.tolerations",
    variants={"kueue-condition": "add the toleration to the job's pod template, or to the ResourceFlavor's "
                                 "spec.tolerations"})
FlavorNotFound = Code(
    "FlavorNotFound", ("error", "warning"),
    means="The ClusterQueue names a ResourceFlavor that does not exist.",
    fix="create ResourceFlavor {flavor} (apiVersion kueue.x-k8s.io/v1beta2), or remove it from the resourceGroups "
        "of ClusterQueue {cluster_queue}",
    variants={"kueue-condition": "create the ResourceFlavor, or remove it from the ClusterQueue's resourceGroups"})
TopologyMismatch = Code(
    "TopologyMismatch", "info",
    means="A flavor serves only pod sets that request topology-aware scheduling; the pod set does not.")
Preempting = Code(
    "Preempting", "info",
    means="Kueue makes room for the workload by preempting others (predicted), or already preempted them and "
          "waits for their quota.")
PreemptionUnknown = Code(
    "PreemptionUnknown", "info",
    means="Whether Kueue can preempt for the workload is unknown; the reason is said.")
NoPreemptionCandidates = Code(
    "NoPreemptionCandidates", "info",
    means="The workload needs quota others hold, and the ClusterQueue's preemption policy or their priorities "
          "let Kueue preempt none of them.",
    fix="wait for them to finish, or give the workload a higher priority (kueue.x-k8s.io/priority-class)",
    variants={"never": "wait for them to finish, or let ClusterQueue {cluster_queue} preempt lower-priority "
                       "workloads: kubectl patch clusterqueue {cluster_queue} --type=merge -p "
                       "'{{\"spec\":{{\"preemption\":{{\"withinClusterQueue\":\"LowerPriority\"}}}}}}'",
              "reclaim": "wait for them to finish, or let ClusterQueue {cluster_queue} take back the quota its cohort "
                         "borrows, from workloads of any priority: kubectl patch clusterqueue {cluster_queue} "
                         "--type=merge -p '{{\"spec\":{{\"preemption\":{{\"reclaimWithinCohort\":\"Any\"}}}}}}'",
              "threshold": "wait for them to finish, raise the nominalQuota of ClusterQueue {cluster_queue} so that it "
                           "need not borrow, or let it preempt them while it borrows: kubectl patch clusterqueue "
                           "{cluster_queue} --type=merge -p '{{\"spec\":{{\"preemption\":{{\"borrowWithinCohort\":"
                           "{{\"maxPriorityThreshold\":{threshold}}}}}}}}}'"})
BlockedByHead = Code(
    "BlockedByHead", "warning",
    means="The ClusterQueue is StrictFIFO and the workload first in line does not fit: Kueue looks at no workload "
          "behind it until it is admitted or removed.",
    fix="make room for {head}, or switch ClusterQueue {cluster_queue} to BestEffortFIFO: kubectl patch clusterqueue "
        "{cluster_queue} --type=merge -p '{{\"spec\":{{\"queueingStrategy\":\"BestEffortFIFO\"}}}}'")
FitsNow = Code(
    "FitsNow", "info",
    means="The workload fits now (predicted), but Kueue's last evaluation said otherwise: quota was freed since, "
          "or a workload taken earlier in the same scheduling cycle held it.")
WaitingForPodsReady = Code(
    "WaitingForPodsReady", ("warning", "info"),
    means="Kueue's waitForPodsReady.blockAdmission is on: Kueue admits no workload, in any ClusterQueue, while a "
          "workload that holds quota has pods that are not all ready (its PodsReady condition is not True).",
    fix="wait until the pods of {workloads} are ready (Kueue evicts a workload whose pods are not ready within "
        "waitForPodsReady.timeout), or let Kueue admit while pods start: {command}",
    variants={"kueue-condition": "wait until the pods of the workloads that hold quota are ready, or set "
                                 "waitForPodsReady.blockAdmission to false in Kueue's configuration (OpenShift: "
                                 "spec.config.gangScheduling.byWorkload.admission: Parallel in the Kueue CR)",
              "ready": None})
FlavorsUnknown = Code(
    "FlavorsUnknown", "info",
    means="Which flavors Kueue would assign is unknown; the reason is said.")
QueueModelCaveat = Code(
    "QueueModelCaveat", "info",
    means="Something Kueue's scheduler decides from that the objects do not show (e.g. the order of resources in "
          "an older version); the prediction may differ.")
