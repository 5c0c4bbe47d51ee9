"""The queue world of one explain run: the lists Kueue's scheduler decides from (every namespace),
read once through the view (the view caches them, so ``explain`` of every workload lists each kind
once), with Kueue's version, the gates the queue model follows and the configuration bits that
change it (fair sharing, admission fair sharing, waitForPodsReady's requeuing timestamp).

A list that is forbidden is None with the 403 as the reason; a kind a snapshot does not hold is
unknown too ("the snapshot holds no …"), never an empty list, except Cohorts (a snapshot without
any has none to hold).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from ...kube.view import ClusterView

from ...kueue.scheduler.world import GATE_DEFAULTS, QueueWorld
from .context import KueueContext, gate_on

_KINDS = ("ClusterQueue", "Cohort", "ResourceFlavor", "LocalQueue", "Workload")
_WHAT_IF_KINDS = ("WorkloadPriorityClass", "PriorityClass")
_FIELDS = {"ClusterQueue": "cluster_queues", "Cohort": "cohorts", "ResourceFlavor": "resource_flavors",
           "LocalQueue": "local_queues", "Workload": "workloads", "WorkloadPriorityClass": "workload_priority_classes",
           "PriorityClass": "priority_classes"}


def fair_sharing(ctx: KueueContext) -> bool | None:
    """Whether Kueue runs fair sharing: the Configuration's ``fairSharing`` (v1beta2: present;
    v1beta1: ``enable``), the OpenShift CR's ``preemption.preemptionPolicy: FairSharing``; None
    when the configuration could not be read."""
    config = ctx.config
    if config.unreadable:
        return None
    doc = config.document or {}
    if config.kind == "Kueue":
        return (doc.get("preemption") or {}).get("preemptionPolicy") == "FairSharing"
    section = doc.get("fairSharing")
    if section is None:
        return False
    if str(doc.get("apiVersion") or "").endswith("v1beta1"):
        return bool((section or {}).get("enable"))
    return True


def _gates(ctx: KueueContext, v19: bool) -> dict[str, bool]:
    install = ctx.installation
    cli = install.cli_gates if install else None
    config = install.config_gates if install else None
    return {name: gate_on(name, cli, config, default=defaults[1 if v19 else 0])
            for name, defaults in GATE_DEFAULTS.items()}


def queue_world(view: ClusterView, ctx: KueueContext, read: Callable[[str], list[Any] | None], *,
                now: datetime | None, what_if: bool = False) -> QueueWorld:
    """The world from the lists ``read`` gives (each kind's, read once by the caller's facts)."""
    kinds = _KINDS + (_WHAT_IF_KINDS if what_if else ())
    lists: dict[str, Any] = {}
    unreadable: dict[str, str] = {}
    for kind in kinds:
        if not view.live and not view.serves(kind) and kind != "Cohort":
            lists[kind] = None
            unreadable[kind] = "the snapshot holds none"
            continue
        got = read(kind)
        lists[kind] = got
        if got is None:
            unreadable[kind] = view.forbidden(kind) or "not readable"
    doc = ctx.config.document or {}
    pods_ready = ((doc.get("waitForPodsReady") or {}).get("requeuingStrategy") or {})
    version = ctx.semantics.version
    probe = QueueWorld(version=version)
    return QueueWorld(version=version, gates=_gates(ctx, probe.v19), fair_sharing=fair_sharing(ctx),
                      admission_fair_sharing=doc.get("admissionFairSharing") is not None,
                      requeuing_timestamp=str(pods_ready.get("timestamp") or "Eviction"), unreadable=unreadable,
                      now=now if view.live else None, **{_FIELDS[k]: v for k, v in lists.items()})
