"""Kueue's DRA charge and its admissibility checks: why Kueue rejects a workload's requests (most of
these codes translate Kueue's own condition messages), and what the charge leaves unknown."""

from .code import Code


KueueDRADisabled = Code(
    "KueueDRADisabled", "error",
    means="Kueue's KueueDRAIntegration gate is off and KueueDRARejectWorkloadsWhenDRADisabled makes Kueue "
          "reject workloads that use DRA.",
    fix="enable KueueDRAIntegration in Kueue's featureGates (kubectl kueue-dra verify shows where) and restart Kueue")
DRAIgnored = Code(
    "DRAIgnored", "info",
    means="Kueue's DRA integration is off and does not reject DRA workloads: Kueue ignores their resource "
          "claims and charges nothing for the devices.")
ResourceClaimNotSupported = Code(
    "ResourceClaimNotSupported", "error",
    means="A pod set names a ResourceClaim directly; Kueue accounts only for ResourceClaimTemplates.",
    fix="use resourceClaimTemplateName in the pod template")
DeviceClassNotMapped = Code(
    "DeviceClassNotMapped", "error",
    means="A ResourceClaimTemplate requests a DeviceClass that no entry of deviceClassMappings names.",
    fix="kubectl kueue-dra map set {quota_resource} --device-class {device_class}{restart}  # {why}",
    variants={"unnamed": "kubectl kueue-dra map set {quota_resource} --device-class <class>{restart}  # <class>: the "
                         "DeviceClass of the request (Kueue's message does not name it); {why}"})
ClaimTemplateMissing = Code(
    "ClaimTemplateMissing", "error",
    means="The ResourceClaimTemplate a pod set names does not exist in the workload's namespace.",
    fix="create the ResourceClaimTemplate in the namespace, or fix its name in the pod template")
DeviceClassMissing = Code(
    "DeviceClassMissing", ("error", "warning"),
    means="A DeviceClass that a request (error: Kueue rejects the workload), a pod the scheduler tries to place, "
          "or a mapping (warning) names does not exist.",
    fix="create the DeviceClass, or fix deviceClassName in the ResourceClaimTemplate",
    variants={"scheduler": "create the DeviceClass or fix deviceClassName",
              "map": "create it, or drop it: kubectl kueue-dra map remove {mapping} --device-class {device_class}",
              "map-only": "create it, or remove the mapping it is the only class of: kubectl kueue-dra map remove "
                          "{mapping}"})
FirstAvailableNotSupported = Code(
    "FirstAvailableNotSupported", "error",
    means="A claim uses a prioritized list (firstAvailable), which Kueue does not account for.",
    fix="request one DeviceClass with exactly: {{deviceClassName, count}}")
AdminAccessNotSupported = Code(
    "AdminAccessNotSupported", "error",
    means="A claim requests adminAccess, which the Kueue versions supported here reject.",
    fix="drop adminAccess from the ResourceClaimTemplate, or run this workload outside Kueue")
AllocationModeNotSupported = Code(
    "AllocationModeNotSupported", "error",
    means="A claim uses allocationMode All, which Kueue cannot count.",
    fix="use allocationMode: ExactCount with a count")
NotEnoughMatchingDevices = Code(
    "NotEnoughMatchingDevices", "error",
    means="Fewer devices match a request (its CEL selector, or a counter or capacity mapping's selectors) "
          "than it asks for, so Kueue cannot compute its charge.",
    fix="check the selector against the devices: kubectl kueue-dra classes -o wide",
    variants={"counter-or-capacity": "check the ResourceSlices of the driver "
                                     "(kubectl get resourceslices --field-selector spec.driver={driver})",
              "driver-unknown": "check the ResourceSlices of the mapping source's driver "
                                "(kubectl get resourceslices --field-selector spec.driver=<driver>; <driver>: one "
                                "of {drivers}, Kueue's message does not say which)"})
CounterNotPublished = Code(
    "CounterNotPublished", ("error", "warning"),
    means="No device of the driver consumes the counter a mapping's counter source names: Kueue rejects "
          "workloads charged through it (error), or would (warning, from map).",
    fix="fix counter.name in deviceClassMappings to a key the driver publishes in consumesCounters",
    variants={"map": "use a counter the driver publishes, e.g. --counter {example}",
              "map-none": "the driver publishes no counter at all: leave out --counter (whole devices are charged), "
                          "or check the driver"})
