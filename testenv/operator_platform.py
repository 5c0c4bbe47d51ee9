"""What the real Kueue operator needs from the platform, stood in on a test API server of its own
(``testenv.operator_harness`` runs the operator against it). The operator (built by
``operator_build``) expects an OpenShift cluster with cert-manager. On a dedicated ``Cluster``
(the operator installs its own Kueue CRDs and ``failurePolicy: Fail`` webhooks, so it must not
share a server with other tests) this module supplies:

* cert-manager's ``Issuer`` and ``Certificate`` kinds (stand-in CRDs with open schemas) and a tiny
  issuing loop (``CertIssuer``): every Certificate gets a Secret (``tls.crt``/``tls.key``/
  ``ca.crt``, signed by one CA for the session) and ``Ready=True``;
* a served ``project.openshift.io/v1`` group (a stand-in ``projects`` CRD): the operator's "is this
  OpenShift" check; without it the FeatureGate is never read;
* the ``APIServer`` CRD (from openshift/api, like the FeatureGate CRD every cluster has) with its
  ``cluster`` object: the operator reads the TLS profile from it;
* OLM's ``ClusterServiceVersion`` kind (stand-in CRD) and the operator's published CSV from the
  archive in ``openshift-kueue-operator``, so version detection reads the real object;
* the ``Kueue`` CR CRD is the published one (every test cluster installs it, see ``crds``).
"""

from __future__ import annotations

import base64
import datetime
import json
import threading
import time

import yaml

from testenv.binaries import crds as crds_mod
from testenv.binaries import operator_build
from testenv.harness import Cluster, ClusterError

NAMESPACE = "openshift-kueue-operator"
APISERVER_CRD_GLOB = "config/v1/zz_generated.crd-manifests/0000_10_config-operator_01_apiservers*.crd.yaml"


# --------------------------------------------------------------------------------- stand-in CRDs
def _open_crd(group: str, plural: str, kind: str, scope: str, version: str = "v1") -> dict:
    """A CRD that stores whatever it is given (a stand-in for a kind the operator only reads or
    writes, whose real controller does not run here)."""
    return {
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{plural}.{group}"},
        "spec": {"group": group, "scope": scope,
                 "names": {"plural": plural, "singular": kind.lower(), "kind": kind, "listKind": f"{kind}List"},
                 "versions": [{"name": version, "served": True, "storage": True, "subresources": {"status": {}},
                               "schema": {"openAPIV3Schema": {"type": "object",
                                                              "x-kubernetes-preserve-unknown-fields": True}}}]},
    }


STANDIN_CRDS = (
    ("cert-manager.io", "issuers", "Issuer", "Namespaced"),
    ("cert-manager.io", "certificates", "Certificate", "Namespaced"),
    ("project.openshift.io", "projects", "Project", "Cluster"),
    ("operators.coreos.com", "clusterserviceversions", "ClusterServiceVersion", "Namespaced", "v1alpha1"),
)


def apiserver_crd() -> list[dict]:
    moddir = crds_mod.module_dir(crds_mod.OPENSHIFT_API_MODULE, crds_mod.OPENSHIFT_API_VERSION)
    files = sorted(moddir.glob(APISERVER_CRD_GLOB))
    if not files:
        raise ClusterError(f"{crds_mod.OPENSHIFT_API_MODULE} has no {APISERVER_CRD_GLOB}")
    # One file per feature set when there are several: Default is what a normal cluster runs.
    chosen = next((f for f in files if "Default" in f.name), files[0])
    return [crds_mod.prepare(d) for d in yaml.safe_load_all(chosen.read_text())
            if d and d.get("kind") == "CustomResourceDefinition"]


def published_csv() -> dict:
    doc = yaml.safe_load((operator_build.manifests_dir() / operator_build.CSV_FILE).read_text())
    doc.setdefault("metadata", {})["namespace"] = NAMESPACE
    return doc


def operand_image() -> str:
    """The Kueue image the published CSV hands the operator (``RELATED_IMAGE_OPERAND_IMAGE``)."""
    csv = published_csv()
    for deployment in csv["spec"]["install"]["spec"]["deployments"]:
        for container in deployment["spec"]["template"]["spec"]["containers"]:
            for env in container.get("env") or []:
                if env.get("name") == "RELATED_IMAGE_OPERAND_IMAGE":
                    return str(env["value"])
    raise ClusterError(f"{operator_build.CSV_FILE} sets no RELATED_IMAGE_OPERAND_IMAGE")


