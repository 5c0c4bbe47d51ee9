"""Admission-check scenarios. The checks belong to a controller nothing runs
(``objects.NOBODY``): Kueue core never sets an AdmissionCheck ``Active``, so a check nobody
activates makes its ClusterQueue inactive. Where the scenario plays the controller it sets
``Active=True`` and the Workloads' check states through the status subresource.

With the check active, the Workload reserves quota and waits (QuotaReserved=True, no Admitted
condition); Ready admits it; Retry evicts it (reason AdmissionCheck) and it reserves again with
the check back to Pending, unless the check asks for requeueAfterSeconds: then Kueue only records
``requeueState.requeueAt`` and keeps the reservation until that time; Rejected deactivates it
(DeactivatedDueToAdmissionCheck). A check limited to one flavor (``onFlavors``) applies only to
workloads admitted on that flavor.
"""

from __future__ import annotations

from testenv.queue.actions import SetCheck
from testenv.queue.model import Expect, QueueScenario, Step, admitted, pending
from testenv.queue.objects import admission_check, flavor, group, job, pod, queue_spec, quota


def _cq(checks, flavors=(("f", "4"),)) -> dict:
    return queue_spec(group(["cpu"], *(quota(f, {"cpu": q}) for f, q in flavors)), checks=checks)


def _reserved(state: str = "Pending", **kw) -> Expect:
    return Expect("reserved", flavors={"cpu": "f"}, checks={"gate": state}, **kw)


def _played(sid: str, title: str, step: Step) -> QueueScenario:
    return QueueScenario(sid, title, "checks", _cq(["gate"]), ["job/train"], [[job("train")]],
                         {"job/train": _reserved()}, setup=[flavor("f"), admission_check("gate", active=True)],
                         steps=[step])


def scenarios() -> list[QueueScenario]:
    return [
        QueueScenario("check-inactive", "the ClusterQueue's check belongs to a controller that never activates it",
                      "checks", _cq(["gate"]), ["job/train"], [[job("train")]],
                      {"job/train": pending("ClusterQueue {cq} is inactive", cq="False/AdmissionCheckInactive")},
                      setup=[flavor("f"), admission_check("gate")]),
        QueueScenario("check-missing", "the ClusterQueue names an AdmissionCheck that does not exist", "checks",
                      _cq(["ghost"]), ["job/train"], [[job("train")]],
                      {"job/train": pending("ClusterQueue {cq} is inactive", cq="False/AdmissionCheckNotFound")},
                      setup=[flavor("f")]),
        QueueScenario("check-pending", "an active check the controller has not decided: quota reserved, not admitted",
                      "checks", _cq(["gate"]), ["job/train"], [[job("train")]], {"job/train": _reserved()},
                      setup=[flavor("f"), admission_check("gate", active=True)]),
        _played("check-ready", "the controller sets the check Ready: admitted",
                Step("set check gate Ready", [SetCheck("job/train", "gate", "Ready", "capacity found")],
                     {"job/train": admitted(checks={"gate": "Ready"}, cpu="f")})),
        _played("check-retry", "the controller sets the check Retry: evicted, requeued, reserved again with the "
                "check Pending", Step("set check gate Retry", [SetCheck("job/train", "gate", "Retry", "try again")],
                                      {"job/train": _reserved(conds={"Evicted": "False/QuotaReserved",
                                                                     "Requeued": "True/BackoffFinished"})})),
        _played("check-retry-backoff", "the controller sets Retry with requeueAfterSeconds 600: Kueue records "
                "requeueAt and keeps the reservation until then",
                Step("set check gate Retry, requeueAfterSeconds 600",
                     [SetCheck("job/train", "gate", "Retry", "no capacity yet", requeue_after=600)],
                     {"job/train": _reserved("Retry", requeue_at=True)})),
        _played("check-rejected", "the controller sets the check Rejected: the Workload is deactivated",
                Step("set check gate Rejected", [SetCheck("job/train", "gate", "Rejected", "not allowed")],
                     {"job/train": Expect("inactive", message="deactivated due to AdmissionCheck in Rejected state",
                                          conds={"Evicted": "True/DeactivatedDueToAdmissionCheck",
                                                 "Requeued": "False/DeactivatedDueToAdmissionCheck"})})),
        QueueScenario("check-on-flavors", "a check only on flavor big: a job admitted on small skips it, one "
                      "that lands on big waits for it", "checks", _cq([("gate", ["big"])], (("small", "1"), ("big", "4"))),
                      ["job/one", "job/two"], [[job("one", pod("1"))], [job("two", pod("2"))]],
                      {"job/one": admitted(checks={}, cpu="small"),
                       "job/two": Expect("reserved", flavors={"cpu": "big"}, checks={"gate": "Pending"})},
                      setup=[flavor("small"), flavor("big"), admission_check("gate", active=True)]),
    ]
