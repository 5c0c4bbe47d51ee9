"""Kueue's visibility API through the test API server's aggregation layer.

The real Kueue v0.19.2 serves ``visibility.kueue.x-k8s.io`` (v1beta1 and v1beta2) on its own HTTPS
server; the API server proxies ``/apis/visibility.kueue.x-k8s.io/...`` to it as an aggregated
APIService, with the front-proxy client certificate and the user in request headers
(testenv/visibility.py says how the API server reaches a process on 127.0.0.1). A Job queued to
a ClusterQueue without quota stays pending; ``kubectl get --raw`` of the LocalQueue's
pendingworkloads lists Kueue's Workload for it with its position.
"""

from __future__ import annotations

import json
import time

import pytest

from testenv import visibility
from testenv.builders import cluster_queue, container, job, local_queue, pod_spec, resource_flavor
from testenv.harness import Cluster
from testenv.kueue_harness import KueueSetup

CQ = "visibility-cq"


@pytest.fixture(scope="module")
def kueue(request, controlplane_bin, start_visible_kueue):
    runner = start_visible_kueue(request, controlplane_bin, "visibility")
    runner.ensure(KueueSetup.of())
    return runner


def _workload_of(cluster: Cluster, ns: str, job_name: str, timeout: float = 60) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for wl in cluster.get_json("workloads.kueue.x-k8s.io", "-n", ns)["items"]:
            if any(o.get("kind") == "Job" and o.get("name") == job_name for o in wl["metadata"].get("ownerReferences", [])):
                return wl
        time.sleep(0.3)
    raise AssertionError(f"Kueue created no Workload for job {ns}/{job_name} in {timeout}s")


def _pending(cluster: Cluster, ns: str, version: str) -> dict:
    out = cluster.kubectl("get", "--raw", visibility.pending_workloads_path(ns, "lq", version))
    return json.loads(out.stdout)


def test_the_visibility_apiservices_are_available(kueue):
    for version in visibility.VERSIONS:
        api = kueue.cluster.get_json(f"apiservice/{version}.{visibility.GROUP}")
        available = next(c for c in api["status"]["conditions"] if c["type"] == "Available")
        assert available["status"] == "True", available
    resources = json.loads(kueue.cluster.kubectl("get", "--raw", f"/apis/{visibility.GROUP}/v1beta1").stdout)
    assert "localqueues/pendingworkloads" in {r["name"] for r in resources["resources"]}


def test_pending_workloads_of_a_local_queue_through_the_api_server(kueue):
    c = kueue.cluster
    ns = c.create_namespace("visibility")
    c.apply([resource_flavor(), cluster_queue(CQ, {"cpu": "0"}), local_queue("lq", CQ, ns)])
    names = ["first", "second"]
    workloads = []
    for i, name in enumerate(names):
        if i:
            # Kueue orders a queue by the Workloads' creation (whole seconds), and its Job
            # reconciler, not the Job's creation, makes each Workload: the second Job is created
            # only after the first one's Workload exists, and a second later.
            time.sleep(1.1)
        j = job(name, pod_spec(containers=[container(requests={"cpu": "1"})]))
        j["metadata"]["namespace"] = ns
        c.apply(j)
        workloads.append(_workload_of(c, ns, name))
    stamps = [wl["metadata"]["creationTimestamp"] for wl in workloads]
    assert stamps == sorted(set(stamps)), stamps
    for wl in workloads:  # pending: no quota to reserve
        reserved = next((x for x in wl.get("status", {}).get("conditions", []) if x["type"] == "QuotaReserved"), None)
        assert reserved is None or reserved["status"] == "False", wl["status"]

    deadline = time.monotonic() + 30
    while True:  # the queue manager lists a workload once it has taken it from the watch
        docs = {v: _pending(c, ns, v) for v in visibility.VERSIONS}
        if all(len(d["items"]) == len(names) for d in docs.values()) or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    for version, doc in docs.items():
        assert doc["kind"] == "PendingWorkloadsSummary" and doc["apiVersion"] == f"{visibility.GROUP}/{version}"
        got = [(i["metadata"]["name"], i["metadata"]["namespace"], i["localQueueName"], i["positionInLocalQueue"],
                i["positionInClusterQueue"]) for i in doc["items"]]
        assert got == [(wl["metadata"]["name"], ns, "lq", pos, pos) for pos, wl in enumerate(workloads)], version


def test_a_user_without_rights_is_refused_by_kueue_through_the_api_server(kueue):
    """The request reaches Kueue as the user (front-proxy headers); Kueue asks the API server
    (SubjectAccessReview) and refuses ``nobody``."""
    c = kueue.cluster
    ns = c.create_namespace("visibility-denied")
    res = c.kubectl("get", "--raw", visibility.pending_workloads_path(ns, "lq"), context="nobody", check=False)
    assert res.returncode != 0
    assert 'User "nobody" cannot get resource "localqueues/pendingworkloads"' in res.stderr, res.stderr
