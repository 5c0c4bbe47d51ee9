"""Path A: ResourceClaimTemplates. Each request's checks (firstAvailable, adminAccess, allocation
mode, CEL compilation), the device count per DeviceClass under its mapping, and Kueue's CEL
availability check (enough devices in the cluster match each request with selectors)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ...dra.cel import CelCompileError, CelEvalError, SelectorEvaluator
from ..fielderrors import INTERNAL, INVALID, NOT_FOUND, FieldError, FieldPath, aggregate
from ..units import sat_add
from ..workloads.podsets import PodSet
from .common import (
    CelRequest,
    Tally,
    cel_requests,
    cel_selectors,
    claim_path,
    claims,
    compile_errors,
    not_found,
    request_defaults,
    template_spec,
)
from .inputs import ChargeInputs
from .results import ClaimTemplateLine, Stop, Unknowable

STEP = "claim-templates"


def run(inputs: ChargeInputs, podsets: list[PodSet], tallies: list[Tally]) -> None:
    if inputs.slice_source is not None and _needs_every_slice(inputs, podsets):
        inputs.all_slices()
    for i, ps in enumerate(podsets):
        for j, claim in enumerate(claims(ps.spec)):
            tname = claim.get("resourceClaimTemplateName")
            if not tname:
                continue
            spec = template_spec(inputs, STEP, i, ps, j, claim,
                                 "failed to get claim spec for ResourceClaimTemplate {name} in podset {ps}: {err}")
            counts = _count_devices_per_class(inputs, spec, claim_path(i, j), tname)
            _validate_cel_against_devices(inputs, spec, claim_path(i, j), tname)
            for dc, devices in counts.items():
                _charge_class(inputs, tallies[i], ps, claim_path(i, j), claim, tname, dc, devices)


def _charge_class(inputs: ChargeInputs, tally: Tally, ps: PodSet, path: FieldPath, claim: dict[str, Any],
                  tname: str, dc: str, devices: int) -> None:
    inputs.require("KueueConfig", STEP)
    mapping = inputs.mapping_for(dc)
    if mapping is None:
        raise Stop(STEP, [FieldError(NOT_FOUND, str(path.child("resourceClaimTemplateName")), "",
                                     f"DeviceClass {dc} is not mapped in DRA configuration for podset {ps.name}")])

    def line(resource: str | None, per_pod: int, detail: str) -> ClaimTemplateLine:
        return ClaimTemplateLine(claim=claim.get("name"), template=tname, device_class=dc, mapping=mapping.name,
                                 devices=devices, resource=resource, per_pod=per_pod, detail=detail)

    if inputs.gates.partitionable and inputs.counter_configs(dc):
        tally.charge.lines.append(line(None, 0, "counter-sourced class: charged by the counter path"))
    elif inputs.gates.consumable_capacity and inputs.capacity_configs(dc):
        tally.charge.lines.append(line(None, 0, "capacity-sourced class: charged by the capacity path"))
    else:
        tally.add(mapping.name, devices)
        tally.charge.lines.append(line(mapping.name, devices, f"{devices} device(s) of {dc} → {mapping.name}"))


def _count_devices_per_class(inputs: ChargeInputs, spec: dict[str, Any], base: FieldPath,
                             tname: str) -> dict[str, int]:
    """Devices per DeviceClass, in first-seen order, after each request's checks."""
    counts: dict[str, int] = {}
    devices = spec.get("devices") or {}
    if inputs.semantics.rejects_constraints_and_config:
        for key, what in (("constraints", "device constraints (MatchAttribute) are"), ("config", "device config is")):
            if devices.get(key):
                raise Stop(STEP, [FieldError(INVALID, f"{base}.devices.{key}",
                                             f"ResourceClaimTemplate {tname}: {what} not supported")])
    for k, req in enumerate(devices.get("requests") or []):
        exactly = _checked_request(req, k, f"{base}.devices.requests[{k}]", tname)
        dc = exactly.get("deviceClassName") or ""
        if dc:
            counts[dc] = sat_add(counts.get(dc, 0), request_defaults(exactly)[1])
    return counts


def _checked_request(req: dict[str, Any], k: int, rpath: str, tname: str) -> dict[str, Any]:
    """The request's ``exactly``, or Kueue's rejection of the request."""

    def fail(suffix: str, bad: Any, detail: str) -> Stop:
        return Stop(STEP, [FieldError(INVALID, rpath + suffix, f"ResourceClaimTemplate {tname}: {detail}", bad)])

    if req.get("firstAvailable") is not None:
        raise fail("", None, "FirstAvailable device selection is not supported")
    exactly: dict[str, Any] | None = req.get("exactly")
    if exactly is None:
        raise fail("", None, "Exactly must be set if FirstAvailable is nil")
    # Kueue validates on the claim spec (paths relative to it), then prefixes the path of the
    # claim in the pod set: the inner errors keep their relative paths in the detail.
    errs = compile_errors(cel_selectors(exactly.get("selectors")),
                          FieldPath(f"devices.requests[{k}].exactly.selectors"), "CEL compilation failed")
    if errs:
        raise Stop(STEP, [FieldError(INVALID, f"{rpath}.exactly.selectors",
                                     f"ResourceClaimTemplate {tname}: {aggregate(errs)}", None)])
    mode, _ = request_defaults(exactly)
    if exactly.get("adminAccess") is True:
        raise fail(".exactly.adminAccess", None, "AdminAccess is not supported")
    if mode == "All":
        raise fail(".exactly.allocationMode", "All", "AllocationMode 'All' is not supported")
    if mode != "ExactCount":
        raise fail(".exactly.allocationMode", mode, f"unsupported allocation mode: {mode}")
    return exactly


