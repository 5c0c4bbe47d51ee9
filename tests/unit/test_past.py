"""Past admission (``kueue/workloads/past``): the scheduler's PodScheduled=False messages, split and
translated; free shared counters per GPU from the slices and every allocated claim; used up
versus fragmented."""

from kubectl_kueue_dra.kueue.workloads.past import counter_supply, counter_verdict, parse_fit_message, translate, \
    unscheduled_findings

# kube-scheduler's FitError texts as its framework formats them (pkg/scheduler/framework/types.go),
# with the DRA plugin's, NodeAffinity's and resourceclaim's reasons
ALL_CLAIMS = ("0/3 nodes are available: 3 cannot allocate all claims. preemption: 0/3 nodes are available: "
              "3 Preemption is not helpful for scheduling.")
MIXED = ("0/3 nodes are available: 1 cannot allocate all claims, 2 node(s) didn't match Pod's node "
         "affinity/selector. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.")
NOT_CREATED = ('0/2 nodes are available: pod "team-a/train-0": ResourceClaim not created yet. preemption: 0/2 '
               'nodes are available: 2 Preemption is not helpful for scheduling.')
NOT_FOUND = '0/2 nodes are available: resourceclaim.resource.k8s.io "shared-gpu" not found.'


def test_a_fit_error_splits_into_its_node_histogram_and_post_filter():
    fit = parse_fit_message(MIXED)
    assert fit.nodes == 3
    assert fit.reasons == [(1, "cannot allocate all claims"), (2, "node(s) didn't match Pod's node affinity/selector")]
    assert fit.post_filter == "preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."


def test_a_pre_filter_reason_is_one_reason_for_every_node():
    fit = parse_fit_message(NOT_CREATED)
    assert (fit.nodes, fit.reasons) == (2, [(None, 'pod "team-a/train-0": ResourceClaim not created yet')])
    assert parse_fit_message(NOT_FOUND).reasons == [(None, 'resourceclaim.resource.k8s.io "shared-gpu" not found')]
    assert parse_fit_message("binding rejected").nodes is None


def test_each_reason_translates_to_a_code():
    assert [translate(r)[0].name for _, r in parse_fit_message(MIXED).reasons] == [
        "DevicesUnavailable", "NodeSelectorUnmatched"]
    assert translate(parse_fit_message(NOT_CREATED).reasons[0][1])[0].name == "ClaimNotCreated"
    assert translate(parse_fit_message(NOT_FOUND).reasons[0][1])[0].name == "ClaimNotFound"
    assert translate("resourceclaim not available on the node")[0].name == "ClaimOnOtherNode"
    assert translate("request gpu: device class gpu.example.com does not exist")[0].name == "DeviceClassMissing"
    assert translate("Insufficient cpu")[0].name == "NodeResourcesInsufficient"
    assert translate("something new")[0].name == "Unschedulable"


def _gpu_slices(node, gpus):
    counters = {"driver": "gpu.example.com", "nodeName": node, "pool": {"name": node, "generation": 1,
                                                                         "resourceSliceCount": 2},
                "sharedCounters": [{"name": g, "counters": {"memory": {"value": "40Gi"}}} for g in gpus]}
    devices = {"driver": "gpu.example.com", "nodeName": node, "pool": {"name": node, "generation": 1,
                                                                        "resourceSliceCount": 2},
               "devices": [{"name": f"{g}-{size}", "consumesCounters": [
                   {"counterSet": g, "counters": {"memory": {"value": size}}}]}
                   for g in gpus for size in ("10Gi", "20Gi", "30Gi", "35Gi")]}
    return [{"metadata": {"name": f"{node}-counters"}, "spec": counters},
            {"metadata": {"name": f"{node}-devices"}, "spec": devices}]


def _held(name, node, device):
    return {"metadata": {"name": name}, "status": {"allocation": {"devices": {"results": [
        {"request": "gpu", "driver": "gpu.example.com", "pool": node, "device": device}]}}}}


