"""Checks of the quota wiring: which quota resources DRA devices are charged under, that
ClusterQueues cover them, that counter quotas use sane units, and quota versus what exists."""

from __future__ import annotations

from ...dra.cel import CelError
from ...dra.quantity import Quantity, display_quantity
from ...dra.units import PLAIN, ZERO, unit_scale
from ...kueue.install.command import map_restart
from ...kueue.queues.cluster_queue import QuotaEntry, queues_covering, quota_entries
from ...kueue.queues.proposals import map_command
from ...kueue.queues.supply import resource_supply, total_quota
from . import fixes
from .facts import DraResource, Facts
from .model import CLAIMS, EXTENDED, FAIL, PARTITIONABLE, PASS, SKIP, WARN
from .registry import Result, check, names, needs


def _ignore_undeclared(f: Facts) -> bool:
    return ((f.config.document.get("resources") or {}).get("quotaCheckStrategy")) == "IgnoreUndeclared"


@check("dra-quota-configured", "quota")
def configured(f: Facts) -> Result:
    if f.mappings is None and "KueueConfig" in f.unreadable:
        return Result(SKIP, f.unreadable["KueueConfig"])
    if f.mappings is None and "DeviceClass" in f.unreadable:
        return Result(SKIP, f.unreadable["DeviceClass"])
    if f.mappings is None and not f.config.found:
        return Result(SKIP, "Kueue's configuration was not found, so its deviceClassMappings are unknown")
    resources = f.dra_resources
    if not resources:
        classes = sorted(dc["metadata"]["name"] for dc in f.device_classes or [])
        fix = (map_command(classes, cluster_queues=f.cluster_queues, charged=set(),
                           restart=map_restart(f.config.kind)) if classes else
               "install the DRA driver of the devices: it creates their DeviceClasses (none exists)")
        return Result(FAIL, "no deviceClassMappings and no DeviceClass with extendedResourceName: Kueue charges "
                            "no quota for DRA devices (workloads with ResourceClaimTemplates are rejected: "
                            "\"DeviceClass … is not mapped in DRA configuration\")", fix)
    return Result(PASS, "DRA devices are charged as: " + "; ".join(r.describe() for r in resources))


@check("quota-coverage", "quota")
def coverage(f: Facts) -> Result:
    skip = needs(f, "ClusterQueue", "KueueConfig")
    if skip:
        return skip
    resources = f.dra_resources
    if not resources:
        return Result(SKIP, "no quota resource is configured for DRA devices")
    queues = f.cluster_queues or []
    missing = [r for r in resources if not queues_covering(queues, r.name)]
    if missing:
        effect = ("are admitted without being charged (quotaCheckStrategy: IgnoreUndeclared)"
                  if _ignore_undeclared(f) else
                  f"are not admitted (\"resource {missing[0].name} unavailable in ClusterQueue\")")
        return Result(FAIL, f"no ClusterQueue covers {names([r.describe() for r in missing])}: workloads charged "
                            f"{'it' if len(missing) == 1 else 'them'} {effect}",
                      fixes.cover_resource(f, missing[0], _supply(f, missing[0])))
    covered = "; ".join(f"{r.name} by {names(queues_covering(queues, r.name))}" for r in resources)
    if "DeviceClass" in f.unreadable:  # which extendedResourceNames are in use is unknown
        return Result(SKIP, f"covered: {covered}; the extendedResourceNames of DeviceClasses are unknown: "
                            f"{f.unreadable['DeviceClass']}")
    return Result(PASS, f"covered: {covered}")


@check("quota-check-strategy", "quota", applies=_ignore_undeclared)
def check_strategy(f: Facts) -> Result:
    return Result(WARN, "resources.quotaCheckStrategy is IgnoreUndeclared: a DRA resource no ClusterQueue "
                        "covers is ignored, so those devices are used without quota",
                  fixes.edit_kueue_config(f, "remove resources.quotaCheckStrategy (default BlockUndeclared)"))


def _counter_resources(f: Facts) -> list[DraResource]:
    return [r for r in f.dra_resources if r.mapping is not None and r.mapping.counter_sources]


