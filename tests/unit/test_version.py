"""``version``: client facts offline, Kueue facts from a view, one line per fact as text."""

import json
from pathlib import Path

from kubectl_kueue_dra import __version__
from kubectl_kueue_dra.kube.snapshot import load_snapshot
from kubectl_kueue_dra.commands.version.request import kueue_version
from kubectl_kueue_dra.render.version import version_text
from testenv.clirun import run  # in process (tests/clirun.py)

ROOT = Path(__file__).resolve().parents[2]


def deployment(image, namespace="kueue-system"):
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "kueue-controller-manager", "namespace": namespace},
            "spec": {"template": {"spec": {
                "containers": [{"name": "manager", "image": image}],
                "volumes": [{"name": "manager-config", "configMap": {"name": "kueue-manager-config"}}]}}}}


def configmap(namespace="kueue-system"):
    return {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "kueue-manager-config", "namespace": namespace},
            "data": {"controller_manager_config.yaml": "apiVersion: config.kueue.x-k8s.io/v1beta2\n"
                                                       "kind: Configuration\n"}}


def snapshot(tmp_path, *objects):
    (tmp_path / "objects.json").write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": list(objects)}))
    return load_snapshot(str(tmp_path), None)


def test_client_only_needs_no_cluster():
    proc = run("version", "--client", "-o", "json", env={"KUBECONFIG": "/nonexistent"})
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc == {"clientVersion": {"kueueDra": __version__, "python": doc["clientVersion"]["python"],
                                     "frozen": False, "platform": doc["clientVersion"]["platform"]}}
    text = run("version", "--client").stdout
    assert text.startswith(f"Plugin Version: {__version__} (Python ")


def test_unreachable_cluster_still_prints_the_client_version_and_fails():
    proc = run("version", env={"KUBECONFIG": "/nonexistent"})
    assert proc.returncode == 1
    assert proc.stdout.startswith(f"Plugin Version: {__version__}")
    assert proc.stderr.strip().splitlines() == [
        "error: no kubeconfig found (looked at /nonexistent); pass --kubeconfig, set KUBECONFIG, "
        "or run inside a cluster"]


def test_kueue_version_from_image_tag(tmp_path):
    view = snapshot(tmp_path, deployment("registry.k8s.io/kueue/kueue:v0.15.2"), configmap())
    info = kueue_version(view, None)
    assert info["version"] == "0.15.2" and info["versionSource"] == "image tag"
    assert info["deployment"] == {"namespace": "kueue-system", "name": "kueue-controller-manager"}
    assert info["config"] == {"kind": "ConfigMap", "name": "kueue-manager-config", "namespace": "kueue-system"}
    assert info["problem"] is None


def test_kueue_pinned_by_digest_and_no_config(tmp_path):
    view = snapshot(tmp_path, deployment("quay.io/kueue@sha256:" + "a" * 64, namespace="team-kueue"))
    info = kueue_version(view, None)
    assert info["version"] is None and info["image"].startswith("quay.io/kueue@sha256:")
    assert info["config"] is None and "team-kueue/kueue-manager-config" in info["problem"]
    text = version_text({"clientVersion": {"kueueDra": "1.2.3", "frozen": True, "platform": "linux/arm64"},
                         "serverVersion": {"gitVersion": "v1.36.3"}, "kueue": info})
    assert text.splitlines() == [
        "Plugin Version: 1.2.3 (binary, linux/arm64)",
        "Server Version: v1.36.3",
        f"Kueue Version: unknown (image {info['image']})",
        f"Kueue Controller: Deployment team-kueue/kueue-controller-manager ({info['image']})",
        "Kueue Config: not found (ConfigMap team-kueue/kueue-manager-config not found)",
    ]


def test_snapshot_text_and_yaml():
    proc = run("version", "--from", "examples/mig-partitionable")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[1:] == [
        "Server Version: unknown (offline snapshot)",
        "OpenShift Version: unknown (the snapshot has no ClusterVersion)",  # an OpenShift Kueue CR
        "Kueue Version: unknown (no kueue-controller-manager Deployment found)",
        "Kueue Config: Kueue CR cluster (kueue.openshift.io)",
    ]
    proc = run("version", "--from", "examples/mig-partitionable", "-o", "yaml")
    assert proc.returncode == 0 and "configDescription: Kueue CR cluster (kueue.openshift.io)" in proc.stdout


def test_openshift_version_from_clusterversion(tmp_path):
    cv = {"apiVersion": "config.openshift.io/v1", "kind": "ClusterVersion", "metadata": {"name": "version"},
          "status": {"desired": {"version": "4.22.1"}, "history": [{"version": "4.22.1"}, {"version": "4.21.9"}]}}
    (tmp_path / "cv.json").write_text(json.dumps(cv))
    proc = run("version", "--from", str(tmp_path), "-o", "json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["openshift"] == {"version": "4.22.1", "problem": None}
    assert "OpenShift Version: 4.22.1" in run("version", "--from", str(tmp_path)).stdout.splitlines()
    del cv["status"]["desired"]
    (tmp_path / "cv.json").write_text(json.dumps(cv))
    assert "OpenShift Version: 4.22.1" in run("version", "--from", str(tmp_path)).stdout  # newest history entry
    cv["status"] = {}
    (tmp_path / "cv.json").write_text(json.dumps(cv))
    assert ("OpenShift Version: unknown (ClusterVersion version has no status.desired.version nor history)"
            in run("version", "--from", str(tmp_path)).stdout)
    # Upstream (no ClusterVersion, no OpenShift Kueue CR): no OpenShift line at all.
    proc = run("version", "--from", "examples/resourceclaimtemplate", "-o", "json")
    assert json.loads(proc.stdout)["openshift"] is None
