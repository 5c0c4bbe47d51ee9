"""The queue oracle's judge and expectations, on Workloads shaped as the real Kueue wrote them
(conditions and messages copied from a run of the queue scenarios against Kueue v0.19.2): an
explanation that tells Kueue's record agrees, and each way of telling it wrong is caught. So the
judge can pass as well as fail, and the live disagreements it reports are explain's."""

from __future__ import annotations

import copy

from testenv.queue.causes import cause, flavor_reasons
from testenv.queue.expect import problems
from testenv.queue.judge import QueueRow, judge
from testenv.queue.model import Expect, admitted, pending, preempted
from testenv.queue.observe import Observed, kueue_state

CQ = "cq-s-0192-1"
NS = "s-0192-1"


def wl(name: str, conds: list[tuple[str, str, str, str]], *, uid: str = "u-1", job: str | None = None,
       admission: dict | None = None, checks: list[dict] | None = None, active: bool | None = None,
       requeue: dict | None = None) -> dict:
    meta = {"name": name, "namespace": NS, "uid": uid}
    if job:
        meta["ownerReferences"] = [{"kind": "Job", "name": job, "uid": "j-" + uid}]
    status: dict = {"conditions": [{"type": t, "status": s, "reason": r, "message": m} for t, s, r, m in conds]}
    if admission:
        status["admission"] = admission
    if checks is not None:
        status["admissionChecks"] = checks
    if requeue:
        status["requeueState"] = requeue
    spec: dict = {"queueName": "lq"}
    if active is not None:
        spec["active"] = active
    return {"metadata": meta, "spec": spec, "status": status}


def adm(flavor: str) -> dict:
    return {"clusterQueue": CQ, "podSetAssignments": [{"name": "main", "count": 1, "flavors": {"cpu": flavor},
                                                       "resourceUsage": {"cpu": "1"}}]}


CQ_OBJ = {"metadata": {"name": CQ}, "spec": {"resourceGroups": [{"coveredResources": ["cpu"], "flavors": [
    {"name": f"{CQ}-ondemand"}, {"name": f"{CQ}-spot"}]}], "preemption": {"withinClusterQueue": "LowerPriority"}},
          "status": {"conditions": [{"type": "Active", "status": "True", "reason": "Ready"}]}}
LQ_OBJ = {"metadata": {"name": "lq", "namespace": NS}, "spec": {"clusterQueue": CQ}}
ADMITTED = [("QuotaReserved", "True", "QuotaReserved", f"Quota reserved in ClusterQueue {CQ}"),
            ("Admitted", "True", "Admitted", "The workload is admitted")]
AFFINITY = (f"couldn't assign flavors to pod set main: flavor {CQ}-ondemand doesn't match node affinity, "
            f"untolerated taint {{spot true NoSchedule <nil>}} in flavor {CQ}-spot")
PREEMPTED = ("Preempted to accommodate a workload (UID: u-high, JobUID: j-u-high) due to prioritization in the "
             f"ClusterQueue; preemptor path: /{CQ}; preemptee path: /{CQ}")


def observed(*workloads: dict, subjects: dict[str, dict] | None = None, positions: dict | None = None) -> Observed:
    return Observed(0, subjects or {}, list(workloads), {CQ: CQ_OBJ}, {"lq": LQ_OBJ}, positions or {})


def row() -> QueueRow:
    return QueueRow("s", "flavors", "job/train", 0, True, "v0.19.2", "t")


def test_the_flavor_reasons_of_a_message_are_read_one_by_one():
    assert flavor_reasons(AFFINITY) == [
        ("NodeAffinityMismatch", f"flavor {CQ}-ondemand doesn't match node affinity"),
        ("UntoleratedTaint", f"untolerated taint {{spot true NoSchedule <nil>}} in flavor {CQ}-spot")]
    quota = (f"couldn't assign flavors to pod set main: insufficient quota for cpu in flavor {CQ}-a, previously "
             "considered podsets requests (0) + current podset request (2) > maximum capacity (1), insufficient "
             f"unused quota for cpu in flavor {CQ}-b, 1 more needed")
    assert [c for c, _ in flavor_reasons(quota)] == ["ExceedsQuota", "QuotaExhausted"]


