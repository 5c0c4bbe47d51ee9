"""What the scheduler allocated to a workload's pods (``kueue/workloads/allocation``), beside the charge:
claims found through the pod status, devices looked up in their slices, counters read."""

from kubectl_kueue_dra.kueue.workloads.allocation import allocations, overcharge, pod_state


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
    assert overcharge(out, "memory", "20Gi") == [("gpu.example.com/node-1/mig-1g", "5Gi")]
    assert overcharge(out, "memory", "5Gi") == []


def test_a_claim_the_pod_status_does_not_name_yet_is_left_out():
    pods = [pod("p", [{"name": "gpu", "resourceClaimTemplateName": "t"}])]
    assert allocations(pods, [], [SLICE]) == []


def test_unreadable_claims_leave_allocated_and_reserved_unknown():
    pods = [pod("p-b", [{"name": "direct", "resourceClaimName": "shared"}])]
    assert [(a["allocated"], a["reserved"]) for a in allocations(pods, None, [SLICE])] == [(None, None)]
    held = claim("shared")
    held["status"] = dict(held.get("status") or {}, reservedFor=[{"resource": "pods", "name": "p-b"}])
    assert [(a["allocated"], a["reserved"]) for a in allocations(pods, [held], [SLICE])] == [(False, True)]


def test_unreadable_slices_leave_the_counters_unknown_not_empty():
    pods = [pod("p-a", [{"name": "gpu", "resourceClaimTemplateName": "t"}], [("gpu", "p-a-gpu-x1")])]
    out = allocations(pods, [claim("p-a-gpu-x1", ("gpu", "mig-1g"))], None)
    assert [(a["device"], a["counters"], a["allocated"]) for a in out] == [
        ("gpu.example.com/node-1/mig-1g", None, True)]
    assert overcharge(out, "memory", "20Gi") == []  # unknown is not "consumes less"


def _slice(generation, *devices, count=1):
    return {"spec": {"driver": "gpu.example.com", "pool": {"name": "node-1", "generation": generation,
                                                            "resourceSliceCount": count},
                     "nodeName": "node-1", "devices": list(devices)}}


def test_a_device_is_looked_up_in_its_pools_current_generation():
    old = _slice(1, {"name": "mig-1g", "consumesCounters": [{"counterSet": "gpu-0",
                                                             "counters": {"memory": {"value": "40Gi"}}}]},
                 {"name": "gone"})
    new = _slice(2, {"name": "mig-1g", "consumesCounters": [{"counterSet": "gpu-0",
                                                             "counters": {"memory": {"value": "5Gi"}}}]})
    pods = [pod("p", [{"name": "gpu", "resourceClaimName": "c"}])]
    out = allocations(pods, [claim("c", ("gpu", "mig-1g"), ("gpu", "gone"), ("gpu", "never"))], [old, new])
    assert [(a["device"], a["generation"], a["counters"], a["node"]) for a in out] == [
        ("gpu.example.com/node-1/mig-1g", "current", {"memory": "5Gi"}, "node-1"),  # not the old slice's 40Gi
        ("gpu.example.com/node-1/gone", "stale", None, None),
        ("gpu.example.com/node-1/never", "missing", None, None),
    ]


def test_pod_state_reads_phase_node_pod_set_and_podscheduled():
    p = {"metadata": {"name": "p", "labels": {"kueue.x-k8s.io/podset": "main"}}, "spec": {},
         "status": {"phase": "Pending", "conditions": [
             {"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
              "message": "0/2 nodes are available: 2 cannot allocate all claims."}]}}
    assert pod_state(p) == {"name": "p", "podSet": "main", "phase": "Pending", "node": None, "scheduled": {
        "status": "False", "reason": "Unschedulable", "message": "0/2 nodes are available: 2 cannot allocate all claims."}}
