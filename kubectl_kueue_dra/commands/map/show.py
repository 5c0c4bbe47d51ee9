"""``map`` without a subcommand as a service: the deviceClassMappings and what keeps each from
charging anything."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...findings import is_partial, unreadable_findings
from ...kube.view import ClusterView
from ...kueue.install import flags
from ...kueue.install.command import cli_of, document_for_cli
from .report import map_report
from .target import find_target_readonly, target_facts


@dataclass
class MapRequest:
    kueue_namespace: str | None = None

    def validate(self) -> MapRequest:
        flags.kueue_namespace(self.kueue_namespace)
        return self


def show_mappings(view: ClusterView, req: MapRequest) -> dict[str, Any]:
    config = find_target_readonly(view, req.kueue_namespace)
    facts = target_facts(view, config, None)
    slices: list[dict[str, Any]] | None = view.try_list("ResourceSlice") \
        if any(m.sources for m in config.mappings) else []
    mappings, findings = map_report(
        config.mappings, device_classes=view.try_list("DeviceClass"),
        cluster_queues=view.try_list("ClusterQueue"), slices=slices)
    cli = cli_of(view, config)  # first: a 403 it meets makes the answer partial too
    return document_for_cli({
        "source": view.source,
        "target": config.target(),
        "kueueVersion": facts.kueue_version,
        "kueueInstallation": facts.installation.to_json() if facts.installation else None,
        "partial": is_partial(view),
        "mappings": mappings,
        "findings": unreadable_findings(view) + findings,
    }, cli)
