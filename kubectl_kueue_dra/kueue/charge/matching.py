"""What the counter and capacity paths share: the class and request selectors of a request, and
the devices of a mapping source's driver (complete pools, latest generation) that match the
source selector, the class and the request, with Kueue's first CEL error."""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import compress, repeat
from typing import Any, cast

from ...dra.cel import CelCompileError, CelEvalError, SelectorEvaluator
from ...dra.devices import Pool, ShapeIndex
from ..config.mappings import Source
from ..fielderrors import INTERNAL, FieldError, FieldPath
from .common import Request, cel_selectors, compile_errors, not_found
from .inputs import ChargeInputs
from .results import Stop, Unknowable

#: per device shape: matched, not matched, or (which selector list, the CEL error)
_Outcome = bool | tuple[str, CelEvalError]


@dataclass
class Matched:
    """The matching devices (shared by every workload of a run that asks the same: read, never changed)."""

    devices: list[tuple[Pool, dict[str, Any]]]
    pools: int
    #: what the callers derive from the devices, kept with them (the counter maximum per counter)
    derived: dict[Any, Any] = field(default_factory=dict)


@dataclass
class _Failed:
    """The first device a selector list fails on with a CEL error (Kueue stops there)."""

    what: str
    device: Any
    detail: str


def class_and_request_selectors(inputs: ChargeInputs, r: Request, step: str) -> tuple[list[str], list[str]]:
    dc = r.device_class
    klass = inputs.classes_by_name.get(dc) if dc else {}  # no class name: Kueue skips the lookup
    rpath = r.claim_path.child("devices", "requests").index(r.k)
    if klass is None:
        inputs.require("DeviceClass", step)
        raise Stop(step, [FieldError(INTERNAL, str(rpath),
                                     f'failed to get DeviceClass {dc}: {not_found("DeviceClass", dc)}')])
    class_selectors = cel_selectors((klass.get("spec") or {}).get("selectors"))
    errs = compile_errors(class_selectors, rpath, f"DeviceClass {dc} has invalid CEL selector")
    if errs:
        raise Stop(step, errs[:1])
    request_selectors = cel_selectors(r.exactly.get("selectors"))
    errs = compile_errors(request_selectors, rpath.child("exactly", "selectors"), "CEL compilation failed")
    if errs:
        raise Stop(step, errs)
    return class_selectors, request_selectors


def match_devices(inputs: ChargeInputs, source: Source, class_selectors: list[str], request_selectors: list[str],
                  rpath: str, step: str) -> Matched:
    selector = [source.selector] if source.selector else []
    errs = compile_errors(selector, FieldPath(rpath), "deviceSelector CEL compilation failed")
    if errs:
        raise Stop(step, errs)
    steps = (("deviceSelector", selector), ("DeviceClass selector", class_selectors),
             ("request selector", request_selectors))
    key = ("match", source.driver, *(tuple(sels) for _, sels in steps))
    found = inputs.derived(key, lambda: _match(inputs, source.driver, steps))
    if isinstance(found, Unknowable):
        raise Unknowable(found.step, found.reason)
    if isinstance(found, _Failed):
        raise Stop(step, [FieldError(INTERNAL, rpath, f"CEL evaluation error in {found.what} for device "
                                                      f"{found.device}: {found.detail}")])
    return found  # type: ignore[no-any-return]


def _match(inputs: ChargeInputs, driver: str,
           steps: tuple[tuple[str, list[str]], ...]) -> Matched | _Failed | Unknowable:
    # Devices alike in what the three lists read share one outcome (evaluated on the first of
    # them); walking the devices in order keeps the first error and the order of the matches.
    index = _shape_index(inputs, driver, [sels for _, sels in steps])
    try:
        outcomes = [_outcome(inputs.evaluator, steps, d, device) for d, device in index.representatives]
    except Unknowable as e:
        return e
    hit = [outcome is True for outcome in outcomes]
    failed = [outcome is not True and outcome is not False for outcome in outcomes]
    matched: list[tuple[Pool, dict[str, Any]]] = []
    pools = 0
    for pool, devices, ids, counts in index.pools:
        if any(failed[gid] for gid in counts):  # Kueue stops at the first device that fails
            device, gid = next((d, g) for d, g in zip(devices, ids) if failed[g])
            what, err = cast(tuple[str, CelEvalError], outcomes[gid])
            return _Failed(what, device.get("name"), err.detail)
        hits = [hit[gid] for gid in counts]
        if any(hits):  # the pool's matching devices, picked at C speed by their groups' answers
            pools += 1
            matched.extend(zip(repeat(pool), devices if all(hits) else compress(devices, map(hit.__getitem__, ids))))
    return Matched(matched, pools)


def _shape_index(inputs: ChargeInputs, driver: str, lists: list[list[str]]) -> ShapeIndex:
    # One grouping of a driver's devices per footprint for the whole run: requests that read the
    # same parts of a device (one per MIG profile, say) group the devices alike, and a grouping on
    # more parts than a request reads serves it too (its groups are only finer).
    fp = inputs.evaluator.union_footprint(lists)
    built: dict[Any, ShapeIndex] = inputs.derived(("shape-indexes", driver), dict)
    for have, index in built.items():
        if have == fp or (fp is not None and have is not None and fp <= have):
            return index
    built[fp] = index = ShapeIndex([p for p in inputs.pools(driver) if p.complete], lists, inputs.evaluator)
    return index


def _outcome(ev: SelectorEvaluator, steps: tuple[tuple[str, list[str]], ...], driver: str,
             device: dict[str, Any]) -> _Outcome:
    for what, sels in steps:
        try:
            if not ev.matches(sels, driver, device):
                return False
        except CelCompileError as e:  # a part this tool cannot evaluate, met on a device
            raise Unknowable("counters", str(e)) from None
        except CelEvalError as e:
            return (what, e)
    return True


def require_count(matched: Matched, r: Request, what: str, step: str) -> None:
    if len(matched.devices) < r.count:
        raise Stop(step, [FieldError(INTERNAL, r.path,
                                     f"insufficient matching devices for {what} driver: "
                                     f"{len(matched.devices)} device(s) match but {r.count} requested")])
