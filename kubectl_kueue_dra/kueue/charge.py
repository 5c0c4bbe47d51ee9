"""The charge engine: what Kueue charges a workload's pod sets, re-derived line by line.

Follows Kueue's workload reconciler (v0.19 semantics, with the v0.18 differences from
``Semantics``): the DRA gate check, the ResourceClaim rejection, the ResourceClaimTemplate path with
its CEL availability check, the extended-resource path, the counter path (partitionable devices)
and the capacity path, each stopping at its first error with Kueue's own message; then the
per-pod requests as Kueue counts them, with replaced extended resources removed, DRA charges
added, and everything multiplied by the pod-set count.

Pure: every object comes in through ``ChargeInputs``; nothing here does I/O.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable

from ..dra.cel import KUEUE_DRA_V036, CelDialect, CelError, CelEvalError, SelectorEvaluator, compile_selector
from ..dra.devices import Pool, ShapeIndex, group_pools
from ..dra.quantity import Quantity, QuantityError, parse_quantity
from .fielderrors import INTERNAL, INVALID, NOT_FOUND, FieldError, FieldPath, aggregate
from .mappings import Mapping, Source, lookup
from .podsets import PodSet, adjusted_template, is_extended_resource_name, pod_requests
from .semantics import DRAGates, Semantics

INT64_MAX = 2**63 - 1

MSG_DRA_DISABLED = "Workload uses DRA resources but the KueueDRAIntegration feature gate is not enabled"
MSG_CLAIMS = "KueueDRAIntegration feature does not support use of resource claims"
MSG_CLAIMS_REQUEUED = "DRA resource claims not supported"


@dataclass
class ChargeInputs:
    namespace: str
    semantics: Semantics
    gates: DRAGates
    mappings: list[Mapping]
    device_classes: list[dict[str, Any]]
    claim_templates: dict[str, dict[str, Any]]  # name -> ResourceClaimTemplate, in the namespace
    slices: list[dict[str, Any]]
    resource_slice_api: bool = True
    exclude_resource_prefixes: tuple[str, ...] = ()
    #: None: one in the Kueue version's CEL dialect (``Semantics.cel_dialect``)
    evaluator: SelectorEvaluator = None  # type: ignore[assignment]
    #: when set, ResourceSlices come from here instead of ``slices``, read only when a path needs
    #: them: ``slice_source(None)`` every slice, ``slice_source(driver)`` that driver's (a field
    #: selector on a live cluster). Every slice is asked for first when it is needed at all, so
    #: no slice is read twice.
    slice_source: Callable[[str | None], list[dict[str, Any]]] | None = None

    def __post_init__(self) -> None:
        if self.evaluator is None:
            self.evaluator = SelectorEvaluator(self.semantics.cel_dialect)
        self.classes_by_name = {dc["metadata"]["name"]: dc for dc in self.device_classes}
        self._pools_by_driver: dict[str, list[Pool]] = {}

    def all_slices(self) -> list[dict[str, Any]]:
        return self.slices if self.slice_source is None else self.slice_source(None)

    def driver_slices(self, driver: str) -> list[dict[str, Any]]:
        if self.slice_source is not None:
            return self.slice_source(driver)
        return [s for s in self.slices if (s.get("spec") or {}).get("driver") == driver]

    def pools(self, driver: str) -> list[Pool]:
        if driver not in self._pools_by_driver:
            self._pools_by_driver[driver] = group_pools(self.driver_slices(driver))
        return self._pools_by_driver[driver]

    def mapping_for(self, device_class: str) -> Mapping | None:
        return lookup(self.mappings, device_class, last_wins=self.semantics.last_mapping_wins)

    def counter_configs(self, device_class: str) -> list[tuple[str, Source]]:
        """(quota resource, counter source) pairs Kueue charges for a class."""
        if self.semantics.multi_counter:
            return [(m.name, s) for m in self.mappings if device_class in m.device_class_names
                    for s in m.sources if s.type == "counter"]
        m = lookup(self.mappings, device_class, last_wins=True)
        if m and m.sources and m.sources[0].type == "counter":
            return [(m.name, m.sources[0])]
        return []

    def capacity_configs(self, device_class: str) -> list[Source]:
        if not self.semantics.capacity_sources:
            return []
        return [s for m in self.mappings if device_class in m.device_class_names
                for s in m.sources if s.type == "capacity"]

    def binary_resources(self) -> set[str]:
        """Quota names Kueue renders in BinarySI: those with counter (or capacity) sources."""
        names = {m.name for m in self.mappings if m.counter_sources}
        if self.semantics.capacity_sources:
            for m in self.mappings:
                for dc in m.device_class_names:
                    if self.capacity_configs(dc):
                        found = self.mapping_for(dc)
                        if found:
                            names.add(found.name)
        return names


@dataclass
class PodSetCharge:
    name: str
    count: int
    per_pod: dict[str, int] = field(default_factory=dict)  # Kueue's int64 units (cpu: milli)
    lines: list[dict[str, Any]] = field(default_factory=list)
    replaced: list[str] = field(default_factory=list)

    @property
    def total(self) -> dict[str, int]:
        return {name: _sat_mul(max(0, v), self.count) for name, v in self.per_pod.items()}


@dataclass
class ChargeResult:
    podsets: list[PodSetCharge]
    errors: list[FieldError] = field(default_factory=list)
    #: which step rejected the workload: dra-disabled, resource-claims, claim-templates,
    #: extended-resources, counters, capacity
    failed_step: str | None = None
    #: the QuotaReserved / Requeued condition messages Kueue writes on failure
    message: str | None = None
    requeued_message: str | None = None
    dra_processed: bool = False
    notes: list[dict[str, Any]] = field(default_factory=list)

    @property
    def rejected(self) -> bool:
        return self.message is not None

    @property
    def retried(self) -> bool:
        """Kueue retries the workload with backoff (Internal errors)."""
        return any(e.internal for e in self.errors)


class _Stop(Exception):
    """A step failed; carries Kueue's errors."""

    def __init__(self, step: str, errors: list[FieldError]):
        super().__init__(step)
        self.step, self.errors = step, errors


