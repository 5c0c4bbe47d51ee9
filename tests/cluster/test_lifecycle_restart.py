"""``map --restart`` on the lifecycle cluster: the deployment controller rolls Kueue's Deployment
and KWOK runs the new pod, so the wait ends because the rollout really completed (the plain test
cluster can only prove the timeout). Upstream: ``--restart`` restarts the Deployment itself;
OpenShift: it waits for the operator's pod-template annotation, which a stand-in for the operator
writes here (as the operator does after rendering the CR), and for the rollout that follows."""

from __future__ import annotations

import json
import threading
import time

import pytest

from testenv.harness import run_plugin
from testenv.lifecycle import fake_node

from kubectl_kueue_dra.kueue.names import OPERATOR_NAMESPACE
from kubectl_kueue_dra.kueue.install.target import OPERATOR_ANNOTATION

CONFIG_KEY = "controller_manager_config.yaml"
KUEUE_CR = "kueues.kueue.openshift.io"
NODE = "restart-n1"
ROLLOUT_TIMEOUT = 90


@pytest.fixture(scope="module")
def life(lifecycle):
    lifecycle.add_nodes([fake_node(NODE)])
    return lifecycle


def deployment(ns: str, labels: dict, node_selector: dict | None = None) -> dict:
    spec: dict = {"containers": [{"name": "manager", "image": "registry.k8s.io/kueue/kueue:v0.19.2",
                                  "args": ["--config=/controller_manager_config.yaml"]}],
                  "nodeSelector": node_selector or {"kubernetes.io/hostname": NODE}}
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "kueue-controller-manager",
                                                                          "namespace": ns},
            "spec": {"replicas": 1, "selector": {"matchLabels": labels},
                     "template": {"metadata": {"labels": labels}, "spec": spec}}}


def upstream(life, node_selector: dict | None = None) -> str:
    c = life.cluster
    ns = c.create_namespace("kueue-restart")
    text = (f"apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nnamespace: {ns}\n"
            "resources:\n  deviceClassMappings:\n  - name: gpu\n    deviceClassNames: [gpu.example.com]\n"
            "integrations:\n  frameworks:\n  - batch/job\n")
    c.apply([{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "kueue-manager-config", "namespace": ns},
              "data": {CONFIG_KEY: text}}, deployment(ns, {"app": "kueue"}, node_selector)])
    return ns


def running_pods(life, ns: str, labels: str) -> list[dict]:
    pods = life.cluster.get_json("pods", "-n", ns, "-l", labels)["items"]
    return [p for p in pods if (p.get("status") or {}).get("phase") == "Running"
            and not p["metadata"].get("deletionTimestamp")]


def wait_rolled_out(life, ns: str) -> dict:
    deadline = time.monotonic() + ROLLOUT_TIMEOUT
    while time.monotonic() < deadline:
        d = life.cluster.get_json("deployment", "kueue-controller-manager", "-n", ns)
        st = d.get("status") or {}
        if st.get("observedGeneration") == d["metadata"]["generation"] and st.get("availableReplicas") == 1 \
                and st.get("updatedReplicas") == 1 and st.get("replicas") == 1:
            return d
        time.sleep(0.5)
    raise AssertionError(f"Deployment {ns}/kueue-controller-manager did not roll out: {d.get('status')}")


@pytest.fixture()
def cleanup(life):
    made: list[tuple[str, ...]] = []
    yield made
    for args in made:
        life.cluster.kubectl("delete", *args, "--ignore-not-found", "--wait=false")


def test_restart_waits_for_the_real_rollout(life, cleanup):
    ns = upstream(life)
    cleanup.append(("namespace", ns))
    wait_rolled_out(life, ns)
    before = {p["metadata"]["name"] for p in running_pods(life, ns, "app=kueue")}
    assert len(before) == 1
    t = time.monotonic()
    proc = run_plugin(life.cluster, "map", "set", "more", "--device-class", "m.example.com", "--allow-missing-class",
                      "--kueue-namespace", ns, "--restart", "--timeout", f"{ROLLOUT_TIMEOUT}s", "-o", "json")
    seconds = time.monotonic() - t
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert [f["code"] for f in doc["findings"]] == ["Restarted"], doc["findings"]
    d = life.cluster.get_json("deployment", "kueue-controller-manager", "-n", ns)
    assert "kubectl.kubernetes.io/restartedAt" in d["spec"]["template"]["metadata"]["annotations"]
    st = d["status"]
    assert st["observedGeneration"] == d["metadata"]["generation"] == 2
    assert st["updatedReplicas"] == st["availableReplicas"] == 1
    # the new pod is the one KWOK runs now; the old one is gone or going
    after = {p["metadata"]["name"] for p in running_pods(life, ns, "app=kueue")}
    assert after and not (after & before), (before, after)
    assert seconds < ROLLOUT_TIMEOUT


