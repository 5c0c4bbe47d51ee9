"""Which change a fix's command makes (read off its words), and the note a fix gets when the user may
not make it: asked once per distinct permission, silent on a snapshot or when the review fails.
(tests/cluster/test_fix_rights.py asks a real API server, as an RBAC-restricted user and as admin.)"""

import json

import pytest

from kubectl_kueue_dra.findings.catalogue import catalogue
from kubectl_kueue_dra.kube import errors
from kubectl_kueue_dra.kube.access import Permission
from kubectl_kueue_dra.kueue.config.load import KueueConfig
from kubectl_kueue_dra.kueue.install.command import for_cli
from kubectl_kueue_dra.kueue.install.fix_rights import fix_permissions, with_rights

CONFIGMAP = KueueConfig("ConfigMap", "kueue-manager-config", "kueue-system")
OPERATOR = KueueConfig("Kueue", "cluster", None)
LQ = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue", "metadata": {"name": "lq", "namespace": "team-a"},
      "spec": {"clusterQueue": "gpu-cq"}}


@pytest.mark.parametrize("fix, config, wanted", [
    ("kubectl patch clusterqueue gpu-cq --type=merge -p '{\"spec\":{\"stopPolicy\":\"None\"}}'", None,
     ["patch clusterqueues.kueue.x-k8s.io"]),
    ("kubectl -n team-a patch localqueue lq --type=merge -p '{\"spec\":{\"clusterQueue\":\"cq\"}}'", None,
     ["patch localqueues.kueue.x-k8s.io in namespace team-a"]),
    ("kubectl label -n team-a job/train kueue.x-k8s.io/queue-name=lq", None, ["patch jobs.batch in namespace team-a"]),
    ("kubectl label namespace team-a team-b kueue.openshift.io/managed=true", None, ["patch namespaces"]),
    (f"echo '{json.dumps(LQ)}' | kubectl apply -f -", None, ["create localqueues.kueue.x-k8s.io in namespace team-a"]),
    ("kubectl kueue-dra map set gpus --device-class gpu.nvidia.com --restart (upstream Kueue: then restart it)",
     CONFIGMAP, ["update configmaps in namespace kueue-system", "patch deployments.apps in namespace kueue-system"]),
    ("oc kueue-dra map remove gpus --device-class gpu.nvidia.com", OPERATOR, ["update kueues.kueue.openshift.io"]),
    ("kubectl kueue-dra map set gpus --device-class gpu.nvidia.com", None, []),  # where it writes is unknown
    ("oc kueue-dra classes set-extended-resource gpu.nvidia.com --clear", None, ["update deviceclasses.resource.k8s.io"]),
    ("kubectl -n kueue-system edit configmap kueue-manager-config  # featureGates in controller_manager_config.yaml; "
     "then kubectl -n kueue-system rollout restart deployment/kueue-controller-manager", None,
     ["patch configmaps in namespace kueue-system", "patch deployments.apps in namespace kueue-system"]),
    ("oc patch featuregate cluster --type=merge -p '{\"spec\":{}}'  # CustomNoUpgrade cannot be undone", None,
     ["patch featuregates.config.openshift.io"]),
    # reads and prose ask for nothing
    ("create ClusterQueue x (kubectl get clusterqueues -o yaml shows the others), or recreate it", None, []),
    ("see who holds it: kubectl kueue-dra queues gpu-cq --workloads", None, []),
    ("check the DRA driver: kubectl get resourceslices; kubectl get pods -A | grep -i dra", None, []),
])
def test_the_change_a_fix_makes_is_read_off_its_command(fix, config, wanted):
    assert [p.describe() for p in fix_permissions(fix, config)] == wanted
    assert [p.describe() for p in fix_permissions(for_cli(fix, "oc") or "", config)] == wanted


def test_every_catalogue_fix_that_changes_an_object_is_understood():
    """A catalogue fix that runs a changing kubectl verb is read as a permission (none is missed)."""
    changing = ("patch ", "label ", "annotate ", "edit ", "rollout restart", "apply ", "map set", "map remove",
                "set-extended-resource")
    for code in catalogue():
        for template in code.fixes.values():
            if not template or "kubectl" not in template or not any(w in template for w in changing):
                continue
            text = template.replace("{{", "{").replace("}}", "}")
            for name in ("cluster_queue", "flavor", "namespace", "name", "deployment", "device_class", "mapping",
                         "quota_resource", "holder", "annotation", "label", "patch", "key", "value", "change"):
                text = text.replace("{" + name + "}", "x" if name not in ("holder",) else "job/x")
            assert fix_permissions(text, CONFIGMAP), (code.name, template)


