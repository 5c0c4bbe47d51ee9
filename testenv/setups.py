"""Apply the example setups in examples/ to a test cluster, and read them back as a snapshot.

Namespaces cannot be deleted on the test control plane (no controller-manager), so a setup is
loaded by first deleting the cluster-scoped DRA/Kueue objects and the namespaced objects of the
setup's namespaces, then applying the example. Statuses (Workload admission, ClusterQueue usage)
go through the status subresource, as Kueue would write them.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import yaml

from testenv import kube_versions
from testenv.harness import REPO_ROOT, Cluster

EXAMPLES = REPO_ROOT / "examples"
SETUPS = ("resourceclaimtemplate", "extended-resource", "mig-partitionable")
CLUSTER_SCOPED = "deviceclasses,resourceslices,clusterqueues,resourceflavors"
OPENSHIFT_SCOPED = "kueues.kueue.openshift.io,featuregates.config.openshift.io"
NAMESPACED = "workloads,jobs,resourceclaimtemplates,resourceclaims,localqueues,deployments,configmaps,events"
STATUS_KINDS = ("Workload", "ClusterQueue", "Pod", "ResourceClaim")
# What `kubectl get` reads back to make the offline snapshot of a setup.
SNAPSHOT_KINDS = (CLUSTER_SCOPED + "," + OPENSHIFT_SCOPED, "namespaces",
                  "workloads,jobs,resourceclaimtemplates,localqueues,deployments,configmaps,pods,resourceclaims,events")


def objects(setup: str) -> list[dict]:
    docs = []
    for path in sorted((EXAMPLES / setup).glob("*.yaml")):
        docs.extend(d for d in yaml.safe_load_all(path.read_text()) if d)
    return docs


def namespaces(docs: list[dict]) -> set[str]:
    return {d["metadata"]["namespace"] for d in docs if d["metadata"].get("namespace")} | \
           {d["metadata"]["name"] for d in docs if d["kind"] == "Namespace"}


def clear(cluster: Cluster, ns: set[str]) -> None:
    cluster.kubectl("delete", CLUSTER_SCOPED, "--all", "--wait=false")
    cluster.kubectl("delete", OPENSHIFT_SCOPED, "--all", "--wait=false")
    for n in sorted(ns):
        cluster.kubectl("delete", NAMESPACED, "--all", "-n", n, "--wait=false", check=False)
        # no kubelet confirms a bound pod's deletion: remove pods at once
        cluster.kubectl("delete", "pods", "--all", "-n", n, "--force", "--grace-period=0", check=False)


def load(cluster: Cluster, setup: str) -> list[dict]:
    """Replace whatever DRA/Kueue setup the cluster has with the example ``setup`` (its
    ResourceSlices in the layout of the cluster's kube-apiserver: ``kube_versions.slices_for``)."""
    docs = kube_versions.slices_for(objects(setup), cluster.kube_version)
    clear(cluster, set().union(*(namespaces(objects(s)) for s in SETUPS)))
    for d in (d for d in docs if d["kind"] == "Namespace"):
        cluster.apply(d)
    # DeviceClasses in creation order, a second apart where the example's timestamps differ,
    # so that "the newest class wins" picks the same class live as offline.
    classes = sorted((d for d in docs if d["kind"] == "DeviceClass"), key=lambda d: d["metadata"]["creationTimestamp"])
    for i, d in enumerate(classes):
        if i and d["metadata"]["creationTimestamp"] != classes[i - 1]["metadata"]["creationTimestamp"]:
            time.sleep(1.1)
        cluster.apply(d)
    rest = [d for d in docs if d["kind"] not in ("Namespace", "DeviceClass", "Workload")]
    for d in rest:
        d["metadata"].pop("uid", None)  # the server assigns uids; Workloads and pods are re-pointed below
        if d["kind"] == "Event":
            d["involvedObject"].pop("uid", None)  # the example's uids are not the server's
    cluster.apply(rest)
    uids = {(d["metadata"]["namespace"], d["metadata"]["name"]): cluster.get_json(
                "job", d["metadata"]["name"], "-n", d["metadata"]["namespace"])["metadata"]["uid"]
            for d in rest if d["kind"] == "Job"}
    workloads = [d for d in docs if d["kind"] == "Workload"]
    for wl in workloads:
        for owner in wl["metadata"].get("ownerReferences") or []:
            if owner["kind"] == "Job":
                owner["uid"] = uids[(wl["metadata"]["namespace"], owner["name"])]
                wl["metadata"].setdefault("labels", {})["kueue.x-k8s.io/job-uid"] = owner["uid"]
    repoint_pods(cluster, [d for d in rest if d["kind"] == "Pod"], uids)
    if workloads:
        cluster.apply(workloads)
    rest += workloads
    for d in rest:
        if d["kind"] in STATUS_KINDS and d.get("status"):
            cluster.kubectl("apply", "--server-side", "--force-conflicts", "--field-manager=kueue-dra-tests",
                            "--subresource=status", "-f", "-", input=json.dumps(d))
    return docs


def repoint_pods(cluster: Cluster, pods: list[dict], job_uids: dict[tuple[str, str], str]) -> None:
    """Point the pods' ownerReferences at the Jobs' server-assigned uids (as the Job controller
    would have written them)."""
    for p in pods:
        ns = p["metadata"]["namespace"]
        refs = p["metadata"].get("ownerReferences") or []
        for ref in refs:
            if ref["kind"] == "Job":
                ref["uid"] = job_uids[(ns, ref["name"])]
        if refs:
            cluster.kubectl("patch", "pod", p["metadata"]["name"], "-n", ns, "--type=merge",
                            "-p", json.dumps({"metadata": {"ownerReferences": refs}}))


def snapshot(cluster: Cluster, docs: list[dict], path: Path) -> Path:
    """Read the setup back with kubectl (as a support engineer would) into one YAML file."""
    parts = []
    parts.append(cluster.kubectl("get", SNAPSHOT_KINDS[0], "-o", "yaml").stdout)
    parts.append(cluster.kubectl("get", SNAPSHOT_KINDS[1], "-o", "yaml").stdout)
    for n in sorted(namespaces(docs)):
        parts.append(cluster.kubectl("get", SNAPSHOT_KINDS[2], "-n", n, "-o", "yaml").stdout)
    path.write_text("---\n".join(parts))
    return path
