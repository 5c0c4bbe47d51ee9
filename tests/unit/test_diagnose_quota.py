"""Quota verdicts explain predicts from the ClusterQueue, and the finding codes of Kueue's messages
(the scheduler's, and the DRA errors seen on the real Kueue in the oracle runs)."""

import pytest

from kubectl_kueue_dra.kueue.diagnose import cause_of, quota_findings


def cq(quota, reserved=None, cohort=None, borrowing=None, flavors=("default-flavor",)):
    res = [{"name": n, "nominalQuota": q, **({"borrowingLimit": borrowing} if borrowing else {})}
           for n, q in quota.items()]
    spec = {"resourceGroups": [{"coveredResources": list(quota),
                                "flavors": [{"name": f, "resources": res} for f in flavors]}]}
    if cohort:
        spec["cohortName"] = cohort
    status = {"flavorsReservation": [{"name": flavors[0], "resources": [
        {"name": n, "total": t} for n, t in (reserved or {}).items()]}]}
    return {"metadata": {"name": "cq"}, "spec": spec, "status": status}


def codes(findings):
    return [f["code"] for f in findings]


def test_more_than_nominal_exceeds_quota():
    found = quota_findings(cq({"example.com/gpu": "2"}), {"example.com/gpu": 4}, set())
    assert codes(found) == ["ExceedsQuota"] and found[0]["predicted"]
    assert "needs 4 of example.com/gpu" in found[0]["message"]


def test_more_than_unused_waits():
    found = quota_findings(cq({"example.com/gpu": "4"}, {"example.com/gpu": "3"}), {"example.com/gpu": 3}, set())
    assert codes(found) == ["QuotaExhausted"]
    assert "has 1 of 4 unused" in found[0]["message"]


def test_fits_and_binary_rendering():
    assert quota_findings(cq({"gpu.memory": "40Gi"}), {"gpu.memory": 20 * 2**30}, {"gpu.memory"}) == []
    found = quota_findings(cq({"gpu.memory": "20Gi"}), {"gpu.memory": 39 * 2**30}, {"gpu.memory"})
    assert codes(found) == ["ExceedsQuota"] and "needs 39Gi of gpu.memory" in found[0]["message"]


def test_cohort_without_borrowing_limit_is_not_predicted():
    assert quota_findings(cq({"example.com/gpu": "2"}, cohort="all"), {"example.com/gpu": 4}, set()) == []
    found = quota_findings(cq({"example.com/gpu": "2"}, cohort="all", borrowing="1"), {"example.com/gpu": 4}, set())
    assert codes(found) == ["ExceedsQuota"]


def test_several_flavors_are_not_predicted():
    assert quota_findings(cq({"example.com/gpu": "2"}, flavors=("a", "b")), {"example.com/gpu": 4}, set()) == []


@pytest.mark.parametrize("message,code", [
    ("couldn't assign flavors to pod set main: insufficient quota for example.com/gpu in flavor default-flavor, "
     "previously considered podsets requests (0) + current podset request (4) > maximum capacity (2)", "ExceedsQuota"),
    ("couldn't assign flavors to pod set main: insufficient unused quota for example.com/gpu in flavor "
     "default-flavor, 2 more needed", "QuotaExhausted"),
    ("couldn't assign flavors to pod set main: resource example.com/gpu unavailable in ClusterQueue",
     "ResourceNotCovered"),
    ('spec.podSets[0].template.spec.resourceClaims[0].devices.requests[0]: Internal error: failed to get '
     'DeviceClass ghost-mig.nvidia.com: DeviceClass.resource.k8s.io "ghost-mig.nvidia.com" not found',
     "DeviceClassMissing"),
])
def test_kueue_messages_map_to_codes(message, code):
    assert cause_of(message)[0] == code
