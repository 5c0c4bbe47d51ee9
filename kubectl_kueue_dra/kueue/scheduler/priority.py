"""Where a workload's priority comes from (``jobframework.PrepareWorkloadPriority``).

A submitted Workload carries the number (``spec.priority``) and, in ``spec.priorityClassRef``,
the class it came from; the queues and preemption read only the number. A job not submitted yet
(what-if) gets, in this order: the WorkloadPriorityClass named by its label
``kueue.x-k8s.io/priority-class``; else the PriorityClass of the first pod template with a
``priorityClassName``; else the ``globalDefault`` PriorityClass with the lowest value; else 0. A
named class that does not exist keeps Kueue from creating the Workload at all.

Pure.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .world import PRIORITY_CLASS_LABEL, QueueWorld, base_priority, spec

Obj = dict[str, Any]


@dataclass(frozen=True)
class Priority:
    #: None: unknown (``problem`` says why)
    value: int | None
    #: "WorkloadPriorityClass high", "PriorityClass batch-low", "the default (no priority class)"
    source: str
    problem: str | None = None


def _value(obj: Obj) -> int:
    value = obj.get("value")
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def of_workload(wl: Obj) -> Priority:
    ref = spec(wl).get("priorityClassRef") or {}
    if ref.get("name"):
        return Priority(base_priority(wl), f"{ref.get('kind') or 'PriorityClass'} {ref['name']}")
    return Priority(base_priority(wl), "the default (no priority class)")


def of_manifest(labels: Mapping[str, str], pod_specs: Sequence[Mapping[str, Any]], world: QueueWorld) -> Priority:
    name = labels.get(PRIORITY_CLASS_LABEL)
    if name:
        source = f"WorkloadPriorityClass {name}"
        why = world.unknown("WorkloadPriorityClass")
        if why is not None:
            return Priority(None, source, why)
        wpc = world.named("WorkloadPriorityClass", name)
        if wpc is None:
            return Priority(None, source, f"WorkloadPriorityClass {name} does not exist: Kueue does not create the "
                                          "Workload until it does")
        return Priority(_value(wpc), source)
    pc_name = next((s.get("priorityClassName") for s in pod_specs if s.get("priorityClassName")), None)
    why = world.unknown("PriorityClass")
    if pc_name:
        source = f"PriorityClass {pc_name}"
        if why is not None:
            return Priority(None, source, why)
        pc = world.named("PriorityClass", pc_name)
        if pc is None:
            return Priority(None, source, f"PriorityClass {pc_name} does not exist: Kueue does not create the "
                                          "Workload until it does")
        return Priority(_value(pc), source)
    if why is not None:
        return Priority(None, "a globalDefault PriorityClass, if any", why)
    defaults = sorted((pc for pc in world.items("PriorityClass") if pc.get("globalDefault") is True), key=_value)
    if defaults:
        return Priority(_value(defaults[0]), f"PriorityClass {(defaults[0].get('metadata') or {}).get('name')} "
                                              "(globalDefault)")
    return Priority(0, "the default (no priority class)")
