"""Which namespaces Kueue manages: where a job becomes a Workload instead of running without
quota and without any error.

* OpenShift: the operator's Kueue manages the namespaces labelled
  ``kueue.openshift.io/managed=true`` (its webhooks and the selector it renders select them).
* Upstream Kueue 0.15 and later: ``managedJobsNamespaceSelector`` of its Configuration, by default
  ``kubernetes.io/metadata.name NotIn [kube-system, <Kueue's namespace>]``
  (``apis/config/v1beta2/defaults.go``); the ManagedJobsNamespaceSelectorAlwaysRespected gate
  is on by default from 0.15 and locked on in 0.19.
* Before 0.15 the selector applies only to jobs without a queue name, so a labelled job is
  managed in every namespace.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...gates.versions import DEFAULT_KUEUE_MINOR, kueue_minor
from ...k8s.labels import NAME_LABEL, namespace_labels, selector_matches
from ..names import DEFAULT_NAMESPACE
from ..names import OPENSHIFT_MANAGED_LABEL

OPENSHIFT, SELECTOR, DEFAULT_SELECTOR, EVERY = "openshift-label", "selector", "default-selector", "every"


@dataclass(frozen=True)
class ManagedNamespaces:
    """The rule one Kueue installation applies; ``manages`` answers it for a Namespace object."""

    how: str  # OPENSHIFT | SELECTOR | DEFAULT_SELECTOR | EVERY
    selector: dict[str, Any] | None = None  # None for EVERY

    def manages(self, namespace: dict[str, Any]) -> bool:
        return self.how == EVERY or selector_matches(self.selector, namespace_labels(namespace))

    def describe(self) -> str:
        return {OPENSHIFT: f"the label {OPENSHIFT_MANAGED_LABEL}=true",
                SELECTOR: "managedJobsNamespaceSelector",
                DEFAULT_SELECTOR: "the default managedJobsNamespaceSelector",
                EVERY: "every namespace"}[self.how]


def default_selector(kueue_namespace: str) -> dict[str, Any]:
    """Kueue's default managedJobsNamespaceSelector."""
    return {"matchExpressions": [{"key": NAME_LABEL, "operator": "NotIn",
                                  "values": ["kube-system", kueue_namespace]}]}


def namespace_rule(*, openshift: bool, configuration: dict[str, Any], kueue_version: str | None,
                       kueue_namespace: str | None) -> ManagedNamespaces:
    """The rule of a Kueue: on OpenShift or not, its Configuration document (upstream), its version
    (None: the assumed one) and the namespace it runs in."""
    if openshift:
        return ManagedNamespaces(OPENSHIFT, {"matchLabels": {OPENSHIFT_MANAGED_LABEL: "true"}})
    if (kueue_minor(kueue_version) or DEFAULT_KUEUE_MINOR) < (0, 15):
        return ManagedNamespaces(EVERY)
    selector = configuration.get("managedJobsNamespaceSelector")
    if selector is not None:
        return ManagedNamespaces(SELECTOR, selector)
    namespace = str(configuration.get("namespace") or kueue_namespace or DEFAULT_NAMESPACE)
    return ManagedNamespaces(DEFAULT_SELECTOR, default_selector(namespace))
