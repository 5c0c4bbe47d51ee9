"""Kueue's ``workload.AdjustResources``: what Kueue does to a pod set's pod spec before it counts
anything, in its order:

1. RuntimeClass overhead: a pod spec that names a ``runtimeClassName`` and carries no ``overhead``
   gets the RuntimeClass's ``overhead.podFixed`` (a missing RuntimeClass adds nothing; Kueue logs it);
2. LimitRange defaults of the namespace (``limitrange.Summarize``: the first ``default`` and
   ``defaultRequest`` per resource over the namespace's LimitRanges — in the order Kueue's cache
   lists them, which is not defined, so two LimitRanges that disagree leave the amount unknown —
   after the API server's defaulting of ``Container`` items): missing container and
   init-container limits and requests; pod-level ``resources`` only when the pod spec has them;
3. limits used as requests where a request is missing (containers, init containers, pod level).

Every amount that changed is recorded as an ``Adjustment`` saying where it came from. When the
LimitRanges or RuntimeClasses cannot be read, the cpu/memory amounts they could change are
``unknown`` with the reason, never taken as 0. Pure: the objects come in through ``AdjustInputs``.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

CONTAINER_KEYS = (("initContainers", "init container"), ("containers", "container"))
#: what an unreadable LimitRange or RuntimeClass list leaves unknown
GUARDED = ("cpu", "memory")


@dataclass(frozen=True)
class Adjustment:
    """One amount Kueue set in the pod spec, and where it came from."""

    step: str  # runtimeClassOverhead | limitRangeDefault | limitRangeDefaultRequest | limitAsRequest
    target: str  # "pod", "container main", "init container setup"
    resource: str
    value: str
    source: str  # "RuntimeClass kata", "LimitRange ns/defaults", "its limit"

    def doc(self) -> dict[str, Any]:
        return {"step": self.step, "target": self.target, "resource": self.resource, "value": self.value,
                "source": self.source}


@dataclass
class AdjustInputs:
    namespace: str = ""
    #: the namespace's LimitRanges; None when they could not be read (``limit_ranges_problem`` says why)
    limit_ranges: list[dict[str, Any]] | None = field(default_factory=list)
    limit_ranges_problem: str | None = None
    #: RuntimeClasses by name; None when they could not be read
    runtime_classes: dict[str, dict[str, Any]] | None = field(default_factory=dict)
    runtime_classes_problem: str | None = None


@dataclass
class Adjusted:
    spec: dict[str, Any]
    adjustments: list[Adjustment] = field(default_factory=list)
    #: resource -> why its amount cannot be known
    unknown: dict[str, str] = field(default_factory=dict)


@dataclass
class _Default:
    value: Any
    source: str
    #: other LimitRanges' different values for the same resource ("LimitRange ns/x: 900m")
    conflicts: list[str] = field(default_factory=list)

    def offer(self, value: Any, source: str) -> None:
        if str(value) != str(self.value):
            self.conflicts.append(f"{source}: {value}")


@dataclass
class LimitSummary:
    """``limitrange.Summarize`` for the defaults: per limit type, the first value per resource."""

    default: dict[str, dict[str, _Default]] = field(default_factory=dict)  # type -> resource -> value
    default_request: dict[str, dict[str, _Default]] = field(default_factory=dict)

    @classmethod
    def of(cls, namespace: str, limit_ranges: list[dict[str, Any]]) -> LimitSummary:
        out = cls()
        for lr in sorted(limit_ranges, key=lambda o: (o.get("metadata") or {}).get("name") or ""):
            source = f"LimitRange {namespace}/{(lr.get('metadata') or {}).get('name')}"
            for item in ((lr.get("spec") or {}).get("limits")) or []:
                kind = item.get("type") or ""
                default, default_request = api_defaults(item)
                for into, values in ((out.default, default), (out.default_request, default_request)):
                    for name, value in values.items():
                        known = into.setdefault(kind, {}).get(name)
                        if known is None:
                            into[kind][name] = _Default(value, source)
                        else:
                            known.offer(value, source)
        return out

    def has(self, kind: str) -> bool:
        return kind in self.default or kind in self.default_request


def api_defaults(item: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The API server's defaulting of a LimitRange item (``SetDefaults_LimitRangeItem``): for a
    ``Container`` item a missing default limit is the max, a missing default request the default
    limit, else the min. Stored objects already carry it; a hand-written file may not."""
    default = dict(item.get("default") or {})
    default_request = dict(item.get("defaultRequest") or {})
    if item.get("type") == "Container":
        for name, value in (item.get("max") or {}).items():
            default.setdefault(name, value)
        for name, value in default.items():
            default_request.setdefault(name, value)
        for name, value in (item.get("min") or {}).items():
            default_request.setdefault(name, value)
    return default, default_request


