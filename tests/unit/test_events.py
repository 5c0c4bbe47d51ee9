"""The recent events of the Workload, its Job and its pods (``kueue/workloads/events``): kept by the
object they are about, merged when repeated, newest last."""

from kubectl_kueue_dra.kueue.workloads.events import related_events


def _obj(name, uid):
    return {"metadata": {"name": name, "uid": uid}}


def _event(kind, name, reason, message, when, *, uid=None, count=None, type_="Normal"):
    e = {"metadata": {"name": f"{name}.{when}"}, "involvedObject": {"kind": kind, "name": name},
         "type": type_, "reason": reason, "message": message, "lastTimestamp": when}
    if uid:
        e["involvedObject"]["uid"] = uid
    if count:
        e["count"] = count
    return e


def test_events_of_the_objects_merged_and_newest_last():
    objects = [("Workload", _obj("job-train-1a2b", "w1")), ("Job", _obj("train", "j1")), ("Pod", _obj("train-0", "p1"))]
    events = [
        _event("Pod", "train-0", "FailedScheduling", "0/3 nodes are available: 3 cannot allocate all claims.",
               "2026-01-01T10:05:00Z", uid="p1", count=3, type_="Warning"),
        _event("Workload", "job-train-1a2b", "QuotaReserved", "Quota reserved in ClusterQueue gpus",
               "2026-01-01T10:00:00Z", uid="w1"),
        _event("Pod", "train-0", "FailedScheduling", "0/3 nodes are available: 3 cannot allocate all claims.",
               "2026-01-01T10:09:00Z", uid="p1", count=2, type_="Warning"),
        _event("Job", "train", "SuccessfulCreate", "Created pod: train-0", "2026-01-01T10:01:00Z"),
        _event("Pod", "train-0", "Scheduled", "an earlier pod of the same name", "2026-01-01T09:00:00Z", uid="old"),
        _event("Pod", "other-0", "Scheduled", "someone else's pod", "2026-01-01T10:02:00Z"),
        _event("Job", "train-0", "SuccessfulCreate", "a Job named like the pod", "2026-01-01T10:02:00Z"),
    ]
    out = related_events(events, objects)
    assert [(e["object"], e["reason"], e["count"], e["lastSeen"]) for e in out] == [
        ("Workload/job-train-1a2b", "QuotaReserved", 1, "2026-01-01T10:00:00Z"),
        ("Job/train", "SuccessfulCreate", 1, "2026-01-01T10:01:00Z"),
        ("Pod/train-0", "FailedScheduling", 5, "2026-01-01T10:09:00Z"),
    ]


def test_events_v1_series_and_event_time_count():
    e = {"metadata": {"name": "x", "creationTimestamp": "2026-01-01T00:00:00Z"},
         "involvedObject": {"kind": "Pod", "name": "p"}, "type": "Normal", "reason": "Pulled", "message": "m",
         "eventTime": "2026-01-01T00:00:01.000000Z",
         "series": {"count": 4, "lastObservedTime": "2026-01-01T00:03:00.000000Z"}}
    [out] = related_events([e], [("Pod", _obj("p", "u"))])
    assert (out["count"], out["lastSeen"]) == (4, "2026-01-01T00:03:00.000000Z")