def test_an_admitted_workload_told_truly_agrees_and_each_lie_is_caught():
    w = wl("job-train-1", ADMITTED, job="train", admission=adm(f"{CQ}-spot"))
    obs = observed(w, subjects={"job/train": w})
    doc = {"state": "Admitted", "reason": "Admitted", "admitted": True, "dra": {"message": None},
           "podSets": [{"name": "main", "flavors": {"cpu": f"{CQ}-spot"}, "flavorsSource": "recorded",
                        "flavorsTried": [
                            {"resourceGroup": 0, "flavor": f"{CQ}-ondemand", "outcome": "noFit", "chosen": False,
                             "reasons": [{"code": "NodeAffinityMismatch"}]},
                            {"resourceGroup": 0, "flavor": f"{CQ}-spot", "outcome": "fit", "chosen": True}]}],
           "eviction": None, "preemption": None, "admissionChecks": [], "position": None, "findings": []}
    assert judge(row(), w, obs, [obs], doc, "").agree
    lies = {
        "flavor": lambda d: d["podSets"][0].update(flavors={"cpu": f"{CQ}-ondemand"}),
        "pick": lambda d: d["podSets"][0]["flavorsTried"][0].update(chosen=True),
        "dra": lambda d: d["dra"].update(message="DeviceClass x is not mapped"),
        "waiting": lambda d: d["findings"].append({"code": "QuotaExhausted", "severity": "error"}),
        "state": lambda d: d.update(state="Pending"),
        "position": lambda d: d.update(position={"clusterQueue": 0, "localQueue": 0}),
    }
    for name, lie in lies.items():
        bad = copy.deepcopy(doc)
        lie(bad)
        assert not judge(row(), w, obs, [obs], bad, "").agree, name


def test_a_pending_workload_needs_the_cause_and_kueues_reasons():
    w = wl("job-train-1", [("QuotaReserved", "False", "Pending", AFFINITY)], job="train")
    obs = observed(w, subjects={"job/train": w}, positions={"job-train-1": {"clusterQueue": 0, "localQueue": 0}})
    texts = [t for _, t in flavor_reasons(AFFINITY)]
    doc = {"state": "Pending", "reason": "NodeAffinityMismatch", "admitted": False, "dra": {},
           "podSets": [{"name": "main", "flavors": None, "flavorsTried": [
               {"resourceGroup": 0, "flavor": f"{CQ}-ondemand", "outcome": "noFit",
                "reasons": [{"code": "NodeAffinityMismatch", "message": texts[0]}]},
               {"resourceGroup": 0, "flavor": f"{CQ}-spot", "outcome": "noFit",
                "reasons": [{"code": "UntoleratedTaint", "message": texts[1]}]}]}],
           "position": {"clusterQueue": 0, "localQueue": 0}, "findings": []}
    assert judge(row(), w, obs, [obs], doc, "").agree
    silent = copy.deepcopy(doc)
    silent["reason"] = None
    assert "CONTRADICTION" in judge(row(), w, obs, [obs], silent, "").why
    said_admitted = copy.deepcopy(doc)
    said_admitted["admitted"] = True
    assert "CONTRADICTION" in judge(row(), w, obs, [obs], said_admitted, "").why
    other_text = copy.deepcopy(doc)
    other_text["podSets"][0]["flavorsTried"][1]["reasons"][0]["message"] = "untolerated taint {spot true} in flavor x"
    assert "flavor reasons" in judge(row(), w, obs, [obs], other_text, "").why
    no_code = copy.deepcopy(doc)
    no_code["podSets"][0]["flavorsTried"][1]["reasons"] = []
    assert "not stated" in judge(row(), w, obs, [obs], no_code, "").why


