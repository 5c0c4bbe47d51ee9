"""Checks of the DRA driver and its devices: ResourceSlices, pools, the DeviceClasses the quota
setup names, the counters counter-sourced mappings read, and the devices the classes match."""

from __future__ import annotations

import difflib
from typing import Any

from ... import gates as g
from ...dra.cel import CelError, compile_selector
from ...dra.device_classes import class_selectors, extended_resource_winners
from ...kueue.config.mappings import lookup
from . import fixes, guidance
from .facts import Facts
from .model import CLAIMS, EXTENDED, FAIL, PARTITIONABLE, PASS, SKIP, WARN
from .registry import Result, check, names, needs, plural
from ...kueue.queues.supply import count_devices

DRIVER_FIX = ("check the DRA driver: its kubelet plugin must run on the GPU nodes and publish "
              "ResourceSlices (kubectl get resourceslices; kubectl get pods -A | grep -i dra)")


def _drivers_needed(f: Facts) -> dict[str, list[str]]:
    needed: dict[str, list[str]] = {}
    for m in f.mappings or []:
        for s in m.sources:
            needed.setdefault(s.driver, []).append(m.name)
    return needed


@check("resourceslices", "devices")
def resourceslices(f: Facts) -> Result:
    skip = needs(f, "ResourceSlice")
    if skip:
        return skip
    slices = f.slices or []
    if not slices:
        return Result(FAIL, "no ResourceSlices: no DRA driver has published any device, so no claim can "
                            "be allocated and counter quota has nothing to count", DRIVER_FIX)
    per_driver: dict[str, int] = {}
    for s in slices:
        driver = (s.get("spec") or {}).get("driver") or "?"
        per_driver[driver] = per_driver.get(driver, 0) + len((s.get("spec") or {}).get("devices") or [])
    missing = {d: m for d, m in _drivers_needed(f).items() if d not in per_driver}
    if missing:
        parts = [f"mapping {names(m)} counts devices of driver {d}, which has published no ResourceSlice"
                 for d, m in missing.items()]
        return Result(FAIL, "; ".join(parts), DRIVER_FIX)
    summary = ", ".join(f"{d} ({plural(n, 'device')})" for d, n in sorted(per_driver.items()))
    return Result(PASS, f"{plural(len(slices), 'ResourceSlice')}: {summary}")


@check("pools", "devices")
def pools(f: Facts) -> Result:
    skip = needs(f, "ResourceSlice")
    if skip:
        return skip
    if not f.slices:
        return Result(SKIP, "no ResourceSlices")
    grouped = f.pools
    incomplete = [p for p in grouped if not p.complete]
    stale = [p for p in grouped if p.stale_slices]
    if not incomplete and not stale:
        return Result(PASS, f"{plural(len(grouped), 'pool')}, all complete and at one generation")
    parts = []
    if incomplete:
        parts.append("incomplete: " + names([f"{p.driver}/{p.name} ({len(p.slices)} of {p.expected_slices} "
                                             "slices)" for p in incomplete]))
    if stale:
        parts.append("slices of an older generation: " + names([f"{p.driver}/{p.name} ({p.stale_slices})"
                                                                 for p in stale]))
    driver = (incomplete or stale)[0].driver
    return Result(WARN, "; ".join(parts) + ": the scheduler and Kueue use only complete pools at their "
                                           "newest generation (a driver mid-update, or one that stopped publishing)",
                  f"kubectl get resourceslices --field-selector spec.driver={driver} -o yaml  # "
                  "compare spec.pool.generation and resourceSliceCount; restart the driver's plugin")


def _has_mappings(f: Facts) -> bool:
    return bool(f.mappings)