def adjust(pod_spec: dict[str, Any], inputs: AdjustInputs) -> Adjusted:
    """The pod spec after ``AdjustResources``, with the provenance of every amount it set."""
    out = Adjusted(copy.deepcopy(pod_spec))
    _overhead(out, inputs)
    _limit_ranges(out, inputs)
    _limits_as_requests(out)
    return out


def _overhead(out: Adjusted, inputs: AdjustInputs) -> None:
    spec = out.spec
    name = spec.get("runtimeClassName")
    if not name or spec.get("overhead"):
        return
    if inputs.runtime_classes is None:
        for resource in GUARDED:
            out.unknown[resource] = (f"RuntimeClass {name} could not be read ({inputs.runtime_classes_problem}): "
                                     "its pod overhead is unknown")
        return
    runtime_class = inputs.runtime_classes.get(name)
    if runtime_class is None:
        return  # Kueue logs the lookup error and adds nothing
    fixed = (runtime_class.get("overhead") or {}).get("podFixed") or {}
    if fixed:
        spec["overhead"] = dict(fixed)
        out.adjustments.extend(Adjustment("runtimeClassOverhead", "pod", r, str(v), f"RuntimeClass {name}")
                               for r, v in fixed.items())


def _limit_ranges(out: Adjusted, inputs: AdjustInputs) -> None:
    if inputs.limit_ranges is None:
        _unknown_defaults(out, inputs)
        return
    if not inputs.limit_ranges:
        return
    summary = LimitSummary.of(inputs.namespace, inputs.limit_ranges)
    if summary.has("Container"):
        for key, label in CONTAINER_KEYS:
            for c in out.spec.get(key) or []:
                resources = c.setdefault("resources", {})
                _merge(out, resources, summary, "Container", f"{label} {c.get('name')}")
    pod_resources = out.spec.get("resources")
    if isinstance(pod_resources, dict) and summary.has("Pod"):
        _merge(out, pod_resources, summary, "Pod", "pod")


def _merge(out: Adjusted, resources: dict[str, Any], summary: LimitSummary, kind: str, target: str) -> None:
    """``MergeResourceListKeepFirst`` of the defaults into limits and requests."""
    for field_name, defaults, step in (("limits", summary.default, "limitRangeDefault"),
                                       ("requests", summary.default_request, "limitRangeDefaultRequest")):
        current = dict(resources.get(field_name) or {})
        for name, d in (defaults.get(kind) or {}).items():
            if name not in current:
                current[name] = d.value
                out.adjustments.append(Adjustment(step, target, name, str(d.value), d.source))
                if d.conflicts:
                    out.unknown[name] = (f"LimitRanges disagree on the default {name} ({d.source}: {d.value}; "
                                         f"{'; '.join(d.conflicts)}): Kueue takes the first its cache lists, "
                                         "in no defined order")
        if current:
            resources[field_name] = current


def _unknown_defaults(out: Adjusted, inputs: AdjustInputs) -> None:
    """Unreadable LimitRanges: a resource some container sets neither as request nor limit may
    get a default."""
    for key, _ in CONTAINER_KEYS:
        for c in out.spec.get(key) or []:
            res = c.get("resources") or {}
            for name in GUARDED:
                if name not in (res.get("requests") or {}) and name not in (res.get("limits") or {}):
                    out.unknown[name] = (f"the LimitRanges of namespace {inputs.namespace} could not be read "
                                         f"({inputs.limit_ranges_problem}): a default {name} may apply")


def _limits_as_requests(out: Adjusted) -> None:
    defaulted = {(a.target, a.resource) for a in out.adjustments if a.step == "limitRangeDefault"}
    targets: list[tuple[str, dict[str, Any]]] = [
        (f"{label} {c.get('name')}", c.setdefault("resources", {}))
        for key, label in CONTAINER_KEYS for c in out.spec.get(key) or []]
    if isinstance(out.spec.get("resources"), dict):
        targets.append(("pod", out.spec["resources"]))
    for target, resources in targets:
        requests = dict(resources.get("requests") or {})
        for name, value in (resources.get("limits") or {}).items():
            if name not in requests:
                requests[name] = value
                source = "its LimitRange default limit" if (target, name) in defaulted else "its limit"
                out.adjustments.append(Adjustment("limitAsRequest", target, name, str(value), source))
        if requests:
            resources["requests"] = requests
