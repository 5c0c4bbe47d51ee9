"""What ``explain`` knows of the Kueue that would admit the workload: its configuration (read
once), version and where that came from, the effective gates, and the resource rules Kueue applies
before the charge (excludeResourcePrefixes, transformations), each with the findings about how it
was found."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ...findings import codes as F
from ...findings import config_unknown_finding
from ...gates.kueue import default_on, parse_gate_list
from ...gates.versions import kueue_minor
from ...kube.view import ClusterView
from ...kueue.config.load import KueueConfig, load_kueue_config
from ...kueue.config.mappings import Mapping
from ...kueue.install.model import KueueInstallation, installation_of
from ...kueue.install.semantics import DEFAULT_VERSION, SUPPORTED, DRAGates, Semantics
from ...kueue.workloads.transform import ResourceRules


@dataclass
class Settings:
    kueue_version: str | None = None
    kueue_namespace: str | None = None
    now: datetime | None = None  # the time the answer is given at (None: the system clock's now)


@dataclass(kw_only=True)
class KueueContext:
    """Kueue's configuration, version and gates, with the findings about how they were found."""

    config: KueueConfig
    semantics: Semantics
    version_source: str | None  # None: the installation did not say where its version came from
    gate_map: dict[str, bool]
    gates: DRAGates
    findings: list[dict[str, Any]]
    rules: ResourceRules
    #: Kueue's PartialAdmission gate (beta, on by default since 0.5)
    partial_admission: bool = True
    kueue_namespace: str | None = None
    installation: KueueInstallation | None = None  # the one installation model (kueue/install/model)


def kueue_context(view: ClusterView, settings: Settings) -> KueueContext:
    findings: list[dict[str, Any]] = []
    config = load_kueue_config(view, settings.kueue_namespace)
    if config.unreadable:
        findings.append(config_unknown_finding(config.unreadable))
    elif not config.found:
        findings.append(F.KueueConfigNotFound.make(
            f"Kueue's configuration was not found ({config.problem}): no deviceClassMappings are known, so every "
            "ResourceClaimTemplate class counts as unmapped"))
    install = installation_of(view, config, kueue_version=settings.kueue_version)
    version, version_source = (install.version, install.version_source) if install.version else \
        (DEFAULT_VERSION, "assumed")
    if version_source == "assumed":
        denied = view.forbidden("Deployment")
        why = f" ({denied})" if denied else ""
        findings.append(F.KueueVersionAssumed.make(
            f"Kueue's version could not be read from its Deployment{why}; assuming {DEFAULT_VERSION}"))
    if not Semantics.supported(version):
        findings.append(F.KueueVersionUnsupported.make(
            f"Kueue {version} is outside the versions this tool re-derives ({SUPPORTED}); the charge below uses the "
            "nearest supported semantics"))
    kueue_gates = install.gates
    rules, more = resource_rules(config)
    findings.extend(more)
    return KueueContext(config=config, semantics=Semantics.for_version(version), version_source=version_source,
                        gate_map={name: state.on for name, state in kueue_gates.gates.items()},
                        gates=DRAGates.from_kueue_gates(kueue_gates), findings=findings, rules=rules,
                        partial_admission=gate_on("PartialAdmission", install.cli_gates, install.config_gates),
                        kueue_namespace=install.namespace, installation=install)


def kueue_mappings(ctx: KueueContext) -> list[Mapping]:
    """The deviceClassMappings Kueue reads (on OpenShift the ConfigMap the operator rendered)."""
    return ctx.installation.effective.mappings if ctx.installation else ctx.config.mappings


def kueue_gate(ctx: KueueContext, gate: str) -> bool:
    """Whether a Kueue feature gate is on in this Kueue: its --feature-gates, else the configuration's
    featureGates, else the version's default (the gate table of the Kueue minor)."""
    minor = kueue_minor(ctx.semantics.version)
    install = ctx.installation
    return gate_on(gate, install.cli_gates if install else None, install.config_gates if install else None,
                   bool(minor and default_on(gate, minor)))


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
        return ResourceRules(), [F.ResourceRulesNotRendered.make(
            f"{config.describe()} carries resources.{', '.join(carried)}, which the Kueue operator does not render "
            "into Kueue's configuration: not applied")] if carried else []
    rules = ResourceRules.from_config(resources)
    if rules.problem:
        return rules, [F.TransformationsUnreadable.make(f"{config.describe()}: {rules.problem}; the charge ignores "
                                                        "them")]
    return rules, []

