"""Kueue's ``ValidateAdmissibility`` checks on the adjusted pod specs, before the scheduler looks
at quota: every container's requests within its limits (``ValidateResources``), then the
namespace's LimitRange max and min (``ValidateLimitRange``: containers, init containers and the
pod as a whole). A LimitRange default limit below a request a container sets is the usual way to
fail the first one. The message is Kueue's, character for character; the workload waits with it.

Pure: takes the adjusted pod specs and the LimitRanges.
"""

from __future__ import annotations

import json
from typing import Any

from ...dra.quantity import parse_quantity
from ..fielderrors import INVALID, FieldError, aggregate
from ..units import kueue_int
from .podsets import pod_requests

MSG_INVALID_RESOURCES = "resources validation failed"
MSG_LIMIT_RANGE = "resources didn't satisfy LimitRange constraints"
EXCEEDS_LIMITS = "requests must not exceed its limits"
ABOVE_MAX = "requests must not be above the limitRange max"
BELOW_MIN = "requests must not be below the limitRange min"


class _Names(list[str]):
    """A ``[]corev1.ResourceName`` bad value: rendered as JSON, like apimachinery does."""

    def __str__(self) -> str:
        return json.dumps(list(self))


def _ints(raw: dict[str, Any] | None) -> dict[str, int]:
    return {name: kueue_int(name, parse_quantity(v)) for name, v in (raw or {}).items()}


def _greater(a: dict[str, int], b: dict[str, int]) -> list[str]:
    """``GreaterKeys``: names in both where a is greater, sorted."""
    return sorted(n for n in a if n in b and a[n] > b[n])


def _containers(spec: dict[str, Any]) -> list[tuple[str, int, dict[str, Any]]]:
    return [(key, i, c) for key in ("initContainers", "containers") for i, c in enumerate(spec.get(key) or [])]


def _resources_errors(i: int, spec: dict[str, Any]) -> list[FieldError]:
    base = f"spec.podSets[{i}].template.spec"
    errors = []
    for key, j, c in _containers(spec):
        res = c.get("resources") or {}
        names = _greater(_ints(res.get("requests")), _ints(res.get("limits")))
        if names:
            errors.append(FieldError(INVALID, f"{base}.{key}[{j}]", EXCEEDS_LIMITS, _Names(names)))
    pod = spec.get("resources")
    if isinstance(pod, dict):
        names = _greater(_ints(pod.get("requests")), _ints(pod.get("limits")))
        if names:
            errors.append(FieldError(INVALID, f"{base}.resources", EXCEEDS_LIMITS, _Names(names)))
    return errors


def _summary(limit_ranges: list[dict[str, Any]]) -> dict[str, tuple[dict[str, int], dict[str, int]]]:
    """Per limit type: (max kept lowest, min kept highest) over every LimitRange."""
    out: dict[str, tuple[dict[str, int], dict[str, int]]] = {}
    for lr in limit_ranges:
        for item in ((lr.get("spec") or {}).get("limits")) or []:
            mx, mn = out.setdefault(item.get("type") or "", ({}, {}))
            for name, v in _ints(item.get("max")).items():
                mx[name] = min(mx.get(name, v), v)
            for name, v in _ints(item.get("min")).items():
                mn[name] = max(mn.get(name, v), v)
    return out


def _limit_range_errors(i: int, spec: dict[str, Any], summary: dict[str, tuple[dict[str, int], dict[str, int]]]
                        ) -> list[FieldError]:
    base = f"spec.podSets[{i}].template.spec"
    errors = []
    if "Container" in summary:
        mx, mn = summary["Container"]
        for key, j, c in _containers(spec):
            res = c.get("resources") or {}
            req, lim = _ints(res.get("requests")), _ints(res.get("limits"))
            c_max = {n: max(req.get(n, v), v) for n, v in lim.items()} | {n: v for n, v in req.items() if n not in lim}
            c_min = {n: min(req.get(n, v), v) for n, v in lim.items()} | {n: v for n, v in req.items() if n not in lim}
            if names := _greater(c_max, mx):
                errors.append(FieldError(INVALID, f"{base}.{key}[{j}]", ABOVE_MAX, _Names(names)))
            if names := _greater(mn, c_min):
                errors.append(FieldError(INVALID, f"{base}.{key}[{j}]", BELOW_MIN, _Names(names)))
    if "Pod" in summary:
        mx, mn = summary["Pod"]
        total = {n: kueue_int(n, q) for n, q in pod_requests(spec).items()}
        if names := _greater(total, mx):
            errors.append(FieldError(INVALID, base, ABOVE_MAX, _Names(names)))
        if names := _greater(mn, total):
            errors.append(FieldError(INVALID, base, BELOW_MIN, _Names(names)))
    return errors


def admissibility_message(specs: list[dict[str, Any]], limit_ranges: list[dict[str, Any]] | None) -> str | None:
    """Kueue's message when the adjusted pod specs fail its admissibility checks, else None
    (LimitRanges that could not be read are not checked)."""
    errors = [e for i, spec in enumerate(specs) for e in _resources_errors(i, spec)]
    if errors:
        return f"{MSG_INVALID_RESOURCES}: {aggregate(errors)}"
    if not limit_ranges:
        return None
    summary = _summary(limit_ranges)
    errors = [e for i, spec in enumerate(specs) for e in _limit_range_errors(i, spec, summary)]
    return f"{MSG_LIMIT_RANGE}: {aggregate(errors)}" if errors else None

