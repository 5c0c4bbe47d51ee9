"""The one Kueue installation model: which Kueue runs, where that fact came from, where its
configuration lives, what configuration it actually reads, and its effective DRA gates.

Every command (``version``, ``classes``, ``map``, ``explain``, ``verify``) derives these facts here
and nowhere else, so on one cluster or snapshot they all name the same version and gates.

Kueue's version, first found wins:
  ``--kueue-version``            the user's override (``explain``, ``map``)
  ``image tag``                  the controller image tag (``…/kueue:v0.19.2``)
  ``Deployment label``           the Deployment's ``app.kubernetes.io/version``
  ``operator ClusterServiceVersion``  OpenShift: the operator's CSV ``spec.version`` (images are
                                 pinned by digest there), mapped to the Kueue it ships
  ``operator Deployment labels`` OpenShift without a readable CSV: OLM's ``olm.owner`` label or
                                 ``OPERATOR_CONDITION_NAME`` on the operator's Deployment
  None                           unknown; gates and semantics then assume Kueue 0.19

Operator 1.5.0 ships a Kueue 0.20 pre-release: the Kueue CRDs it installs (its ``bindata``) are
those of Kueue's main branch after v0.20.0-devel and differ from every v0.19.x release, although
its Go module pins Kueue's v0.19.0 API types for the configuration it renders. 1.4 ships 0.18.

Configuration: ``config`` is where it is *written* (the OpenShift ``Kueue`` CR, else the upstream
ConfigMap) — what ``map`` edits. ``effective`` is what Kueue *reads*: on OpenShift the ConfigMap the
operator rendered into its namespace, when readable; otherwise the written configuration itself.
Pure apart from the reads through the view it is handed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ...gates import (
    KueueGates,
    config_gate_map,
    derive_kueue_gates,
    feature_gates_arg,
)
from ...kube.errors import KubeError
from ...kube.view import ClusterView
from ..config.decode import DecodedConfig, decode_text
from ..config.load import (
    CONFIG_KEY,
    CONFIGMAP_NAME,
    KueueConfig,
    decode_configuration,
    image_version,
    load_kueue_config,
)
from ..config.mappings import Mapping, parse_mappings
from ..names import OPERATOR_NAMESPACE
from .operator_render import expected_render

#: operator minor → the Kueue minor its operand is built from (see the module docstring for 1.5)
OPERATOR_KUEUE = {"1.1": "0.12", "1.2": "0.14", "1.3": "0.16", "1.4": "0.18", "1.5": "0.20"}

FROM_FLAG = "--kueue-version"
FROM_IMAGE = "image tag"
FROM_LABEL = "Deployment label"
FROM_CSV = "operator ClusterServiceVersion"
FROM_OLM = "operator Deployment labels"

_CSV_NAME = re.compile(r"kueue-operator\.v?(\d+\.\d+(?:\.\d+)?\S*)")
_SEMVER = re.compile(r"^v?(\d+\.\d+(?:\.\d+)?[\w.+-]*)$")

Obj = dict[str, Any]


@dataclass(frozen=True, kw_only=True)
class EffectiveConfig:
    """The configuration Kueue reads: where, and what it says."""

    kind: str | None  # "ConfigMap" | "Kueue" (the CR, when no rendered ConfigMap was read) | None
    name: str | None
    namespace: str | None
    document: Obj
    mappings: list[Mapping]
    rendered: bool  # OpenShift: read from the ConfigMap the operator rendered
    text: str | None = None  # the configuration text Kueue reads, when it was read (a ConfigMap's)

    def ref(self) -> Obj | None:
        if self.kind is None:
            return None
        return {"kind": self.kind, "name": self.name, "namespace": self.namespace}


@dataclass(kw_only=True)
class KueueInstallation:
    config: KueueConfig  # where the configuration is written (what ``map`` edits)
    effective: EffectiveConfig  # what Kueue reads
    deployment: Obj | None
    gates: KueueGates  # Kueue's effective DRA gates
    version: str | None = None
    version_source: str | None = None
    operator_version: str | None = None
    operator_version_source: str | None = None
    feature_gate: Obj | None = None  # OpenShift FeatureGate cluster, when read
    cli_gates: str | None = None  # the controller's --feature-gates value
    config_gates: dict[str, bool] | None = None  # the featureGates Kueue reads (or the operator writes)
    config_gates_where: str = "featureGates"
    gate_problems: list[str] = field(default_factory=list)
    #: OpenShift: whether the operator sees OpenShift (``project.openshift.io`` served), so reads
    #: the FeatureGate; None when unknown or not the operator's installation
    operator_openshift: bool | None = None
    #: the text Kueue reads, decoded and validated as this Kueue version does (None: no text read)
    config_check: DecodedConfig | None = None

    @property
    def openshift(self) -> bool:
        return self.config.kind == "Kueue"

    @property
    def namespace(self) -> str | None:
        meta = (self.deployment or {}).get("metadata") or {}
        return meta.get("namespace") or self.config.namespace

    @property
    def rendered_configmap(self) -> str | None:
        """``namespace/name`` of the ConfigMap the operator rendered, when it was read."""
        e = self.effective
        return f"{e.namespace}/{e.name}" if e.rendered else None

    def version_text(self) -> str:
        """``Kueue 0.19.2 (image tag)``, ``Kueue 0.20 (operator ClusterServiceVersion 1.5.0)``."""
        if not self.version:
            return "Kueue version unknown"
        source = self.version_source or ""
        if self.operator_version and source in (FROM_CSV, FROM_OLM):
            source = f"{source} {self.operator_version}"
        return f"Kueue {self.version} ({source})"

    def to_json(self) -> Obj:
        """The block every command's JSON carries, identical for the same cluster."""
        return {"version": self.version, "versionFrom": self.version_source,
                "operatorVersion": self.operator_version, "operatorVersionFrom": self.operator_version_source,
                "config": self.config.target() if self.config.found else None,
                "effectiveConfig": self.effective.ref(),
                "deployment": _ref(self.deployment),
                "gatesAssumeVersion": None if not self.gates.version_assumed
                else ".".join(map(str, self.gates.version)),
                "gates": {name: state.on for name, state in self.gates.gates.items()}}