# ---------------------------------------------------------------------------------------------
# small helpers


def _sat_add(a: int, b: int) -> int:
    return min(INT64_MAX, a + b)


def _sat_mul(a: int, b: int) -> int:
    return min(INT64_MAX, a * b) if a >= 0 else max(-INT64_MAX - 1, a * b)


def kueue_int(name: str, q: Quantity) -> int:
    """``resources.ResourceValue``: cpu in milli-units, everything else in units, rounded up."""
    value = q.value * 1000 if name == "cpu" else q.value
    return min(INT64_MAX, math.ceil(value))


def _claims(template_spec: dict[str, Any]) -> list[dict[str, Any]]:
    return template_spec.get("resourceClaims") or []


def has_dra(podsets: list[PodSet]) -> bool:
    """``workload.HasDRA``: some pod set names a claim template or a claim."""
    return any(c.get("resourceClaimTemplateName") or c.get("resourceClaimName")
               for ps in podsets for c in _claims(ps.spec))


def _extended_resource_names(device_classes: list[dict[str, Any]]) -> set[str]:
    return {(dc.get("spec") or {}).get("extendedResourceName") for dc in device_classes} - {None, ""}


def needs_dra_reconcile(podsets: list[PodSet], inputs: ChargeInputs) -> bool:
    """``NeedsDRAReconcile``, on the Workload *as stored* (before limits become requests)."""
    if has_dra(podsets):
        return True
    if not inputs.gates.extended_resource:
        return False
    backed = _extended_resource_names(inputs.device_classes)
    for ps in podsets:
        for key in ("initContainers", "containers"):
            for c in ps.spec.get(key) or []:
                for name, value in (((c.get("resources") or {}).get("requests")) or {}).items():
                    if name in backed and is_extended_resource_name(name) and _nonzero(value):
                        return True
    return False


def _nonzero(value: Any) -> bool:
    try:
        return parse_quantity(value).value != 0
    except QuantityError:
        return False


def _not_found(kind: str, name: str) -> str:
    """The NotFound text of Kueue's informer-cache client: controller-runtime's cache reader puts
    the Kind where the API server puts the plural resource (``ResourceClaimTemplate.resource.k8s.io``,
    not ``resourceclaimtemplates.resource.k8s.io``)."""
    return f'{kind}.resource.k8s.io "{name}" not found'


def _claim_path(i: int, j: int) -> FieldPath:
    return FieldPath("spec", "podSets").index(i).child("template", "spec", "resourceClaims").index(j)


def _request_defaults(exactly: dict[str, Any]) -> tuple[str, int]:
    """API-server defaulting a raw manifest may lack: ExactCount, count 1."""
    mode = exactly.get("allocationMode")
    if mode is None:
        mode = "ExactCount"
    count = exactly.get("count")
    if count in (None, 0) and mode == "ExactCount":
        count = 1
    return mode, int(count or 0)


def _cel_selectors(selectors: list[Any] | None) -> list[str]:
    return [s["cel"]["expression"] for s in selectors or []
            if isinstance(s, dict) and isinstance(s.get("cel"), dict) and "expression" in s["cel"]]


def _cel_requests(spec: dict[str, Any]) -> list[tuple[int, int, str, list[str]]]:
    """(index, count, device class, CEL selectors) of a claim spec's requests that have selectors."""
    out = []
    for k, req in enumerate(((spec.get("devices") or {}).get("requests")) or []):
        exactly = req.get("exactly") or {}
        selectors = _cel_selectors(exactly.get("selectors"))
        if selectors:
            out.append((k, _request_defaults(exactly)[1], exactly.get("deviceClassName") or "", selectors))
    return out


