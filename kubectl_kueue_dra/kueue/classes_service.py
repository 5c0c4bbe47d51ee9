"""``classes`` as a service: each DeviceClass, the quota resource it charges and its devices."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import UserError
from ..findings import config_findings, is_partial, unreadable_findings
from ..kube.view import ClusterView
from . import flags
from .config import load_kueue_config
from .installation import installation_of
from .unaccounted import read_uncharged, uncharged_findings


@dataclass
class ClassesRequest:
    kueue_namespace: str | None = None

    def validate(self) -> ClassesRequest:
        flags.kueue_namespace(self.kueue_namespace)
        return self


def classes_document(view: ClusterView, req: ClassesRequest) -> dict[str, Any]:
    from ..dra.cel import SelectorEvaluator
    from ..dra.devices import group_pools
    from .classes import classes_report

    if view.live and not view.serves("DeviceClass"):
        raise UserError("this cluster does not serve resource.k8s.io (DRA): Kubernetes 1.34+ with "
                        "DynamicResourceAllocation is needed")
    device_classes = view.list("DeviceClass")
    installation = installation_of(view, load_kueue_config(view, req.kueue_namespace))
    config = installation.config
    cluster_queues = view.try_list("ClusterQueue")
    slices = view.try_list("ResourceSlice")
    pools = group_pools(slices) if slices is not None else None
    findings = config_findings(config, view)
    mappings = installation.effective.mappings if config.found else None
    uncharged = read_uncharged(view, device_classes, mappings)
    report = classes_report(device_classes, mappings=installation.effective.mappings if config.found else None,
                            cluster_queues=cluster_queues, pools=pools, evaluator=SelectorEvaluator())
    return {
        "source": view.source,
        "kueueConfig": config.target() if config.found else None,
        "kueueInstallation": installation.to_json(),
        "partial": is_partial(view),
        "deviceClasses": report,
        "uncharged": uncharged.doc(),
        "findings": unreadable_findings(view) + findings + uncharged_findings(uncharged),
    }
