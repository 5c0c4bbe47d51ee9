"""After admission: why the pods of an admitted workload are not scheduled (the scheduler's reasons,
translated), and how the devices they hold compare with what Kueue charged."""

from .code import Code


#: the advice when a counter's free amount is spread over GPUs none of which holds one device's worth
_FRAGMENTED = ("wait for devices on one GPU to free up, or request a smaller device (the free counters exist, but "
               "not in one place)")

DevicesUnavailable = Code(
    "DevicesUnavailable", "warning",
    means="No set of free devices on a node satisfies all the pod's claims: too few devices match, or other "
          "claims use their counters (used up, or free but fragmented over GPUs).",
    fix="free devices (finish other pods), or relax the claims' selectors",
    variants={"fragmented": f"{_FRAGMENTED}; free devices (finish other pods), or relax the claims' selectors"})
ClaimOnOtherNode = Code(
    "ClaimOnOtherNode", "warning",
    means="A claim the pod uses is already allocated to devices of another node.",
    fix="run the pod on that node, or use a claim per pod (a ResourceClaimTemplate)")
ClaimNotCreated = Code(
    "ClaimNotCreated", "warning",
    means="The ResourceClaim of the pod's claim template does not exist yet (kube-controller-manager creates it).",
    fix="check that kube-controller-manager runs with DRA enabled and the template exists")
ClaimNotFound = Code(
    "ClaimNotFound", "warning",
    means="A ResourceClaim the pod names does not exist.",
    fix="create the ResourceClaim or fix spec.resourceClaims")
ClaimInUse = Code(
    "ClaimInUse", "warning",
    means="A claim the pod names is already reserved for as many consumers as it can have.",
    fix="give each pod its own claim (a ResourceClaimTemplate)")
ClaimBeingDeleted = Code(
    "ClaimBeingDeleted", "warning",
    means="A claim the pod names is being deleted.",
    fix="recreate the claim, or the pod")
ExtendedResourceUnavailable = Code(
    "ExtendedResourceUnavailable", "warning",
    means="Too few devices of the DeviceClass behind an extended resource are free on the node.",
    fix="free devices, or request fewer")
AllocationTimedOut = Code(
    "AllocationTimedOut", "warning",
    means="The scheduler's device allocator gave up searching (too many device combinations).",
    fix="request fewer devices per claim or narrow the selectors")
NodeSelectorUnmatched = Code(
    "NodeSelectorUnmatched", "warning",
    means="The pod's nodeSelector or node affinity (a ResourceFlavor's nodeLabels add to it) matches no node "
          "that has the devices.",
    fix="fix the pod's nodeSelector or the ResourceFlavor's nodeLabels")
NodeTainted = Code(
    "NodeTainted", "warning",
    means="The nodes have taints the pod does not tolerate.",
    fix="add tolerations (a ResourceFlavor's tolerations) or remove the taint")
NodeResourcesInsufficient = Code(
    "NodeResourcesInsufficient", "warning",
    means="The nodes lack what the pod requests of a node resource (cpu, memory, …).",
    fix="lower the pod's requests or add nodes")
Unschedulable = Code(
    "Unschedulable", "warning",
    means="Pods are not scheduled for a reason this tool does not translate (quoted), or for several reasons "
          "at once; the fix is then each reason's, in order.",
    variants={"several": "{fixes}", "fragmented": f"{_FRAGMENTED}; {{fixes}}"})
AllocatedDeviceStale = Code(
    "AllocatedDeviceStale", "warning",
    means="A pod's claim is allocated a device its driver now publishes only in an older generation of its "
          "pool, so its counters are unknown.",
    fix="check the DRA driver on the node; delete the pod to get a current device")
AllocatedDeviceMissing = Code(
    "AllocatedDeviceMissing", "warning",
    means="A pod's claim is allocated a device no ResourceSlice of its pool publishes any more, so its "
          "counters are unknown.",
    fix="check the DRA driver on the node; delete the pod to get a current device")
ChargedAboveAllocation = Code(
    "ChargedAboveAllocation", "info",
    means="Kueue charges each device the most any matching device consumes, and the devices actually "
          "allocated consume less.",
    fix="narrow the request's CEL selector to one device shape to make the charge exact")
UnchargedDevices = Code(
    "UnchargedDevices", "warning",
    means="Devices are allocated to pods Kueue does not charge: pods outside Kueue, or claims of a DeviceClass "
          "no mapping names.",
    fix="run the pods as Kueue workloads: a queue (label kueue.x-k8s.io/queue-name) in a namespace Kueue manages",
    variants={"unmapped": "map the DeviceClass: {map_command}",
              "both": "run the pods as Kueue workloads: a queue (label kueue.x-k8s.io/queue-name) in a namespace "
                      "Kueue manages; map the DeviceClass: {map_command}"})
UnchargedDevicesUnknown = Code(
    "UnchargedDevicesUnknown", "warning",
    means="Whether devices are allocated outside Kueue's accounting is unknown: the claims, workloads, pods or "
          "mappings it needs could not be read.")