def test_restart_timeout_when_the_new_pod_cannot_run(life, cleanup):
    ns = upstream(life, node_selector={"kubernetes.io/hostname": "no-such-node"})
    cleanup.append(("namespace", ns))
    t = time.monotonic()
    proc = run_plugin(life.cluster, "map", "set", "more", "--device-class", "m.example.com", "--allow-missing-class",
                      "--kueue-namespace", ns, "--restart", "--timeout", "3s")
    seconds = time.monotonic() - t
    assert proc.returncode == 1
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "restarted, but its rollout did not complete within 3s" in lines[0], proc.stderr
    assert "mapping more added." in proc.stdout
    assert 3 <= seconds < 20
    pods = life.cluster.get_json("pods", "-n", ns, "-l", "app=kueue")["items"]
    assert pods and all(p["status"].get("phase") == "Pending" for p in pods)


class FakeOperator(threading.Thread):
    """What the OpenShift Kueue operator does after a CR change, reduced to the part ``--restart``
    waits for: the Deployment's pod template gets the annotation with the CR's generation."""

    def __init__(self, life):
        super().__init__(daemon=True)
        self.life = life
        self.stop = threading.Event()
        self.rolled: list[str] = []

    def run(self) -> None:
        c = self.life.cluster
        while not self.stop.wait(0.5):
            cr = c.kubectl("get", f"{KUEUE_CR}/cluster", "-o", "json", check=False)
            if cr.returncode != 0:
                continue
            generation = str(json.loads(cr.stdout)["metadata"]["generation"])
            d = json.loads(c.kubectl("get", "deployment", "kueue-controller-manager", "-n", OPERATOR_NAMESPACE,
                                     "-o", "json").stdout)
            have = ((d["spec"]["template"]["metadata"].get("annotations") or {}).get(OPERATOR_ANNOTATION))
            if have != generation:
                c.kubectl("patch", "deployment", "kueue-controller-manager", "-n", OPERATOR_NAMESPACE,
                          "--type=merge", "-p", json.dumps({"spec": {"template": {"metadata": {
                              "annotations": {OPERATOR_ANNOTATION: generation}}}}}))
                self.rolled.append(generation)


def test_restart_waits_for_the_operator_rollout(life, cleanup):
    c = life.cluster
    c.apply({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": OPERATOR_NAMESPACE}})
    c.kubectl("delete", KUEUE_CR, "cluster", "--ignore-not-found")
    c.kubectl("create", "-f", "-", input=json.dumps({
        "apiVersion": "kueue.openshift.io/v1", "kind": "Kueue", "metadata": {"name": "cluster"},
        "spec": {"managementState": "Managed", "config": {"integrations": {"frameworks": ["BatchJob"]}}}}))
    cleanup += [(KUEUE_CR, "cluster"), ("deployment", "kueue-controller-manager", "-n", OPERATOR_NAMESPACE)]
    c.apply(deployment(OPERATOR_NAMESPACE, {"app": "openshift-kueue"}))
    op = FakeOperator(life)
    op.start()
    try:
        deadline = time.monotonic() + ROLLOUT_TIMEOUT
        while op.rolled != ["1"] and time.monotonic() < deadline:  # the operator's first rendering
            time.sleep(0.2)
        assert op.rolled == ["1"]
        wait_rolled_out(life, OPERATOR_NAMESPACE)
        proc = run_plugin(c, "map", "set", "gpu", "--device-class", "gpu.example.com", "--allow-missing-class", "--restart",
                          "--timeout", f"{ROLLOUT_TIMEOUT}s", "-o", "json")
        assert proc.returncode == 0, proc.stderr
        doc = json.loads(proc.stdout)
        assert [f["code"] for f in doc["findings"]] == ["OperatorRolledOut"], doc["findings"]
        assert op.rolled == ["1", "2"]
        d = wait_rolled_out(life, OPERATOR_NAMESPACE)
        assert d["spec"]["template"]["metadata"]["annotations"][OPERATOR_ANNOTATION] == "2"
        pods = running_pods(life, OPERATOR_NAMESPACE, "app=openshift-kueue")
        assert [p["metadata"]["annotations"][OPERATOR_ANNOTATION] for p in pods] == ["2"]
    finally:
        op.stop.set()
        op.join(10)