SLICES = _gpu_slices("node-1", ["gpu-0"]) + _gpu_slices("node-2", ["gpu-0"])


def test_free_counters_are_what_every_allocated_claim_leaves():
    supply = counter_supply(SLICES, [_held("a", "node-1", "gpu-0-30Gi"), _held("b", "node-2", "gpu-0-20Gi"),
                                     _held("c", "node-2", "gpu-0-10Gi")])
    assert [(c.pool, c.name, c.node, str(c.free("memory"))) for c in supply] == [
        ("node-1", "gpu-0", "node-1", "10Gi"), ("node-2", "gpu-0", "node-2", "10Gi")]
    assert supply[0].free("cores") is None


def test_enough_in_the_cluster_but_not_on_one_gpu_is_fragmentation():
    supply = counter_supply(SLICES, [_held("a", "node-1", "gpu-0-30Gi"), _held("b", "node-2", "gpu-0-30Gi")])
    v = counter_verdict(supply, "gpu.example.com", "memory", "20Gi", 1)
    assert v is not None
    assert (v["verdict"], v["freeInCluster"], v["largestFree"], v["freePerNode"]) == (
        "fragmented", "20Gi", "10Gi", {"node-1": "10Gi", "node-2": "10Gi"})
    assert counter_verdict(supply, "gpu.example.com", "memory", "10Gi", 2) is None  # one 10Gi on each GPU fits


def test_too_little_in_the_cluster_is_exhausted():
    supply = counter_supply(SLICES, [_held("a", "node-1", "gpu-0-35Gi"), _held("b", "node-2", "gpu-0-35Gi")])
    v = counter_verdict(supply, "gpu.example.com", "memory", "20Gi", 1)
    assert v is not None and (v["verdict"], v["freeInCluster"]) == ("exhausted", "10Gi")
    assert counter_verdict(supply, "other.example.com", "memory", "20Gi", 1) is None


def _pending(name, message, pod_set="main"):
    return {"name": name, "podSet": pod_set, "phase": "Pending", "node": None,
            "scheduled": {"status": "False", "reason": "Unschedulable", "message": message}}


def test_unscheduled_pods_with_one_message_are_one_finding_with_the_numbers():
    supply = counter_supply(SLICES, [_held("a", "node-1", "gpu-0-30Gi"), _held("b", "node-2", "gpu-0-30Gi")])
    pods = [_pending("train-0", ALL_CLAIMS), _pending("train-1", ALL_CLAIMS),
            {"name": "train-2", "podSet": "main", "phase": "Running", "node": "node-1",
             "scheduled": {"status": "True"}}]
    [f] = unscheduled_findings(pods, {"main": [("gpu.example.com", "memory", "20Gi", 1)]}, supply)
    assert f["code"] == "DevicesUnavailable" and f["pods"] == ["train-0", "train-1"]
    assert "on 3 of 3 node(s) no set of free devices" in f["message"]
    assert "memory of gpu.example.com is fragmented" in f["message"]
    assert "20Gi memory is free in the cluster, at most 10Gi on one counter set" in f["message"]
    assert f["fix"].startswith("wait for devices on one GPU")
    assert f["message"].endswith(f"The scheduler says: {ALL_CLAIMS}")


def test_without_the_counters_there_is_no_verdict_and_other_reasons_keep_their_own_finding():
    pods = [_pending("a", ALL_CLAIMS), _pending("b", MIXED, "workers")]
    found = unscheduled_findings(pods, {"main": [("gpu.example.com", "memory", "20Gi", 1)]}, None)
    assert [(f["code"], f["counters"]) for f in found] == [("DevicesUnavailable", []), ("Unschedulable", [])]
    assert found[1]["reasons"] == ["DevicesUnavailable", "NodeSelectorUnmatched"]
    assert "fix the pod's nodeSelector" in found[1]["fix"]
