"""What ``version`` says about Kueue: its version and where that came from, the controller, and
where its configuration lives — all read from the one installation model."""

from __future__ import annotations

from typing import Any

from ..kube.view import ClusterView
from .installation import KueueInstallation, load_installation, manager_image


def kueue_version_document(inst: KueueInstallation) -> dict[str, Any]:
    config, deployment = inst.config, inst.deployment
    meta = (deployment or {}).get("metadata") or {}
    effective = inst.effective
    return {
        "version": inst.version,
        "versionSource": inst.version_source,
        "operatorVersion": inst.operator_version,
        "image": manager_image(deployment),
        "deployment": {"namespace": meta.get("namespace"), "name": meta.get("name")} if deployment else None,
        "config": config.target() if config.found else None,
        "configDescription": config.describe(),
        "renderedConfigMap": inst.rendered_configmap,
        "problem": None if config.found and not config.problem else config.problem,
        "effectiveConfig": effective.ref(),
    }


def kueue_version(view: ClusterView, kueue_namespace: str | None) -> dict[str, Any]:
    """Kueue's version, controller Deployment and configuration (the lookup every command uses)."""
    return kueue_version_document(load_installation(view, kueue_namespace))