CapacityNotPublished = Code(
    "CapacityNotPublished", ("error", "warning"),
    means="No device of the driver publishes the capacity a mapping's capacity source names: Kueue rejects "
          "workloads charged through it (error), or would (warning, from map).",
    fix="fix the capacity name in deviceClassMappings to one the driver publishes in the devices' capacity",
    variants={"map": "use a capacity the driver publishes, e.g. --capacity {example}",
              "map-none": "the driver publishes no capacity at all: leave out --capacity (whole devices are "
                          "charged), or check the driver"})
CapacityRequestUnsatisfiable = Code(
    "CapacityRequestUnsatisfiable", "error",
    means="No matching device's requestPolicy admits the capacity a request asks for.",
    fix="request a capacity the devices' requestPolicy allows (kubectl get resourceslices -o yaml: "
        "capacity.{dimension}.requestPolicy), or fix the mapping's capacity source",
    variants={"unnamed": "request a capacity the devices' requestPolicy allows (kubectl get resourceslices -o yaml: "
                         "the requestPolicy of the mapping's capacity), or fix the mapping's capacity source"})
SelectorError = Code(
    "SelectorError", "error",
    means="A CEL selector of the request, its DeviceClass or the mapping does not compile, or fails on a device.",
    fix="fix the selector; kubectl kueue-dra classes shows which")
RequestWithoutExactly = Code(
    "RequestWithoutExactly", "error",
    means="A device request has neither exactly nor firstAvailable (only objects that bypassed validation can).",
    fix="give the request exactly: {{deviceClassName, count}}")
KueueCannotList = Code(
    "KueueCannotList", "error",
    means="Kueue could not list ResourceSlices or DeviceClasses (its RBAC, or the API server); it retries.",
    fix="check Kueue's ClusterRole (list and watch on resource.k8s.io deviceclasses and resourceslices) and its log")
ExtendedResourceNotInteger = Code(
    "ExtendedResourceNotInteger", "error",
    means="An extended resource backed by a DeviceClass is requested in a fraction.",
    fix="request whole devices")
ExtendedResourceOnCounterClass = Code(
    "ExtendedResourceOnCounterClass", "error",
    means="An extended resource resolves to a DeviceClass whose mapping charges counters or capacity, which "
          "Kueue refuses.",
    fix="request partitions through ResourceClaimTemplates with CEL selectors")
RequestsExceedLimits = Code(
    "RequestsExceedLimits", "error",
    means="After Kueue applies LimitRange defaults and limits-as-requests, a container requests more than its "
          "limit, so Kueue keeps the workload waiting.",
    fix="set the container's limit (or lower its request), or raise the LimitRange default")
LimitRangeViolated = Code(
    "LimitRangeViolated", "error",
    means="After Kueue's adjustments a container or the pod is outside the namespace's LimitRange max or min.",
    fix="change the requests to fit the LimitRange, or the LimitRange")
DRARejected = Code(
    "DRARejected", "error",
    means="Kueue's DRA preprocessing fails with a message this tool does not translate; it is quoted.")
NotAdmissible = Code(
    "NotAdmissible", "error",
    means="Kueue's admissibility check fails with a message this tool does not translate; it is quoted.")
ChargeUnknown = Code(
    "ChargeUnknown", "warning",
    means="The charge of a resource cannot be known (an object it depends on could not be read, or a selector "
          "cannot be evaluated here); it is left out of the totals.",
    variants={"unreadable": "grant list on the objects named (deploy/rbac/reader-clusterrole.yaml)"})
DefaultedExtendedResource = Code(
    "DefaultedExtendedResource", "info",
    means="A DeviceClass-backed extended resource comes only from a LimitRange default, which Kueue applies "
          "after deciding whether the workload uses DRA: it is charged under its own name.",
    fix="set resources.requests.{resource} in the pod template to charge it through its DeviceClass")
LimitsOnlyExtendedResource = Code(
    "LimitsOnlyExtendedResource", "info",
    means="A container sets a DeviceClass-backed extended resource only in limits, which Kueue copies into "
          "requests after deciding whether the workload uses DRA: it is charged under its own name.",
    fix="set resources.requests.{resource} as well as the limit")