def _compile_errors(expressions: list[str], path: FieldPath, context: str,
                    dialect: CelDialect = KUEUE_DRA_V036) -> list[FieldError]:
    errors = []
    for i, expr in enumerate(expressions):
        try:
            compile_selector(expr, dialect)
        except CelError as e:
            errors.append(FieldError(INVALID, str(path.index(i).child("cel", "expression")),
                                     f"{context}: {e}", expr))
    return errors


# ---------------------------------------------------------------------------------------------
# the engine


class ChargeEngine:
    def __init__(self, inputs: ChargeInputs):
        self.inputs = inputs
        self.ev = inputs.evaluator

    # -- entry point ----------------------------------------------------------------------------
    def compute(self, podsets: list[PodSet]) -> ChargeResult:
        inp = self.inputs
        charges = [PodSetCharge(ps.name, ps.count) for ps in podsets]
        result = ChargeResult(charges)
        dra_resources: list[dict[str, int]] = [{} for _ in podsets]
        replaced: list[set[str]] = [set() for _ in podsets]

        if not inp.gates.dra:
            if inp.gates.reject_when_disabled and has_dra(podsets):
                result.failed_step = "dra-disabled"
                result.message = result.requeued_message = MSG_DRA_DISABLED
                return result
            if has_dra(podsets):
                result.notes.append({"code": "DRAIgnored", "message":
                                     "KueueDRAIntegration and KueueDRARejectWorkloadsWhenDRADisabled are off: "
                                     "Kueue ignores the resource claims, the devices are not charged"})
        elif needs_dra_reconcile(podsets, inp):
            adjusted = [PodSet(ps.name, ps.count, {"spec": adjusted_template(ps)}) for ps in podsets]
            if any(c.get("resourceClaimName") for ps in adjusted for c in _claims(ps.spec)):
                result.failed_step = "resource-claims"
                result.message, result.requeued_message = MSG_CLAIMS, MSG_CLAIMS_REQUEUED
                return result
            try:
                self._template_path(adjusted, charges, dra_resources)
                if inp.gates.extended_resource:
                    self._extended_resource_path(adjusted, charges, dra_resources, replaced)
                if inp.gates.partitionable and inp.resource_slice_api:
                    self._counter_path(adjusted, charges, dra_resources)
                if inp.gates.consumable_capacity and inp.resource_slice_api and inp.semantics.capacity_sources:
                    self._capacity_path(adjusted, charges, dra_resources)
            except _Stop as stop:
                result.failed_step = stop.step
                result.errors = stop.errors
                result.message = result.requeued_message = aggregate(stop.errors)
                return result
            result.dra_processed = True
            podsets = adjusted
        else:
            for ps in podsets:
                self._limits_only_note(ps, result)

        for ps, charge, dra, repl in zip(podsets, charges, dra_resources, replaced):
            spec = ps.spec if result.dra_processed else adjusted_template(ps)
            self._standard_requests(spec, charge, repl, dra)
        return result

    # -- standard requests + merge ----------------------------------------------------------------
    def _standard_requests(self, spec: dict[str, Any], charge: PodSetCharge, replaced: set[str],
                           dra: dict[str, int]) -> None:
        requests = pod_requests(spec)
        per_pod: dict[str, int] = {}
        for name, q in requests.items():
            if any(name.startswith(p) for p in self.inputs.exclude_resource_prefixes):
                continue
            if name in replaced:
                continue
            per_pod[name] = kueue_int(name, q)
            charge.lines.insert(0, {"kind": "podRequests", "resource": name, "perPod": per_pod[name],
                                    "detail": "containers and init containers, as the scheduler sums them"})
        for name, value in dra.items():
            per_pod[name] = _sat_add(per_pod.get(name, 0), value)
        charge.per_pod = {n: max(0, v) for n, v in sorted(per_pod.items())}
        charge.replaced = sorted(replaced)

    def _limits_only_note(self, ps: PodSet, result: ChargeResult) -> None:
        if not self.inputs.gates.extended_resource:
            return
        backed = _extended_resource_names(self.inputs.device_classes)
        for c in (ps.spec.get("containers") or []) + (ps.spec.get("initContainers") or []):
            res = c.get("resources") or {}
            for name in (res.get("limits") or {}):
                if name in backed and name not in (res.get("requests") or {}):
                    result.notes.append({"code": "LimitsOnlyExtendedResource", "message":
                                         f"container {c.get('name')} sets {name} only in limits: Kueue decides "
                                         "whether a workload uses DRA before it copies limits into requests, so "
                                         f"{name} is charged under its own name, not through its DeviceClass "
                                         "(kubernetes-sigs/kueue#14393)",
                                         "fix": f"set resources.requests.{name} as well as the limit"})

    # -- path A: ResourceClaimTemplates --------------------------------------------------------
    def _template(self, ps_index: int, ps: PodSet, j: int, claim: dict[str, Any],
                  message_fmt: str) -> dict[str, Any]:
        name = claim["resourceClaimTemplateName"]
        template = self.inputs.claim_templates.get(name)
        if template is None:
            reason = _not_found("ResourceClaimTemplate", name)
            raise _Stop("claim-templates", [FieldError(
                INTERNAL, str(_claim_path(ps_index, j)), message_fmt.format(name=name, ps=ps.name, err=reason))])
        return ((template.get("spec") or {}).get("spec")) or {}

    def _template_path(self, podsets: list[PodSet], charges: list[PodSetCharge],
                       dra: list[dict[str, int]]) -> None:
        inp = self.inputs
        if inp.slice_source is not None and self._needs_every_slice(podsets):
            inp.all_slices()
        for i, ps in enumerate(podsets):
            for j, claim in enumerate(_claims(ps.spec)):
                tname = claim.get("resourceClaimTemplateName")
                if not tname:
                    continue
                spec = self._template(i, ps, j, claim,
                                      "failed to get claim spec for ResourceClaimTemplate {name} in podset {ps}: {err}")
                counts, order = self._count_devices_per_class(spec, i, j, tname)
                self._validate_cel_against_devices(spec, _claim_path(i, j), tname)
                for dc in order:
                    mapping = inp.mapping_for(dc)
                    if mapping is None:
                        raise _Stop("claim-templates", [FieldError(
                            NOT_FOUND, str(_claim_path(i, j).child("resourceClaimTemplateName")), "",
                            f"DeviceClass {dc} is not mapped in DRA configuration for podset {ps.name}")])
                    line = {"kind": "claimTemplate", "claim": claim.get("name"), "template": tname,
                            "deviceClass": dc, "mapping": mapping.name, "devices": counts[dc]}
                    if inp.gates.partitionable and inp.counter_configs(dc):
                        charges[i].lines.append(dict(line, resource=None, perPod=0,
                                                     detail="counter-sourced class: charged by the counter path"))
                        continue
                    if inp.gates.consumable_capacity and inp.capacity_configs(dc):
                        charges[i].lines.append(dict(line, resource=None, perPod=0,
                                                     detail="capacity-sourced class: charged by the capacity path"))
                        continue
                    dra[i][mapping.name] = _sat_add(dra[i].get(mapping.name, 0), counts[dc])
                    charges[i].lines.append(dict(line, resource=mapping.name, perPod=counts[dc],
                                                 detail=f"{counts[dc]} device(s) of {dc} → {mapping.name}"))

    def _count_devices_per_class(self, spec: dict[str, Any], i: int, j: int,
                                 tname: str) -> tuple[dict[str, int], list[str]]:
        counts: dict[str, int] = {}
        order: list[str] = []
        base = _claim_path(i, j)
        devices = spec.get("devices") or {}
        if self.inputs.semantics.rejects_constraints_and_config:
            if devices.get("constraints"):
                raise _Stop("claim-templates", [FieldError(INVALID, f"{base}.devices.constraints", f"ResourceClaimTemplate {tname}: device constraints (MatchAttribute) are not supported")])
            if devices.get("config"):
                raise _Stop("claim-templates", [FieldError(INVALID, f"{base}.devices.config", f"ResourceClaimTemplate {tname}: device config is not supported")])
        for k, req in enumerate(devices.get("requests") or []):
            rpath = f"{base}.devices.requests[{k}]"

            def fail(suffix: str, bad: Any, detail: str) -> _Stop:
                return _Stop("claim-templates", [FieldError(
                    INVALID, rpath + suffix, f"ResourceClaimTemplate {tname}: {detail}", bad)])

            if req.get("firstAvailable") is not None:
                raise fail("", None, "FirstAvailable device selection is not supported")
            exactly = req.get("exactly")
            if exactly is None:
                raise fail("", None, "Exactly must be set if FirstAvailable is nil")
            selectors = _cel_selectors(exactly.get("selectors"))
            # Kueue validates on the claim spec (paths relative to it), then prefixes the path of
            # the claim in the pod set: the inner errors keep their relative paths in the detail.
            errs = _compile_errors(selectors, FieldPath(f"devices.requests[{k}].exactly.selectors"),
                                   "CEL compilation failed")
            if errs:
                raise _Stop("claim-templates", [FieldError(
                    INVALID, f"{rpath}.exactly.selectors", f"ResourceClaimTemplate {tname}: {aggregate(errs)}", None)])
            mode, count = _request_defaults(exactly)
            if exactly.get("adminAccess") is True:
                raise fail(".exactly.adminAccess", None, "AdminAccess is not supported")
            if mode == "All":
                raise fail(".exactly.allocationMode", "All", "AllocationMode 'All' is not supported")
            if mode != "ExactCount":
                raise fail(".exactly.allocationMode", mode, f"unsupported allocation mode: {mode}")
            dc = exactly.get("deviceClassName") or ""
            if not dc:
                continue
            if dc not in counts:
                order.append(dc)
            counts[dc] = _sat_add(counts.get(dc, 0), count)
        return counts, order

    def _needs_every_slice(self, podsets: list[PodSet]) -> bool:
        """Whether the CEL availability check will look at every ResourceSlice (a CEL request on a
        class without counter or capacity sources), so that they are read once, before any
        per-driver list."""
        inp = self.inputs
        for ps in podsets:
            for claim in _claims(ps.spec):
                template = inp.claim_templates.get(claim.get("resourceClaimTemplateName") or "")
                if template is None:
                    continue
                spec = ((template.get("spec") or {}).get("spec")) or {}
                if any(not inp.counter_configs(dc) and not inp.capacity_configs(dc) for _, _, dc, _ in _cel_requests(spec)):
                    return True
        return False

    def _validate_cel_against_devices(self, spec: dict[str, Any], base: FieldPath, tname: str) -> None:
        """Kueue's availability check: enough devices in the cluster match each CEL request."""
        inp = self.inputs
        cel_requests = _cel_requests(spec)
        if not cel_requests:
            return
        if any(not inp.counter_configs(dc) and not inp.capacity_configs(dc) for _, _, dc, _ in cel_requests):
            slices = inp.all_slices()
        else:
            drivers = []
            for _, _, dc, _ in cel_requests:
                for d in [s.driver for _, s in inp.counter_configs(dc)] + [s.driver for s in inp.capacity_configs(dc)]:
                    if d not in drivers:
                        drivers.append(d)
            slices = [s for d in drivers for s in inp.driver_slices(d)]
        devices = [(s["spec"].get("driver") or "", d) for s in slices for d in (s.get("spec") or {}).get("devices") or []]
        matched: set[int] = set()
        errors: list[FieldError] = []
        for k, count, dc, selectors in cel_requests:
            rpath = base.child("devices", "requests").index(k)
            klass = inp.classes_by_name.get(dc) if dc else {}  # no class name: Kueue skips the lookup
            if klass is None:
                errors.append(FieldError(INTERNAL, str(rpath),
                                         f'failed to get DeviceClass {dc}: {_not_found("DeviceClass", dc)}'))
                continue
            class_selectors = _cel_selectors((klass.get("spec") or {}).get("selectors"))
            errs = _compile_errors(class_selectors, rpath, f"DeviceClass {dc} has invalid CEL selector")
            if errs:
                errors.append(errs[0])
                continue
            sel_path = rpath.child("exactly", "selectors")
            n = 0
            try:
                for idx, (driver, device) in enumerate(devices):
                    if idx in matched:
                        continue
                    if not self.ev.matches(class_selectors, driver, device):
                        continue
                    if self.ev.matches(selectors, driver, device):
                        matched.add(idx)
                        n += 1
                        if n >= count:
                            break
            except CelEvalError as e:
                errors.append(FieldError(INVALID, str(sel_path), f"CEL evaluation failed for DeviceClass {dc}: {e.detail}",
                                          None))
                continue
            if n < count:
                errors.append(FieldError(INTERNAL, str(sel_path),
                                         f"insufficient matching devices for CEL selector in DeviceClass {dc}: "
                                         f"{n} device(s) match in the cluster but {count} requested"))
        if errors:
            raise _Stop("claim-templates", [FieldError(e.type, e.field, f"ResourceClaimTemplate {tname}: {e.detail}",
                                                       e.bad_value) for e in errors])

    # -- path B: extended resources --------------------------------------------------------------
    def _extended_resource_path(self, podsets: list[PodSet], charges: list[PodSetCharge],
                                dra: list[dict[str, int]], replaced: list[set[str]]) -> None:
        inp = self.inputs
        errors: list[FieldError] = []
        for i, ps in enumerate(podsets):
            base = FieldPath("spec", "podSets").index(i).child("template", "spec")
            entries: dict[str, list[tuple[str, str, int, Quantity, str]]] = {}
            first_path: dict[str, str] = {}
            for key in ("initContainers", "containers"):
                for j, c in enumerate(ps.spec.get(key) or []):
                    for name, raw in (((c.get("resources") or {}).get("requests")) or {}).items():
                        if not is_extended_resource_name(name):
                            continue
                        q = parse_quantity(raw)
                        if q.value <= 0:
                            continue
                        path = str(base.child(key).index(j))
                        first_path.setdefault(name, path)
                        entries.setdefault(name, []).append((key, c.get("name") or "", j, q, path))
            for name, items in entries.items():
                init_max = max((q.value for k, _, _, q, _ in items if k == "initContainers"), default=Fraction(0))
                regular = sum((q.value for k, _, _, q, _ in items if k == "containers"), Fraction(0))
                pod_value = max(init_max, regular)
                candidates = [dc for dc in inp.device_classes
                              if (dc.get("spec") or {}).get("extendedResourceName") == name]
                if not candidates:
                    continue
                if inp.semantics.er_scheduler_class_choice:
                    selected = _selected_device_class(candidates)
                else:
                    selected = _first_mapped_device_class(candidates, inp)
                sname = selected["metadata"]["name"]
                quota_key = name
                mapping = inp.mapping_for(sname)
                if mapping is not None:
                    quota_key = mapping.name
                    if inp.gates.partitionable and inp.counter_configs(sname):
                        errors.append(FieldError(INVALID, first_path[name],
                                                 f"extended resource {name} resolves to DeviceClass {sname} with counters "
                                                 "configured; use ResourceClaimTemplates with CEL selectors for "
                                                 "counter-based quota", name))
                        continue
                    if inp.gates.consumable_capacity and inp.capacity_configs(sname):
                        errors.append(FieldError(INVALID, first_path[name],
                                                 f"extended resource {name} resolves to DeviceClass {sname} with capacity "
                                                 "sources configured; use ResourceClaimTemplates with capacity.requests "
                                                 "for capacity-based quota", name))
                        continue
                int_errors = [FieldError(INVALID, f"{path}.resources.requests.{name}",
                                         "extended resource quantity must be an integer", str(q))
                              for _, _, _, q, path in items if q.value.denominator != 1]
                if int_errors:
                    errors.extend(int_errors)
                    continue
                if pod_value > INT64_MAX:
                    errors.append(FieldError(INVALID, f"{first_path[name]}.resources.requests.{name}",
                                             "total extended resource quantity overflows int64", str(pod_value)))
                    continue
                value = int(pod_value)
                replaced[i].add(name)
                dra[i][quota_key] = _sat_add(dra[i].get(quota_key, 0), value)
                charges[i].lines.append({
                    "kind": "extendedResource", "resourceName": name, "deviceClass": sname,
                    "candidates": sorted(dc["metadata"]["name"] for dc in candidates),
                    "mapping": mapping.name if mapping else None, "resource": quota_key, "perPod": value,
                    "containers": [c for _, c, _, _, _ in items],
                    "detail": f"{name}: max(init containers) vs sum(containers) = {value} → {quota_key}"
                              + ("" if quota_key == name else f" (mapping of {sname}); {name} itself is not charged"),
                })
        if errors:
            raise _Stop("extended-resources", errors)

    # -- path C: counters -----------------------------------------------------------------------
    def _class_and_request_selectors(self, dc: str, exactly: dict[str, Any], claim_path: FieldPath,
                                     k: int) -> tuple[list[str], list[str]]:
        klass = self.inputs.classes_by_name.get(dc) if dc else {}  # no class name: Kueue skips the lookup
        rpath = claim_path.child("devices", "requests").index(k)
        if klass is None:
            raise _Stop("counters", [FieldError(INTERNAL, str(rpath),
                                                f'failed to get DeviceClass {dc}: {_not_found("DeviceClass", dc)}')])
        class_selectors = _cel_selectors((klass.get("spec") or {}).get("selectors"))
        errs = _compile_errors(class_selectors, rpath, f"DeviceClass {dc} has invalid CEL selector")
        if errs:
            raise _Stop("counters", errs[:1])
        request_selectors = _cel_selectors(exactly.get("selectors"))
        errs = _compile_errors(request_selectors, rpath.child("exactly", "selectors"), "CEL compilation failed")
        if errs:
            raise _Stop("counters", errs)
        return class_selectors, request_selectors

    def _match_devices(self, source: Source, class_selectors: list[str], request_selectors: list[str],
                       rpath: str, step: str) -> tuple[list[tuple[Pool, dict[str, Any]]], int]:
        selector = [source.selector] if source.selector else []
        errs = _compile_errors(selector, FieldPath(rpath), "deviceSelector CEL compilation failed")
        if errs:
            raise _Stop(step, errs)
        matched: list[tuple[Pool, dict[str, Any]]] = []
        pools = 0
        steps = (("deviceSelector", selector), ("DeviceClass selector", class_selectors),
                 ("request selector", request_selectors))
        # Devices alike in what the three lists read share one outcome (evaluated on the first of
        # them); walking the devices in order keeps the first error and the order of `matched`.
        index = ShapeIndex([p for p in self.inputs.pools(source.driver) if p.complete],
                           [sels for _, sels in steps], self.ev)
        outcomes: list[bool | tuple[str, CelEvalError]] = []
        for driver, device in index.representatives:
            outcome: bool | tuple[str, CelEvalError] = True
            for what, sels in steps:
                try:
                    ok = self.ev.matches(sels, driver, device)
                except CelEvalError as e:
                    outcome = (what, e)
                    break
                if not ok:
                    outcome = False
                    break
            outcomes.append(outcome)
        for pool, devices, ids, _ in index.pools:
            before = len(matched)
            for device, gid in zip(devices, ids):
                outcome = outcomes[gid]
                if outcome is True:
                    matched.append((pool, device))
                elif outcome is not False:
                    what, e = outcome
                    raise _Stop(step, [FieldError(INTERNAL, rpath, f"CEL evaluation error in {what} for device "
                                                                   f"{device.get('name')}: {e.detail}")])
            pools += len(matched) > before
        return matched, pools

    def _exact_requests(self, podsets: list[PodSet]):
        """Every ``exactly`` request of every claim template, in Kueue's order, for the counter
        and capacity paths (which read the template again, with their own error text)."""
        for i, ps in enumerate(podsets):
            for j, claim in enumerate(_claims(ps.spec)):
                tname = claim.get("resourceClaimTemplateName")
                if not tname:
                    continue
                spec = self._template(i, ps, j, claim, "failed to get claim spec for ResourceClaimTemplate {name}: {err}")
                for k, req in enumerate(((spec.get("devices") or {}).get("requests")) or []):
                    if req.get("exactly") is not None:
                        yield _Request(i, j, k, claim.get("name"), tname, req.get("name"), req["exactly"])

    def _counter_path(self, podsets: list[PodSet], charges: list[PodSetCharge], dra: list[dict[str, int]]) -> None:
        inp = self.inputs
        for r in self._exact_requests(podsets):
            configs = inp.counter_configs(r.device_class)
            if not configs:
                continue
            class_sel, req_sel = self._class_and_request_selectors(r.device_class, r.exactly, r.claim_path, r.k)
            for quota, source in configs:
                matched, pools = self._match_devices(source, class_sel, req_sel, r.path, "counters")
                if len(matched) < r.count:
                    raise _Stop("counters", [FieldError(INTERNAL, r.path,
                                                        f"insufficient matching devices for counter driver: "
                                                        f"{len(matched)} device(s) match but {r.count} requested")])
                best = self._max_counter(matched, source.name)
                if best is None:
                    raise _Stop("counters", [FieldError(INTERNAL, r.path,
                                                        "matched devices have no consumesCounters entry for "
                                                        f'counter "{source.name}"')])
                value_q, pool, device = best
                value = max(0, min(INT64_MAX, math.ceil(value_q.value)))
                total = _sat_mul(value, r.count)
                dra[r.i][quota] = _sat_add(dra[r.i].get(quota, 0), total)
                charges[r.i].lines.append(dict(
                    r.provenance(), kind="counter", mapping=quota, resource=quota, counter=source.name,
                    driver=source.driver, matchedDevices=len(matched), matchedPools=pools,
                    maxDevice=f"{pool.name}/{device.get('name')}", counterValue=str(value_q), perPod=total,
                    detail=f"MAX {source.name} over {len(matched)} matching device(s) in {pools} pool(s) "
                           f"= {value_q} × {r.count}"))

    def _max_counter(self, matched: list[tuple[Pool, dict[str, Any]]], counter: str):
        best = None
        parsed: dict[Any, Quantity] = {}  # the same few values repeat on every node
        for pool, device in matched:
            for consumption in device.get("consumesCounters") or []:
                raw = (consumption.get("counters") or {}).get(counter)
                if raw is None:
                    continue
                value = raw.get("value") if isinstance(raw, dict) else raw
                q = parsed.get(value) if isinstance(value, str) else None
                if q is None:
                    q = parse_quantity(value)
                    if isinstance(value, str):
                        parsed[value] = q
                if best is None or q.value > best[0].value:
                    best = (q, pool, device)
                if self.inputs.semantics.first_counter_entry_only:
                    break
        return best

    # -- path D: capacity -----------------------------------------------------------------------
    def _capacity_path(self, podsets: list[PodSet], charges: list[PodSetCharge], dra: list[dict[str, int]]) -> None:
        inp = self.inputs
        for r in self._exact_requests(podsets):
            configs = inp.capacity_configs(r.device_class)
            mapping = inp.mapping_for(r.device_class)
            if not configs or mapping is None:
                continue
            class_sel, req_sel = self._class_and_request_selectors(r.device_class, r.exactly, r.claim_path, r.k)
            explicit = ((r.exactly.get("capacity") or {}).get("requests")) or {}
            for source in configs:
                matched, pools = self._match_devices(source, class_sel, req_sel, r.path, "capacity")
                if len(matched) < r.count:
                    raise _Stop("capacity", [FieldError(INTERNAL, r.path,
                                                        f"insufficient matching devices for capacity driver: "
                                                        f"{len(matched)} device(s) match but {r.count} requested")])
                charge = _capacity_charge(matched, source.name, explicit.get(source.name), r.path)
                value = max(0, min(INT64_MAX, math.ceil(charge.value)))
                total = _sat_mul(value, r.count)
                dra[r.i][mapping.name] = _sat_add(dra[r.i].get(mapping.name, 0), total)
                charges[r.i].lines.append(dict(
                    r.provenance(), kind="capacity", mapping=mapping.name, resource=mapping.name,
                    capacity=source.name, driver=source.driver, matchedDevices=len(matched), matchedPools=pools,
                    perPod=total, detail=f"MAX rounded {source.name} over {len(matched)} device(s) = {charge} × {r.count}"))


