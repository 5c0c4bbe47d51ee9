"""``classes`` as a service: each DeviceClass, the quota resource it charges and its devices."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...errors import UserError
from ...findings import is_partial, unreadable_findings
from ...kube.view import ClusterView
from ...kueue.charge.unaccounted import uncharged_findings
from ...kueue.install import flags
from ...kueue.config.dra_resources import dra_resources
from ...kueue.install.command import document_for_cli, map_restart
from ...kueue.queues.proposals import map_command
from ...kueue.install.fix_rights import with_rights
from .facts import ClassesFacts, gather


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


def classes_document(view: ClusterView, req: ClassesRequest) -> dict[str, Any]:
    """The classes report, or with ``--devices`` the devices of each class, from the facts read once."""
    from ...dra.cel import SelectorEvaluator
    from .report import classes_report

    facts = gather(view, req.kueue_namespace, uncharged=req.devices is None, selector=req.selector,
                   field_selector=req.field_selector)
    if req.devices is not None:
        return _devices_document(view, req.devices, facts)
    assert facts.uncharged is not None
    unmapped = facts.uncharged.unmapped_classes()
    mapper = map_command(unmapped, cluster_queues=facts.cluster_queues,
                         charged=None if facts.mappings is None else {r.name for r in dra_resources(
                             facts.mappings, facts.device_classes)},
                         restart=map_restart(facts.config.kind)) if unmapped else ""
    report = classes_report(facts.device_classes, mappings=facts.mappings, cluster_queues=facts.cluster_queues,
                            pools=facts.pools, evaluator=SelectorEvaluator(), config_kind=facts.config.kind,
                            dropped=facts.dropped)
    return with_rights(document_for_cli({
        "source": facts.source,
        "kueueConfig": facts.config.target() if facts.config.found else None,
        "kueueInstallation": facts.installation.to_json(),
        "partial": is_partial(view),
        "deviceClasses": report if facts.selected is None else [c for c in report if c["name"] in facts.selected],
        "uncharged": facts.uncharged.doc(),
        "findings": unreadable_findings(view) + facts.findings + _slices_dropped(facts)
        + uncharged_findings(facts.uncharged, mapper),
    }, facts.cli), view, facts.config)


def _slices_dropped(facts: ClassesFacts) -> list[dict[str, Any]]:
    """What the API server dropped from ResourceSlices (a class's own are said with the class)."""
    return [f for d, f in facts.dropped if d.kind == "ResourceSlice"]


def _devices_document(view: ClusterView, wanted: str, facts: ClassesFacts) -> dict[str, Any]:
    """``classes --devices [CLASS]``: the matching devices of each class, grouped by shape."""
    from ...dra.cel import SelectorEvaluator
    from .report import class_devices

    chosen = sorted((dc for dc in facts.device_classes if (not wanted or dc["metadata"]["name"] == wanted)
                     and (facts.selected is None or dc["metadata"]["name"] in facts.selected)),
                    key=lambda dc: dc["metadata"]["name"])
    if wanted and not chosen:
        raise UserError(f'DeviceClass "{wanted}" not found ({facts.source})',
                        "list them with: kubectl kueue-dra classes")
    evaluator = SelectorEvaluator()
    if facts.pools is None:
        listed = [{"deviceClass": dc["metadata"]["name"], "selectors": [], "counterSources": [],
                   "matchingDevices": None, "shapes": [], "findings": []} for dc in chosen]
    else:
        listed = [class_devices(dc, mappings=facts.mappings, pools=facts.pools, evaluator=evaluator)
                  for dc in chosen]
    return with_rights(document_for_cli({
        "source": facts.source,
        "kueueConfig": facts.config.target() if facts.config.found else None,
        "kueueInstallation": facts.installation.to_json(),
        "partial": is_partial(view),
        "devices": listed,
        "findings": unreadable_findings(view) + facts.findings + [f for _, f in facts.dropped],
    }, facts.cli), view, facts.config)
