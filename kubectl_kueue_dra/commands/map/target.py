"""Where ``map`` reads and writes deviceClassMappings, and the rules a change is checked with.

The target is the OpenShift ``Kueue`` CR or upstream Kueue's ConfigMap (``kueue/config/load``); an
operator-owned ConfigMap is refused because the operator overwrites it. The rules come from the
one installation model (``kueue/install/model``).
"""

from __future__ import annotations

from typing import NoReturn

from ...errors import UserError
from ...kube.view import ClusterView
from ...kueue.config.load import DEPLOYMENT_NAME, OPENSHIFT_CR_NAME, KueueConfig, load_kueue_config
from ...kueue.install.model import installation_of
from ...kueue.install.target import TargetFacts, operator_managed_reason
from ...kueue.install.target import target_facts as rules_of


def find_target(view: ClusterView, kueue_namespace: str | None) -> KueueConfig:
    """Where a change is written; an error when there is none, or it is the operator's."""
    config = load_kueue_config(view, kueue_namespace)
    if not config.found or config.problem:
        _refused(view, config, kueue_namespace)
    if config.kind == "ConfigMap":
        cr_exists = view.serves("Kueue") and view.try_get("Kueue", OPENSHIFT_CR_NAME) is not None
        reason = operator_managed_reason(config, kueue_cr_exists=cr_exists)
        if reason:
            raise UserError(
                f"refusing to edit ConfigMap {config.namespace}/{config.name}: the OpenShift Kueue "
                f"operator owns it ({reason}) and overwrites any edit",
                "change the Kueue CR instead: run the same command without --kueue-namespace")
    return config


def _refused(view: ClusterView, config: KueueConfig, kueue_namespace: str | None) -> NoReturn:
    """The error for a configuration not found or invalid."""
    if not config.found:
        if view.unreadable:
            raise view.unreadable[0]
        if kueue_namespace is None and view.serves("Kueue"):
            raise UserError(
                f"the Kueue CR {OPENSHIFT_CR_NAME} (kueues.kueue.openshift.io) does not exist, so "
                "there is nowhere to put deviceClassMappings",
                "create it first: a Kueue named cluster with spec.config.integrations.frameworks "
                "(e.g. [BatchJob]); the operator then installs Kueue")
        raise UserError(f"Kueue's configuration was not found: {config.problem}",
                        "install Kueue, or pass --kueue-namespace NS where its "
                        f"{DEPLOYMENT_NAME} Deployment runs")
    raise UserError(config.problem or "Kueue's configuration is invalid", "fix the configuration by hand first")


def target_facts(view: ClusterView, config: KueueConfig, kueue_version: str | None) -> TargetFacts:
    installation = installation_of(view, config, kueue_version=kueue_version)
    return rules_of(installation, view.try_list("DeviceClass"))


def find_target_readonly(view: ClusterView, kueue_namespace: str | None) -> KueueConfig:
    """The configuration to show; reading never refuses an operator-managed ConfigMap."""
    config = load_kueue_config(view, kueue_namespace)
    if config.found and not config.problem:
        return config
    _refused(view, config, kueue_namespace)  # the same one-line errors as a change would
