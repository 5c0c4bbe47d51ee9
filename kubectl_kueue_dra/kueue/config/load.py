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

from ...k8s.shape import Malformed
from ...kube.view import ClusterView
from ..names import DEFAULT_NAMESPACE, OPERATOR_NAMESPACE
from .decode import DecodedConfig, decode_text
from .mappings import Mapping, parse_mappings

OPENSHIFT_CR_NAME = "cluster"
DEPLOYMENT_NAME = "kueue-controller-manager"
CONFIGMAP_NAME = "kueue-manager-config"
CONFIG_KEY = "controller_manager_config.yaml"

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
    text: str | None = None  # the ConfigMap's configuration text, as written
    decoded: DecodedConfig | None = None  # the text decoded as the Kueue of the image tag decodes it

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
        return image_version(self.deployment)


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
    if not isinstance(text, str):
        return KueueConfig("ConfigMap", name, namespace, deployment=deployment,
                           problem=f"ConfigMap {namespace}/{name} key {CONFIG_KEY} is not text")
    decoded = decode_configuration(view, text, "ConfigMap", namespace, name, image_version(deployment))
    problem = None
    if decoded.problems and decoded.problems[0].stage == "yaml":
        problem = f"ConfigMap {namespace}/{name} key {CONFIG_KEY} {decoded.problems[0].message}"
    mappings = parse_mappings((decoded.document.get("resources") or {}).get("deviceClassMappings"))
    return KueueConfig("ConfigMap", name, namespace, decoded.document, mappings, deployment, problem,
                       text=text, decoded=decoded)


def image_version(deployment: dict[str, Any] | None) -> str | None:
    """The Kueue version from a semver controller image tag."""
    for container in (((deployment or {}).get("spec") or {}).get("template") or {}).get(
            "spec", {}).get("containers") or []:
        match = _VERSION_TAG.search(str(container.get("image") or ""))
        if match:
            return match.group(1)
    return None


def decode_configuration(view: ClusterView, text: str, kind: str, namespace: str | None, name: str | None,
                         kueue_version: str | None) -> DecodedConfig:
    """The ConfigMap text decoded as Kueue decodes it; each value of the wrong type, removed from
    the document the commands read, is recorded in ``view.malformed``."""
    decoded = decode_text(text, kueue_version)
    view.note_malformed([Malformed(kind, namespace, name, f"data.{CONFIG_KEY}.{path}", expected, value)
                         for path, expected, value in decoded.removed])
    return decoded


def _why_unknown(view: ClusterView, kueue_namespace: str | None) -> str | None:
    """The 403 that may hide the configuration: of the ConfigMap, of the OpenShift Kueue CR, or of
    the Deployment that says which ConfigMap (and namespace) it is."""
    kinds = ["ConfigMap"] + (["Kueue"] if kueue_namespace is None and view.serves("Kueue") else []) + \
        (["Deployment"] if kueue_namespace is None else [])
    return next((why for kind in kinds if (why := view.forbidden(kind))), None)