def test_a_victim_and_its_preemptor():
    victim = wl("job-low-1", [("Evicted", "True", "Preempted", PREEMPTED), ("Preempted", "True", "InClusterQueue",
                                                                             PREEMPTED),
                              ("Requeued", "True", "Preempted", PREEMPTED),
                              ("QuotaReserved", "False", "Pending", PREEMPTED)], uid="u-low", job="low")
    high = wl("job-high-1", ADMITTED, uid="u-high", job="high", admission=adm(f"{CQ}-spot"))
    obs = observed(victim, high, subjects={"job/low": victim, "job/high": high})
    assert kueue_state(victim) == "evicted"
    assert problems(preempted("InClusterQueue", "job/high", conds={"Requeued": "True/Preempted"}), obs, "job/low", CQ) == []
    assert problems(preempted("InClusterQueue", "job/other"), obs, "job/low", CQ) != []
    doc = {"state": "Pending", "reason": "Preempted", "admitted": False, "podSets": [],
           "eviction": {"reason": "Preempted", "active": True, "requeued": True},
           "preemption": {"role": "victim", "reason": "InClusterQueue",
                          "preemptor": {"uid": "u-high", "namespace": NS, "name": "job-high-1"}}, "findings": []}
    assert judge(row(), victim, obs, [obs], doc, "").agree
    wrong = copy.deepcopy(doc)
    wrong["preemption"]["preemptor"] = {"uid": "u-x", "name": "job-x"}
    assert not judge(row(), victim, obs, [obs], wrong, "").agree
    # the preemptor explained while it was still pending: its predicted targets are the victims
    pending_high = wl("job-high-1", [("QuotaReserved", "False", "Inadmissible", "LocalQueue held is inactive")],
                      uid="u-high", job="high")
    before = observed(pending_high, subjects={"job/high": pending_high})
    said = {"state": "Pending", "reason": "LocalQueueStopped", "admitted": False, "podSets": [], "findings": [],
            "preemption": {"role": "preemptor", "possible": True, "targets": [{"namespace": NS, "name": "job-low-1"}]}}
    assert judge(row(), pending_high, before, [before, obs], said, "").agree
    said["preemption"]["targets"] = []
    assert "predicted targets" in judge(row(), pending_high, before, [before, obs], said, "").why


def test_expectations_check_states_checks_and_positions():
    reserved = wl("job-a-1", [("QuotaReserved", "True", "QuotaReserved", "Quota reserved")], job="a",
                  admission=adm(f"{CQ}-f"), checks=[{"name": f"{CQ}-gate", "state": "Pending"}])
    obs = observed(reserved, subjects={"job/a": reserved})
    assert problems(Expect("reserved", flavors={"cpu": "f"}, checks={"gate": "Pending"}), obs, "job/a", CQ) == []
    assert problems(admitted(cpu="f"), obs, "job/a", CQ) == ["state reserved, want admitted"]
    blocked = wl("job-c-1", [], job="c")
    obs = observed(blocked, subjects={"job/c": blocked}, positions={"job-c-1": {"clusterQueue": 1, "localQueue": 1}})
    assert problems(Expect("pending", no_condition=True, position=1), obs, "job/c", CQ) == []
    assert problems(pending(position=0), obs, "job/c", CQ) == ["position 1 in the ClusterQueue, want 0"]
    inactive = wl("w", [("Evicted", "True", "Deactivated", "The workload is deactivated")], active=False)
    assert kueue_state(inactive) == "inactive"
    assert cause(inactive, observed(inactive)).reasons == {"Inactive", "Deactivated"}


def test_a_quote_of_kueue_must_be_kueues_words():
    w = wl("job-train-1", [("QuotaReserved", "False", "Pending", AFFINITY)], job="train")
    obs = observed(w, subjects={"job/train": w})
    doc = {"state": "Pending", "reason": "NodeAffinityMismatch", "admitted": False, "podSets": [],
           "findings": [{"code": "NodeAffinityMismatch", "severity": "error", "kueueMessage": AFFINITY},
                        {"code": "UntoleratedTaint", "severity": "error"}]}
    assert judge(row(), w, obs, [obs], doc, "").agree
    doc["findings"][0]["kueueMessage"] = AFFINITY.replace("ondemand", "spot")
    assert "not a message Kueue wrote" in judge(row(), w, obs, [obs], doc, "").why


