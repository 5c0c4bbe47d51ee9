"""What ``explain`` reads for Kueue's steps before the charge: the configuration's
excludeResourcePrefixes and transformations (from the ConfigMap; the OpenShift operator renders
none), the namespace's LimitRanges and the RuntimeClasses (through the view; an unreadable list
is None with the reason), and Kueue gates the DRA gate model does not track."""

from __future__ import annotations

from typing import Any

from ..findings import finding
from ..gates.kueue import parse_gate_list
from ..kube.view import ClusterView
from .workloads.adjust import AdjustInputs
from .config.load import KueueConfig
from .workloads.podsets import PodSet
from .workloads.transform import ResourceRules


def gate_on(gate: str, cli: str | None, config: dict[str, bool] | None, default: bool = True) -> bool:
    """A Kueue gate the DRA gate model does not track: --feature-gates wins over the config."""
    settings = parse_gate_list(cli)[0] if cli is not None else dict(config or {})
    return settings.get(gate, settings.get("AllBeta", default))


def resource_rules(config: KueueConfig) -> tuple[ResourceRules, list[dict[str, Any]]]:
    """excludeResourcePrefixes and transformations: the upstream ConfigMap carries them; the
    OpenShift operator renders only deviceClassMappings into Kueue's configuration, so a Kueue CR
    has none (and anything of the kind in the CR does not reach Kueue)."""
    resources = config.document.get("resources") or {}
    if config.kind != "ConfigMap":
        carried = [k for k in ("transformations", "excludeResourcePrefixes") if resources.get(k)]
        return ResourceRules(), [finding("info", "ResourceRulesNotRendered",
                                         f"{config.describe()} carries resources.{', '.join(carried)}, which the "
                                         "Kueue operator does not render into Kueue's configuration: not applied",
                                         None)] if carried else []
    rules = ResourceRules.from_config(resources)
    if rules.problem:
        return rules, [finding("warning", "TransformationsUnreadable", f"{config.describe()}: {rules.problem}; "
                                                                         "the charge ignores them", None)]
    return rules, []


def adjust_inputs(view: ClusterView, ns: str, podsets: list[PodSet]) -> AdjustInputs:
    """LimitRanges of the namespace, and RuntimeClasses when a pod set names one without an
    overhead; a list that cannot be read is None with the reason."""
    limit_ranges = view.try_list("LimitRange", ns)
    runtime_classes: dict[str, dict[str, Any]] | None = {}
    if any(ps.spec.get("runtimeClassName") and not ps.spec.get("overhead") for ps in podsets):
        listed = view.try_list("RuntimeClass")
        runtime_classes = None if listed is None else {str(o["metadata"]["name"]): o for o in listed}
    return AdjustInputs(ns, limit_ranges, _problem(view, "limitranges") if limit_ranges is None else None,
                        runtime_classes, _problem(view, "runtimeclasses") if runtime_classes is None else None)


def _problem(view: ClusterView, plural: str) -> str:
    return next((str(e) for e in view.unreadable if plural in str(e)), "not readable")
