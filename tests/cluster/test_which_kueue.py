"""Which Kueue on a real API server (issue 16 class 4): two Deployments kueue-controller-manager,
each with its ConfigMap. Neither is picked by namespace order: a map set without
--kueue-namespace writes nothing and names both; the MutatingWebhookConfiguration the API server
calls decides; --kueue-namespace always does."""

import json

import pytest
from testenv.harness import run_plugin

CONFIG_KEY = "controller_manager_config.yaml"
TEXT = "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nresources:\n  deviceClassMappings: []\n"
WEBHOOK = "kueue-dra-test-which-kueue"


def _install(cluster, ns):
    cluster.apply([
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "kueue-manager-config", "namespace": ns},
         "data": {CONFIG_KEY: TEXT}},
        {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "kueue-controller-manager", "namespace": ns},
         "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "kueue"}},
                  "template": {"metadata": {"labels": {"app": "kueue"}}, "spec": {
                      "containers": [{"name": "manager", "image": "registry.k8s.io/kueue/kueue:v0.19.2"}],
                      "volumes": [{"name": "c", "configMap": {"name": "kueue-manager-config"}}]}}}}])


def _rv(cluster, ns):
    return cluster.get_json("configmap", "kueue-manager-config", "-n", ns)["metadata"]["resourceVersion"]


@pytest.fixture
def two_kueues(cluster_gates_off):
    cluster = cluster_gates_off
    cluster.kubectl("delete", "kueues.kueue.openshift.io", "cluster", "--ignore-not-found", check=False)
    namespaces = [cluster.create_namespace("kueue-a"), cluster.create_namespace("kueue-b")]
    for ns in namespaces:
        _install(cluster, ns)
    yield cluster, namespaces
    cluster.kubectl("delete", "mutatingwebhookconfiguration", WEBHOOK, "--ignore-not-found")
    for ns in namespaces:
        cluster.kubectl("delete", "-n", ns, "deployment/kueue-controller-manager", "configmap/kueue-manager-config",
                        "--ignore-not-found", "--wait=false")


def test_two_kueues_are_never_guessed_and_the_webhook_decides(two_kueues):
    cluster, (a, b) = two_kueues
    in_kueue_system = cluster.kubectl("get", "deployment", "kueue-controller-manager", "-n", "kueue-system",
                                      check=False).returncode == 0
    before = {ns: _rv(cluster, ns) for ns in (a, b)}
    proc = run_plugin(cluster, "map", "set", "gpu", "--device-class", "gpu.example.com")
    assert proc.returncode == 1
    line, = proc.stderr.strip().splitlines()
    if in_kueue_system:  # another module's upstream example: kueue-system is then the one
        assert "kueue-system" in line, line
    else:
        assert line.startswith(f"error: 2 Kueue installations: Deployment kueue-controller-manager in namespaces "
                               f"{min(a, b)}, {max(a, b)}") and "--kueue-namespace" in line, line
    assert {ns: _rv(cluster, ns) for ns in (a, b)} == before, "nothing written to a guessed ConfigMap"

    cluster.apply({"apiVersion": "admissionregistration.k8s.io/v1", "kind": "MutatingWebhookConfiguration",
                   "metadata": {"name": WEBHOOK},
                   "webhooks": [{"name": "mworkload.kueue.x-k8s.io", "failurePolicy": "Ignore", "sideEffects": "None",
                                 "admissionReviewVersions": ["v1"],
                                 "clientConfig": {"service": {"name": "kueue-webhook-service", "namespace": b}},
                                 "rules": [{"apiGroups": ["kueue.x-k8s.io"], "apiVersions": ["v1beta2"],
                                            "operations": ["CREATE"], "resources": ["workloads"]}]}]})
    proc = run_plugin(cluster, "map", "-o", "json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["target"]["namespace"] == b
    proc = run_plugin(cluster, "map", "-o", "json", "--kueue-namespace", a)
    assert json.loads(proc.stdout)["target"]["namespace"] == a