def test_a_preemptor_waiting_for_its_victim():
    waiting = (f"couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor {CQ}-f, 2 more "
               "needed. Pending the preemption of 1 workload(s)")
    high = wl("job-high-1", [("QuotaReserved", "False", "Pending", waiting)], uid="u-high", job="high")
    victim = wl("victim", [*ADMITTED, ("Evicted", "True", "Preempted", PREEMPTED),
                           ("Preempted", "True", "InClusterQueue", PREEMPTED)], uid="u-v", admission=adm(f"{CQ}-f"))
    obs = observed(high, victim, subjects={"job/high": high})
    assert kueue_state(victim) == "evicting"
    texts = [t for _, t in flavor_reasons(waiting)]
    doc = {"state": "Pending", "reason": "Preempting", "admitted": False, "findings": [],
           "podSets": [{"name": "main", "flavorsTried": [{"resourceGroup": 0, "flavor": f"{CQ}-f", "outcome": "preempt",
                                                          "reasons": [{"code": "QuotaExhausted", "message": texts[0]}]}]}],
           "queue": {"verdict": {"message": waiting}},
           "preemption": {"role": "preemptor", "possible": True, "targets": [{"namespace": NS, "name": "victim"}],
                          "waitingFor": [{"namespace": NS, "name": "victim"}]}}
    assert judge(row(), high, obs, [obs], doc, "").agree, judge(row(), high, obs, [obs], doc, "").why
    # the step then deletes the victim: it was preempted all the same
    gone = observed(wl("job-high-1", ADMITTED, uid="u-high", job="high", admission=adm(f"{CQ}-f")))
    assert judge(row(), high, obs, [obs, gone], doc, "").agree
    for lie in ({"possible": False}, {"waitingFor": []}, {"targets": []}):
        bad = copy.deepcopy(doc)
        bad["preemption"].update(lie)
        assert not judge(row(), high, obs, [obs], bad, "").agree, lie
    bad = copy.deepcopy(doc)
    bad["queue"]["verdict"]["message"] = waiting.replace("2 more", "1 more")
    assert "predicted message" in judge(row(), high, obs, [obs], bad, "").why


def test_a_stale_message_may_differ_when_explain_says_so():
    old = f"couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor {CQ}-f, 1 more needed"
    now = old.replace("1 more", "2 more")
    w = wl("job-b-1", [("QuotaReserved", "False", "Pending", old)], job="b")
    obs = observed(w, subjects={"job/b": w})
    doc = {"state": "Pending", "reason": "QuotaExhausted", "admitted": False, "podSets": [],
           "queue": {"verdict": {"message": now}}, "findings": [{"code": "QuotaExhausted", "severity": "error"}]}
    assert "does not say they differ" in judge(row(), w, obs, [obs], doc, "").why
    doc["queue"]["verdict"]["matchesKueue"] = False
    assert judge(row(), w, obs, [obs], doc, "").agree


def test_a_requeued_victim_may_be_told_preempted_with_the_quota_cause():
    waiting = f"couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor {CQ}-f, 2 more needed"
    victim = wl("job-low-1", [("Evicted", "True", "Preempted", PREEMPTED), ("Preempted", "True", "InClusterQueue",
                                                                             PREEMPTED),
                              ("Requeued", "True", "Preempted", PREEMPTED),
                              ("QuotaReserved", "False", "Pending", waiting)], uid="u-low", job="low")
    obs = observed(victim, subjects={"job/low": victim})
    assert cause(victim, obs).reasons == {"QuotaExhausted", "NoPreemptionCandidates", "Preempted"}
    assert cause(victim, obs).required == {"QuotaExhausted"}


def test_after_a_change_the_pick_may_differ_but_flavors_agree_must_say_so():
    """Admitted with a mapping since renamed: Kueue's record names example.com/accel, the model
    charges (and searches flavors for) the new name."""
    w = wl("job-train-1", ADMITTED, job="train", admission={"clusterQueue": CQ, "podSetAssignments": [
        {"name": "main", "count": 1, "flavors": {"cpu": f"{CQ}-ondemand", "example.com/accel": f"{CQ}-ondemand"}}]})
    cq = copy.deepcopy(CQ_OBJ)
    cq["spec"]["resourceGroups"][0]["coveredResources"] = ["cpu", "example.com/accel"]
    obs = Observed(0, {"job/train": w}, [w], {CQ: cq}, {"lq": LQ_OBJ}, {})
    recorded = {"cpu": f"{CQ}-ondemand", "example.com/accel": f"{CQ}-ondemand"}
    doc = {"state": "Admitted", "reason": "Admitted", "admitted": True, "findings": [], "flavorsAgree": False,
           "podSets": [{"name": "main", "flavors": recorded, "flavorsSource": "recorded",
                        "charge": {"cpu": "100m", "example.com/accel-v2": "1"},
                        "flavorsTried": [{"resourceGroup": 0, "flavor": f"{CQ}-ondemand", "chosen": True}]}]}
    assert judge(row(), w, obs, [obs], doc, "", drift=True).agree
    assert "model picks" in judge(row(), w, obs, [obs], doc, "", drift=False).why
    doc["flavorsAgree"] = True
    assert "flavorsAgree True" in judge(row(), w, obs, [obs], doc, "", drift=True).why