@dataclass
class _Request:
    """One ``exactly`` request of a claim template, located in the Workload."""

    i: int  # pod set index
    j: int  # claim index in the pod spec
    k: int  # request index in the template
    claim: str | None
    template: str
    request: str | None
    exactly: dict[str, Any]

    @property
    def device_class(self) -> str:
        return self.exactly.get("deviceClassName") or ""

    @property
    def count(self) -> int:
        return _request_defaults(self.exactly)[1]

    @property
    def claim_path(self) -> FieldPath:
        return _claim_path(self.i, self.j)

    @property
    def path(self) -> str:
        return str(self.claim_path.child("devices", "requests").index(self.k))

    def provenance(self) -> dict[str, Any]:
        return {"claim": self.claim, "template": self.template, "request": self.request,
                "deviceClass": self.device_class, "count": self.count}


def _first_mapped_device_class(candidates: list[dict[str, Any]], inputs: ChargeInputs) -> dict[str, Any]:
    """Kueue before 0.18.5 and 0.19.0: the first class (in list order) that is in a mapping, else
    the first class (the extended resource name itself is then the quota key). Kueue lists them
    from an informer index, in no defined order; name order here."""
    ordered = sorted(candidates, key=lambda dc: dc["metadata"]["name"])
    return next((dc for dc in ordered if inputs.mapping_for(dc["metadata"]["name"])), ordered[0])


