"""What ``classes`` reads, gathered once at the start and passed down: the DeviceClasses, the one
installation model (Kueue's configuration and mappings), the ClusterQueues, the ResourceSlices as
pools, the command line the fixes are written for, and (for the classes report) the devices
allocated outside Kueue's accounting. The reads happen in this order, the order their 403s are
reported in."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ... import gates as g
from ...dra.devices import Pool, group_pools
from ...errors import UserError
from ...findings import config_findings
from ...kube.view import ClusterView
from ...kueue.charge.unaccounted import Uncharged, read_uncharged
from ...kueue.config.load import KueueConfig, load_kueue_config
from ...kueue.config.mappings import Mapping
from ...kueue.install.command import cli_of
from ...kueue.install.model import KueueInstallation, installation_of
from ...kueue.install.platform import read_cluster_version
from ..dropped import Dropped, dropped_evidence, dropped_fields, finding, of_kind, together
from ..probes import gate_states_now

Obj = dict[str, Any]


@dataclass(kw_only=True)
class ClassesFacts:
    source: str
    device_classes: list[Obj]
    installation: KueueInstallation
    cluster_queues: list[Obj] | None  # None: not readable
    pools: list[Pool] | None  # None: the ResourceSlices are not readable
    cli: str  # oc or kubectl, for the fixes
    findings: list[dict[str, Any]] = field(default_factory=list)  # about Kueue's configuration
    uncharged: Uncharged | None = None  # the classes report only
    #: gated fields written for the DeviceClasses and ResourceSlices and not stored, each with its
    #: finding (the gate's state now, the fix for the platform)
    dropped: list[tuple[Dropped, dict[str, Any]]] = field(default_factory=list)
    selected: set[str] | None = None  # the classes -l/--field-selector chose; None: every class

    @property
    def config(self) -> KueueConfig:
        return self.installation.config

    @property
    def mappings(self) -> list[Mapping] | None:
        """What Kueue reads (None: Kueue's configuration was not found)."""
        return self.installation.effective.mappings if self.config.found else None


def gather(view: ClusterView, kueue_namespace: str | None, *, uncharged: bool, selector: str | None = None,
           field_selector: str | None = None) -> ClassesFacts:
    if view.live and not view.serves("DeviceClass"):
        raise UserError("this cluster does not serve resource.k8s.io (DRA): Kubernetes 1.34+ with "
                        "DynamicResourceAllocation is needed")
    device_classes = view.list("DeviceClass")
    installation = installation_of(view, load_kueue_config(view, kueue_namespace))
    cluster_queues = view.try_list("ClusterQueue")
    slices = view.try_list("ResourceSlice")
    pools = None if slices is None else group_pools(slices, view.slice_parts)
    facts = ClassesFacts(source=view.source, device_classes=device_classes, installation=installation,
                         cluster_queues=cluster_queues, pools=pools,
                         cli="kubectl", findings=config_findings(installation.config, view))
    facts.cli = cli_of(view, installation.config)  # before "partial": a 403 it meets makes the answer partial
    if selector or field_selector:  # the server filters: every class is read above, findings span them
        chosen = view.list("DeviceClass", label_selector=selector or None, fields=field_selector or None,
                           on_server=True)
        facts.selected = {dc["metadata"]["name"] for dc in chosen}
    if uncharged:
        facts.uncharged = read_uncharged(view, device_classes, facts.mappings)
    facts.dropped = _dropped(view, device_classes, slices, facts.cli)
    return facts


def _dropped(view: ClusterView, device_classes: list[Obj], slices: list[Obj] | None,
             cli: str) -> list[tuple[Dropped, dict[str, Any]]]:
    """The dropped fields, and (only when there are some) the state of their gates now."""
    dropped = dropped_fields(of_kind(device_classes, "DeviceClass") + of_kind(slices, "ResourceSlice"))
    if not dropped:
        return []
    now = gate_states_now(view, {d.gate for d in dropped}, dropped=dropped_evidence(dropped))
    openshift = cli == "oc"
    release = g.release_of(read_cluster_version(view).version) if openshift else None
    return [(d, finding(d, now=now[d.gate], openshift=openshift, openshift_release=release)) for d in together(dropped)]