def _ref(obj: Obj | None) -> str | None:
    if not obj:
        return None
    meta = obj.get("metadata") or {}
    return f"{meta.get('namespace')}/{meta.get('name')}"


def _containers(deployment: Obj | None) -> list[Obj]:
    spec = (((deployment or {}).get("spec") or {}).get("template") or {}).get("spec") or {}
    return list(spec.get("containers") or [])


def manager_args(deployment: Obj | None) -> list[str]:
    """command + args of the manager container (the first one when none is named manager)."""
    containers = _containers(deployment)
    chosen = next((c for c in containers if c.get("name") == "manager"), containers[0] if containers else {})
    return [str(a) for a in (chosen.get("command") or []) + (chosen.get("args") or [])]


def manager_image(deployment: Obj | None) -> str | None:
    containers = _containers(deployment)
    chosen = next((c for c in containers if c.get("name") == "manager"), containers[0] if containers else {})
    image = chosen.get("image")
    return str(image) if image else None


def csv_operator_version(csvs: list[Obj] | None) -> str | None:
    """The operator version from its ClusterServiceVersion (``kueue-operator.v1.4.1``)."""
    for csv in csvs or []:
        match = _CSV_NAME.fullmatch(str((csv.get("metadata") or {}).get("name") or ""))
        if match:
            return str((csv.get("spec") or {}).get("version") or match.group(1))
    return None


def olm_operator_version(deployments: list[Obj] | None) -> str | None:
    """The operator version OLM put on the operator's Deployment (label or condition env)."""
    for d in deployments or []:
        labels = (d.get("metadata") or {}).get("labels") or {}
        match = _CSV_NAME.search(str(labels.get("olm.owner") or ""))
        if match:
            return match.group(1)
        for c in _containers(d):
            for env in c.get("env") or []:
                if env.get("name") == "OPERATOR_CONDITION_NAME":
                    match = _CSV_NAME.search(str(env.get("value") or ""))
                    if match:
                        return match.group(1)
    return None


def kueue_of_operator(operator_version: str) -> str | None:
    return OPERATOR_KUEUE.get(".".join(operator_version.split(".")[:2]))


def label_version(deployment: Obj | None) -> str | None:
    labels = ((deployment or {}).get("metadata") or {}).get("labels") or {}
    match = _SEMVER.match(str(labels.get("app.kubernetes.io/version") or ""))
    return match.group(1) if match else None


def _operator_side(config: KueueConfig, deployment: Obj | None) -> bool:
    """Whether the OpenShift operator manages this Kueue (its CR, or its namespace)."""
    namespace = ((deployment or {}).get("metadata") or {}).get("namespace") or config.namespace
    return config.kind == "Kueue" or namespace == OPERATOR_NAMESPACE


def _read_operator_version(view: ClusterView, namespace: str) -> tuple[str | None, str | None]:
    csvs = view.try_list("ClusterServiceVersion", namespace) if view.serves("ClusterServiceVersion") else None
    found = csv_operator_version(csvs)
    if found:
        return found, FROM_CSV
    found = olm_operator_version(view.try_list("Deployment", namespace))
    return (found, FROM_OLM) if found else (None, None)


