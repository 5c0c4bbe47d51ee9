"""How Kueue is installed: its controller Deployment, version, feature-gate settings and, on
OpenShift, the operator that manages it.

Version, in order: the controller image tag (``…/kueue:v0.19.2``); the Deployment's
``app.kubernetes.io/version`` label; on OpenShift the operator's version (OLM labels its
Deployment ``olm.owner: kueue-operator.v1.4.1`` and sets ``OPERATOR_CONDITION_NAME``), mapped to the
Kueue it ships (research openshift-kueue-operator.md §2.2).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import yaml

from ..gates import config_gate_map, feature_gates_arg
from ..kube.view import ClusterView
from .config import CONFIG_KEY, CONFIGMAP_NAME, KueueConfig
from .names import OPERATOR_NAMESPACE
#: operator minor → the Kueue minor its operand is built from
OPERATOR_KUEUE = {"1.1": "0.12", "1.2": "0.14", "1.3": "0.16", "1.4": "0.18", "1.5": "0.20"}
_CSV_NAME = re.compile(r"kueue-operator\.v?(\d+\.\d+(?:\.\d+)?)")
_SEMVER = re.compile(r"^v?(\d+\.\d+(?:\.\d+)?[\w.+-]*)$")


@dataclass
class KueueInstall:
    config: KueueConfig
    deployment: dict[str, Any] | None
    version: str | None = None
    version_source: str | None = None
    operator_version: str | None = None
    cli_gates: str | None = None  # the --feature-gates value
    config_gates: dict[str, bool] | None = None
    config_gates_where: str = "featureGates"
    gate_problems: list[str] = field(default_factory=list)
    rendered_configmap: str | None = None  # OpenShift: the ConfigMap the operator writes, when read
    pods: list[dict[str, Any]] | None = None

    @property
    def openshift(self) -> bool:
        return self.config.kind == "Kueue"

    @property
    def namespace(self) -> str | None:
        return ((self.deployment or {}).get("metadata") or {}).get("namespace") or self.config.namespace

    def to_json(self) -> dict[str, Any]:
        return {"config": self.config.target() if self.config.found else None,
                "deployment": _ref(self.deployment), "version": self.version,
                "versionFrom": self.version_source, "operatorVersion": self.operator_version,
                "renderedConfigMap": self.rendered_configmap}


def _ref(obj: dict[str, Any] | None) -> str | None:
    if not obj:
        return None
    meta = obj.get("metadata") or {}
    return f"{meta.get('namespace')}/{meta.get('name')}"


def _containers(deployment: dict[str, Any] | None) -> list[dict[str, Any]]:
    return (((deployment or {}).get("spec") or {}).get("template") or {}).get("spec", {}).get("containers") or []


def manager_args(deployment: dict[str, Any] | None) -> list[str]:
    """command + args of the manager container (the first one when none is named manager)."""
    containers = _containers(deployment)
    chosen = next((c for c in containers if c.get("name") == "manager"), containers[0] if containers else {})
    return [str(a) for a in (chosen.get("command") or []) + (chosen.get("args") or [])]


def operator_version_of(deployments: list[dict[str, Any]]) -> str | None:
    for d in deployments:
        labels = (d.get("metadata") or {}).get("labels") or {}
        match = _CSV_NAME.search(labels.get("olm.owner") or "")
        if match:
            return match.group(1)
        for c in _containers(d):
            for env in c.get("env") or []:
                if env.get("name") == "OPERATOR_CONDITION_NAME":
                    match = _CSV_NAME.search(str(env.get("value") or ""))
                    if match:
                        return match.group(1)
    return None


def kueue_version_of_operator(operator_version: str) -> str | None:
    minor = ".".join(operator_version.split(".")[:2])
    return OPERATOR_KUEUE.get(minor)


def _label_version(deployment: dict[str, Any] | None) -> str | None:
    labels = ((deployment or {}).get("metadata") or {}).get("labels") or {}
    match = _SEMVER.match(labels.get("app.kubernetes.io/version") or "")
    return match.group(1) if match else None


def _document(cm: dict[str, Any] | None) -> dict[str, Any] | None:
    text = ((cm or {}).get("data") or {}).get(CONFIG_KEY)
    if text is None:
        return None
    try:
        doc = yaml.safe_load(text)
    except yaml.YAMLError:
        return None
    return doc if isinstance(doc, dict) else None


def load_kueue_install(view: ClusterView, config: KueueConfig) -> KueueInstall:
    """Everything about the installation ``verify`` reports; never raises for missing objects."""
    install = KueueInstall(config, config.deployment)
    if config.version:
        install.version, install.version_source = config.version, "controller image tag"
    elif _label_version(config.deployment):
        install.version = _label_version(config.deployment)
        install.version_source = "Deployment label app.kubernetes.io/version"
    if install.openshift:
        namespace = install.namespace or OPERATOR_NAMESPACE
        deployments = view.try_list("Deployment", namespace) or []
        install.operator_version = operator_version_of(deployments)
        if install.operator_version and not install.version:
            install.version = kueue_version_of_operator(install.operator_version)
            if install.version:
                install.version_source = f"operator {install.operator_version}"
        rendered = view.try_get("ConfigMap", CONFIGMAP_NAME, namespace)
        document = _document(rendered)
        if document is not None:
            install.rendered_configmap = f"{namespace}/{CONFIGMAP_NAME}"
            install.config_gates, install.gate_problems = config_gate_map(document.get("featureGates"))
            install.config_gates = install.config_gates or {}
            install.config_gates_where = f"featureGates of ConfigMap {install.rendered_configmap}"
    else:
        install.config_gates, install.gate_problems = config_gate_map(config.document.get("featureGates"))
        if config.kind == "ConfigMap":
            install.config_gates_where = f"featureGates of ConfigMap {config.namespace}/{config.name}"
    install.cli_gates = feature_gates_arg(manager_args(config.deployment))
    if config.deployment is not None:
        selector = ((config.deployment.get("spec") or {}).get("selector") or {}).get("matchLabels") or {}
        if selector:
            install.pods = view.try_list("Pod", install.namespace,
                                         label_selector=",".join(f"{k}={v}" for k, v in sorted(selector.items())))
    return install
