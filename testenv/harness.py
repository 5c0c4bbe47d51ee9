"""A real kube-apiserver + etcd for tests, and the functions that drive it.

``Cluster.start()`` generates PKI, starts etcd and kube-apiserver (each in its
own process group), waits for ``/readyz``, writes a kubeconfig with the
contexts ``admin``, ``reader`` and ``nobody``, installs the CRDs and the
reader RBAC. ``Cluster.stop()`` terminates both process groups and removes
the temporary directory. What a process that does not end normally leaves behind (running
clusters, temporary directories) is cleaned up by ``testenv.leftovers``.
"""

from __future__ import annotations

import itertools
import json
import os
import secrets
import shutil
import ssl
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

from testenv import kube_versions, pki
from testenv.binaries import controlplane
from testenv.leftovers import (  # noqa: F401  (re-exported)
    _CLUSTERS, DIR_PREFIX, OWNER_FILE, _install_sigterm_handler, _kill_leftovers, _on_sigterm, _sweep_stale_dirs,
)
from testenv.procs import _LIVE, _http_ok, _Proc, free_port  # noqa: F401  (_LIVE: re-exported)
from testenv.binaries import crds as crds_mod

REPO_ROOT = Path(__file__).resolve().parents[1]
READER_CLUSTERROLE = REPO_ROOT / "deploy" / "rbac" / "reader-clusterrole.yaml"

#: The DRA gates the two test clusters turn on and off (GATES_ON, GATES_OFF). Their stage and
#: default per kube-apiserver minor are in ``kube_versions.DEFAULTS`` (measured on each server):
#: alpha and off by default in 1.34 and 1.35, beta and on by default in 1.36. Both depend on
#: DynamicResourceAllocation only, which is GA and on in all three (locked on from 1.35).
DRA_GATES = (kube_versions.DRA_EXTENDED, kube_versions.DRA_PARTITIONABLE)


def dra_gate_stage(version: str) -> str:
    """ALPHA or BETA: the stage of both DRA gates in a kube-apiserver version (e.g. v1.34.4)."""
    try:
        stages = {kube_versions.defaults(version)[gate][0] for gate in DRA_GATES}
    except kube_versions.UnknownVersion as e:
        raise ClusterError(str(e)) from None
    (stage,) = stages
    return stage


def dra_gates(version: str, on: bool) -> dict[str, bool]:
    """Both DRA gates on or off for a kube-apiserver version."""
    dra_gate_stage(version)  # a version whose gates are not known is refused, not guessed
    return dict.fromkeys(DRA_GATES, on)


USERS = {
    # context/user name: groups
    "admin": ["system:masters"],
    "reader": [],
    "nobody": [],
}
CONTEXTS = tuple(USERS)

PLUGIN_TIMEOUT = 120
START_TIMEOUT = float(os.environ.get("KUEUE_DRA_START_TIMEOUT", "180"))


class ClusterError(RuntimeError):
    pass


#: the gates of the two test clusters for the version the tests run (KUEUE_DRA_KUBE_VERSION):
#: GATES_ON turns both on (on 1.34 and 1.35 that enables alpha gates), GATES_OFF turns both off
#: (the 1.34 and 1.35 defaults); both are passed explicitly, whatever the defaults
GATES_ON = dra_gates(controlplane.kube_version(), True)
GATES_OFF = dra_gates(controlplane.kube_version(), False)


class KubectlError(subprocess.CalledProcessError):
    def __str__(self) -> str:
        return (
            f"{' '.join(map(str, self.cmd))} exited {self.returncode}\n"
            f"stdout: {(self.stdout or '')[-3000:]}\nstderr: {(self.stderr or '')[-3000:]}"
        )


