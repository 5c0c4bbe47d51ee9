"""Devices outside Kueue's accounting (``kueue/charge/unaccounted``): claims held by pods no admitted
Workload accounts for, or in classes Kueue does not map, counted per driver and named."""

from kubectl_kueue_dra.kube.snapshot import SnapshotView
from kubectl_kueue_dra.kueue.charge.unaccounted import read_uncharged, uncharged_devices, uncharged_findings
from kubectl_kueue_dra.kueue.config.mappings import Mapping

MAPPINGS = [Mapping("example.com/gpu", ("gpu.example.com",))]
CLASSES = [{"metadata": {"name": "gpu.example.com"}}, {"metadata": {"name": "fpga.example.com"}}]


def _pod(ns, name, uid, owner=None, labels=None):
    meta = {"namespace": ns, "name": name, "uid": uid, "labels": labels or {}}
    if owner:
        meta["ownerReferences"] = [{"kind": "Job", "name": "j", "uid": owner, "controller": True}]
    return {"kind": "Pod", "apiVersion": "v1", "metadata": meta, "spec": {}}


def _claim(ns, name, holder, devices, device_class="gpu.example.com"):
    return {"kind": "ResourceClaim", "apiVersion": "resource.k8s.io/v1",
            "metadata": {"namespace": ns, "name": name},
            "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": device_class}}]}},
            "status": {"reservedFor": [{"resource": "pods", "name": holder, "uid": "x"}] if holder else [],
                       "allocation": {"devices": {"results": [
                           {"request": "gpu", "driver": "gpu.example.com", "pool": "node-1", "device": d}
                           for d in devices]}}}}


def _workload(ns, owner, admitted=True):
    return {"kind": "Workload", "apiVersion": "kueue.x-k8s.io/v1beta2",
            "metadata": {"namespace": ns, "name": f"wl-{owner}",
                         "ownerReferences": [{"kind": "Job", "name": "j", "uid": owner, "controller": True}]},
            "status": {"conditions": [{"type": "Admitted", "status": "True" if admitted else "False"}]}}


PODS = [_pod("team-a", "charged-0", "p1", owner="job-a"), _pod("team-a", "waiting-0", "p2", owner="job-b"),
        _pod("lab", "notebook", "p3"), _pod("team-a", "jobset-0", "p4", labels={"kueue.x-k8s.io/podset": "main"})]
CLAIMS = [_claim("team-a", "c1", "charged-0", ["gpu-0", "gpu-1"]),
          _claim("team-a", "c2", "waiting-0", ["gpu-2"]),
          _claim("lab", "c3", "notebook", ["gpu-3", "gpu-4", "gpu-5"]),
          _claim("team-a", "c4", "jobset-0", ["gpu-6"]),
          _claim("team-a", "c5", "charged-0", ["fpga-0"], device_class="fpga.example.com"),
          _claim("team-a", "c6", None, ["gpu-7"])]  # allocated, no pod holds it: not counted here
WORKLOADS = [_workload("team-a", "job-a"), _workload("team-a", "job-b", admitted=False)]


def test_devices_of_pods_no_admitted_workload_accounts_for_and_of_unmapped_classes():
    found = uncharged_devices(CLAIMS, PODS, WORKLOADS, CLASSES, MAPPINGS)
    assert [(d["claim"], d["device"], d["reason"]) for d in found.devices] == [
        ("c2", "gpu-2", "no admitted Workload"),
        ("c3", "gpu-3", "no admitted Workload"), ("c3", "gpu-4", "no admitted Workload"),
        ("c3", "gpu-5", "no admitted Workload"),
        ("c5", "fpga-0", "class fpga.example.com not mapped")]
    assert found.summaries() == [
        "5 device(s) of gpu.example.com are allocated to pods Kueue does not charge: 3 in lab (no admitted "
        "Workload: notebook), 1 in team-a (class fpga.example.com not mapped: charged-0), 1 in team-a (no "
        "admitted Workload: waiting-0)"]
    [f] = uncharged_findings(found, "kubectl kueue-dra map set fpga --device-class fpga.example.com")
    assert (f["severity"], f["code"]) == ("warning", "UnchargedDevices")
    # both reasons: the pods outside Kueue, and the command that maps the unmapped class
    assert found.unmapped_classes() == ["fpga.example.com"]
    assert f["fix"] == found.fix("kubectl kueue-dra map set fpga --device-class fpga.example.com") == (
        "run the pods as Kueue workloads: a queue (label kueue.x-k8s.io/queue-name) in a namespace Kueue manages; map "
        "the DeviceClass: kubectl kueue-dra map set fpga --device-class fpga.example.com")


def test_read_through_a_view_lists_the_pods_of_the_namespaces_whose_claims_are_held():
    view = SnapshotView(PODS + CLAIMS + WORKLOADS, "test")
    found = read_uncharged(view, CLASSES, MAPPINGS)
    assert found.problem is None and found.doc()["byDriver"] == {"gpu.example.com": 5}
    assert read_uncharged(view, CLASSES, None).problem == "Kueue's deviceClassMappings could not be read"
    empty = read_uncharged(SnapshotView(PODS, "test"), CLASSES, MAPPINGS)
    assert empty.devices == [] and empty.problem is None and uncharged_findings(empty) == []
