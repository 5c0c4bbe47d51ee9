"""Kueue's visibility API (``visibility.kueue.x-k8s.io``) through the test API server's
aggregation layer, as on a real cluster: ``kubectl get --raw /apis/visibility.kueue.x-k8s.io/...``
reaches Kueue's own HTTPS server.

Two things differ from an in-cluster install, and why:

- **How the API server reaches Kueue.** Kueue runs on 127.0.0.1 and there is no kube-proxy. The
  API server refuses loopback addresses in Endpoints and EndpointSlices ("may not be in the
  loopback range"), so ``--enable-aggregator-routing=true`` (which dials an EndpointSlice address)
  cannot reach it. With routing off the aggregator dials the Service's cluster address, and for a
  Service of type ExternalName that is ``<externalName>:<the APIService's port>``: the Service is
  ExternalName ``localhost`` and the APIServices name Kueue's port. TLS is still verified: Kueue
  serves a certificate for ``visibility-server.kueue-system.svc`` (the name the aggregator checks)
  signed by a CA the APIServices carry as ``caBundle``.
- **Where Kueue keeps its certificate.** Kueue's visibility server reads (or writes) it in the
  fixed directory ``/visibility``, which a test must not create on the machine. Kueue runs in a
  private mount namespace whose root is the machine's own (every top-level directory bind-mounted
  onto a tmpfs) plus ``/visibility`` bound to a temporary directory; nothing outside changes.
  This needs ``unshare`` and ``chroot`` and either root or unprivileged user namespaces.
"""

from __future__ import annotations

import base64
import ipaddress
import json
import os
import time
from pathlib import Path

from cryptography import x509
from cryptography.x509.oid import ExtendedKeyUsageOID

from testenv import pki
from testenv.harness import Cluster, ClusterError

GROUP = "visibility.kueue.x-k8s.io"
VERSIONS = ("v1beta1", "v1beta2")
SERVICE = "visibility-server"
#: Kueue's fixed certificate directory (sigs.k8s.io/kueue pkg/visibility, certDir)
CERT_DIR = "/visibility"
AVAILABLE_TIMEOUT = float(os.environ.get("KUEUE_DRA_VISIBILITY_TIMEOUT", "90"))

_PRIVATE_ROOT = r'''set -e
root=$1; certs=$2; shift 2
mount -t tmpfs tmpfs "$root"
for entry in /*; do
  name=${entry#/}
  if [ -L "$entry" ]; then ln -s "$(readlink "$entry")" "$root/$name"
  elif [ -d "$entry" ]; then mkdir "$root/$name"; mount --rbind "$entry" "$root/$name"
  else touch "$root/$name"; mount --bind "$entry" "$root/$name"; fi
done
mkdir "$root/visibility"
mount --bind "$certs" "$root/visibility"
exec chroot "$root" "$@"
'''


def write_certs(directory: Path, namespace: str) -> bytes:
    """Kueue's visibility serving certificate (both file names Kueue reads: ``apiserver.*`` with
    its internal certificate management, ``tls.*`` without) in ``directory``; returns the CA PEM."""
    directory.mkdir(parents=True, exist_ok=True)
    ca_cert, ca_key = pki.ca("kueue-dra-test-visibility-ca")
    cert, key = pki.leaf(ca_cert, ca_key, f"{SERVICE}.{namespace}.svc", ExtendedKeyUsageOID.SERVER_AUTH, [
        x509.DNSName(f"{SERVICE}.{namespace}.svc"), x509.DNSName("localhost"),
        x509.IPAddress(ipaddress.ip_address("127.0.0.1"))])
    for stem in ("apiserver", "tls"):
        pki.write_pair(directory / f"{stem}.crt", directory / f"{stem}.key", cert, key)
    return pki.pem(ca_cert)


def in_private_root(argv: list[str], root: Path, certs: Path) -> list[str]:
    """``argv`` run with ``certs`` mounted at /visibility, in a mount namespace of its own."""
    root.mkdir(parents=True, exist_ok=True)
    unshare = ["unshare", "--mount", "--propagation", "private"]
    if os.geteuid() != 0:
        unshare.append("--map-root-user")
    return [*unshare, "sh", "-c", _PRIVATE_ROOT, "sh", str(root), str(certs), *argv]


def objects(namespace: str, port: int, ca_pem: bytes) -> list[dict]:
    """The Service and the two APIServices that send /apis/visibility.kueue.x-k8s.io to Kueue."""
    service = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": SERVICE, "namespace": namespace},
               "spec": {"type": "ExternalName", "externalName": "localhost",
                        "ports": [{"name": "https", "port": port, "protocol": "TCP"}]}}
    return [service, *({
        "apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService", "metadata": {"name": f"{v}.{GROUP}"},
        "spec": {"group": GROUP, "version": v, "groupPriorityMinimum": 100, "versionPriority": 100,
                 "caBundle": base64.b64encode(ca_pem).decode(),
                 "service": {"name": SERVICE, "namespace": namespace, "port": port}}} for v in VERSIONS)]


def wait_available(cluster: Cluster, alive, tail, timeout: float = AVAILABLE_TIMEOUT) -> float:
    """Wait until both APIServices are Available (the aggregator reached Kueue); seconds waited."""
    t0 = time.monotonic()
    names = [f"apiservice/{v}.{GROUP}" for v in VERSIONS]
    while True:
        doc = json.loads(cluster.kubectl("get", *names, "-o", "json").stdout)
        conditions = [next((c for c in item.get("status", {}).get("conditions", []) if c["type"] == "Available"), {})
                      for item in doc["items"]]
        if all(c.get("status") == "True" for c in conditions):
            return round(time.monotonic() - t0, 1)
        if not alive():
            raise ClusterError(f"kueue exited before the visibility API was available:\n{tail()}")
        if time.monotonic() - t0 > timeout:
            why = "; ".join(f"{c.get('reason')}: {c.get('message')}" for c in conditions)
            raise ClusterError(f"the visibility APIServices are not Available after {timeout}s ({why}):\n{tail()}")
        time.sleep(0.5)


def pending_workloads_path(namespace: str, local_queue: str, version: str = "v1beta1") -> str:
    return f"/apis/{GROUP}/{version}/namespaces/{namespace}/localqueues/{local_queue}/pendingworkloads"
