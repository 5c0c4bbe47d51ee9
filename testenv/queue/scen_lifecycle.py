"""Lifecycle scenarios: spec.active, evictions, requeueing, finishing.

A Workload with ``spec.active: false`` is evicted with reason Deactivated and leaves the queue:
created inactive it never gets a QuotaReserved condition; deactivated while pending it keeps its
last (stale) QuotaReserved message; deactivated after admission its quota is released with
``Requeued=False Deactivated``, and reactivating it sets ``Requeued=True Reactivated``. A
preempted victim is requeued (``Requeued=True Preempted``) and admitted again once its preemptor
is gone (the preemptor's Job deleted: its Workload is Finished with OwnerNotFound). With
``waitForPodsReady`` an admitted workload whose pods never get ready is evicted (PodsReadyTimeout)
and waits out ``requeueState.requeueAt`` (``Requeued=False``): that needs a Kueue configuration of its
own, so it has a world of its own (``PODS_READY``).
"""

from __future__ import annotations

from testenv.queue.actions import Await, Delete, activate, deactivate
from testenv.queue.model import Expect, QueueScenario, Step, admitted, pending, preempted
from testenv.queue.objects import (
    admission_check, bare_workload, flavor, group, job, pod, queue_spec, quota, workload_priority_class,
)


def _cq(cpu: str = "2", **kw) -> dict:
    return queue_spec(group(["cpu"], quota("f", {"cpu": cpu})), **kw)


DEACTIVATED = {"Evicted": "True/Deactivated"}


def scenarios() -> list[QueueScenario]:
    setup = [flavor("f")]
    admitted_then_off = Step("deactivate the Workload (spec.active=false)", [deactivate("job/train")], {
        "job/train": Expect("inactive", message="The workload is deactivated",
                            conds={**DEACTIVATED, "Requeued": "False/Deactivated"})})
    return [
        QueueScenario(
            "created-inactive", "a Workload created with spec.active false", "lifecycle", _cq(),
            ["workload/idle"], [[bare_workload("idle", active=False)]],
            {"workload/idle": Expect("inactive", no_condition=True, conds=DEACTIVATED, listed=False)}, setup=setup),
        QueueScenario(
            "deactivated-pending", "a pending job (2 cpu, the queue has 1) is deactivated", "lifecycle", _cq("1"),
            ["job/train"], [[job("train", pod("2"))]], {"job/train": pending("> maximum capacity (1)")},
            setup=setup,
            steps=[Step("deactivate the Workload (spec.active=false)", [deactivate("job/train")], {
                "job/train": Expect("inactive", message="> maximum capacity (1)", conds=DEACTIVATED, listed=False)})]),
        QueueScenario(
            "deactivated-admitted", "an admitted job is deactivated: evicted, quota released, not requeued",
            "lifecycle", _cq(), ["job/train"], [[job("train")]], {"job/train": admitted(cpu="f")}, setup=setup,
            steps=[admitted_then_off]),
        QueueScenario(
            "reactivated", "deactivated after admission, then activated again: requeued and admitted",
            "lifecycle", _cq(), ["job/train"], [[job("train")]], {"job/train": admitted(cpu="f")}, setup=setup,
            steps=[admitted_then_off,
                   Step("activate it again (spec.active=true)", [activate("job/train")], {
                       "job/train": Expect("admitted", flavors={"cpu": "f"},
                                           conds={"Evicted": "False/QuotaReserved", "Requeued": "True/Reactivated"})})]),
        QueueScenario(
            "preempted-readmitted", "a preempted job is requeued; its preemptor's Job is deleted (the Workload "
            "finishes, OwnerNotFound) and the victim is admitted again", "lifecycle",
            _cq(preemption={"withinClusterQueue": "LowerPriority"}), ["job/low", "job/high"],
            [[job("low", pod("2"), priority="low")], [job("high", pod("2"), priority="high")]],
            {"job/low": preempted("InClusterQueue", "job/high", conds={"Requeued": "True/Preempted"}),
             "job/high": admitted(cpu="f")},
            setup=[*setup, workload_priority_class("low", 10), workload_priority_class("high", 100)],
            steps=[Step("delete the preemptor's Job", [Delete("jobs.batch", "high")], {
                "job/high": Expect("finished", conds={"Finished": "True/OwnerNotFound"}),
                "job/low": Expect("admitted", flavors={"cpu": "f"},
                                  conds={"Preempted": "False/QuotaReserved", "Requeued": "True/Preempted"})})]),
        QueueScenario(
            "deactivated-reserved", "quota reserved, its admission check pending; then deactivated", "lifecycle",
            _cq(checks=["gate"]), ["job/train"], [[job("train")]],
            {"job/train": Expect("reserved", flavors={"cpu": "f"}, checks={"gate": "Pending"})},
            setup=[*setup, admission_check("gate", active=True)],
            steps=[Step("deactivate the Workload (spec.active=false)", [deactivate("job/train")], {
                "job/train": Expect("inactive", conds={**DEACTIVATED, "Requeued": "False/Deactivated"})})]),
    ]


#: Kueue's configuration of the PodsReady world: a workload whose pods are not all ready 20 s after
#: admission is evicted (no pod ever runs here: there is no kubelet), then waits 600 s to be requeued;
#: and no workload is admitted while one that holds quota has pods that are not all ready
PODS_READY = {"waitForPodsReady": {"timeout": "20s", "blockAdmission": True,
                                   "requeuingStrategy": {"backoffBaseSeconds": 600}}}
#: what Kueue writes on a workload that fits while blockAdmission holds it back
WAITING_FOR_PODS = "waiting for all admitted workloads to be in PodsReady condition"


def pods_ready_scenarios() -> list[QueueScenario]:
    """The scenarios of the PodsReady world (its own Kueue configuration: every admitted workload
    there times out, and blocks every admission until then: the world holds one scenario, whose
    last step leaves nothing holding quota for the other version's world)."""
    return [QueueScenario(
        "podsready-timeout", "waitForPodsReady timeout 20s with blockAdmission: the admitted job's pods never get "
        "ready, so the next job, which fits, waits; the first is evicted and requeued after a 600 s backoff, then "
        "the next is admitted", "lifecycle", _cq(), ["job/train", "job/next"], [[job("train")], [job("next")]],
        {"job/train": admitted(cpu="f"), "job/next": pending(WAITING_FOR_PODS)}, setup=[flavor("f")],
        explain_first=True,
        steps=[Step("wait for the PodsReady timeout", [Await("job/train", "evicted", 90, "waitForPodsReady timeout 20s")], {
            "job/train": Expect("evicted", message="Exceeded the PodsReady timeout", requeue_at=True,
                                conds={"Evicted": "True/PodsReadyTimeout", "Requeued": "False/PodsReadyTimeout"}),
            "job/next": admitted(cpu="f")}),
            Step("delete both jobs (the next one before its own timeout)",
                 [Delete("jobs.batch", "next"), Delete("jobs.batch", "train")], {
                     "job/next": Expect("finished", conds={"Finished": "True/OwnerNotFound"}),
                     "job/train": Expect("finished", conds={"Finished": "True/OwnerNotFound"})})])]