def install_openshift_standins(cluster: Cluster, *, openshift: bool = True) -> None:
    """Everything the operator needs from the platform, except itself. ``openshift=False`` leaves
    out the ``project.openshift.io`` group: the operator then runs in its non-OpenShift mode."""
    docs = [_open_crd(*spec) for spec in STANDIN_CRDS if openshift or spec[0] != "project.openshift.io"]
    docs += apiserver_crd()
    cluster.kubectl("apply", "--server-side", "--field-manager=kueue-dra-tests", "-f", "-",
                    input=json.dumps({"apiVersion": "v1", "kind": "List", "items": docs}))
    cluster.kubectl("wait", "--for=condition=Established", "--timeout=120s",
                    *[f"customresourcedefinition/{d['metadata']['name']}" for d in docs])
    cluster.apply([
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}},
        {"apiVersion": "config.openshift.io/v1", "kind": "APIServer", "metadata": {"name": "cluster"},
         "spec": {"tlsSecurityProfile": {"type": "Intermediate", "intermediate": {}}}},
    ])
    cluster.apply(published_csv())


def remove_project_group(cluster: Cluster) -> None:
    """Stop serving project.openshift.io (the operator's OpenShift check then answers no)."""
    cluster.kubectl("delete", "customresourcedefinition/projects.project.openshift.io", "--wait=true")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        status, _ = cluster.request("GET", "/apis/project.openshift.io/v1")
        if status == 404:
            return
        time.sleep(0.2)
    raise ClusterError("project.openshift.io/v1 is still served 60 s after its CRD was deleted")


# ------------------------------------------------------------------------------- cert-manager
class CertIssuer:
    """Stands in for cert-manager: issues every Certificate in ``namespace`` (a Secret with a
    certificate for its dnsNames, signed by one CA) and marks it Ready. A poll of the raw API
    (in process, no kubectl), stopped with ``stop()``."""

    def __init__(self, cluster: Cluster, namespace: str = NAMESPACE, poll: float = 0.25):
        from testenv.kueue_harness import generate_certs

        self.cluster, self.namespace, self.poll = cluster, namespace, poll
        self.certs = generate_certs()  # CA + a server certificate for 127.0.0.1 and the webhook Service
        self.issued: dict[str, str] = {}  # certificate name -> resourceVersion it was issued for
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="cert-issuer", daemon=True)
        self.errors: list[str] = []

    def start(self) -> CertIssuer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(10)

    def _run(self) -> None:
        path = f"/apis/cert-manager.io/v1/namespaces/{self.namespace}/certificates"
        while not self._stop.is_set():
            try:
                status, body = self.cluster.request("GET", path)
                if status == 200:
                    for cert in json.loads(body).get("items") or []:
                        self._issue(cert)
            except Exception as e:  # noqa: BLE001 - keep issuing; the wait reports a stuck operator
                self.errors.append(f"{type(e).__name__}: {e}")
            self._stop.wait(self.poll)

    def _issue(self, cert: dict) -> None:
        meta, spec = cert["metadata"], cert.get("spec") or {}
        ready = any(c.get("type") == "Ready" and c.get("status") == "True"
                    for c in (cert.get("status") or {}).get("conditions") or [])
        if ready and meta["name"] in self.issued:
            return
        secret = spec.get("secretName")
        if not secret:
            return
        b64 = lambda b: base64.b64encode(b).decode()  # noqa: E731
        body = {"apiVersion": "v1", "kind": "Secret", "type": "kubernetes.io/tls",
                "metadata": {"name": secret, "namespace": self.namespace},
                "data": {"tls.crt": b64(self.certs.tls_crt), "tls.key": b64(self.certs.tls_key),
                         "ca.crt": b64(self.certs.ca_crt)}}
        base = f"/api/v1/namespaces/{self.namespace}/secrets"
        status, _ = self.cluster.request("POST", base, body)
        if status == 409:
            self.cluster.request("PUT", f"{base}/{secret}", body)
        now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        patch = {"apiVersion": "cert-manager.io/v1", "kind": "Certificate",
                 "metadata": {"name": meta["name"], "namespace": self.namespace,
                              "resourceVersion": meta["resourceVersion"]},
                 "spec": spec, "status": {"conditions": [{"type": "Ready", "status": "True", "reason": "Ready",
                                                          "message": "issued by the test harness",
                                                          "lastTransitionTime": now}]}}
        status, _ = self.cluster.request(
            "PUT", f"/apis/cert-manager.io/v1/namespaces/{self.namespace}/certificates/{meta['name']}/status", patch)
        if status == 200:
            self.issued[meta["name"]] = meta["resourceVersion"]
