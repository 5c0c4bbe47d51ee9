"""The real Kueue controller manager, run out of cluster against a test API server.

Kueue expects to run in a pod with a Service in front of its webhooks. Out of cluster:

* its CRDs come from the Go module cache (``sigs.k8s.io/kueue@<version>``); the CRDs that Kueue's
  kustomization gives a conversion webhook get one with ``clientConfig.url`` pointing at
  ``https://127.0.0.1:<webhook port>/convert``. It cannot be stripped: the cert rotator injects
  the CA into those CRDs and Kueue never becomes ready when a CRD has no
  ``spec.conversion.webhook.clientConfig``;
* the cert rotator (internal cert management, Kueue's default) only accepts a Secret that already
  exists, and waits for ``tls.crt`` in ``webhook.certDir`` (the kubelet would mount it). So a CA
  (DNS SAN ``kueue-ca``, RSA in PKCS#1 as the rotator parses it) and a server certificate (SANs
  ``kueue-webhook-service.kueue-system.svc`` and ``127.0.0.1``) valid far beyond the rotator's
  90-day look-ahead are generated, put into Secret ``kueue-webhook-server-cert`` and written to
  the cert dir. The rotator then logs "no cert refresh needed" and injects the CA;
* the Configuration turns leader election off, metrics off (``bindAddress: "0"``), binds the
  health probe and the webhook server to free ports on 127.0.0.1, manages batch/job only, and
  gives every version v0.19's client rate limits (300 qps, burst 500; v0.18.4's default is 20);
* ``--feature-gates`` carries ``VisibilityOnDemand=false`` (the visibility server writes certs
  to ``/visibility``; ``visibility=True`` turns it on in a mount namespace of its own, see
  testenv/visibility.py) plus the scenario's gates. The same text goes into the Deployment object's
  arguments below;
* ``explain`` finds Kueue's configuration and version through Deployment
  ``kueue-controller-manager`` and ConfigMap ``kueue-manager-config`` in ``kueue-system``: both are
  created with exactly what the process runs with (the Deployment has 0 replicas and there is no
  controller-manager, so nothing runs from it; Kueue does not watch Deployments when only batch/job
  is integrated).

``KueueRunner.ensure(setup)`` (re)starts Kueue when the setup's configuration differs from the
running one; ``stop()`` ends its process group. A setup with ``rendered`` text runs a configuration
the OpenShift operator rendered (``rendered_configuration``; ``operator_chain``) instead of
building one, and publishes nothing: the operator's ConfigMap and Deployment are in the cluster.
"""

from __future__ import annotations

import base64
import datetime
import ipaddress
import json
import os
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from testenv.binaries import crds as crds_mod
from testenv.harness import Cluster, ClusterError
from testenv import visibility
from testenv.procs import _http_ok, _Proc, free_port

NAMESPACE = "kueue-system"
SECRET = "kueue-webhook-server-cert"
SERVICE_DNS = f"kueue-webhook-service.{NAMESPACE}.svc"
DEPLOYMENT = "kueue-controller-manager"
CONFIGMAP = "kueue-manager-config"
CONFIG_KEY = "controller_manager_config.yaml"
IMAGE = "registry.k8s.io/kueue/kueue"
CRD_PATCHES = "config/components/crd/patches"
START_TIMEOUT = float(os.environ.get("KUEUE_DRA_KUEUE_START_TIMEOUT", "120"))
LOG_LEVEL = os.environ.get("KUEUE_DRA_KUEUE_LOG_LEVEL", "2")  # zap: 2 shows Kueue's V(2) lines


