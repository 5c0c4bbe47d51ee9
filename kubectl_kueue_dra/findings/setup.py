"""What could not be read, and what the answer assumes about Kueue because of it."""

from .code import Code


Unreadable = Code(
    "Unreadable", "warning",
    means="A list or get the answer depends on was forbidden (403), so what it would have said is unknown and "
          "the answer is partial; the fix is the refused request's own (what to ask for, through which role).",
    fix="{hint}", variants={"no-hint": None})
MalformedObject = Code(
    "MalformedObject", "warning",
    means="A field of an object has a type the API would not accept (a snapshot edited by hand, a broken "
          "conversion); the field was left out and the answer is partial.",
    fix="fix the field {field} of {object}")
KueueConfigInvalid = Code(
    "KueueConfigInvalid", "error",
    means="Kueue's configuration exists but Kueue would refuse to start with it.",
    fix="fix the Kueue configuration; Kueue will not start with it")
KueueConfigNotFound = Code(
    "KueueConfigNotFound", "warning",
    means="No Kueue configuration was found where Kueue keeps it, so its deviceClassMappings are taken "
          "to be empty.",
    fix="pass --kueue-namespace if Kueue runs elsewhere")
KueueConfigUnknown = Code(
    "KueueConfigUnknown", "warning",
    means="Kueue's configuration may exist but could not be read: its deviceClassMappings, and so what "
          "DRA devices charge, are unknown (not absent).",
    fix="grant get on it (deploy/rbac/reader-clusterrole.yaml)")
KueueVersionAssumed = Code(
    "KueueVersionAssumed", "info",
    means="Kueue's version could not be read from its Deployment; explain uses the default version's "
          "semantics.",
    fix="pass --kueue-version to explain with another version's semantics")
KueueVersionUnsupported = Code(
    "KueueVersionUnsupported", "warning",
    means="The Kueue version is outside those this tool re-derives; the nearest supported version's "
          "semantics are used.")
ResourceRulesNotRendered = Code(
    "ResourceRulesNotRendered", "info",
    means="The OpenShift Kueue CR carries transformations or excludeResourcePrefixes, which the operator "
          "does not render into Kueue's configuration, so Kueue does not apply them.")
TransformationsUnreadable = Code(
    "TransformationsUnreadable", "warning",
    means="The configuration's resources.transformations or excludeResourcePrefixes cannot be read; the "
          "charge is computed without them.")
FromManifest = Code(
    "FromManifest", "info",
    means="A what-if file holds ResourceClaimTemplates or DeviceClasses the charge read instead of the "
          "cluster's.")
ManifestObjectsNotRead = Code(
    "ManifestObjectsNotRead", "info",
    means="A what-if file holds objects of kinds explain reads only from the cluster.")
PodsUnknown = Code(
    "PodsUnknown", "warning",
    means="The workload's pods could not be read, so their claims, devices and scheduling are unknown.",
    fix="grant list on pods in the namespace")
EventsUnknown = Code(
    "EventsUnknown", "warning",
    means="The events of the Workload, its Job and pods could not be read.",
    fix="grant list on events in the namespace")
TechnologyPreview = Code(
    "TechnologyPreview", "info",
    means="On OpenShift, Kueue's DRA support is a Technology Preview (said once, under verify's checklist).")
