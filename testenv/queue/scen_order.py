"""Order and position scenarios: the visibility API's positions, StrictFIFO and BestEffortFIFO.

Inside a ClusterQueue Kueue orders pending workloads by priority, then by creation time (here
created a second apart), for both strategies. StrictFIFO keeps a head that does not fit at the
front and never evaluates the ones behind it (they have no QuotaReserved condition);
BestEffortFIFO moves it aside and admits what fits behind it. The positions are read from the
visibility API (``positionInClusterQueue``, ``positionInLocalQueue``, 0-based).
"""

from __future__ import annotations

from testenv.queue.actions import deactivate
from testenv.queue.model import Expect, QueueScenario, Step, admitted, pending, preempted
from testenv.queue.objects import flavor, group, job, local_queue, pod, queue_spec, quota, workload_priority_class


def _cq(cpu: str, **kw) -> dict:
    return queue_spec(group(["cpu"], quota("f", {"cpu": cpu})), **kw)


CLASSES = [workload_priority_class("low", 10), workload_priority_class("mid", 50), workload_priority_class("high", 100)]


def scenarios() -> list[QueueScenario]:
    fifo_waves = [[job("a", pod("1"))], [job("b", pod("2"))], [job("c", pod("1"))]]
    return [
        QueueScenario("strict-fifo-blocked", "StrictFIFO: head b (2 cpu) does not fit, c (1 cpu) would but waits "
                      "behind it, never evaluated", "order", _cq("2", strategy="StrictFIFO"), ["job/b", "job/c"],
                      fifo_waves, {"job/a": admitted(cpu="f"),
                                   "job/b": pending("insufficient unused quota for cpu", position=0),
                                   "job/c": Expect("pending", no_condition=True, position=1)},
                      setup=[flavor("f")]),
        QueueScenario("best-effort-fifo-skips", "BestEffortFIFO: head b (2 cpu) does not fit, c (1 cpu) behind it "
                      "is admitted", "order", _cq("2"), ["job/b", "job/c"], fifo_waves,
                      {"job/a": admitted(cpu="f"), "job/b": pending("insufficient unused quota for cpu", position=0),
                       "job/c": admitted(cpu="f")}, setup=[flavor("f")]),
        QueueScenario("priority-order", "three pending jobs created low, high, mid: the queue is high, mid, low",
                      "order", _cq("1"), ["job/low", "job/high", "job/mid"],
                      [[job("filler")], [job("low", priority="low")], [job("high", priority="high")],
                       [job("mid", priority="mid")]],
                      {"job/filler": admitted(cpu="f"), "job/high": pending(position=0),
                       "job/mid": pending(position=1), "job/low": pending(position=2)},
                      setup=[flavor("f"), *CLASSES]),
        QueueScenario("creation-order", "three pending jobs of one priority: the queue is their creation order",
                      "order", _cq("1"), ["job/first", "job/second", "job/third"],
                      [[job("filler")], [job("first")], [job("second")], [job("third")]],
                      {"job/filler": admitted(cpu="f"), "job/first": pending(position=0),
                       "job/second": pending(position=1), "job/third": pending(position=2)},
                      setup=[flavor("f")]),
        QueueScenario("two-local-queues", "pending jobs of two LocalQueues of one ClusterQueue: positions in the "
                      "ClusterQueue and in each LocalQueue", "order", _cq("1"), ["job/x1", "job/y1", "job/x2"],
                      [[job("filler")], [job("x1")], [job("y1", lq="lq-b")], [job("x2")]],
                      {"job/filler": admitted(cpu="f"), "job/x1": pending(position=0, lq_position=0),
                       "job/y1": pending(position=1, lq_position=0), "job/x2": pending(position=2, lq_position=1)},
                      setup=[flavor("f"), local_queue("lq-b")]),
        QueueScenario(
            "strict-fifo-preemptor-behind-head", "StrictFIFO: a preemptor waits behind a head that never fits; the "
            "head is deactivated and the preemptor preempts", "order",
            _cq("2", strategy="StrictFIFO", preemption={"withinClusterQueue": "LowerPriority"}),
            ["job/head", "job/preemptor", "job/victim"],
            [[job("victim", pod("2"), priority="low")], [job("head", pod("3"), priority="high")],
             [job("preemptor", pod("2"), priority="high")]],
            {"job/victim": admitted(cpu="f"), "job/head": pending("> maximum capacity (2)", position=0),
             "job/preemptor": Expect("pending", no_condition=True, position=1)},
            setup=[flavor("f"), *CLASSES], explain_first=True,
            steps=[Step("deactivate the head", [deactivate("job/head")], {
                "job/head": Expect("inactive", listed=False), "job/preemptor": admitted(cpu="f"),
                "job/victim": preempted("InClusterQueue", "job/preemptor")})]),
    ]