@dataclass(frozen=True)
class KueueSetup:
    """What a scenario needs from Kueue's configuration."""

    mappings: tuple = ()  # deviceClassMappings, as JSON-able dicts
    gates: tuple = ()  # ((gate, bool), ...)
    extra: str = ""  # extra Configuration fields, JSON text (kept hashable)
    rendered: str = ""  # a configuration rendered by the OpenShift operator: run with it (see below)

    @classmethod
    def of(cls, mappings=(), gates=None, extra=None) -> KueueSetup:
        return cls(tuple(json.dumps(m, sort_keys=True) for m in mappings),
                   tuple(sorted((gates or {}).items())), json.dumps(extra or {}, sort_keys=True))

    @property
    def mapping_list(self) -> list[dict]:
        return [json.loads(m) for m in self.mappings]

    def gate_flag(self, visibility: bool = False) -> str:
        """Kueue's --feature-gates: the setup's, and VisibilityOnDemand only for a runner that
        serves the visibility API (its server wants the fixed directory /visibility)."""
        gates = {"VisibilityOnDemand": visibility, **dict(self.gates)}
        return ",".join(f"{k}={str(v).lower()}" for k, v in gates.items())


# --------------------------------------------------------------------------------------- certs
@dataclass
class WebhookCerts:
    ca_crt: bytes
    ca_key: bytes
    tls_crt: bytes
    tls_key: bytes


