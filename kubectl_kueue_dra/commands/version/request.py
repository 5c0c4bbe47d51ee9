"""What ``version`` says about Kueue: its version and where that came from, the controller, and
where its configuration lives — all read from the one installation model."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ...errors import UserError
from ...findings import is_partial
from ...kube.view import ClusterView
from ...kueue.install import flags
from ...kueue.install.model import KueueInstallation, load_installation, manager_image
from ...kueue.install.platform import read_cluster_version


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


@dataclass
class VersionRequest:
    client_only: bool = False
    kueue_namespace: str | None = None

    def validate(self) -> VersionRequest:
        flags.kueue_namespace(self.kueue_namespace)
        return self


def version_document(req: VersionRequest, client: dict[str, Any], open_view: Callable[[], ClusterView],
                     snapshot: str | None = None) -> tuple[dict[str, Any], UserError | None]:
    """The ``version`` document, and the error that kept the server part out of it (the client
    part is still worth printing, as kubectl does)."""
    document: dict[str, Any] = {"clientVersion": client}
    if req.client_only:
        return document, None
    document.update(serverVersion=None, kueue=None)
    try:
        view = open_view()
        document["source"] = view.source or f"snapshot {snapshot}"
        document["serverVersion"] = view.server_version()
        cluster_version = read_cluster_version(view)
        installation = load_installation(view, req.kueue_namespace)
        # OpenShift (a ClusterVersion, or Kueue configured by the operator's CR): its release; a 403 on
        # ClusterVersion alone does not make a cluster OpenShift
        document["openshift"] = (cluster_version.to_json() if cluster_version.openshift or installation.openshift
                                 else None)
        document["kueue"] = kueue_version_document(installation)
        document["kueueInstallation"] = installation.to_json()
        # a 403 is said, never shown as "not found"
        document["partial"] = is_partial(view)
        document["unreadable"] = [e.message for e in view.unreadable]
    except UserError as e:
        return document, e
    return document, None
