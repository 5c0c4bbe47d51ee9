"""Gather, once, everything the checks look at. The only part of ``verify`` that does I/O (through
the ClusterView, and ``kube/probes`` on a live server); the checks are pure functions of ``Facts``.

A list that was forbidden is None with the reason in ``unreadable``; in a snapshot, a kind with
no objects at all is None with the reason in ``unreadable`` too (a snapshot that lacks a kind says
nothing about the cluster).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property
from typing import Any

from ... import gates as g
from ...dra.cel import CelError, SelectorEvaluator, compile_selector
from ...dra.device_classes import class_selectors, extended_resource_winners
from ...dra.devices import DeviceModels, Pool, ShapeIndex, group_pools
from ...dra.published import Published, published
from ...k8s.shape import Malformed
from ...kube import errors
from ..dropped import Dropped, dropped_evidence, dropped_fields, of_kind
from ...kube.live import LiveView
from ...kube.view import ClusterView
from ...kueue.charge.unaccounted import Uncharged, read_uncharged
from ...kueue.config.load import KueueConfig, load_kueue_config
from ...kueue.config.mappings import Mapping, Source, lookup
from ...kueue.install.command import cli_name, openshift_platform
from ...kueue.install.model import KueueInstallation, installation_of
from ...kueue.install.platform import read_cluster_version
from ...kueue.queues.cluster_queue import cluster_queue_of, covered_resources
from .model import CLAIMS, EXTENDED, PARTITIONABLE
from ...kueue.queues.supply import CounterSupply, counter_supply

Obj = dict[str, Any]
OFFLINE = "offline snapshot"
LISTED = ("DeviceClass", "ResourceSlice", "ClusterQueue", "LocalQueue", "Namespace")


@dataclass(frozen=True)
class DraResource:
    """A quota resource DRA devices are charged under."""

    name: str
    via: str  # "mapping" | "extendedResourceName"
    path: str
    classes: tuple[str, ...]
    mapping: Mapping | None = None

    def describe(self) -> str:
        if self.mapping is not None:
            return f"{self.name} (mapping)"
        return f"{self.name} (extendedResourceName of {', '.join(self.classes)})"


@dataclass(kw_only=True)
class Facts:
    live: bool
    source: str
    config: KueueConfig
    install: KueueInstallation
    lists: dict[str, list[Obj] | None]
    unreadable: dict[str, str]  # kind → why it could not be read
    kueue_served: bool | None
    openshift: bool
    feature_gate: Obj | None
    cluster_version: Obj | None
    kueue_cr: Obj | None
    server_version: str | None
    k8s_inputs: g.KubernetesInputs
    k8s_gates: dict[str, g.GateState]
    kueue_gates: g.KueueGates
    probed: list[str] = field(default_factory=list)
    forbidden: list[errors.Forbidden] = field(default_factory=list)  # every 403, lists and gets
    config_changed: datetime | None = None  # upstream: the config ConfigMap's last write
    paths: frozenset[str] = frozenset()  # the paths being checked (set by the run)
    paths_given: bool = False  # --path named them (else they are the ones the setup uses)
    pods: list[Obj] | None = None  # the Kueue controller's pods
    malformed: list[Malformed] = field(default_factory=list)  # fields of the wrong type, removed
    cluster_version_problem: str | None = None  # why the OpenShift version is unknown
    uncharged: Uncharged | None = None  # devices allocated outside Kueue's accounting (None: claims unread)
    kueue_operator_served: bool = False  # the OpenShift operator's API (kueues.kueue.openshift.io) is served
    dropped: list[Dropped] = field(default_factory=list)  # gated fields written but not stored
    #: what the reader found of the slices' devices (``dra.devices.DeviceModels``), for the grouping
    device_models: DeviceModels | None = field(default=None, repr=False)
    _supplies: dict[Source, CounterSupply] = field(default_factory=dict, repr=False)
    _published: dict[str, Published] = field(default_factory=dict, repr=False)

    # -- convenience -----------------------------------------------------------------------
    def denied(self, resource: str) -> str | None:
        """The message of a 403 on ``resource`` (``deployments.apps``, ``configmaps``, …), if any."""
        return next((e.message for e in self.forbidden if getattr(e, "resource", None) == resource), None)

    @property
    def device_classes(self) -> list[Obj] | None:
        return self.lists["DeviceClass"]

    @property
    def slices(self) -> list[Obj] | None:
        return self.lists["ResourceSlice"]

    @property
    def cluster_queues(self) -> list[Obj] | None:
        return self.lists["ClusterQueue"]

    @property
    def local_queues(self) -> list[Obj] | None:
        return self.lists["LocalQueue"]

    @property
    def namespaces(self) -> list[Obj] | None:
        return self.lists["Namespace"]

    @property
    def mappings(self) -> list[Mapping] | None:
        return self.config.mappings if self.config.found and not self.config.problem else None

    @property
    def cli(self) -> str:
        return cli_name(self.openshift)

    def counter_sources(self) -> bool:
        return any(m.counter_sources for m in self.mappings or [])

    def capacity_sources(self) -> bool:
        return any(m.capacity_sources for m in self.mappings or [])

    @property
    def openshift_version(self) -> str | None:
        """The OpenShift version from ClusterVersion (None: not OpenShift, or not readable)."""
        return self.k8s_inputs.openshift_version

    def extended_classes(self) -> list[Obj]:
        return [dc for dc in self.device_classes or [] if (dc.get("spec") or {}).get("extendedResourceName")]

    # -- derived once for every check -------------------------------------------------------
    @cached_property
    def dra_resources(self) -> list[DraResource]:
        """The quota resources DRA devices are charged under: each mapping, then each
        extendedResourceName no mapping takes over."""
        out = [DraResource(m.name, "mapping", PARTITIONABLE if m.sources else CLAIMS, m.device_class_names, m)
               for m in self.mappings or []]
        for ern, name in sorted(extended_resource_winners(self.device_classes or []).items()):
            if self.mappings and lookup(self.mappings, name) is not None:
                continue  # the mapping name wins; the class is charged under it
            if not any(r.name == ern for r in out):
                out.append(DraResource(ern, "extendedResourceName", EXTENDED, (name,)))
        return out

    @cached_property
    def dra_queues(self) -> set[str]:
        """The ClusterQueues covering a quota resource DRA devices are charged under."""
        resources = {r.name for r in self.dra_resources}
        return {cq["metadata"]["name"] for cq in self.cluster_queues or [] if covered_resources(cq) & resources}

    @cached_property
    def queue_targets(self) -> list[tuple[Obj, str | None]]:
        """Each LocalQueue with the ClusterQueue it points at."""
        return [(lq, cluster_queue_of(lq)) for lq in self.local_queues or []]

    # -- the devices, grouped once for every check -----------------------------------------
    @cached_property
    def pools(self) -> list[Pool]:
        """The ResourceSlices as pools at their newest generation (empty when none were read)."""
        return group_pools(self.slices or [], self.device_models)

    @cached_property
    def evaluator(self) -> SelectorEvaluator:
        """The one SelectorEvaluator of the run: every check shares its cache."""
        return SelectorEvaluator()

    @cached_property
    def shape_index(self) -> ShapeIndex:
        """The devices of ``pools`` grouped once by what every selector list verify evaluates can
        read (the DeviceClasses' selectors, the counter sources' deviceSelectors), so a list is
        evaluated once per group instead of once per device. Lists that do not compile, or that
        read the whole device, are left out; the checks evaluate those device by device."""
        lists = [class_selectors(dc) for dc in self.device_classes or []]
        lists += [[s.selector] if s.selector else [] for m in self.mappings or [] for s in m.counter_sources]
        shared: list[list[str]] = []
        for selectors in lists:
            try:
                if all(compile_selector(e).footprint is not None for e in selectors) and selectors not in shared:
                    shared.append(selectors)
            except CelError:
                continue
        return ShapeIndex(self.pools, shared, self.evaluator)

    def counter_supply(self, source: Source) -> CounterSupply:
        """``supply.counter_supply`` of a counter source, computed once per run (raises CelError)."""
        if source not in self._supplies:
            self._supplies[source] = counter_supply(self.pools, source, self.evaluator, self.shape_index)
        return self._supplies[source]

    def published(self, driver: str) -> Published:
        """What ``driver``'s ResourceSlices publish (``dra.published``), read once per run."""
        if driver not in self._published:
            self._published[driver] = published(self.slices or [], driver, self.device_models)
        return self._published[driver]


