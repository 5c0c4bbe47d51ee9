"""``map`` without a subcommand as a service: the deviceClassMappings and what keeps each from
charging anything."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...findings import is_partial, unreadable_findings
from ...kube.view import ClusterView
from ...kueue.config.load import KueueConfig
from ...kueue.install import flags
from ...kueue.install.command import cli_of, document_for_cli
from ...kueue.install.fix_rights import with_rights
from ...kueue.install.model import installation_of
from ...kueue.install.target import TargetFacts
from ...kueue.install.target import target_facts as rules_of
from ...kueue.queues.cluster_queue import queues_covering
from .report import map_report
from .target import find_target_readonly

Obj = dict[str, Any]


@dataclass
class MapRequest:
    kueue_namespace: str | None = None

    def validate(self) -> MapRequest:
        flags.kueue_namespace(self.kueue_namespace)
        return self


@dataclass(kw_only=True)
class MapFacts:
    """What ``map`` reads, gathered once in this order (the order 403s are reported in): where the
    mappings are written, the installation model and the rules it gives, the DeviceClasses, the
    ClusterQueues, the ResourceSlices (only when a mapping has sources, or no ClusterQueue covers
    one: the fix proposes what its devices give), the command line."""

    config: KueueConfig
    target: TargetFacts
    device_classes: list[Obj] | None
    slices: list[Obj] | None
    cluster_queues: list[Obj] | None
    cli: str


def gather(view: ClusterView, kueue_namespace: str | None) -> MapFacts:
    config = find_target_readonly(view, kueue_namespace)
    installation = installation_of(view, config)
    device_classes = view.try_list("DeviceClass")
    target = rules_of(installation, device_classes)
    cluster_queues = view.try_list("ClusterQueue")
    uncovered = cluster_queues is not None and any(not queues_covering(cluster_queues, m.name) for m in config.mappings)
    slices = view.try_list("ResourceSlice") if uncovered or any(m.sources for m in config.mappings) else []
    return MapFacts(config=config, target=target, device_classes=device_classes, slices=slices,
                    cluster_queues=cluster_queues, cli=cli_of(view, config))


def show_mappings(view: ClusterView, req: MapRequest) -> dict[str, Any]:
    facts = gather(view, req.kueue_namespace)
    mappings, findings = map_report(facts.config.mappings, device_classes=facts.device_classes,
                                    cluster_queues=facts.cluster_queues, slices=facts.slices)
    return with_rights(document_for_cli({
        "source": view.source,
        "target": facts.config.target(),
        "kueueVersion": facts.target.kueue_version,
        "kueueInstallation": facts.target.installation.to_json() if facts.target.installation else None,
        "partial": is_partial(view),
        "mappings": mappings,
        "findings": unreadable_findings(view) + findings,
    }, facts.cli), view, facts.config)