def _effective(view: ClusterView, config: KueueConfig, namespace: str) -> EffectiveConfig:
    if config.kind == "Kueue":
        text = ((view.try_get("ConfigMap", CONFIGMAP_NAME, namespace) or {}).get("data") or {}).get(CONFIG_KEY)
        if isinstance(text, str):
            decoded = decode_configuration(view, text, "ConfigMap", namespace, CONFIGMAP_NAME,
                                           image_version(config.deployment))
            if not decoded.problems or decoded.problems[0].stage != "yaml":
                document = decoded.document
                mappings = parse_mappings((document.get("resources") or {}).get("deviceClassMappings"))
                return EffectiveConfig(kind="ConfigMap", name=CONFIGMAP_NAME, namespace=namespace, document=document,
                                       mappings=mappings, rendered=True, text=text)
    return EffectiveConfig(kind=config.kind, name=config.name, namespace=config.namespace, document=config.document,
                           mappings=config.mappings, rendered=False, text=config.text)


def _settings(config: KueueConfig, effective: EffectiveConfig, feature_gate: Obj | None,
              operator_openshift: bool | None) -> tuple[dict[str, bool] | None, list[str], str, str]:
    """The featureGates map Kueue reads, its problems, who wrote it, and where it is."""
    if config.kind == "Kueue" and not effective.rendered:  # predict what the operator writes
        expected = expected_render({"spec": {"config": config.document}}, feature_gate,
                                   openshift=operator_openshift is not False)
        return expected.feature_gates, [], "operator", f"what the operator writes ({expected.why})"
    gates, problems = config_gate_map(effective.document.get("featureGates"))
    if effective.rendered:
        gates = gates or {}
    where = "featureGates"
    if effective.kind == "ConfigMap":
        where = f"featureGates of ConfigMap {effective.namespace}/{effective.name}"
    return gates, problems, "kueue-config", where


def _version(config: KueueConfig, override: str | None) -> tuple[str | None, str | None]:
    if override:
        return override.lstrip("v"), FROM_FLAG
    if image_version(config.deployment):
        return image_version(config.deployment), FROM_IMAGE
    if label_version(config.deployment):
        return label_version(config.deployment), FROM_LABEL
    return None, None


def installation_of(view: ClusterView, config: KueueConfig, *,
                    kueue_version: str | None = None) -> KueueInstallation:
    """The installation, from a configuration already located. Never raises for missing objects."""
    deployment = config.deployment
    namespace = ((deployment or {}).get("metadata") or {}).get("namespace") or config.namespace \
        or OPERATOR_NAMESPACE
    effective = _effective(view, config, namespace)
    version, source = _version(config, kueue_version)
    operator_version = operator_source = feature_gate = None
    operator_openshift: bool | None = None
    if _operator_side(config, deployment):
        operator_version, operator_source = _read_operator_version(view, namespace)
        if not version and operator_version and kueue_of_operator(operator_version):
            version, source = kueue_of_operator(operator_version), operator_source
        feature_gate = view.try_get("FeatureGate", "cluster") if view.serves("FeatureGate") else None
        operator_openshift = operator_sees_openshift(view, feature_gate)
    settings, problems, settings_source, where = _settings(config, effective, feature_gate, operator_openshift)
    cli = feature_gates_arg(manager_args(deployment))
    gates = derive_kueue_gates(version, cli=cli, config=settings, config_source=settings_source,
                               config_where=where, problems_in=problems)
    check = decode_text(effective.text, version) if effective.text is not None else None
    return KueueInstallation(config=config, effective=effective, deployment=deployment, gates=gates,
                             version=version, version_source=source, operator_version=operator_version,
                             operator_version_source=operator_source, feature_gate=feature_gate, cli_gates=cli,
                             config_gates=settings, config_gates_where=where, gate_problems=problems,
                             operator_openshift=operator_openshift, config_check=check)


def operator_sees_openshift(view: ClusterView, feature_gate: Obj | None) -> bool | None:
    """The operator reads the FeatureGate only when ``project.openshift.io/v1`` is served; a
    snapshot has no discovery, so its OpenShift singletons stand for it."""
    if view.live:
        try:
            return "v1" in view.served_versions("project.openshift.io")  # type: ignore[attr-defined]
        except KubeError:
            return None
    if feature_gate is not None:
        return True
    return True if view.serves("ClusterVersion") and view.try_get("ClusterVersion", "version") else None


def load_installation(view: ClusterView, kueue_namespace: str | None = None, *,
                      kueue_version: str | None = None) -> KueueInstallation:
    """Locate Kueue's configuration, then derive the installation from it."""
    return installation_of(view, load_kueue_config(view, kueue_namespace), kueue_version=kueue_version)