def _selected_device_class(candidates: list[dict[str, Any]]) -> dict[str, Any]:
    """The class the scheduler picks for an extended resource: newest, then smallest name."""
    newest = max(dc["metadata"].get("creationTimestamp") or "" for dc in candidates)
    return min((dc for dc in candidates if (dc["metadata"].get("creationTimestamp") or "") == newest),
               key=lambda dc: dc["metadata"]["name"])


def _capacity_charge(matched: list[tuple[Pool, dict[str, Any]]], dimension: str, explicit: Any,
                     rpath: str) -> Quantity:
    best: Quantity | None = None
    has_dimension = False
    for _, device in matched:
        cap = (device.get("capacity") or {}).get(dimension)
        if cap is None:
            continue
        has_dimension = True
        policy = cap.get("requestPolicy") or None
        if explicit is not None:
            base = parse_quantity(explicit)
        elif policy and policy.get("default") is not None:
            base = parse_quantity(policy["default"])
        else:
            base = parse_quantity(cap.get("value"))
        rounded = _round_to_policy(base, policy)
        if rounded is None:
            continue
        if best is None or rounded.value > best.value:
            best = rounded
    if not has_dimension:
        raise _Stop("capacity", [FieldError(INTERNAL, rpath, f'matched devices have no capacity dimension "{dimension}"')])
    if best is None:
        raise _Stop("capacity", [FieldError(INVALID, rpath, "capacity request cannot be satisfied by any matched "
                                                            f'device\'s RequestPolicy for dimension "{dimension}"', None)])
    return best


