"""Where ``map set``/``map remove`` write, and the rules the reader of that place applies.

The OpenShift ``Kueue`` CR is read by the operator (through its CRD) and rendered into Kueue's
ConfigMap; upstream Kueue reads its ConfigMap directly. Which Kueue version runs, and which of its
feature gates are on, decide what it accepts at startup (see ``mapping_rules``). Pure: takes
objects already read, returns facts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...gates.kueue import SOURCE_GATES, default_on
from ...gates.model import DRA_PARTITIONABLE as K8S_PD_GATE
from ..config.load import KueueConfig
from ..config.mapping_rules import Rules
from ..config.mappings import OPERATOR, UPSTREAM
from ..names import OPENSHIFT_MANAGED_LABEL, OPERATOR_NAMESPACE
from .model import KueueInstallation
from ...gates.versions import kueue_minor

OPERATOR_ANNOTATION = "kueueoperator.kueue.openshift.io/cluster"
PD_GATE, CC_GATE = SOURCE_GATES["counter"], SOURCE_GATES["capacity"]
__all__ = ["OPERATOR_NAMESPACE", "TargetFacts", "operator_managed_reason", "target_facts"]


@dataclass
class TargetFacts:
    rules: Rules
    kueue_version: str | None = None  # the installation's version ("0.19.2", "0.20", None)
    operator_version: str | None = None
    notes: list[str] = field(default_factory=list)  # how the version and gates were decided
    installation: KueueInstallation | None = None


def minor_of(version: str | None) -> int | None:
    """The minor of a 0.x Kueue version (19 for 0.19.2), the form mapping_rules takes."""
    parsed = kueue_minor(version)
    if parsed is None or parsed[0] != 0:
        return None
    return parsed[1]


def custom_gate_enabled(featuregate: dict[str, Any] | None, gate: str) -> bool:
    """What the operator checks, and all it checks: ``spec.featureSet: CustomNoUpgrade`` with the
    gate in ``spec.customNoUpgrade.enabled``."""
    spec = (featuregate or {}).get("spec") or {}
    if spec.get("featureSet") != "CustomNoUpgrade":
        return False
    return gate in (((spec.get("customNoUpgrade") or {}).get("enabled")) or [])


def extended_resource_classes(device_classes: list[dict[str, Any]] | None) -> frozenset[str]:
    return frozenset(dc["metadata"]["name"] for dc in device_classes or []
                     if (dc.get("spec") or {}).get("extendedResourceName"))


def _note(inst: KueueInstallation) -> str:
    if inst.version:
        return inst.version_text()
    if inst.openshift:
        return "Kueue operator version unknown (no readable ClusterServiceVersion)"
    return "Kueue version unknown (the controller image has no version tag)"


def _operator_rules(inst: KueueInstallation, device_classes: list[dict[str, Any]] | None) -> Rules:
    """Counter sources need the Kueue gate on once they are written: the operator writes it when
    FeatureGate spec enables DRAPartitionableDevices, else the version's default decides."""
    minor = minor_of(inst.version)
    pd_spec = custom_gate_enabled(inst.feature_gate, K8S_PD_GATE)
    counter_gate = ((True if pd_spec else None) if minor is None
                    else (pd_spec or bool(default_on(PD_GATE, (0, minor)))))
    hint = (f"the operator enables {PD_GATE} for Kueue 0.18 only when FeatureGate cluster has "
            f"featureSet CustomNoUpgrade with {K8S_PD_GATE} in spec.customNoUpgrade.enabled")
    return Rules(dialect=OPERATOR, kueue_minor=minor, counter_gate=counter_gate, capacity_gate=False,
                 counter_gate_hint=hint, capacity_gate_hint="",
                 extended_resource_classes=extended_resource_classes(device_classes))


def _upstream_rules(inst: KueueInstallation, device_classes: list[dict[str, Any]] | None) -> Rules:
    minor = minor_of(inst.version)
    where = "featureGates in the Kueue configuration (or --feature-gates)"
    pd = inst.gates.gates[PD_GATE]
    counter_gate: bool | None
    if minor is not None and default_on(PD_GATE, (0, minor)) is None:  # the gate does not exist yet
        counter_gate = False
        counter_hint = f"Kueue 0.{minor} has no counter sources; upgrade to 0.18 or later"
    else:
        explicit = pd.learned_from != "kueue-default"
        counter_gate = pd.on if minor is not None or explicit else None
        counter_hint = f"set {PD_GATE}: true in {where}, then restart Kueue"
    return Rules(dialect=UPSTREAM, kueue_minor=minor, counter_gate=counter_gate,
                 capacity_gate=inst.gates.on(CC_GATE), counter_gate_hint=counter_hint,
                 capacity_gate_hint=f"set {CC_GATE}: true in {where}, then restart Kueue",
                 extended_resource_classes=extended_resource_classes(device_classes))


def target_facts(inst: KueueInstallation, device_classes: list[dict[str, Any]] | None) -> TargetFacts:
    """The rules ``map`` checks a change with, from the one installation model."""
    rules = (_operator_rules if inst.openshift else _upstream_rules)(inst, device_classes)
    return TargetFacts(rules, inst.version, inst.operator_version, [_note(inst)], inst)


def operator_managed_reason(config: KueueConfig, *, kueue_cr_exists: bool,
                            operator_namespace: str = OPERATOR_NAMESPACE) -> str | None:
    """Why a ConfigMap target belongs to the OpenShift Kueue operator (None: it does not). The
    operator overwrites the ConfigMap from the Kueue CR, so an edit would not last."""
    if config.kind != "ConfigMap":
        return None
    if kueue_cr_exists and config.namespace == operator_namespace:
        return f"the Kueue CR cluster exists and renders into namespace {operator_namespace}"
    deployment = config.deployment or {}
    meta = deployment.get("metadata") or {}
    if any(str(o.get("apiVersion", "")).startswith("kueue.openshift.io/")
           for o in meta.get("ownerReferences") or []):
        return f"Deployment {meta.get('namespace')}/{meta.get('name')} is owned by the Kueue CR"
    template = ((deployment.get("spec") or {}).get("template") or {}).get("metadata") or {}
    if OPERATOR_ANNOTATION in (template.get("annotations") or {}):
        return f"Deployment {meta.get('namespace')}/{meta.get('name')} is rolled by the operator"
    selector = (config.document.get("managedJobsNamespaceSelector") or {}).get("matchLabels") or {}
    if OPENSHIFT_MANAGED_LABEL in selector:
        return f"the configuration is the one the operator renders ({OPENSHIFT_MANAGED_LABEL})"
    return None
