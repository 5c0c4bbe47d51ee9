"""What the scheduler allocated to a workload's pods (``kueue/allocation``), beside the charge:
claims found through the pod status, devices looked up in their slices, counters read."""

from kubectl_kueue_dra.kueue.allocation import allocations, overcharge


def pod(name, claims, statuses=(), extended=None):
    status = {"resourceClaimStatuses": [{"name": n, "resourceClaimName": c} for n, c in statuses]}
    if extended:
        status["extendedResourceClaimStatus"] = {"resourceClaimName": extended}
    return {"metadata": {"name": name}, "spec": {"resourceClaims": claims}, "status": status}


def claim(name, *results):
    return {"metadata": {"name": name},
            "status": {"allocation": {"devices": {"results": [
                {"request": r, "driver": "gpu.example.com", "pool": "node-1", "device": d} for r, d in results]}}}}


SLICE = {"spec": {"driver": "gpu.example.com", "pool": {"name": "node-1"}, "devices": [
    {"name": "mig-1g", "consumesCounters": [{"counterSet": "gpu-0", "counters": {"memory": {"value": "5Gi"}}}]},
    {"name": "mig-3g", "consumesCounters": [{"counterSet": "gpu-0", "counters": {"memory": {"value": "20Gi"}}}]},
    {"name": "whole"},
]}}


def test_allocations_follow_template_direct_and_extended_claims():
    pods = [pod("p-b", [{"name": "direct", "resourceClaimName": "shared"}]),
            pod("p-a", [{"name": "gpu", "resourceClaimTemplateName": "t"}], [("gpu", "p-a-gpu-x1")],
                extended="p-a-extended")]
    claims = [claim("p-a-gpu-x1", ("gpu", "mig-1g"), ("gpu", "mig-3g")), claim("shared"),
              claim("p-a-extended", ("container-0-request-0", "whole"))]
    out = allocations(pods, claims, [SLICE])
    assert [(a["pod"], a["podClaim"], a["device"], a["counters"], a["allocated"]) for a in out] == [
        ("p-a", "gpu", "gpu.example.com/node-1/mig-1g", {"memory": "5Gi"}, True),
        ("p-a", "gpu", "gpu.example.com/node-1/mig-3g", {"memory": "20Gi"}, True),
        ("p-a", "(extended resources)", "gpu.example.com/node-1/whole", {}, True),
        ("p-b", "direct", None, {}, False),  # the claim is not allocated (yet)
    ]
    assert overcharge(out, "memory", "20Gi") == ["gpu.example.com/node-1/mig-1g"]
    assert overcharge(out, "memory", "5Gi") == []


def test_a_claim_the_pod_status_does_not_name_yet_is_left_out():
    pods = [pod("p", [{"name": "gpu", "resourceClaimTemplateName": "t"}])]
    assert allocations(pods, [], [SLICE]) == []