def _read(view: ClusterView, kind: str, unreadable: dict[str, str]) -> list[Obj] | None:
    before = len(view.unreadable)
    found = view.try_list(kind)
    if found is None:
        e = view.unreadable[-1] if len(view.unreadable) > before else None
        unreadable[kind] = e.message if e else f"cannot list {kind}"
        return None
    if not view.live and not found:
        unreadable[kind] = f"the snapshot has no {kind} objects"
        return None
    return found


def _live_discovery(view: Any, unreadable: dict[str, str]) -> tuple[list[str] | None, Obj | None]:
    versions = version_doc = None
    try:
        versions = view.served_versions("resource.k8s.io")
    except errors.KubeError as e:
        unreadable["discovery"] = e.message
    try:
        version_doc = view.server_version()
    except errors.KubeError as e:
        unreadable["/version"] = e.message
    return versions, version_doc


def gather(view: ClusterView, kueue_namespace: str | None = None, probe: bool = True) -> Facts:
    unreadable: dict[str, str] = {}
    lists = {kind: _read(view, kind, unreadable) for kind in LISTED}
    config = load_kueue_config(view, kueue_namespace)
    install = installation_of(view, config)

    feature_gate = install.feature_gate if install.feature_gate is not None else (
        view.try_get("FeatureGate", "cluster") if view.serves("FeatureGate") else None)
    cv = read_cluster_version(view)
    cluster_version, cluster_version_problem = cv.obj, cv.problem
    kueue_cr = view.try_get("Kueue", "cluster") if view.serves("Kueue") else None
    for kind, got in (("FeatureGate", feature_gate), ("ClusterVersion", cluster_version), ("Kueue", kueue_cr)):
        if got is None and (why := view.forbidden(kind)):
            unreadable.setdefault(kind, why)  # the singleton may exist: checks that read it skip
    openshift = openshift_platform(feature_gate, cluster_version, config.kind)

    inp = g.KubernetesInputs(feature_gate=feature_gate, device_classes=lists["DeviceClass"],
                             slices=lists["ResourceSlice"], device_models=view.slice_parts)
    dropped = dropped_fields(of_kind(lists["DeviceClass"], "DeviceClass") + of_kind(lists["ResourceSlice"],
                                                                                   "ResourceSlice"))
    inp.dropped = dropped_evidence(dropped)
    inp.openshift_version = g.openshift_version(cluster_version)
    server_version = None
    if view.live:
        inp.dra_versions, version_doc = _live_discovery(view, unreadable)
        inp.dra_served = "v1" in (inp.dra_versions or [])
        inp.minor = g.kube_minor(version_doc)
        server_version = (version_doc or {}).get("gitVersion")
        inp.minor_source = f"server {server_version}" if server_version else ""
        if inp.dra_versions is None:
            inp.dra_served = None
    else:
        if lists["DeviceClass"] or lists["ResourceSlice"]:
            inp.dra_versions, inp.dra_served = ["v1"], True
        inp.metrics_problem = f"{OFFLINE}: /metrics needs a live server"
    if inp.minor is None and inp.openshift_version:
        inp.minor = g.openshift_kube_minor(inp.openshift_version)
        inp.minor_source = f"OpenShift {inp.openshift_version}"

    probed: list[str] = []
    if isinstance(view, LiveView):
        from ..probes import dry_run_probe, read_feature_metrics

        inp.metrics, inp.metrics_problem = read_feature_metrics(view.client)
        for gate in (g.DRA_EXTENDED, g.DRA_PARTITIONABLE, g.DRA_CONSUMABLE):
            settled = g.resolve_kubernetes_gates(inp)[gate]
            if settled.learned_from in ("featuregate-status", "metrics"):
                continue
            if not probe:
                inp.probes[gate] = g.Evidence("probe", None, "probes disabled (--no-probe)")
            elif inp.dra_served:
                inp.probes[gate] = dry_run_probe(view, gate)
                probed.append(gate)
    else:
        for gate in (g.DRA_EXTENDED, g.DRA_PARTITIONABLE, g.DRA_CONSUMABLE):
            inp.probes[gate] = g.Evidence("probe", None, f"{OFFLINE}: the dry-run probe needs a live server")
    k8s_gates = g.resolve_kubernetes_gates(inp)

    kueue_served = view.serves("ClusterQueue") if view.live else (
        bool(lists["ClusterQueue"] or lists["LocalQueue"]) or config.found or None)
    kueue_gates = install.gates
    changed = None
    if config.kind == "ConfigMap" and config.name:
        cm = view.try_get("ConfigMap", config.name, config.namespace)
        changed = last_write(cm) if cm else None
    if config.unreadable:  # the mappings are unknown, not absent: the checks that name quota resources skip
        unreadable.setdefault("KueueConfig", config.unreadable)
    pods = _controller_pods(view, install)  # before the 403s are copied: a forbidden list of pods is one of them
    if pods is None and view.forbidden("Pod"):
        unreadable["Pod"] = view.forbidden("Pod") or ""
    # every claim and Workload (403: unknown); a snapshot without claims reads as none allocated
    uncharged = read_uncharged(view, lists["DeviceClass"], install.effective.mappings if config.found else None)
    return Facts(live=view.live, source=view.source, config=config, install=install, lists=lists,
                 unreadable=unreadable, kueue_served=kueue_served, openshift=openshift, feature_gate=feature_gate,
                 cluster_version=cluster_version, kueue_cr=kueue_cr, server_version=server_version,
                 k8s_inputs=inp, k8s_gates=k8s_gates, kueue_gates=kueue_gates, probed=probed,
                 forbidden=list(view.unreadable), config_changed=changed, pods=pods, malformed=view.malformed,
                 cluster_version_problem=cluster_version_problem, uncharged=uncharged, dropped=dropped,
                 kueue_operator_served=view.live and view.serves("Kueue"), device_models=view.slice_parts)


def _controller_pods(view: ClusterView, install: KueueInstallation) -> list[Obj] | None:
    selector = (((install.deployment or {}).get("spec") or {}).get("selector") or {}).get("matchLabels") or {}
    if not selector:
        return None
    return view.try_list("Pod", install.namespace,
                         label_selector=",".join(f"{k}={v}" for k, v in sorted(selector.items())))


def parse_time(text: str | None) -> datetime | None:
    if not text:
        return None
    try:
        return datetime.fromisoformat(str(text).replace("Z", "+00:00"))
    except ValueError:
        return None


def last_write(obj: Obj) -> datetime | None:
    """When an object was last written, from managedFields times (else its creation)."""
    meta = obj.get("metadata") or {}
    times = [parse_time(m.get("time")) for m in meta.get("managedFields") or []]
    times.append(parse_time(meta.get("creationTimestamp")))
    known = [t for t in times if t]
    return max(known) if known else None