class Cluster:
    """A running control plane. Use ``Cluster.start(...)`` and ``stop()``."""

    def __init__(self, name: str, bin_dir: Path, feature_gates: dict[str, bool], crd_files=None,
                 keep_dir: bool = False):
        self.name = name
        self.bin_dir = Path(bin_dir)
        self.feature_gates = dict(feature_gates)
        self._crd_files = crd_files
        self._keep_dir = keep_dir
        _sweep_stale_dirs()
        self.dir = Path(tempfile.mkdtemp(prefix=f"{DIR_PREFIX}{name}-"))
        (self.dir / OWNER_FILE).write_text(str(os.getpid()))
        self.kubeconfig = self.dir / "kubeconfig"
        self.server = ""
        self.tokens = {user: secrets.token_hex(16) for user in USERS}
        self._etcd: _Proc | None = None
        self._apiserver: _Proc | None = None
        self._ns_counter = itertools.count(1)
        self._ssl = None
        #: the kube-apiserver this cluster runs (KUEUE_DRA_KUBE_VERSION selects another version
        #: than the bin dir's own) and its version, read from the binary once it is known
        self.apiserver_binary = self.bin_dir / "kube-apiserver"
        self.kube_version = ""

    # ----------------------------------------------------------------- lifecycle
    @classmethod
    def start(cls, name: str, bin_dir: Path, feature_gates: dict[str, bool], **kw) -> Cluster:
        _install_sigterm_handler()
        c = cls(name, bin_dir, feature_gates, **kw)
        _CLUSTERS.add(c)
        try:
            c._start()
        except BaseException:
            c.stop()
            raise
        return c

    def _start(self) -> None:
        t0 = time.monotonic()
        self.apiserver_binary = controlplane.apiserver_binary(self.bin_dir)
        self.kube_version = controlplane.apiserver_version(self.apiserver_binary.parent)
        self.pki = pki.generate(self.dir / "pki")
        self._start_etcd()
        self._start_apiserver()
        self._write_kubeconfig()
        self._install_crds()
        self._install_rbac()
        self.startup_seconds = round(time.monotonic() - t0, 1)

    def stop(self) -> None:
        """Stop kube-apiserver, then etcd, and remove the temporary directory. Idempotent."""
        for p in (self._apiserver, self._etcd):
            if p is not None:
                p.stop()
        if not self._keep_dir:
            shutil.rmtree(self.dir, ignore_errors=True)
        _CLUSTERS.discard(self)

    def __enter__(self) -> Cluster:
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def _start_etcd(self) -> None:
        client, peer = free_port(), free_port()
        self.etcd_url = f"http://127.0.0.1:{client}"
        argv = [
            str(self.bin_dir / "etcd"),
            "--name=default",
            f"--data-dir={self.dir / 'etcd'}",
            f"--listen-client-urls={self.etcd_url}",
            f"--advertise-client-urls={self.etcd_url}",
            f"--listen-peer-urls=http://127.0.0.1:{peer}",
            f"--initial-advertise-peer-urls=http://127.0.0.1:{peer}",
            f"--initial-cluster=default=http://127.0.0.1:{peer}",
            "--unsafe-no-fsync=true",
            "--log-level=warn",
        ]
        self._etcd = _Proc("etcd", argv, self.dir / "etcd.log")
        self._wait(self._etcd, lambda: _http_ok(f"{self.etcd_url}/health"), "etcd /health")

    def _start_apiserver(self) -> None:
        port = free_port()
        self.server = f"https://127.0.0.1:{port}"
        tokens = self.dir / "tokens.csv"
        tokens.write_text("".join(
            f'{self.tokens[u]},{u},uid-{u},"{",".join(groups)}"\n' for u, groups in USERS.items()
        ))
        tokens.chmod(0o600)
        gates = ",".join(f"{k}={str(v).lower()}" for k, v in sorted(self.feature_gates.items()))
        argv = [
            str(self.apiserver_binary),
            f"--etcd-servers={self.etcd_url}",
            "--advertise-address=127.0.0.1",
            "--bind-address=127.0.0.1",
            f"--secure-port={port}",
            f"--cert-dir={self.dir / 'certs'}",
            f"--tls-cert-file={self.pki.serving_cert}",
            f"--tls-private-key-file={self.pki.serving_key}",
            f"--client-ca-file={self.pki.ca_cert}",
            f"--token-auth-file={tokens}",
            "--authorization-mode=RBAC",
            f"--service-account-issuer={self.server}/",
            f"--service-account-key-file={self.pki.sa_public_key}",
            f"--service-account-signing-key-file={self.pki.sa_private_key}",
            "--service-cluster-ip-range=10.0.0.0/24",
            "--endpoint-reconciler-type=none",
            "--disable-admission-plugins=ServiceAccount",
            "--allow-privileged=true",
            "--profiling=false",
            f"--feature-gates={gates}",
            *self._aggregation_flags(),
        ]
        self._apiserver = _Proc("kube-apiserver", argv, self.dir / "kube-apiserver.log")
        self._ssl = ssl.create_default_context(cafile=str(self.pki.ca_cert))
        self._wait(self._apiserver, lambda: self._readyz(), "kube-apiserver /readyz")

    def _aggregation_flags(self) -> list[str]:
        """The aggregation layer: the API server proxies /apis/<group> of an APIService to its
        extension API server with the front-proxy client certificate and the user in headers."""
        return [
            f"--requestheader-client-ca-file={self.pki.front_proxy_ca_cert}",
            f"--requestheader-allowed-names={pki.FRONT_PROXY_CLIENT}",
            "--requestheader-extra-headers-prefix=X-Remote-Extra-",
            "--requestheader-group-headers=X-Remote-Group",
            "--requestheader-username-headers=X-Remote-User",
            f"--proxy-client-cert-file={self.pki.front_proxy_client_cert}",
            f"--proxy-client-key-file={self.pki.front_proxy_client_key}",
            # Off: routing dials an EndpointSlice address, and the API server refuses loopback ones;
            # an APIService is reached through an ExternalName Service instead (testenv/visibility.py)
            "--enable-aggregator-routing=false",
        ]

    def _readyz(self) -> bool:
        try:
            status, _ = self.request("GET", "/readyz")
        except (OSError, urllib.error.URLError):
            return False
        return status == 200

    def _wait(self, proc: _Proc, check, what: str) -> None:
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if not proc.alive():
                raise ClusterError(f"{proc.name} exited with {proc.popen.returncode} before {what}:\n{proc.tail()}")
            if check():
                return
            time.sleep(0.2)
        raise ClusterError(f"timed out after {START_TIMEOUT}s waiting for {what}:\n{proc.tail()}")

    def _write_kubeconfig(self) -> None:
        import base64

        import yaml

        ca = base64.b64encode(self.pki.ca_pem).decode()
        cfg = {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [{"name": self.name, "cluster": {"server": self.server, "certificate-authority-data": ca}}],
            "users": [{"name": u, "user": {"token": self.tokens[u]}} for u in USERS],
            "contexts": [
                {"name": u, "context": {"cluster": self.name, "user": u, "namespace": "default"}} for u in USERS
            ],
            "current-context": "admin",
            "preferences": {},
        }
        self.kubeconfig.write_text(yaml.safe_dump(cfg, sort_keys=False))
        self.kubeconfig.chmod(0o600)

    def _install_crds(self) -> None:
        docs = crds_mod.load_crds(self._crd_files)
        self.crd_names = [d["metadata"]["name"] for d in docs]
        self.kubectl("apply", "--server-side", "--field-manager=kueue-dra-tests", "-f", "-",
                     input=json.dumps({"apiVersion": "v1", "kind": "List", "items": docs}))
        self.kubectl("wait", "--for=condition=Established", "--timeout=120s",
                     *[f"customresourcedefinition/{n}" for n in self.crd_names])

    def _install_rbac(self) -> None:
        import yaml

        role = yaml.safe_load(READER_CLUSTERROLE.read_text())
        binding = {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "ClusterRoleBinding",
            "metadata": {"name": "kueue-dra-reader"},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": role["metadata"]["name"]},
            "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "reader"}],
        }
        self.apply([role, binding])

    # ------------------------------------------------------------------- test API
    def kubectl(self, *args, context: str = "admin", input: str | bytes | None = None, check: bool = True,
                timeout: float = 120) -> subprocess.CompletedProcess:
        """Run the built kubectl against this cluster."""
        cmd = [str(self.bin_dir / "kubectl"), f"--kubeconfig={self.kubeconfig}", f"--context={context}", *map(str, args)]
        env = dict(os.environ, KUBECONFIG=str(self.kubeconfig), KUBECACHEDIR=str(self.dir / "kubectl-cache"))
        if isinstance(input, bytes):
            input = input.decode()
        proc = subprocess.run(cmd, input=input, capture_output=True, text=True, env=env, timeout=timeout)
        if check and proc.returncode != 0:
            raise KubectlError(proc.returncode, cmd, proc.stdout, proc.stderr)
        return proc

    def apply(self, obj, context: str = "admin", check: bool = True) -> subprocess.CompletedProcess:
        """Server-side apply YAML/JSON text, a path, or a dict/list of objects."""
        if isinstance(obj, (dict, list)):
            items = obj if isinstance(obj, list) else [obj]
            text = json.dumps({"apiVersion": "v1", "kind": "List", "items": items})
        elif isinstance(obj, Path) or (isinstance(obj, str) and "\n" not in obj and Path(obj).is_file()):
            text = Path(obj).read_text()
        else:
            text = obj
        return self.kubectl("apply", "--server-side", "--force-conflicts", "--field-manager=kueue-dra-tests",
                            "-f", "-", context=context, input=text, check=check)

    def delete(self, obj, context: str = "admin", check: bool = True) -> subprocess.CompletedProcess:
        """Delete the objects in a dict/list (or YAML text/path); missing ones are ignored."""
        if isinstance(obj, (dict, list)):
            items = obj if isinstance(obj, list) else [obj]
            text = json.dumps({"apiVersion": "v1", "kind": "List", "items": items})
        elif isinstance(obj, Path) or (isinstance(obj, str) and "\n" not in obj and Path(obj).is_file()):
            text = Path(obj).read_text()
        else:
            text = obj
        return self.kubectl("delete", "--ignore-not-found", "--wait=false", "-f", "-", context=context,
                            input=text, check=check)

    def get_json(self, *args, context: str = "admin") -> dict:
        """kubectl get ARGS -o json, parsed."""
        return json.loads(self.kubectl("get", *args, "-o", "json", context=context).stdout)

    def create_namespace(self, prefix: str = "test") -> str:
        """Create a fresh namespace (namespaces are never deleted: there is no controller-manager)."""
        base = "".join(ch if ch.isalnum() or ch == "-" else "-" for ch in prefix.lower()).strip("-")[:40] or "test"
        name = f"{base}-{next(self._ns_counter)}-{secrets.token_hex(2)}"
        self.kubectl("create", "namespace", name)
        return name

    def request(self, method: str, path: str, body=None, user: str = "admin") -> tuple[int, bytes]:
        """A raw HTTPS request as USER. Returns (status, body); HTTP errors are not raised."""
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.server + path, data=data, method=method)
        req.add_header("Authorization", f"Bearer {self.tokens[user]}")
        if data is not None:
            req.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(req, context=self._ssl, timeout=10) as resp:
                return resp.status, resp.read()
        except urllib.error.HTTPError as e:
            return e.code, e.read()

    def logs(self) -> str:
        return "\n".join(
            f"--- {p.name} ---\n{p.tail(80)}" for p in (self._etcd, self._apiserver) if p is not None
        )

    def __repr__(self) -> str:
        return f"Cluster({self.name!r}, server={self.server!r}, gates={self.feature_gates})"


def plugin_env(cluster: Cluster, env: dict | None = None) -> dict:
    """The environment a plugin run against ``cluster`` gets (NO_COLOR unless overridden)."""
    full_env = dict(os.environ)
    full_env["KUBECONFIG"] = str(cluster.kubeconfig)
    full_env["KUBECACHEDIR"] = str(cluster.dir / "kubectl-cache")
    full_env.setdefault("NO_COLOR", "1")
    if env:
        full_env.update(env)
    return full_env


def run_plugin(cluster: Cluster, *args, context: str = "admin", env: dict | None = None,
               input: str | None = None, timeout: float = PLUGIN_TIMEOUT) -> subprocess.CompletedProcess:
    """Run ``kubectl-kueue_dra --kubeconfig KC --context CTX ARGS`` in this process (the CLI's
    ``main(args, Environment)``) and capture its output, from the repository root. Never raises
    on a non-zero exit; the caller asserts on ``returncode``, ``stdout`` and ``stderr``.
    ``timeout`` is kept for callers; an in-process run is bounded by --request-timeout instead."""
    from testenv.clirun import run_with

    args = ("--kubeconfig", str(cluster.kubeconfig), "--context", context, *map(str, args))
    return run_with(args, plugin_env(cluster, env), input=input)