def generate_certs(days: int = 730) -> WebhookCerts:
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import rsa
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    now = datetime.datetime.now(datetime.timezone.utc)
    begin, end = now - datetime.timedelta(hours=1), now + datetime.timedelta(days=days)
    ca_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "kueue-ca"),
                         x509.NameAttribute(NameOID.ORGANIZATION_NAME, "kueue")])
    ca = (x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name)
          .public_key(ca_key.public_key()).serial_number(x509.random_serial_number())
          .not_valid_before(begin).not_valid_after(end)
          .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
          .add_extension(x509.KeyUsage(digital_signature=True, content_commitment=False, key_encipherment=True,
                                       data_encipherment=False, key_agreement=False, key_cert_sign=True,
                                       crl_sign=False, encipher_only=False, decipher_only=False), critical=True)
          .add_extension(x509.SubjectAlternativeName([x509.DNSName("kueue-ca")]), critical=False)
          .sign(ca_key, hashes.SHA256()))
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    cert = (x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, SERVICE_DNS)]))
            .issuer_name(ca_name).public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(begin).not_valid_after(end)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.KeyUsage(digital_signature=True, content_commitment=False, key_encipherment=True,
                                         data_encipherment=False, key_agreement=False, key_cert_sign=False,
                                         crl_sign=False, encipher_only=False, decipher_only=False), critical=True)
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .add_extension(x509.SubjectAlternativeName([x509.DNSName(SERVICE_DNS),
                                                        x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                           critical=False)
            .sign(ca_key, hashes.SHA256()))
    pkcs1 = serialization.PrivateFormat.TraditionalOpenSSL
    none = serialization.NoEncryption()
    return WebhookCerts(
        ca_crt=ca.public_bytes(serialization.Encoding.PEM),
        ca_key=ca_key.private_bytes(serialization.Encoding.PEM, pkcs1, none),
        tls_crt=cert.public_bytes(serialization.Encoding.PEM),
        tls_key=key.private_bytes(serialization.Encoding.PEM, pkcs1, none),
    )


# ---------------------------------------------------------------------------------------- CRDs
def conversion_crds(version: str, webhook_port: int) -> list[dict]:
    """Kueue's CRD bases; those its kustomization patches with a conversion webhook get one that
    calls 127.0.0.1:<webhook_port>."""
    moddir = crds_mod.module_dir(crds_mod.KUEUE_MODULE, version)
    kustomization = yaml.safe_load((moddir / "config/components/crd/kustomization.yaml").read_text())
    webhook_crds = set()
    for patch in kustomization.get("patches") or []:
        path = patch.get("path") if isinstance(patch, dict) else patch
        if path and Path(path).name.startswith("webhook_in_"):
            doc = yaml.safe_load((moddir / "config/components/crd" / path).read_text())
            webhook_crds.add(doc["metadata"]["name"])
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    out = []
    for f in sorted((moddir / crds_mod.KUEUE_CRD_DIR).glob("*.yaml")):
        with open(f) as fh:
            for doc in yaml.load_all(fh, Loader=loader):
                if not doc or doc.get("kind") != "CustomResourceDefinition":
                    continue
                doc = crds_mod.prepare(doc)
                if doc["metadata"]["name"] in webhook_crds:
                    doc["spec"]["conversion"] = {"strategy": "Webhook", "webhook": {
                        "conversionReviewVersions": ["v1"],
                        "clientConfig": {"url": f"https://127.0.0.1:{webhook_port}/convert"}}}
                out.append(doc)
    return out


# -------------------------------------------------------------------------------------- runner
#: API server → the Kueue version whose CRDs were installed there last
_CRDS_ON: dict[str, str] = {}


@dataclass
class KueueRunner:
    cluster: Cluster
    binary: Path
    version: str
    dir: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="kueue-dra-kueue-")))
    setup: KueueSetup | None = None
    starts: int = 0
    start_seconds: list = field(default_factory=list)
    #: serve Kueue's visibility API through the API server's aggregation layer (testenv/visibility.py)
    visibility: bool = False
    #: wait for the visibility API at every start; False leaves it to ``visibility_ready()``, called
    #: by whoever reads it (a run that restarts Kueue often and reads it rarely saves the wait)
    visibility_wait: bool = True

    def __post_init__(self) -> None:
        self.webhook_port = free_port()
        self.visibility_port = free_port()
        self.cert_dir = self.dir / "certs"
        self._proc: _Proc | None = None
        self._installed = False
        self._visible = False

    # one-time installation ------------------------------------------------------------------
    def install(self) -> None:
        """Kueue's CRDs (of this version), namespace and webhook Secret. Runners of two versions may
        take turns on one cluster: the CRDs are installed again when the other version's are there."""
        if self._installed and _CRDS_ON.get(self.cluster.server) == self.version:
            return
        c = self.cluster
        certs = generate_certs()
        self.cert_dir.mkdir(parents=True, exist_ok=True)
        for name, data in (("tls.crt", certs.tls_crt), ("tls.key", certs.tls_key)):
            (self.cert_dir / name).write_bytes(data)
            (self.cert_dir / name).chmod(0o600)
        docs = conversion_crds(self.version, self.webhook_port)
        for d in docs:  # CRDs installed by someone else (the OpenShift operator) may call a Service
            if d["spec"].get("conversion"):
                c.kubectl("patch", f"customresourcedefinition/{d['metadata']['name']}", "--type=json", "-p",
                          json.dumps([{"op": "replace", "path": "/spec/conversion",
                                       "value": d["spec"]["conversion"]}]), check=False)
        c.kubectl("apply", "--server-side", "--force-conflicts", "--field-manager=kueue-dra-tests", "-f", "-",
                  input=json.dumps({"apiVersion": "v1", "kind": "List", "items": docs}))
        c.kubectl("wait", "--for=condition=Established", "--timeout=120s",
                  *[f"customresourcedefinition/{d['metadata']['name']}" for d in docs])
        c.apply({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}})
        b64 = lambda b: base64.b64encode(b).decode()  # noqa: E731
        c.apply({"apiVersion": "v1", "kind": "Secret", "type": "Opaque",
                 "metadata": {"name": SECRET, "namespace": NAMESPACE},
                 "data": {"ca.crt": b64(certs.ca_crt), "ca.key": b64(certs.ca_key),
                          "tls.crt": b64(certs.tls_crt), "tls.key": b64(certs.tls_key)}})
        self._installed = True
        _CRDS_ON[self.cluster.server] = self.version

    # configuration -----------------------------------------------------------------------------
    def rendered_configuration(self, text: str, health_port: int) -> dict:
        """A configuration the OpenShift operator rendered, changed only where a process outside a
        pod must differ: no leader election, probes and webhooks on free ports of 127.0.0.1, no
        metrics server, ``VisibilityOnDemand`` in its featureGates as the runner's ``visibility`` (the
        visibility server wants ``/visibility``: testenv/visibility.py), and the certificates handled as for every oracle run: internal cert
        management in ``kueue-system`` (with cert-manager's, ``internalCertManagement: false``, Kueue
        reads its metrics certificate from the fixed path ``/etc/kueue/metrics/certs``, which a test
        must not write). The mappings, gates, integrations and the rest are the operator's."""
        cfg = yaml.safe_load(text)
        cfg["namespace"] = NAMESPACE
        cfg["internalCertManagement"] = {"enable": True}
        cfg["leaderElection"] = {"leaderElect": False}
        cfg["health"] = {**(cfg.get("health") or {}), "healthProbeBindAddress": f"127.0.0.1:{health_port}"}
        cfg["metrics"] = {**(cfg.get("metrics") or {}), "bindAddress": "0"}
        cfg["webhook"] = {**(cfg.get("webhook") or {}), "host": "127.0.0.1", "port": self.webhook_port,
                          "certDir": str(self.cert_dir)}
        cfg["featureGates"] = {**(cfg.get("featureGates") or {}), "VisibilityOnDemand": self.visibility}
        if self.visibility:
            cfg["visibilityServer"] = {"bindAddress": "127.0.0.1", "bindPort": self.visibility_port}
        return cfg

    def configuration(self, setup: KueueSetup, health_port: int) -> dict:
        if setup.rendered:
            return self.rendered_configuration(setup.rendered, health_port)
        cfg = {
            "apiVersion": "config.kueue.x-k8s.io/v1beta2",
            "kind": "Configuration",
            "namespace": NAMESPACE,
            "leaderElection": {"leaderElect": False},
            "health": {"healthProbeBindAddress": f"127.0.0.1:{health_port}"},
            "metrics": {"bindAddress": "0"},
            "webhook": {"host": "127.0.0.1", "port": self.webhook_port, "certDir": str(self.cert_dir)},
            "integrations": {"frameworks": ["batch/job"]},
            # v0.19's client rate limits: v0.18.4's default (20 qps) spreads what Kueue writes for a
            # world of a hundred workloads over tens of seconds; the semantics do not change
            "clientConnection": {"qps": 300, "burst": 500},
        }
        if self.visibility:
            cfg["visibilityServer"] = {"bindAddress": "127.0.0.1", "bindPort": self.visibility_port}
        if setup.mappings:
            cfg["resources"] = {"deviceClassMappings": setup.mapping_list}
        for key, value in json.loads(setup.extra).items():
            if isinstance(value, dict) and isinstance(cfg.get(key), dict):
                cfg[key] = {**cfg[key], **value}
            else:
                cfg[key] = value
        return cfg

    def _publish(self, text: str, gate_flag: str) -> None:
        """The ConfigMap and Deployment an in-cluster install would have, for ``explain``."""
        self.cluster.apply([
            {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": CONFIGMAP, "namespace": NAMESPACE},
             "data": {CONFIG_KEY: text}},
            {"apiVersion": "apps/v1", "kind": "Deployment",
             "metadata": {"name": DEPLOYMENT, "namespace": NAMESPACE, "labels": {"control-plane": "controller-manager"}},
             "spec": {"replicas": 0, "selector": {"matchLabels": {"control-plane": "controller-manager"}},
                      "template": {"metadata": {"labels": {"control-plane": "controller-manager"}},
                                   "spec": {"containers": [{
                                       "name": "manager", "image": f"{IMAGE}:{self.version}",
                                       "args": ["--config=/controller_manager_config.yaml", f"--feature-gates={gate_flag}"],
                                       "volumeMounts": [{"name": "manager-config", "mountPath": "/controller_manager_config.yaml",
                                                         "subPath": CONFIG_KEY}]}],
                                       "volumes": [{"name": "manager-config", "configMap": {"name": CONFIGMAP}}]}}}},
        ])

    # lifecycle ---------------------------------------------------------------------------------
    def ensure(self, setup: KueueSetup) -> bool:
        """Run Kueue with ``setup``; restart only if it runs with another one. True if (re)started."""
        if self.setup == setup and self._proc is not None and self._proc.alive():
            return False
        self.stop()
        if setup.rendered:  # the operator may have put its own Kueue CRDs back since
            self._installed = False
        self.install()
        health = free_port()
        cfg = self.configuration(setup, health)
        text = yaml.safe_dump(cfg, sort_keys=False)
        if not setup.rendered:  # else the operator's ConfigMap and Deployment are in the cluster
            self._publish(text, setup.gate_flag(self.visibility))
        self.starts += 1
        cfg_path = self.dir / f"config-{self.starts}.yaml"
        cfg_path.write_text(text)
        argv = [str(self.binary), f"--config={cfg_path}", f"--kubeconfig={self.cluster.kubeconfig}",
                f"--zap-log-level={LOG_LEVEL}"]
        if not setup.rendered:  # the rendered configuration has featureGates: Kueue refuses both
            argv.append(f"--feature-gates={setup.gate_flag(self.visibility)}")
        if self.visibility:
            argv = self._serve_visibility(argv)
        t0 = time.monotonic()
        self._proc = _Proc("kueue", argv, self.dir / f"kueue-{self.starts}.log")
        deadline = t0 + START_TIMEOUT
        url = f"http://127.0.0.1:{health}/readyz"
        while time.monotonic() < deadline:
            if not self._proc.alive():
                raise ClusterError(f"kueue exited with {self._proc.popen.returncode} before /readyz:\n"
                                   f"{self._proc.tail(30)}")
            if _http_ok(url):
                self._visible = False
                if self.visibility and self.visibility_wait:
                    self.visibility_ready()
                self.setup = setup
                self.start_seconds.append(round(time.monotonic() - t0, 1))
                return True
            time.sleep(0.2)
        tail = self._proc.tail(30)
        self.stop()
        raise ClusterError(f"timed out after {START_TIMEOUT}s waiting for kueue /readyz:\n{tail}")

    def visibility_ready(self) -> None:
        """Wait until the running Kueue's visibility API answers through the API server (once per
        start)."""
        if not self.visibility or self._visible or self._proc is None:
            return
        proc = self._proc
        visibility.wait_available(self.cluster, proc.alive, lambda: proc.tail(30))
        deadline = time.monotonic() + visibility.AVAILABLE_TIMEOUT
        # Available can still be the previous start's: ask this one (discovery is proxied to Kueue)
        while self.cluster.request("GET", f"/apis/{visibility.GROUP}/v1beta2")[0] != 200:
            if time.monotonic() > deadline or not proc.alive():
                raise ClusterError(f"Kueue's visibility API does not answer:\n{proc.tail(30)}")
            time.sleep(0.3)
        self._visible = True

    def _serve_visibility(self, argv: list[str]) -> list[str]:
        """Register the visibility APIServices for this Kueue, and run it with its certificate at
        /visibility in a mount namespace of its own."""
        certs = self.dir / "visibility"
        ca_pem = visibility.write_certs(certs, NAMESPACE)
        self.cluster.apply(visibility.objects(NAMESPACE, self.visibility_port, ca_pem))
        return visibility.in_private_root(argv, self.dir / f"root-{self.starts}", certs)

    def log_tail(self, n: int = 60) -> str:
        return self._proc.tail(n) if self._proc is not None else ""

    def stop(self) -> None:
        if self._proc is not None:
            self._proc.stop()
            self._proc = None
        self.setup = None

    def close(self, keep: bool = False) -> None:
        self.stop()
        if not keep:
            shutil.rmtree(self.dir, ignore_errors=True)
