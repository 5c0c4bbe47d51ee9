"""`version` against the real API server: the server's /version, and Kueue's version, Deployment
and config found the way every command finds them, for the admin, the reader role and a user
without permissions."""

import json

import pytest

from testenv.binaries import controlplane
from testenv.harness import run_plugin

# every version: KUEUE_DRA_KUBE_VERSION selects the kube-apiserver (scripts/test runs them all)
pytestmark = pytest.mark.versions

IMAGE = "registry.k8s.io/kueue/kueue:v0.15.2"


@pytest.fixture(scope="module")
def kueue_ns(cluster_gates_on):
    ns = cluster_gates_on.create_namespace("version-kueue")
    cluster_gates_on.apply([
        {"apiVersion": "apps/v1", "kind": "Deployment",
         "metadata": {"name": "kueue-controller-manager", "namespace": ns},
         "spec": {"selector": {"matchLabels": {"app": "kueue"}},
                  "template": {"metadata": {"labels": {"app": "kueue"}},
                               "spec": {"containers": [{"name": "manager", "image": IMAGE}],
                                        "volumes": [{"name": "manager-config",
                                                     "configMap": {"name": "kueue-manager-config"}}]}}}},
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "kueue-manager-config", "namespace": ns},
         "data": {"controller_manager_config.yaml": "apiVersion: config.kueue.x-k8s.io/v1beta2\n"
                                                    "kind: Configuration\n"}},
    ])
    return ns


def version_json(cluster, ns, context="admin"):
    proc = run_plugin(cluster, "version", "--kueue-namespace", ns, "-o", "json", context=context)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@pytest.mark.parametrize("context", ["admin", "reader"])
def test_server_and_kueue_versions(cluster_gates_on, kueue_ns, context):
    doc = version_json(cluster_gates_on, kueue_ns, context)
    assert doc["serverVersion"]["gitVersion"] == controlplane.kube_version()
    assert doc["source"] == f"cluster {cluster_gates_on.server}"
    kueue = doc["kueue"]
    assert (kueue["version"], kueue["versionSource"], kueue["image"]) == ("0.15.2", "image tag", IMAGE)
    assert kueue["deployment"] == {"namespace": kueue_ns, "name": "kueue-controller-manager"}
    assert kueue["config"] == {"kind": "ConfigMap", "name": "kueue-manager-config", "namespace": kueue_ns}


def test_text(cluster_gates_on, kueue_ns):
    proc = run_plugin(cluster_gates_on, "version", "--kueue-namespace", kueue_ns)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[1:] == [
        f"Server Version: {controlplane.kube_version()}",
        "Kueue Version: 0.15.2 (from the image tag)",
        f"Kueue Controller: Deployment {kueue_ns}/kueue-controller-manager ({IMAGE})",
        f"Kueue Config: ConfigMap {kueue_ns}/kueue-manager-config",
    ]


def test_user_without_permissions_still_gets_server_version(cluster_gates_on, kueue_ns):
    doc = version_json(cluster_gates_on, kueue_ns, context="nobody")
    assert doc["serverVersion"]["gitVersion"] == controlplane.kube_version()
    assert doc["kueue"]["version"] is None and doc["kueue"]["config"] is None
    # a 403 is said as one, never "not found"
    assert doc["kueue"]["problem"].startswith("cannot get configmaps") and "forbidden (as nobody)" in \
        doc["kueue"]["problem"]
    assert doc["partial"] is True and any("forbidden" in u for u in doc["unreadable"])
    assert doc["kueue"]["configDescription"].startswith("unknown (cannot get configmaps")
