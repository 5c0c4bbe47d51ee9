"""DeviceClasses, their devices and the mappings that charge them (classes and map)."""

from .code import Code


DuplicateExtendedResourceName = Code(
    "DuplicateExtendedResourceName", "warning",
    means="Several DeviceClasses have the same extendedResourceName; the scheduler and Kueue use only the "
          "newest (then the first by name).",
    fix="remove it where it is never used: {clear}  # or give them another extendedResourceName",
    variants={"set": "give each DeviceClass its own extendedResourceName"})
NoQuotaResource = Code(
    "NoQuotaResource", "warning",
    means="A DeviceClass is in no mapping and has no usable extendedResourceName, so Kueue rejects templates "
          "that request it.",
    fix="kubectl kueue-dra map set {quota_resource} --device-class {device_class}{restart}  # {why}")
ExtendedResourceWithCounters = Code(
    "ExtendedResourceWithCounters", ("error", "warning"),
    means="A DeviceClass with an extendedResourceName is in a mapping with counter sources: Kueue marks pods "
          "requesting the extended resource inadmissible.",
    fix="request MIG/partitioned devices through ResourceClaimTemplates, or drop the extendedResourceName of "
        "{device_class}: kubectl kueue-dra classes set-extended-resource {device_class} --clear",
    variants={"map": "clear it first: kubectl kueue-dra classes set-extended-resource {device_class} --clear"})
SelectorInvalid = Code(
    "SelectorInvalid", "error",
    means="A DeviceClass's CEL selector does not compile.",
    fix="fix the CEL expression in DeviceClass {device_class} spec.selectors")
SelectorNotEvaluable = Code(
    "SelectorNotEvaluable", "warning",
    means="A DeviceClass's selector is valid in Kubernetes but this tool cannot evaluate it (on some devices), "
          "so the number of matching devices is unknown.",
    fix="the scheduler evaluates it; check the devices with kubectl get resourceslices")
SelectorEvaluationError = Code(
    "SelectorEvaluationError", "error",
    means="A DeviceClass's selector fails on some devices; the scheduler cannot allocate claims of the class "
          "while such devices exist.",
    fix="guard the attribute with has(...) or use an attribute the driver publishes")
IncompletePool = Code(
    "IncompletePool", "info",
    means="Matching devices are in pools whose driver has not published every slice; they are not allocatable "
          "yet.")
NoMatchingDevices = Code(
    "NoMatchingDevices", "warning",
    means="No device in any complete ResourceSlice pool matches the DeviceClass.",
    fix="check that the DRA driver runs and publishes ResourceSlices (kubectl get resourceslices)")
CounterSelectorMatchesNone = Code(
    "CounterSelectorMatchesNone", "warning",
    means="A mapping's counter source matches none of the class's devices, so Kueue charges them nothing "
          "under that mapping.",
    fix="check the source's driver and deviceSelector (kubectl kueue-dra map -o wide)")
MappingWins = Code(
    "MappingWins", "info",
    means="The DeviceClass is also in a mapping: Kueue charges pods requesting its extended resource under "
          "the mapping's name.")
GatedFieldDropped = Code(
    "GatedFieldDropped", ("warning", "error"),
    means="A DeviceClass or ResourceSlice was written with a field of a feature gate that was off, so the API "
          "server accepted the write and stored the object without the field, which the scheduler and Kueue "
          "then never see.",
    fix="turn {gate} on (kube-apiserver, kube-controller-manager, kube-scheduler and every kubelet: "
        "--feature-gates={gate}=true), then write {object} again: the server kept nothing of the field",
    variants={"openshift": "turn {gate} on ({how}), then write {object} again: the server kept nothing of the "
                           "field"})
InconsistentCounterSets = Code(
    "InconsistentCounterSets", "warning",
    means="A driver publishes devices whose counter consumption does not fit their pool's counter sets.",
    fix="report it to the maintainers of the DRA driver {driver}")
DriverNotPublishing = Code(
    "DriverNotPublishing", "warning",
    means="No ResourceSlice of a mapping source's driver exists, so the source cannot be charged.",
    fix="check that the DRA driver {driver} runs, and the spelling of --driver")
CohortUnitScaleMismatch = Code(
    "CohortUnitScaleMismatch", "warning",
    means="ClusterQueues of one cohort give a counter or capacity quota in different unit scales, so the "
          "amounts they lend and borrow are not what they look like.",
    fix="write every nominalQuota of {mapping} in the same scale as the charge, e.g. 80Gi")
