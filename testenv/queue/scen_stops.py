"""Stop-policy scenarios, on the ClusterQueue and on the LocalQueue, before and after admission.

``Hold`` stops admitting (pending workloads read "ClusterQueue <cq> is inactive" / "LocalQueue
<lq> is inactive") and keeps what is admitted; ``HoldAndDrain`` also evicts the admitted ones
(reasons ClusterQueueStopped / LocalQueueStopped, ``Requeued=False``); back to ``None`` they are
requeued (``Requeued=True ClusterQueueRestarted``) and admitted again. A reservation whose checks
are still pending is cancelled by a stop. A stopped LocalQueue's workloads leave the visibility API.
"""

from __future__ import annotations

from testenv.queue.actions import Apply, stop_cluster_queue, stop_local_queue
from testenv.queue.model import Expect, QueueScenario, Step, admitted, pending
from testenv.queue.objects import admission_check, flavor, group, job, local_queue, queue_spec, quota


def _cq(**kw) -> dict:
    return queue_spec(group(["cpu"], quota("f", {"cpu": "4"})), **kw)


SETUP = [flavor("f")]
CQ_INACTIVE = "ClusterQueue {cq} is inactive"


def _after_admission(sid: str, title: str, steps: list[Step], subjects: tuple[str, ...] = ("job/a",)) -> QueueScenario:
    return QueueScenario(sid, title, "stops", _cq(), list(subjects), [[job("a")]], {"job/a": admitted(cpu="f")},
                         setup=SETUP, steps=steps)


def scenarios() -> list[QueueScenario]:
    drain = Step("ClusterQueue stopPolicy HoldAndDrain", [stop_cluster_queue("HoldAndDrain")], {
        "job/a": Expect("evicted", conds={"Evicted": "True/ClusterQueueStopped",
                                          "Requeued": "False/ClusterQueueStopped"})})
    return [
        QueueScenario("cq-hold-pending", "the ClusterQueue is created with stopPolicy Hold", "stops", _cq(stop="Hold"),
                      ["job/a"], [[job("a")]], {"job/a": pending(CQ_INACTIVE, cq="False/Stopped")}, setup=SETUP),
        _after_admission("cq-hold-after-admission", "stopPolicy Hold after admission: the admitted job keeps "
                         "running, a new one waits", [
                             Step("ClusterQueue stopPolicy Hold, then a new job b",
                                  [stop_cluster_queue("Hold"), Apply([job("b")])],
                                  {"job/a": admitted(cpu="f"), "job/b": pending(CQ_INACTIVE, cq="False/Stopped")})],
                         ("job/a", "job/b")),
        _after_admission("cq-drain-after-admission", "stopPolicy HoldAndDrain after admission: evicted, not "
                         "requeued", [drain]),
        _after_admission("cq-restart-after-drain", "drained, then stopPolicy None: requeued and admitted again", [
            drain, Step("ClusterQueue stopPolicy None", [stop_cluster_queue("None")], {
                "job/a": Expect("admitted", flavors={"cpu": "f"},
                                conds={"Requeued": "True/ClusterQueueRestarted", "Evicted": "False/QuotaReserved"})})]),
        QueueScenario("lq-hold-pending", "the LocalQueue is created with stopPolicy Hold", "stops", _cq(), ["job/a"],
                      [[job("a")]], {"job/a": pending("LocalQueue lq is inactive", listed=False)},
                      setup=[*SETUP, local_queue("lq", stop="Hold")], default_local_queue=False),
        _after_admission("lq-hold-after-admission", "LocalQueue stopPolicy Hold after admission: the admitted job "
                         "keeps running, a new one waits", [
                             Step("LocalQueue stopPolicy Hold, then a new job b",
                                  [stop_local_queue("lq", "Hold"), Apply([job("b")])],
                                  {"job/a": admitted(cpu="f"), "job/b": pending("LocalQueue lq is inactive")})],
                         ("job/a", "job/b")),
        _after_admission("lq-drain-after-admission", "LocalQueue stopPolicy HoldAndDrain after admission: evicted", [
            Step("LocalQueue stopPolicy HoldAndDrain", [stop_local_queue("lq", "HoldAndDrain")], {
                "job/a": Expect("evicted", conds={"Evicted": "True/LocalQueueStopped",
                                                  "Requeued": "False/LocalQueueStopped"})})]),
        QueueScenario("cq-hold-reserved", "quota reserved, its check pending; the ClusterQueue is stopped: the "
                      "reservation is cancelled", "stops", _cq(checks=["gate"]), ["job/a"], [[job("a")]],
                      {"job/a": Expect("reserved", flavors={"cpu": "f"}, checks={"gate": "Pending"})},
                      setup=[*SETUP, admission_check("gate", active=True)],
                      steps=[Step("ClusterQueue stopPolicy Hold", [stop_cluster_queue("Hold")],
                                  {"job/a": pending("ClusterQueue {cq} is", cq="False/Stopped")})]),
    ]