@check("cohort-counter-units", "quota", paths=(PARTITIONABLE,), applies=lambda f: f.counter_sources())
def counter_units(f: Facts) -> Result:
    skip = needs(f, "ClusterQueue")
    if skip:
        return skip
    fails: list[tuple[str, str]] = []
    warns: list[str] = []
    checked = 0
    for r in _counter_resources(f):
        entries = [e for e in quota_entries(f.cluster_queues or [], r.name) if unit_scale(e.text).family != ZERO]
        checked += len(entries)
        source = r.mapping.counter_sources[0] if r.mapping else None
        smallest = None
        if source is not None and f.slices:
            try:
                smallest = f.counter_supply(source).smallest
            except CelError:
                smallest = None
        for e in entries:
            quota = total_quota([e])
            if smallest is not None and quota is not None and Quantity.from_int(0) < quota < smallest:
                # a bare number is bytes: the same number of Gi; else what one device charges at least
                suggestion = e.text + "Gi" if unit_scale(e.text).family == PLAIN else str(smallest)
                fails.append((f"ClusterQueue {e.cluster_queue} gives {r.name} {e.text} (flavor {e.flavor}), less "
                              f"than the smallest device charges ({display_quantity(smallest)}): no workload fits; "
                              "counter units "
                              "are the driver's (bytes for memory), so write e.g. 80Gi, not 80",
                              f"{f.cli} patch clusterqueue {e.cluster_queue} --type=json -p "
                              f"'[{{\"op\":\"replace\",\"path\":\"{e.path}\",\"value\":\"{suggestion}\"}}]'"))
        by_cohort: dict[str, list[QuotaEntry]] = {}
        for e in entries:
            if e.cohort:
                by_cohort.setdefault(e.cohort, []).append(e)
        for cohort, members in sorted(by_cohort.items()):
            families = {unit_scale(e.text).family for e in members if unit_scale(e.text).comparable}
            if len(families) < 2:
                continue
            shown = ", ".join(f"{e.cluster_queue} {e.text}" for e in members)
            if PLAIN in families:
                plain = next(e for e in members if unit_scale(e.text).family == PLAIN)
                fails.append((f"cohort {cohort} mixes unit scales for {r.name} ({shown}): a bare number is "
                              "counted in the driver's base unit, so these queues lend and borrow amounts "
                              "that differ by orders of magnitude",
                              f"{f.cli} patch clusterqueue {plain.cluster_queue} --type=json -p "
                              f"'[{{\"op\":\"replace\",\"path\":\"{plain.path}\",\"value\":\"{plain.text}Gi\"}}]'"))
            else:
                warns.append(f"cohort {cohort} writes {r.name} in both binary and decimal units ({shown}); "
                             "1G is not 1Gi")
    if fails:
        return Result(FAIL, "; ".join([m for m, _ in fails] + warns), fails[0][1])
    if warns:
        return Result(WARN, "; ".join(warns), None)
    if not checked:
        return Result(SKIP, "no ClusterQueue gives a nominalQuota for a counter-charged resource")
    if "ResourceSlice" in f.unreadable:  # the unit scales are known, what one device charges is not
        return Result(SKIP, "counter quotas use one unit scale per cohort; whether each admits at least one device "
                            f"is unknown: {f.unreadable['ResourceSlice']}")
    return Result(PASS, "counter quotas use one unit scale per cohort and each admits at least one device")


def _supply(f: Facts, r: DraResource) -> tuple[Quantity | None, str]:
    """(what the cluster has of resource r, in its units; or None with why)."""
    return resource_supply(f.pools, classes=r.classes, mapping=r.mapping, device_classes=f.device_classes,
                           evaluator=f.evaluator, index=f.shape_index, supply_of=f.counter_supply)


@check("quota-vs-capacity", "quota", paths=(CLAIMS, EXTENDED, PARTITIONABLE))
def quota_vs_capacity(f: Facts) -> Result:
    skip = needs(f, "ClusterQueue", "ResourceSlice", "DeviceClass", "KueueConfig")
    if skip:
        return skip
    lines, statuses = [], []
    resize: list[str] = []  # the patch that makes a quota given once equal what the cluster has
    for r in f.dra_resources:
        if r.path not in f.paths:
            continue
        entries = quota_entries(f.cluster_queues or [], r.name)
        quota = total_quota(entries)
        if quota is None:
            continue  # not covered: quota-coverage says so
        have, what = _supply(f, r)
        if have is None:
            lines.append(f"{r.name}: cannot compare ({what})")
            continue
        queues = names(sorted({e.cluster_queue for e in entries}))
        given, has = display_quantity(quota), display_quantity(have)
        if quota != have and len(entries) == 1 and not resize:
            e = entries[0]
            resize.append(f"{f.cli} patch clusterqueue {e.cluster_queue} --type=json -p "
                          f"'[{{\"op\":\"replace\",\"path\":\"{e.path}\",\"value\":\"{have}\"}}]'  # {r.name}: "
                          f"{have} is {what}; or keep {e.text} and see its use: kubectl kueue-dra queues "
                          f"{e.cluster_queue}")
        if quota > have:
            statuses.append(WARN)
            lines.append(f"{r.name}: ClusterQueues ({queues}) give {given}, but the cluster has {has} ({what}): "
                         "over-provisioned, admitted workloads can wait for devices")
        elif quota < have:
            statuses.append(WARN)
            lines.append(f"{r.name}: ClusterQueues ({queues}) give {given} of the {has} the cluster has "
                         f"({what}): under-provisioned, {display_quantity(have - quota)} is outside any quota")
        else:
            statuses.append(PASS)
            lines.append(f"{r.name}: quota {given} equals what the cluster has ({what})")
    if not lines:
        return Result(SKIP, "no covered DRA quota resource to compare")
    if not statuses:
        return Result(SKIP, "; ".join(lines))
    if WARN in statuses:
        compare = "compare each ClusterQueue's quota with its use: kubectl kueue-dra queues"
        return Result(WARN, "; ".join(lines), resize[0] if resize else compare)
    return Result(PASS, "; ".join(lines))


@check("uncharged-devices", "quota")
def uncharged_devices(f: Facts) -> Result:
    """Devices allocated to pods Kueue does not charge (kueue/charge/unaccounted): they use GPUs the quota
    counts on without being charged."""
    found = f.uncharged
    if found is None or found.problem:
        return Result(SKIP, f"whether devices are allocated outside Kueue's accounting is unknown: "
                            f"{found.problem if found else 'the ResourceClaims were not read'}")
    if found.devices:
        unmapped = found.unmapped_classes()
        mapper = map_command(unmapped, cluster_queues=f.cluster_queues, charged={r.name for r in f.dra_resources},
                             restart=map_restart(f.config.kind)) if unmapped else ""
        return Result(WARN, "; ".join(found.summaries()), found.fix(mapper), {"uncharged": found.doc()})
    return Result(PASS, "every allocated device is held by a pod of an admitted Workload, in a class Kueue charges")
