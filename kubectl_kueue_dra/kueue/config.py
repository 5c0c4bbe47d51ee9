"""Where Kueue's configuration lives, and what it says.

Two places, tried in this order:
  * OpenShift: the cluster-scoped ``kueues.kueue.openshift.io`` named ``cluster``; mappings in
    ``spec.config.resources.deviceClassMappings``. The operator renders it into a ConfigMap that it
    owns and overwrites, so the CR is the source of truth; that Kueue runs in the operator's
    namespace (``openshift-kueue-operator``).
  * Upstream: ConfigMap ``kueue-manager-config`` (key ``controller_manager_config.yaml``) in the
    namespace of Deployment ``kueue-controller-manager`` (``kueue-system`` by default); when the
    Deployment mounts a differently named ConfigMap (Helm release names), that one.
"""

import re
from dataclasses import dataclass, field
from typing import Any

import yaml

from ..k8s.object_shapes import CONFIGURATION
from ..k8s.shape import Malformed, check_object
from ..kube.view import ClusterView
from .mappings import Mapping, parse_mappings
from .names import OPERATOR_NAMESPACE

OPENSHIFT_CR_NAME = "cluster"
DEPLOYMENT_NAME = "kueue-controller-manager"
CONFIGMAP_NAME = "kueue-manager-config"
CONFIG_KEY = "controller_manager_config.yaml"
DEFAULT_NAMESPACE = "kueue-system"

_VERSION_TAG = re.compile(r":v?(\d+\.\d+\.\d+[\w.+-]*)$")


@dataclass
class KueueConfig:
    kind: str | None  # "Kueue" (OpenShift CR) | "ConfigMap" | None (not found)
    name: str | None = None
    namespace: str | None = None
    document: dict[str, Any] = field(default_factory=dict)  # the Configuration (or CR spec.config)
    mappings: list[Mapping] = field(default_factory=list)
    deployment: dict[str, Any] | None = None
    problem: str | None = None  # why the config could not be read, when it could not
    #: the 403 that left the configuration unknown (a CR, Deployment or ConfigMap that may exist
    #: but could not be read): then nothing is known of the mappings, not "there are none"
    unreadable: str | None = None

    @property
    def found(self) -> bool:
        return self.kind is not None

    def target(self) -> dict[str, Any]:
        return {"kind": self.kind, "name": self.name, "namespace": self.namespace}

    def describe(self) -> str:
        if self.kind == "Kueue":
            return f"Kueue CR {self.name} (kueue.openshift.io)"
        if self.kind == "ConfigMap":
            return f"ConfigMap {self.namespace}/{self.name}"
        if self.unreadable:
            return f"unknown ({self.unreadable})"
        return "no Kueue configuration"

    @property
    def version(self) -> str | None:
        """The Kueue version from the controller image tag, when it is a semver tag."""
        if not self.deployment:
            return None
        for container in ((self.deployment.get("spec") or {}).get("template") or {}).get(
                "spec", {}).get("containers") or []:
            match = _VERSION_TAG.search(container.get("image") or "")
            if match:
                return match.group(1)
        return None


def _find_deployment(view: ClusterView, namespace: str | None) -> dict[str, Any] | None:
    if namespace:
        return view.try_get("Deployment", DEPLOYMENT_NAME, namespace)
    found = view.try_list("Deployment", None, field_selector={"metadata.name": DEPLOYMENT_NAME})
    if found is None:
        return view.try_get("Deployment", DEPLOYMENT_NAME, DEFAULT_NAMESPACE)
    if len(found) <= 1:
        return found[0] if found else None
    from .which_kueue import choose, webhook_namespaces

    def has_config(deployment: dict[str, Any]) -> bool:
        namespace = (deployment.get("metadata") or {}).get("namespace")
        name = _mounted_configmap(deployment) or CONFIGMAP_NAME
        return view.try_get("ConfigMap", name, namespace) is not None

    hooks = view.try_list("MutatingWebhookConfiguration") if view.serves("MutatingWebhookConfiguration") else []
    return choose(found, has_config, webhook_namespaces(hooks), DEFAULT_NAMESPACE, DEPLOYMENT_NAME)


