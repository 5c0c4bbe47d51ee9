"""``classes`` as a service: each DeviceClass, the quota resource it charges and its devices."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...errors import UserError
from ...findings import config_findings, is_partial, unreadable_findings
from ...kube.view import ClusterView
from ...kueue.charge.unaccounted import read_uncharged, uncharged_findings
from ...kueue.config.load import load_kueue_config
from ...kueue.install import flags
from ...kueue.install.command import cli_of, document_for_cli
from ...kueue.install.model import installation_of


@dataclass
class ClassesRequest:
    kueue_namespace: str | None = None
    #: --devices: None = the classes report; "" = the devices of every class; else of that class
    devices: str | None = None
    selector: str | None = None  # -l: which DeviceClasses are shown (all are read: findings span classes)
    field_selector: str | None = None

    def validate(self) -> ClassesRequest:
        from ...k8s.selectors import parse_fields, parse_labels

        flags.kueue_namespace(self.kueue_namespace)
        parse_labels(self.selector or "")
        parse_fields(self.field_selector or "", CLASS_FIELDS)
        return self


#: the fields the API server selects DeviceClasses by
CLASS_FIELDS = ("metadata.name", "metadata.namespace")


def _selected(view: ClusterView, req: ClassesRequest) -> set[str] | None:
    """The names -l/--field-selector select (a list the server filters), or None: every class."""
    if not req.selector and not req.field_selector:
        return None
    chosen = view.list("DeviceClass", label_selector=req.selector or None, fields=req.field_selector or None,
                       on_server=True)
    return {dc["metadata"]["name"] for dc in chosen}


def classes_document(view: ClusterView, req: ClassesRequest) -> dict[str, Any]:
    from ...dra.cel import SelectorEvaluator
    from ...dra.devices import group_pools
    from .report import classes_report

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
    cli = cli_of(view, config)  # before "partial": what it may not read makes the answer partial too
    selected = _selected(view, req)
    if req.devices is not None:
        shown = device_classes if selected is None else [dc for dc in device_classes
                                                         if dc["metadata"]["name"] in selected]
        return _devices_document(view, req.devices, shown, installation, pools, findings, cli)
    mappings = installation.effective.mappings if config.found else None
    uncharged = read_uncharged(view, device_classes, mappings)
    report = classes_report(device_classes, mappings=installation.effective.mappings if config.found else None,
                            cluster_queues=cluster_queues, pools=pools, evaluator=SelectorEvaluator())
    cli = cli_of(view, config)  # first: a 403 it meets makes the answer partial too
    return document_for_cli({
        "source": view.source,
        "kueueConfig": config.target() if config.found else None,
        "kueueInstallation": installation.to_json(),
        "partial": is_partial(view),
        "deviceClasses": report if selected is None else [c for c in report if c["name"] in selected],
        "uncharged": uncharged.doc(),
        "findings": unreadable_findings(view) + findings + uncharged_findings(uncharged),
    }, cli)


def _devices_document(view: ClusterView, wanted: str, device_classes: list[dict[str, Any]], installation: Any,
                      pools: Any, findings: list[dict[str, Any]], cli: str) -> dict[str, Any]:
    """``classes --devices [CLASS]``: the matching devices of each class, grouped by shape."""
    from ...dra.cel import SelectorEvaluator
    from .report import class_devices

    chosen = sorted((dc for dc in device_classes if not wanted or dc["metadata"]["name"] == wanted),
                    key=lambda dc: dc["metadata"]["name"])
    if wanted and not chosen:
        raise UserError(f'DeviceClass "{wanted}" not found ({view.source})',
                        "list them with: kubectl kueue-dra classes")
    mappings = installation.effective.mappings if installation.config.found else None
    evaluator = SelectorEvaluator()
    if pools is None:
        listed = [{"deviceClass": dc["metadata"]["name"], "selectors": [], "counterSources": [],
                   "matchingDevices": None, "shapes": [], "findings": []} for dc in chosen]
    else:
        listed = [class_devices(dc, mappings=mappings, pools=pools, evaluator=evaluator) for dc in chosen]
    cli = cli_of(view, installation.config)  # first: a 403 it meets makes the answer partial too
    return document_for_cli({
        "source": view.source,
        "kueueConfig": installation.config.target() if installation.config.found else None,
        "kueueInstallation": installation.to_json(),
        "partial": is_partial(view),
        "devices": listed,
        "findings": unreadable_findings(view) + findings,
    }, cli)