@check("mapped-device-classes", "devices", paths=(CLAIMS, PARTITIONABLE), applies=_has_mappings)
def mapped_device_classes(f: Facts) -> Result:
    skip = needs(f, "DeviceClass")
    if skip:
        return skip
    existing = {dc["metadata"]["name"] for dc in f.device_classes or []}
    missing = [(m.name, dc) for m in f.mappings or [] for dc in m.device_class_names if dc not in existing]
    listed = {dc for m in f.mappings or [] for dc in m.device_class_names}
    if missing:
        text = "; ".join(f"mapping {m} lists DeviceClass {dc}, which does not exist" for m, dc in missing)
        unmapped = sorted(existing - listed)
        mapping = next(m for m in f.mappings or [] if m.name == missing[0][0])
        kept = [c for c in mapping.device_class_names if c in existing]
        if kept:
            fix = fixes.map_remove_class(f, mapping.name, missing[0][1])
        else:
            fix = fixes.map_set(f, mapping, classes=[unmapped[0] if len(unmapped) == 1 else "<device-class>"])
            if len(unmapped) != 1:
                fix += ("  # <device-class>: the DeviceClass it was meant to be, one of " + names(unmapped, limit=8)
                        if unmapped else "  # <device-class>: every DeviceClass is mapped already; create the one "
                                         "it was meant to be")
        return Result(FAIL, f"{text}: claims of it cannot be allocated, and the class it was meant to be is "
                            f"not charged (unmapped DeviceClasses: {names(unmapped) or 'none'})", fix)
    return Result(PASS, f"the {plural(len(listed), 'DeviceClass', 'DeviceClasses')} named in deviceClassMappings "
                        f"exist: {names(sorted(listed))}")


@check("counters-published", "devices", paths=(PARTITIONABLE,), applies=lambda f: f.counter_sources())
def counters_published(f: Facts) -> Result:
    skip = needs(f, "ResourceSlice")
    if skip:
        return skip
    problems: list[tuple[str, str | None]] = []
    good = []
    for m in f.mappings or []:
        for s in m.counter_sources:
            published = f.published(s.driver).counters
            if not published:
                if any((x.get("spec") or {}).get("driver") == s.driver for x in f.slices or []):
                    problems.append((f"mapping {m.name} counts counter {s.name} of {s.driver}, but no device of "
                                     f"{s.driver} consumes any counter (ResourceSlice consumesCounters): Kueue has "
                                     "nothing to charge", guidance.no_counters(f, m, s.driver)))
                else:
                    problems.append((f"mapping {m.name} counts counter {s.name} of {s.driver}, which has published "
                                     "no ResourceSlice", DRIVER_FIX))
                continue
            if s.name not in published:
                close = difflib.get_close_matches(s.name, sorted(published), n=1, cutoff=0.5)
                shown = names(close + sorted(set(published) - set(close)), limit=8) or "none"
                problems.append((f"mapping {m.name} counts counter {s.name} of {s.driver}, but no device of "
                                 f"{s.driver} consumes a counter of that name (it publishes: {shown}); Kueue "
                                 f"reports: matched devices have no consumesCounters entry for counter "
                                 f"\"{s.name}\"", fixes.map_set(f, m, counter=(close or sorted(published))[0])))
                continue
            if s.selector:
                try:
                    compile_selector(s.selector)
                except CelError as e:
                    problems.append((f"the deviceSelector of mapping {m.name} does not compile ({e}): Kueue "
                                     "refuses to start",
                                     fixes.map_set(f, m, selector=f"device.driver == '{s.driver}'")))
                    continue
            supply = f.counter_supply(s)
            if supply.errors:
                problems.append((f"the deviceSelector of mapping {m.name} fails on devices: "
                                 f"{next(iter(supply.errors))}",
                                 fixes.map_set(f, m, selector=f"device.driver == '{s.driver}'")))
            elif not supply.devices:
                problems.append((f"no device of a complete {s.driver} pool matched by the deviceSelector of "
                                 f"mapping {m.name} consumes counter {s.name}",
                                 fixes.map_set(f, m, selector=f"device.driver == '{s.driver}'")))
            else:
                good.append(f"{m.name}: counter {s.name} consumed by {plural(supply.devices, 'device')} of {s.driver}")
    if problems:
        return Result(FAIL, "; ".join(p for p, _ in problems), problems[0][1])
    return Result(PASS, "; ".join(good))


def _classes_in_scope(f: Facts) -> list[tuple[dict[str, Any], str]]:
    """(DeviceClass, why it matters) for the selected paths."""
    by_name = {dc["metadata"]["name"]: dc for dc in f.device_classes or []}
    out: dict[str, tuple[dict[str, Any], str]] = {}
    for m in f.mappings or []:
        wanted = (PARTITIONABLE in f.paths) if m.counter_sources else (CLAIMS in f.paths)
        for name in m.device_class_names:
            if wanted and name in by_name:
                out.setdefault(name, (by_name[name], f"mapping {m.name}"))
    if EXTENDED in f.paths:
        for ern, name in extended_resource_winners(f.device_classes or []).items():
            out.setdefault(name, (by_name[name], f"extendedResourceName {ern}"))
    return [out[k] for k in sorted(out)]


