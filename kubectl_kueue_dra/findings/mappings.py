"""Changing deviceClassMappings (map set|remove): the rules a change breaks (Kueue's start-up validation
and the operator's CRD), and what happens after the write.

A rule is an error when the change breaks it (map refuses it), a warning when it may not apply: the
Kueue version or gates are unknown (the fix then adds ``pass --kueue-version``), or the configuration
broke it before the change."""

from collections.abc import Mapping

from .code import Code, Severity


#: the severities of a mapping rule
_RULE: tuple[Severity, ...] = ("error", "warning")
#: the fix of a rule that holds only for some Kueue versions, when the version is unknown
_CHECK = "pass --kueue-version to check exactly"


def _rule(name: str, means: str, fix: str | None = None, variants: Mapping[str, str | None] | None = None) -> Code:
    return Code(name, _RULE, means=means, fix=fix, variants=variants)


ConfigReformatted = Code(
    "ConfigReformatted", "warning",
    means="The configuration text could not be edited in place, so it was written out again: comments and "
          "formatting are lost.")
RestartNeeded = Code(
    "RestartNeeded", "info",
    means="Upstream Kueue reads deviceClassMappings only at start: the change takes effect when it restarts.",
    fix="kubectl rollout restart deployment/{deployment} -n {namespace} (or rerun with --restart)")
Restarted = Code(
    "Restarted", "info",
    means="With map --restart, the plugin restarted Kueue's Deployment and saw its rollout complete.")
OperatorRollout = Code(
    "OperatorRollout", "info",
    means="The OpenShift Kueue operator renders the change into Kueue's ConfigMap and rolls Kueue out by itself.",
    fix="rerun with --restart to wait for that")
OperatorRolledOut = Code(
    "OperatorRolledOut", "info",
    means="With map --restart, the plugin saw the operator roll Kueue out for the written generation of the "
          "Kueue CR.")
RolloutNotComplete = Code(
    "RolloutNotComplete", "error",
    means="The configuration was written, but waiting for Kueue to run with it failed (timeout, or an error); "
          "the fix is that step's own.",
    fix="{hint}", variants={"no-hint": None})

InvalidMappings = _rule("InvalidMappings", "The configuration's deviceClassMappings is not a list.")
TooManyMappings = _rule("TooManyMappings", "There are more mappings than Kueue allows.")
InvalidMapping = _rule("InvalidMapping", "A mapping is not an object.")
MissingName = _rule("MissingName", "A mapping has no name.")
InvalidName = _rule("InvalidName", "A mapping's name is not a qualified resource name, or too long.")
ReservedName = _rule("ReservedName", "A mapping's name is reserved for Kueue's pod count (Kueue 0.20+ does not "
                                     "start with it).", "choose another name")
DuplicateName = _rule("DuplicateName", "Two mappings have the same name.")
UnknownField = _rule(
    "UnknownField", "A mapping has fields upstream Kueue does not know; it decodes its configuration strictly and "
                    "would not start.", variants={"type": "remove 'type'"})
NoDeviceClasses = _rule("NoDeviceClasses", "A mapping names no DeviceClass.")
TooManyDeviceClasses = _rule("TooManyDeviceClasses", "A mapping names more DeviceClasses than Kueue allows.",
                             "split them over several mappings")
InvalidDeviceClassName = _rule("InvalidDeviceClassName", "A DeviceClass name in a mapping is not a valid name.")
DuplicateDeviceClass = _rule("DuplicateDeviceClass", "A mapping names the same DeviceClass twice.")
DeviceClassInTwoMappings = _rule(
    "DeviceClassInTwoMappings",
    "A DeviceClass is in two mappings, which the operator's CRD and Kueue 0.18 never allow, and Kueue 0.19+ "
    "only when both start with counter sources of different names.",
    "remove {device_class} from one of them",
    {"same-counter": None, "kueue-0.18": None, "version-unknown": _CHECK})
InvalidSources = _rule("InvalidSources", "A mapping's sources is not a non-empty list.",
                       "remove the empty sources list")
TooManySources = _rule("TooManySources", "A mapping has more sources than Kueue 0.18 or the operator's CRD allow.",
                       variants={"version-unknown": _CHECK})
