"""The pending workloads of a ClusterQueue in Kueue's order, which of them Kueue's queues hold,
and where one stands (numbered as the visibility API numbers it).

Cases translate ``pkg/cache/queue/cluster_queue_test.go`` (``TestStrictFIFO``,
``TestFIFOClusterQueue``, ``TestSnapshotDeterministicOrder``) and
``pkg/visibility/storage/pending_workloads_cq_test.go`` (``TestPendingWorkloadsInCQ``) of Kueue,
named in the comments.
"""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from queue_model_helpers import world

from kubectl_kueue_dra.kueue.scheduler.queue_order import not_queued, pending, position
from testenv.queue.builders import at, cluster_queue, cond, flavor_quotas, group, local_queue, workload

CQ = cluster_queue("cqA", group(flavor_quotas("default", cpu="1")))
STRICT = cluster_queue("cqA", group(flavor_quotas("default", cpu="1")), strategy="StrictFIFO")


def order(*objs, version="0.19.2", **kw):
    return [q.name for q in pending(world(*objs, version=version, **kw), "cqA")]


def test_priority_first_then_creation():  # upstream TestPendingWorkloadsInCQ: "single ClusterQueue and two LocalQueue setup with four workloads and default query parameters"
    objs = [CQ, local_queue("lqA", "cqA", "foo"), local_queue("lqB", "cqA", "foo"),
            workload("lqA-high-prio", namespace="foo", queue="lqA", priority=100, created=at(0)),
            workload("lqA-low-prio", namespace="foo", queue="lqA", priority=50, created=at(0)),
            workload("lqB-high-prio", namespace="foo", queue="lqB", priority=100, created=at(0, 1)),
            workload("lqB-low-prio", namespace="foo", queue="lqB", priority=50, created=at(0, 1))]
    assert order(*objs) == ["lqA-high-prio", "lqB-high-prio", "lqA-low-prio", "lqB-low-prio"]
    w = world(*objs)
    positions = {n: position(w, next(o for o in objs if o["metadata"]["name"] == n))[0] for n in order(*objs)}
    assert [(p.in_cluster_queue, p.in_local_queue) for p in positions.values()] == [(0, 0), (1, 0), (2, 1), (3, 1)]


@pytest.mark.parametrize("case,w1,w2,timestamp,first", [
    # upstream TestStrictFIFO cases
    ("w1.priority is higher than w2.priority", {"priority": 100, "created": at(0)}, {"priority": 50, "created": at(1)},
     "Eviction", "w1"),
    ("w1.priority equals w2.priority and w1.create time is earlier", {"created": at(0)}, {"created": at(1)}, "Eviction", "w1"),
    ("w1 was evicted by the PodsReady timeout after w2 was created",
     {"created": at(0), "conditions": [cond("Evicted", reason="PodsReadyTimeout", at_=at(2))]}, {"created": at(1)},
     "Eviction", "w2"),
    ("same, but Kueue orders by creation time", {"created": at(0), "conditions": [cond("Evicted", reason="PodsReadyTimeout", at_=at(2))]},
     {"created": at(1)}, "Creation", "w1"),
    ("w1.priority is lower than w2.priority and w1 was created first", {"priority": 50, "created": at(0)},
     {"priority": 100, "created": at(1)}, "Eviction", "w2"),
    ("an admission-check eviction orders by the eviction time whatever the setting",
     {"created": at(0), "conditions": [cond("Evicted", reason="AdmissionCheck", at_=at(2))]}, {"created": at(1)},
     "Creation", "w2"),
])
def test_strict_fifo_head(case, w1, w2, timestamp, first):
    objs = [STRICT, local_queue("lq", "cqA"), workload("w1", **w1), workload("w2", **w2)]
    assert order(*objs, requeuing_timestamp=timestamp)[0] == first, case


def test_uid_breaks_ties():  # upstream TestSnapshotDeterministicOrder: "heap only"
    objs = [CQ, local_queue("foo", "cqA"), *(workload(f"wl{i}", queue="foo", uid=f"uid-{i}") for i in (3, 1, 2))]
    assert order(*objs) == ["wl1", "wl2", "wl3"]


def test_backoff_and_requeued_false_stay_listed():  # upstream TestSnapshotDeterministicOrder: "heap and inadmissible"
    waiting = [cond("Requeued", "False", reason="PodsReadyTimeout")]
    objs = [CQ, local_queue("foo", "cqA"), workload("wl1", queue="foo", uid="uid-1"), workload("wl2", queue="foo", uid="uid-2"),
            workload("wl3", queue="foo", uid="uid-3", conditions=waiting), workload("wl4", queue="foo", uid="uid-4", conditions=waiting)]
    assert order(*objs) == ["wl1", "wl2", "wl3", "wl4"]