@check("device-classes-match", "devices", paths=(CLAIMS, EXTENDED, PARTITIONABLE))
def device_classes_match(f: Facts) -> Result:
    skip = needs(f, "DeviceClass", "ResourceSlice")
    if skip:
        return skip
    scope = _classes_in_scope(f)
    if not scope:
        return Result(SKIP, "no DeviceClass is charged on the selected paths")
    fails, warns, good = [], [], []
    for dc, why in scope:
        name = dc["metadata"]["name"]
        selectors = class_selectors(dc)
        try:
            for expr in selectors:
                compile_selector(expr)
        except CelError as e:
            fails.append((f"the selector of DeviceClass {name} ({why}) does not compile: {e}",
                          f"kubectl edit deviceclass {name}  # spec.selectors"))
            continue
        count, errors = count_devices(f.pools, [selectors], f.evaluator, f.shape_index)
        if errors:
            fails.append((f"the selector of DeviceClass {name} fails on {sum(errors.values())} device(s): "
                          f"{next(iter(errors))}; the scheduler cannot allocate claims of it while such "
                          "devices exist", f"kubectl edit deviceclass {name}  # guard the attribute with has()"))
        elif not count:
            warns.append(f"no device in a complete pool matches DeviceClass {name} ({why})")
        else:
            good.append(f"{name}: {plural(count, 'device')}")
    if fails:
        return Result(FAIL, "; ".join(m for m, _ in fails + [(w, None) for w in warns]), fails[0][1])
    if warns:
        return Result(WARN, "; ".join(warns) + (f" ({'; '.join(good)})" if good else ""), DRIVER_FIX)
    return Result(PASS, "matching devices: " + "; ".join(good))


@check("extended-resource-classes", "devices", paths=(EXTENDED,))
def extended_resource_classes(f: Facts) -> Result:
    skip = needs(f, "DeviceClass")
    if skip:
        return skip
    classes = f.extended_classes()
    if not classes:
        example = sorted(dc["metadata"]["name"] for dc in f.device_classes or [])
        lost = sorted(d.name for d in f.dropped if d.written.field == "spec.extendedResourceName")
        if lost:  # written, and dropped: the dropped-fields check says why and how
            return Result(FAIL, f"no DeviceClass has spec.extendedResourceName: {', '.join(lost)} "
                                f"{'was' if len(lost) == 1 else 'were'} written with one, which the API server "
                                "dropped; pods requesting an extended resource are not backed by DRA devices",
                          f"see dropped-fields: turn {g.DRA_EXTENDED} on, then write {', '.join(lost)} again")
        return Result(FAIL, "no DeviceClass has spec.extendedResourceName: pods requesting an extended "
                            "resource (e.g. nvidia.com/gpu) are not backed by DRA devices",
                      fixes.set_extended_resource(example[0], others=example[1:]) if example else
                      "install the DRA driver of the devices: it creates their DeviceClasses (none exists)")
    winners = extended_resource_winners(f.device_classes or [])
    fails, warns = [], []
    for dc in classes:
        name = dc["metadata"]["name"]
        ern = dc["spec"]["extendedResourceName"]
        if winners.get(ern) != name:
            warns.append((f"extendedResourceName {ern} is also on {name}; Kueue and the scheduler use "
                          f"{winners[ern]} (newest, then first by name), so {name} is never used for it",
                          fixes.clear_extended_resource(name)))
            continue
        mapping = lookup(f.mappings, name) if f.mappings else None
        if mapping is not None and mapping.counter_sources:
            fails.append((f"pods requesting {ern} resolve to {name}, whose mapping {mapping.name} has counter "
                          "sources: Kueue rejects them (\"use ResourceClaimTemplates with CEL selectors for "
                          "counter-based quota\")",
                          fixes.clear_extended_resource(name)))
    used = ", ".join(f"{ern} → {name}" for ern, name in sorted(winners.items()))
    if fails:
        return Result(FAIL, "; ".join(m for m, _ in fails + warns), fails[0][1])
    if warns:
        return Result(WARN, "; ".join(m for m, _ in warns) + f" (in use: {used})", warns[0][1])
    return Result(PASS, f"extended resources backed by DeviceClasses: {used}")