class Client:
    """An API server's answers to SelfSubjectAccessReviews: ``allowed`` per (verb, resource)."""

    def __init__(self, allowed=None, fail=False):
        self.allowed = allowed or set()
        self.fail = fail
        self.asked = []

    def request(self, method, path, target, *, body=None, **kw):
        assert (method, path) == ("POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews")
        assert body["kind"] == "SelfSubjectAccessReview"
        attributes = body["spec"]["resourceAttributes"]
        self.asked.append(attributes)
        if self.fail:
            raise errors.NotFound("the server could not find the requested resource", status=404)
        return {"status": {"allowed": (attributes["verb"], attributes["resource"]) in self.allowed}}


class View:
    live = True
    default_namespace = "default"

    def __init__(self, client):
        self.client = client
        self._memo = {}

    def memo(self, key, fn):
        if key not in self._memo:
            self._memo[key] = fn()
        return self._memo[key]


def doc():
    return {"findings": [
        {"severity": "error", "code": "ClusterQueueStopped", "message": "m",
         "fix": "kubectl patch clusterqueue a --type=merge -p '{}'"},
        {"severity": "error", "code": "ClusterQueueStopped", "message": "m",
         "fix": "kubectl patch clusterqueue b --type=merge -p '{}'"},
        {"severity": "warning", "code": "NoQueueName", "message": "m",
         "fix": "kubectl label -n team-a job/x kueue.x-k8s.io/queue-name=lq"},
        {"severity": "info", "code": "QuotaExhausted", "message": "m", "fix": "kubectl kueue-dra queues a --workloads"},
        {"severity": "info", "code": "FitsNow", "message": "m", "fix": None}],
        "checks": [{"id": "quota-coverage", "status": "fail", "message": "m",
                    "fix": "kubectl kueue-dra map set gpus --device-class g"}]}


def test_a_fix_the_user_may_not_carry_out_says_so_and_who_can():
    client = Client(allowed={("patch", "jobs")})
    out = with_rights(doc(), View(client), CONFIGMAP)
    fixes = [f["fix"] for f in out["findings"]] + [out["checks"][0]["fix"]]
    assert fixes[0] == ("kubectl patch clusterqueue a --type=merge -p '{}' (you may not patch "
                        "clusterqueues.kueue.x-k8s.io: ask a cluster-admin)")
    assert fixes[1].endswith("(you may not patch clusterqueues.kueue.x-k8s.io: ask a cluster-admin)")
    assert fixes[2] == "kubectl label -n team-a job/x kueue.x-k8s.io/queue-name=lq"  # allowed: unchanged
    assert fixes[3] == "kubectl kueue-dra queues a --workloads" and fixes[4] is None
    assert fixes[5].endswith("(you may not update configmaps in namespace kueue-system: ask a cluster-admin (the "
                             "ClusterRole in deploy/rbac/mapping-editor-clusterrole.yaml grants it))")
    # one review per distinct permission: clusterqueues once for two fixes
    assert client.asked == [
        {"verb": "patch", "group": "kueue.x-k8s.io", "resource": "clusterqueues"},
        {"verb": "patch", "group": "batch", "resource": "jobs", "namespace": "team-a"},
        {"verb": "update", "group": "", "resource": "configmaps", "namespace": "kueue-system"}]


def test_nothing_is_said_when_the_rights_are_not_known():
    failing = Client(fail=True)
    assert with_rights(doc(), View(failing), CONFIGMAP) == doc() and failing.asked  # asked, got no answer
    offline = View(Client())
    offline.live = False
    assert with_rights(doc(), offline, CONFIGMAP) == doc() and not offline.client.asked


def test_a_permission_reads_as_rbac_names_it():
    p = Permission("create", "kueue.x-k8s.io", "localqueues", "team-a")
    assert p.qualified == "localqueues.kueue.x-k8s.io" and p.describe() == "create localqueues.kueue.x-k8s.io in namespace team-a"
    assert Permission("patch", "", "namespaces").review()["spec"]["resourceAttributes"] == {
        "verb": "patch", "group": "", "resource": "namespaces"}
