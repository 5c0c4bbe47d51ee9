"""Where a workload's priority comes from: a Workload's ``priorityClassRef``; for a job not
submitted yet, its WorkloadPriorityClass label, its pod template's PriorityClass, the lowest
``globalDefault`` PriorityClass, else 0 (Kueue's ``PrepareWorkloadPriority``)."""

from __future__ import annotations

import pytest

from kubectl_kueue_dra.kueue.scheduler.priority import of_manifest, of_workload
from kubectl_kueue_dra.kueue.scheduler.world import QueueWorld, effective_priority
from testenv.queue.builders import workload

LABEL = "kueue.x-k8s.io/priority-class"


def pc(name, value, default=False, kind="PriorityClass"):
    return {"kind": kind, "metadata": {"name": name}, "value": value, **({"globalDefault": True} if default else {})}


def test_a_workload_carries_its_number_and_class():
    wl = workload("w", priority=100)
    wl["spec"]["priorityClassRef"] = {"group": "kueue.x-k8s.io", "kind": "WorkloadPriorityClass", "name": "high"}
    assert of_workload(wl).value == 100 and of_workload(wl).source == "WorkloadPriorityClass high"
    assert of_workload(workload("x")).value == 0


@pytest.mark.parametrize("labels,specs,value,source", [
    ({LABEL: "high"}, [{"priorityClassName": "batch"}], 1000, "WorkloadPriorityClass high"),
    ({}, [{}, {"priorityClassName": "batch"}], 5, "PriorityClass batch"),
    ({}, [{}], -10, "PriorityClass low (globalDefault)"),
])
def test_a_what_if_gets_kueues_choice(labels, specs, value, source):
    world = QueueWorld(workload_priority_classes=[pc("high", 1000, kind="WorkloadPriorityClass")],
                       priority_classes=[pc("batch", 5), pc("low", -10, True), pc("lower-but-not-default", -99),
                                         pc("other", 7, True)])
    got = of_manifest(labels, specs, world)
    assert (got.value, got.source, got.problem) == (value, source, None)


def test_a_missing_class_keeps_kueue_from_creating_the_workload():
    got = of_manifest({LABEL: "nope"}, [{}], QueueWorld())
    assert got.value is None and "does not create the Workload" in got.problem


def test_unreadable_classes_leave_it_unknown():
    world = QueueWorld(priority_classes=None, unreadable={"PriorityClass": "forbidden"})
    got = of_manifest({}, [{"priorityClassName": "batch"}], world)
    assert got.value is None and got.problem == "the PriorityClasses could not be read (forbidden)"


def test_priority_boost_only_with_its_gate():
    wl = workload("w", priority=10, annotations={"kueue.x-k8s.io/priority-boost": "5"})
    assert effective_priority(wl, QueueWorld()) == 10
    assert effective_priority(wl, QueueWorld(gates={"PriorityBoost": True})) == 15
