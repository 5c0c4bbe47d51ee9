"""A fix the user may not carry out says so, as the real API server's authorizer answers a
SelfSubjectAccessReview: for the read-only user, for a user who may change Kueue's ConfigMap only,
and never for admin. One review per distinct permission, counted in KUEUE_DRA_STATS."""

from __future__ import annotations

import json

import pytest

from testenv import setups
from testenv.harness import run_plugin

RBAC = "rbac.authorization.k8s.io/v1"
EDITOR = "the ClusterRole in deploy/rbac/mapping-editor-clusterrole.yaml grants it"
#: the permissions the classes fixes of the extended-resource setup need: map set --restart (the
#: ConfigMap, then Kueue's Deployment) and classes set-extended-resource --clear (a DeviceClass)
CONFIGMAP = "update configmaps in namespace kueue-system"
DEPLOYMENT = "patch deployments.apps in namespace kueue-system"
DEVICECLASS = "update deviceclasses.resource.k8s.io"


@pytest.fixture(scope="module")
def cluster(cluster_gates_on):
    setups.load(cluster_gates_on, "extended-resource")
    # cm-editor: the reader role, and in Kueue's namespace what map set --restart writes
    cluster_gates_on.apply([
        {"apiVersion": RBAC, "kind": "ClusterRoleBinding", "metadata": {"name": "cm-editor-reads"},
         "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "kueue-dra-reader"},
         "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "cm-editor"}]},
        {"apiVersion": RBAC, "kind": "Role", "metadata": {"name": "kueue-config-editor", "namespace": "kueue-system"},
         "rules": [{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get", "update"]},
                   {"apiGroups": ["apps"], "resources": ["deployments"], "verbs": ["get", "patch"]}]},
        {"apiVersion": RBAC, "kind": "RoleBinding", "metadata": {"name": "cm-editor", "namespace": "kueue-system"},
         "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "kueue-config-editor"},
         "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "cm-editor"}]}])
    return cluster_gates_on


def classes(cluster, tmp_path, *args):
    """The classes document's fixes by code, and the SelfSubjectAccessReviews the run sent."""
    stats = tmp_path / "stats.json"
    proc = run_plugin(cluster, "classes", "-o", "json", *args, env={"KUEUE_DRA_STATS": str(stats)})
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    fixes = {f["code"]: f["fix"] for c in doc["deviceClasses"] for f in c["findings"]}
    calls = json.loads(stats.read_text())["calls"]
    reviews = [c for c in calls if c["path"].startswith("/apis/authorization.k8s.io/v1/selfsubjectaccessreviews")]
    assert all(c["method"] == "POST" and c["status"] == 201 for c in reviews), reviews
    return fixes, len(reviews)


def test_the_read_only_user_is_told_who_can_make_the_change(cluster, tmp_path):
    fixes, reviews = classes(cluster, tmp_path, "--as", "reader")
    assert fixes["NoQuotaResource"].startswith("kubectl kueue-dra map set gpu-legacy.nvidia.com --device-class "
                                               "gpu-legacy.nvidia.com --restart  # ")
    assert fixes["NoQuotaResource"].endswith(f" (you may not {CONFIGMAP}, or {DEPLOYMENT}: ask a cluster-admin "
                                             f"({EDITOR}))")
    assert fixes["DuplicateExtendedResourceName"].endswith(f" (you may not {DEVICECLASS}: ask a cluster-admin "
                                                           f"({EDITOR}))")
    assert reviews == 3  # one per distinct permission, however many fixes need it


def test_a_user_who_may_change_the_configuration_is_told_only_what_they_may_not(cluster, tmp_path):
    fixes, reviews = classes(cluster, tmp_path, "--as", "cm-editor")
    assert "you may not" not in fixes["NoQuotaResource"]
    assert fixes["DuplicateExtendedResourceName"].endswith(f" (you may not {DEVICECLASS}: ask a cluster-admin "
                                                           f"({EDITOR}))")
    assert reviews == 3


def test_admin_is_told_nothing_more(cluster, tmp_path):
    fixes, reviews = classes(cluster, tmp_path)
    assert fixes["NoQuotaResource"] and fixes["DuplicateExtendedResourceName"]
    assert not [f for f in fixes.values() if f and "you may not" in f], fixes
    assert reviews == 3


def test_verify_says_it_of_a_raw_kubectl_fix_too(cluster):
    """quota-coverage's fix patches a ClusterQueue, which the reader may not; admin may."""
    checks = {c["id"]: c for c in json.loads(run_plugin(cluster, "verify", "--no-probe", "-o", "json", "--as",
                                                        "reader").stdout)["checks"]}
    fix = checks["quota-coverage"]["fix"]
    assert fix.startswith("kubectl patch clusterqueue gpu-cq --type=json -p ")
    assert fix.endswith(" (you may not patch clusterqueues.kueue.x-k8s.io: ask a cluster-admin)")
    admin = {c["id"]: c for c in json.loads(run_plugin(cluster, "verify", "--no-probe", "-o", "json").stdout)["checks"]}
    assert admin["quota-coverage"]["fix"] and "you may not" not in admin["quota-coverage"]["fix"]
    # the text output carries the same fix
    text = run_plugin(cluster, "verify", "--no-probe", "--as", "reader").stdout
    assert "(you may not patch clusterqueues.kueue.x-k8s.io: ask a cluster-admin)" in text