def _needs_every_slice(inputs: ChargeInputs, podsets: list[PodSet]) -> bool:
    """Whether the CEL availability check will look at every ResourceSlice (a CEL request on a
    class without counter or capacity sources), so that they are read once, before any
    per-driver list."""
    for ps in podsets:
        for claim in claims(ps.spec):
            template = inputs.claim_templates.get(claim.get("resourceClaimTemplateName") or "")
            if template is None:
                continue
            spec = ((template.get("spec") or {}).get("spec")) or {}
            if any(not inputs.charged_by_device_path(r.device_class) for r in cel_requests(spec)):
                return True
    return False


def _cel_check_devices(inputs: ChargeInputs, requests: list[CelRequest]) -> _SliceDevices:
    """(driver, device) the availability check walks: every slice, unless every CEL request is of
    a counter- or capacity-sourced class (then only those drivers' slices)."""
    drivers: list[str] | None = None
    if all(inputs.charged_by_device_path(r.device_class) for r in requests):
        drivers = []
        for r in requests:
            for d in [s.driver for _, s in inputs.counter_configs(r.device_class)] + \
                     [s.driver for s in inputs.capacity_configs(r.device_class)]:
                if d not in drivers:
                    drivers.append(d)
    return inputs.derived(("cel-check-devices", None if drivers is None else tuple(drivers)),  # type: ignore[no-any-return]
                          lambda: _SliceDevices(inputs.all_slices() if drivers is None else
                                                [s for d in drivers for s in inputs.driver_slices(d)]))


class _SliceDevices:
    """(driver, device) of every device of the slices, in order, walked afresh each time: a walk
    mostly stops after the few devices a request asks for, so no list of them all is built."""

    def __init__(self, slices: list[dict[str, Any]]):
        self.slices = slices

    def __iter__(self) -> Iterator[tuple[str, dict[str, Any]]]:
        for s in self.slices:
            spec = s.get("spec") or {}
            driver = spec.get("driver") or ""
            for device in spec.get("devices") or []:
                yield driver, device


def _validate_cel_against_devices(inputs: ChargeInputs, spec: dict[str, Any], base: FieldPath, tname: str) -> None:
    """Kueue's availability check: enough devices in the cluster match each CEL request; a
    device counted for one request is not counted again for the next."""
    requests = cel_requests(spec)
    if not requests:
        return
    devices = _cel_check_devices(inputs, requests)
    matched: set[int] = set()
    errors: list[FieldError] = []
    for r in requests:
        error = _check_one(inputs, r, base.child("devices", "requests").index(r.index), devices, matched)
        if error is not None:
            errors.append(error)
    if errors:
        raise Stop(STEP, [FieldError(e.type, e.field, f"ResourceClaimTemplate {tname}: {e.detail}", e.bad_value)
                          for e in errors])


def _check_one(inputs: ChargeInputs, r: CelRequest, rpath: FieldPath, devices: _SliceDevices,
               matched: set[int]) -> FieldError | None:
    # no class name: Kueue skips the lookup
    klass = inputs.classes_by_name.get(r.device_class) if r.device_class else {}
    if klass is None:
        inputs.require("DeviceClass", STEP)
        return FieldError(INTERNAL, str(rpath),
                          f'failed to get DeviceClass {r.device_class}: {not_found("DeviceClass", r.device_class)}')
    class_selectors = cel_selectors((klass.get("spec") or {}).get("selectors"))
    errs = compile_errors(class_selectors, rpath, f"DeviceClass {r.device_class} has invalid CEL selector")
    if errs:
        return errs[0]
    sel_path = str(rpath.child("exactly", "selectors"))
    try:
        n = _count_matches(inputs.evaluator, class_selectors, r, devices, matched)
    except CelCompileError as e:  # a part this tool cannot evaluate, met on a device
        raise Unknowable(STEP, str(e)) from None
    except CelEvalError as e:
        return FieldError(INVALID, sel_path, f"CEL evaluation failed for DeviceClass {r.device_class}: {e.detail}",
                          None)
    if n < r.count:
        return FieldError(INTERNAL, sel_path,
                          f"insufficient matching devices for CEL selector in DeviceClass {r.device_class}: "
                          f"{n} device(s) match in the cluster but {r.count} requested")
    return None


def _count_matches(ev: SelectorEvaluator, class_selectors: list[str], r: CelRequest,
                   devices: _SliceDevices, matched: set[int]) -> int:
    n = 0
    for idx, (driver, device) in enumerate(devices):
        if idx in matched or not ev.matches(class_selectors, driver, device):
            continue
        if ev.matches(r.selectors, driver, device):
            matched.add(idx)
            n += 1
            if n >= r.count:
                break
    return n