MixedSources = _rule("MixedSources", "A mapping mixes counter and capacity sources.")
InvalidSource = _rule("InvalidSource", "A source is not an object with exactly one source type (the operator: "
                                       "type Counter with a counter).")
CapacityNotSupported = _rule(
    "CapacityNotSupported", "A capacity source where there are none: Kueue 0.18, or the OpenShift operator.",
    variants={"operator": "use a counter source", "version-unknown": _CHECK})
CounterSourcesDisabled = _rule(
    "CounterSourcesDisabled", "A counter source while KueueDRAIntegrationPartitionableDevices is off, so Kueue "
                              "would not start; the fix says how to enable the gate on this installation.",
    "{how}", {"version-unknown": "{how}; or " + _CHECK})
CapacitySourcesDisabled = _rule(
    "CapacitySourcesDisabled", "A capacity source while KueueDRAIntegrationConsumableCapacity is off, so Kueue "
                               "would not start; the fix says how to enable the gate on this installation.",
    "{how}", {"version-unknown": "{how}; or " + _CHECK})
MissingSourceName = _rule("MissingSourceName", "A source has no counter or capacity name.")
InvalidCounterName = _rule("InvalidCounterName", "A counter name is not a DNS label (the key a driver publishes "
                                                 "in consumesCounters).")
InvalidCapacityName = _rule("InvalidCapacityName", "A capacity name is not a valid DRA capacity name.")
MissingDriver = _rule("MissingDriver", "A source names no driver.")
DriverTooLong = _rule("DriverTooLong", "A source's driver name is longer than Kueue and the DRA API allow.")
InvalidDriver = _rule("InvalidDriver", "A source's driver name is not a DNS subdomain.")
InvalidSelector = _rule("InvalidSelector", "A source's deviceSelector is not of type CEL (the operator's CRD).")
MissingSelector = _rule("MissingSelector", "A source has no deviceSelector CEL expression.")
SelectorTooLong = _rule("SelectorTooLong", "A source's CEL expression is longer than the operator's CRD allows.")
SelectorDoesNotCompile = _rule("SelectorDoesNotCompile", "A source's CEL expression does not compile; Kueue "
                                                         "compiles it at start and would not start.",
                               "fix the --selector expression")

# What the cluster would not honour (map set, before anything is written)
ClassesDropped = Code(
    "ClassesDropped", "error",
    means="Without --replace, map set would drop DeviceClasses the mapping charges now: their "
          "ResourceClaimTemplates would no longer be charged, and Kueue rejects them.",
    fix="pass --replace to drop {what}, or keep what it has: {keep}")
SourceDropped = Code(
    "SourceDropped", "error",
    means="Without --replace, map set would drop the mapping's counter or capacity source: its classes would be "
          "charged one unit per device instead.",
    fix="pass --replace to drop {what}, or keep what it has: {keep}")
DeviceClassNotFound = Code(
    "DeviceClassNotFound", "error",
    means="The DeviceClass map set names does not exist; nothing would be charged through it.",
    fix="{hint}create it first, or pass --allow-missing-class if it comes later")
DeviceClassesUnknown = Code(
    "DeviceClassesUnknown", "warning",
    means="Whether the DeviceClasses map set names exist is unknown: they could not be read.",
    fix="grant list on deviceclasses (resource.k8s.io), or pass --allow-missing-class")
GateOffForPath = Code(
    "GateOffForPath", ("error", "warning"),
    means="The change adds a counter or capacity source, and the Kubernetes gate whose fields that source charges "
          "(DRAPartitionableDevices for consumesCounters, DRAConsumableCapacity for capacities) is off or not "
          "known to be on, so the API server drops those fields from every ResourceSlice.",
    fix="turn {gate} on first ({how}); or pass --allow-gate-off when it is turned on before the driver publishes "
        "its slices",
    variants={"unknown": "let the plugin read /metrics (deploy/rbac/reader-clusterrole.yaml has it), or pass "
                         "--allow-gate-off"})
SlicesUnknown = Code(
    "SlicesUnknown", "warning",
    means="Whether the driver publishes the counter or capacity map set names is unknown: the ResourceSlices "
          "could not be read.",
    fix="grant list on resourceslices (resource.k8s.io)")
