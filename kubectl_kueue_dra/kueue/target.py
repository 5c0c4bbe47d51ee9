"""Where ``map set``/``map remove`` write, and the rules the reader of that place applies.

The OpenShift ``Kueue`` CR is read by the operator (through its CRD) and rendered into Kueue's
ConfigMap; upstream Kueue reads its ConfigMap directly. Which Kueue version runs, and which of its
feature gates are on, decide what it accepts at startup (see ``mapping_rules``). Pure: takes
objects already read, returns facts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from .config import KueueConfig
from .mapping_rules import Rules
from .mappings import OPERATOR, UPSTREAM
from ..gates.kueue import config_gate_map, feature_gates_arg, parse_gate_list
from ..gates.kueue import KUEUE_CONSUMABLE as CC_GATE
from ..gates.kueue import KUEUE_PARTITIONABLE as PD_GATE
from ..gates.model import DRA_PARTITIONABLE as K8S_PD_GATE
from .install import manager_args
from .names import OPENSHIFT_MANAGED_LABEL
from .names import OPERATOR_NAMESPACE as OPERATOR_NAMESPACE  # (map_change imports it from here)
from .semantics import parse_version

OPERATOR_ANNOTATION = "kueueoperator.kueue.openshift.io/cluster"
_CSV_NAME = re.compile(r"^kueue-operator\.v(\d+\.\d+\.\d+\S*)$")


@dataclass
class TargetFacts:
    rules: Rules
    kueue_version: str | None = None  # "0.19.2", "0.18" (from the operator version), None
    operator_version: str | None = None
    notes: list[str] = field(default_factory=list)  # how the version and gates were decided


def minor_of(version: str | None) -> int | None:
    parsed = parse_version(version) if version else None
    if parsed is None or parsed[0] != 0:
        return None
    return parsed[1]


def operator_version(csvs: list[dict[str, Any]] | None) -> str | None:
    """The Kueue operator version from its ClusterServiceVersion (``kueue-operator.v1.4.1``)."""
    for csv in csvs or []:
        match = _CSV_NAME.match(((csv.get("metadata") or {}).get("name")) or "")
        if match:
            return ((csv.get("spec") or {}).get("version")) or match.group(1)
    return None


def operator_kueue_minor(op_version: str | None) -> int | None:
    """Operator 1.4 ships Kueue 0.18; 1.5 (main) builds on 0.19 and runs a 0.20 pre-release."""
    parsed = parse_version(op_version) if op_version else None
    if parsed is None or parsed[0] != 1 or parsed[1] < 4:
        return None
    return 18 if parsed[1] == 4 else 19


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


def operator_facts(*, featuregate: dict[str, Any] | None, csvs: list[dict[str, Any]] | None,
                   device_classes: list[dict[str, Any]] | None,
                   version_override: str | None = None) -> TargetFacts:
    op_version = operator_version(csvs)
    notes = []
    if version_override:
        minor = minor_of(version_override)
        notes.append(f"Kueue {version_override} (--kueue-version)")
    else:
        minor = operator_kueue_minor(op_version)
        if op_version:
            notes.append(f"Kueue operator {op_version} (Kueue 0.{minor})" if minor else
                         f"Kueue operator {op_version}")
        else:
            notes.append("Kueue operator version unknown (no readable ClusterServiceVersion)")
    pd_spec = custom_gate_enabled(featuregate, K8S_PD_GATE)
    if minor is None:
        counter_gate = True if pd_spec else None
    else:
        counter_gate = pd_spec or minor >= 19
    hint = (f"the operator enables {PD_GATE} for Kueue 0.18 only when FeatureGate cluster has "
            f"featureSet CustomNoUpgrade with {K8S_PD_GATE} in spec.customNoUpgrade.enabled")
    rules = Rules(OPERATOR, minor, counter_gate, False, hint, "", extended_resource_classes(device_classes))
    return TargetFacts(rules, version_override or (f"0.{minor}" if minor else None), op_version, notes)


def upstream_facts(config: KueueConfig, *, device_classes: list[dict[str, Any]] | None,
                   version_override: str | None = None) -> TargetFacts:
    version = version_override or config.version
    minor = minor_of(version)
    notes = [f"Kueue {version}" + (" (--kueue-version)" if version_override else " (image tag)")
             if version else "Kueue version unknown (the controller image has no version tag)"]
    cli = feature_gates_arg(manager_args(config.deployment))  # Kueue ignores featureGates then
    gates = parse_gate_list(cli)[0] if cli is not None else \
        (config_gate_map(config.document.get("featureGates"))[0] or {})
    where = "featureGates in the Kueue configuration (or --feature-gates)"
    if minor is not None and minor < 18:
        counter_gate: bool | None = False
        counter_hint = f"Kueue 0.{minor} has no counter sources; upgrade to 0.18 or later"
    else:
        default = None if minor is None else minor >= 19
        counter_gate = gates.get(PD_GATE, default)
        counter_hint = f"set {PD_GATE}: true in {where}, then restart Kueue"
    capacity_gate = gates.get(CC_GATE, False)
    rules = Rules(UPSTREAM, minor, counter_gate, capacity_gate, counter_hint,
                  f"set {CC_GATE}: true in {where}, then restart Kueue",
                  extended_resource_classes(device_classes))
    return TargetFacts(rules, version, None, notes)


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