def _mounted_configmap(deployment: dict[str, Any] | None) -> str | None:
    if not deployment:
        return None
    for volume in ((deployment.get("spec") or {}).get("template") or {}).get("spec", {}).get("volumes") or []:
        name = (volume.get("configMap") or {}).get("name")
        if isinstance(name, str) and "config" in name:
            return name
    return None


def load_kueue_config(view: ClusterView, kueue_namespace: str | None = None) -> KueueConfig:
    """Locate and parse Kueue's configuration. Never raises for a missing or unreadable config:
    the reason is in ``problem`` (a 403 is also recorded in ``view.unreadable``)."""
    if kueue_namespace is None and view.serves("Kueue"):
        cr = view.try_get("Kueue", OPENSHIFT_CR_NAME)
        if cr is not None:  # the operator runs the Kueue it manages in its own namespace
            config = ((cr.get("spec") or {}).get("config")) or {}
            mappings = parse_mappings((config.get("resources") or {}).get("deviceClassMappings"))
            return KueueConfig("Kueue", OPENSHIFT_CR_NAME, None, config, mappings,
                               view.try_get("Deployment", DEPLOYMENT_NAME, OPERATOR_NAMESPACE))
    deployment = _find_deployment(view, kueue_namespace)

    namespace = kueue_namespace or ((deployment or {}).get("metadata") or {}).get("namespace") \
        or DEFAULT_NAMESPACE
    name = _mounted_configmap(deployment) or CONFIGMAP_NAME
    cm = view.try_get("ConfigMap", name, namespace)
    if cm is None:
        forbidden = _why_unknown(view, kueue_namespace)
        return KueueConfig(None, name, namespace, deployment=deployment, unreadable=forbidden,
                           problem=forbidden or f"ConfigMap {namespace}/{name} not found")
    text = (cm.get("data") or {}).get(CONFIG_KEY)
    if text is None:
        return KueueConfig("ConfigMap", name, namespace, deployment=deployment,
                           problem=f"ConfigMap {namespace}/{name} has no key {CONFIG_KEY}")
    try:
        document = yaml.safe_load(text) or {}
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        line = f" line {mark.line + 1}" if mark else ""
        return KueueConfig("ConfigMap", name, namespace, deployment=deployment,
                           problem=f"ConfigMap {namespace}/{name} key {CONFIG_KEY}{line}: malformed YAML")
    if not isinstance(document, dict):
        document = {}
    view.note_malformed(checked_configuration(document, "ConfigMap", namespace, name))
    mappings = parse_mappings((document.get("resources") or {}).get("deviceClassMappings"))
    return KueueConfig("ConfigMap", name, namespace, document, mappings, deployment)


def _why_unknown(view: ClusterView, kueue_namespace: str | None) -> str | None:
    """The 403 that may hide the configuration: of the ConfigMap, of the OpenShift Kueue CR, or of
    the Deployment that says which ConfigMap (and namespace) it is."""
    kinds = ["ConfigMap"] + (["Kueue"] if kueue_namespace is None and view.serves("Kueue") else []) + \
        (["Deployment"] if kueue_namespace is None else [])
    return next((why for kind in kinds if (why := view.forbidden(kind))), None)


def checked_configuration(document: dict[str, Any], kind: str, namespace: str | None,
                          name: str | None) -> list[Malformed]:
    """Remove the fields of Kueue's Configuration text that have the wrong type (Kueue itself
    refuses to start with them), each one named in the ConfigMap's key."""
    wrapper = {"metadata": {"namespace": namespace, "name": name}, "data": {CONFIG_KEY: document}}
    return check_object(kind, wrapper, {"data": {CONFIG_KEY: CONFIGURATION}})
