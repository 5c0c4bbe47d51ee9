"""The queue world of one explain run: the lists Kueue's scheduler decides from (every namespace),
read once through the view (the view caches them, so ``explain`` of every workload lists each kind
once), with Kueue's version, the gates the queue model follows and the configuration bits that
change it (fair sharing, admission fair sharing, waitForPodsReady's requeuing timestamp and
blockAdmission).

A list that is forbidden is None with the 403 as the reason; a kind a snapshot does not hold is
unknown too ("the snapshot holds no …"), never an empty list, except Cohorts (a snapshot without
any has none to hold).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from ...kube.view import ClusterView
from ...kueue.install.command import edit_kueue_config, shell_quote

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


def block_admission(ctx: KueueContext, v19: bool) -> bool | None:
    """Whether Kueue holds every admission until the pods of the workloads holding quota are ready
    (``blockForPodsReady``): waitForPodsReady present (v1beta1: ``enable``) and its ``blockAdmission``
    true (v1beta1: defaulted to ``enable``; v1beta2: false); the OpenShift CR's
    ``gangScheduling.policy: ByWorkload`` with ``byWorkload.admission: Sequential``; off in 0.19
    under the gate DisableWaitForPodsReady. None when the configuration could not be read."""
    config = ctx.config
    if config.unreadable:
        return None
    install = ctx.installation
    if v19 and gate_on("DisableWaitForPodsReady", install.cli_gates if install else None,
                       install.config_gates if install else None, default=False):
        return False
    doc = config.document or {}
    if config.kind == "Kueue":
        gang = doc.get("gangScheduling") or {}
        return gang.get("policy") == "ByWorkload" and (gang.get("byWorkload") or {}).get("admission") == "Sequential"
    section = doc.get("waitForPodsReady")
    if not isinstance(section, dict):
        return False
    if str(doc.get("apiVersion") or "").endswith("v1beta1"):
        enabled = section.get("enable") is True
        block = section.get("blockAdmission")
        return enabled and (enabled if block is None else block is True)
    return section.get("blockAdmission") is True


def ignore_undeclared(ctx: KueueContext) -> bool:
    """``resources.quotaCheckStrategy: IgnoreUndeclared`` in the Configuration (the OpenShift
    operator renders no such field); its gate is the world's."""
    if ctx.config.kind == "Kueue" or ctx.config.unreadable:
        return False
    return ((ctx.config.document or {}).get("resources") or {}).get("quotaCheckStrategy") == "IgnoreUndeclared"


def unblock_command(ctx: KueueContext) -> str:
    """The change that lets Kueue admit while pods start (waitForPodsReady.blockAdmission off)."""
    if ctx.config.kind == "Kueue":  # the operator renders Sequential as blockAdmission: true
        patch = '{"spec":{"config":{"gangScheduling":{"byWorkload":{"admission":"Parallel"}}}}}'
        name = ctx.config.name or "cluster"
        return f"kubectl patch kueues.kueue.openshift.io {name} --type=merge -p {shell_quote(patch)}"
    return edit_kueue_config(ctx.config, ctx.installation.namespace if ctx.installation else None,
                             "waitForPodsReady.blockAdmission: false")


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
                      block_admission=block_admission(ctx, probe.v19),
                      ignore_undeclared=ignore_undeclared(ctx),
                      admission_fair_sharing=doc.get("admissionFairSharing") is not None,
                      requeuing_timestamp=str(pods_ready.get("timestamp") or "Eviction"), unreadable=unreadable,
                      now=now if view.live else None, **{_FIELDS[k]: v for k, v in lists.items()})