def _round_to_policy(base: Quantity, policy: dict[str, Any] | None) -> Quantity | None:
    if not policy:
        return base
    valid = policy.get("validValues") or []
    if valid:
        for v in valid:
            q = parse_quantity(v)
            if q.value >= base.value:
                return q
        return None
    vr = policy.get("validRange")
    if vr:
        val = math.ceil(base.value)
        if vr.get("min") is not None:
            mn = math.ceil(parse_quantity(vr["min"]).value)
            val = max(val, mn)
            if vr.get("step") is not None:
                step = math.ceil(parse_quantity(vr["step"]).value)
                if step > 0 and (val - mn) % step:
                    val = mn + ((val - mn) // step + 1) * step
        if vr.get("max") is not None and val > math.ceil(parse_quantity(vr["max"]).value):
            return None
        return Quantity.from_int(val, base.format)
    return base


BINARY_NATIVE = ("memory", "ephemeral-storage")


def format_usage(name: str, value: int, binary: set[str] | frozenset[str] = frozenset()) -> str:
    """Render an int64 amount the way Kueue writes it into status (``ResourceFormatter``):
    cpu as milli DecimalSI, memory/ephemeral-storage/hugepages and counter- or capacity-charged
    names as canonical BinarySI, everything else as DecimalSI."""
    if name == "cpu":
        return str(Quantity(value, -3, "DecimalSI")) if value % 1000 else str(Quantity.from_int(value // 1000))
    if name in BINARY_NATIVE or name.startswith("hugepages-") or name in binary:
        return str(Quantity.from_int(value, "BinarySI"))
    return str(Quantity.from_int(value, "DecimalSI"))