def test_what_the_queues_do_not_hold():
    w = world(CQ, local_queue("lq", "cqA"), local_queue("held", "cqA", stop="Hold"))
    cases = {
        "it holds quota": workload("a", admitted_to="cqA", flavors={"cpu": "default"}),
        "it is finished": workload("b", conditions=[cond("Finished", reason="Succeeded")]),
        "it is deactivated (spec.active: false)": workload("c", active=False),
        "it is on hold": workload("d", conditions=[cond("QuotaReserved", "False", reason="OnHold")]),
        "its admission is gated (annotation kueue.x-k8s.io/admission-gated-by)":
            workload("e", annotations={"kueue.x-k8s.io/admission-gated-by": "me"}),
        "LocalQueue default/nope does not exist": workload("f", queue="nope"),
        "LocalQueue default/held is stopped": workload("g", queue="held"),
    }
    assert {why: not_queued(wl, w) for why, wl in cases.items()} == {why: why for why in cases}
    assert not_queued(workload("h"), w) is None


def test_admission_gate_only_with_the_gate():
    gated = workload("e", annotations={"kueue.x-k8s.io/admission-gated-by": "me"})
    assert not_queued(gated, world(CQ, local_queue("lq", "cqA"), version="0.18.4")) is None


def test_local_queue_position_is_per_namespace_in_019_and_per_name_in_018():
    objs = [CQ, local_queue("lq", "cqA", "a"), local_queue("lq", "cqA", "b"),
            workload("x", namespace="a", created=at(0)), workload("y", namespace="b", created=at(1))]
    y = objs[-1]
    assert position(world(*objs), y)[0].in_local_queue == 0
    old = position(world(*objs, version="0.18.4"), y)[0]
    assert old.in_local_queue == 1 and "by name only" in old.caveats[0]


def test_strict_fifo_names_the_blocking_head():
    objs = [STRICT, local_queue("lq", "cqA"), workload("head", created=at(0)), workload("me", created=at(1))]
    pos, why = position(world(*objs), objs[-1])
    assert why is None and pos.blocked_by.name == "head" and pos.in_cluster_queue == 1


def test_strict_fifo_head_out_of_the_heap_does_not_block():
    mismatch = cond("QuotaReserved", "False", reason="Pending", message="workload namespace doesn't match ClusterQueue selector")
    objs = [STRICT, local_queue("lq", "cqA"), workload("misplaced", created=at(0), conditions=[mismatch]),
            workload("backoff", created=at(1), conditions=[cond("Requeued", "False", reason="PodsReadyTimeout")]),
            workload("me", created=at(2))]
    pos, _ = position(world(*objs), objs[-1])
    assert pos.head.name == "misplaced" and pos.blocked_by is None and pos.in_cluster_queue == 2


def test_backoff_in_the_future_needs_the_time():
    later = workload("later", created=at(0))
    later["status"]["requeueState"] = {"count": 1, "requeueAt": "2026-01-01T01:00:00Z"}
    objs = [STRICT, local_queue("lq", "cqA"), later, workload("me", created=at(1))]
    pos, _ = position(world(*objs), objs[-1])
    assert pos.blocked_by.name == "later" and pos.caveats  # unknown whether the backoff is over
    pos, _ = position(world(*objs, now=datetime(2026, 1, 1, 0, 30, tzinfo=timezone.utc)), objs[-1])
    assert pos.blocked_by is None


def test_best_effort_waiting_preemptor_comes_first():
    preempting = cond("QuotaReserved", "False", reason="Pending",
                      message="couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor "
                              "default, 1 more needed. Pending the preemption of 1 workload(s)")
    objs = [CQ, local_queue("lq", "cqA"), workload("high", priority=10), workload("preemptor", conditions=[preempting])]
    assert order(*objs) == ["preemptor", "high"]
    assert order(STRICT, *objs[1:])[0] == "high"  # StrictFIFO keeps no sticky preemptor


def test_position_unknown_without_the_workloads():
    pos, why = position(world(CQ, workloads=None, unreadable={"Workload": "forbidden"}), workload("x"))
    assert pos is None and why == "the Workloads could not be read (forbidden)"


def test_admission_fair_sharing_order_is_not_modelled():
    cq = cluster_queue("cqA", group(flavor_quotas("default", cpu="1")))
    cq["spec"]["admissionScope"] = {"admissionMode": "UsageBasedAdmissionFairSharing"}
    me = workload("me")
    pos, why = position(world(cq, local_queue("lq", "cqA"), me, admission_fair_sharing=True), me)
    assert pos is None and "admission fair sharing" in why
