"""A test cluster that runs the DRA lifecycle without containers.

On top of a ``harness.Cluster`` (etcd + kube-apiserver): ``kube-controller-manager`` (the job,
resourceclaim, garbage-collector, deployment, replicaset, namespace, node-lifecycle… controllers),
``kube-scheduler`` (its DynamicResources plugin allocates devices and the DRA extended-resource
claims) and KWOK managing fake nodes (``kwok.x-k8s.io/node: fake``): nodes become Ready and renew
their Lease, pods bound to them go Running. No kubelet, no container runtime, no DRA driver: the
tests publish the ResourceSlices of each node themselves.

All components get the same DRA feature gates as the API server and the admin kubeconfig.
"""

from __future__ import annotations

import json
import ssl
import time
import urllib.error
import urllib.request
from pathlib import Path

from testenv.binaries import kwok_build
from testenv.harness import START_TIMEOUT, Cluster, ClusterError
from testenv.procs import _Proc, free_port

#: The DRA gates of the lifecycle cluster: on in every component (the 1.36 defaults, set explicitly).
GATES = {"DRAExtendedResource": True, "DRAPartitionableDevices": True, "DRAConsumableCapacity": True}
KWOK_ANNOTATION = "kwok.x-k8s.io/node"
NODE_LEASE_SECONDS = 40


def _https_ok(url: str) -> bool:
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE  # the component's self-signed serving certificate
    try:
        with urllib.request.urlopen(url, timeout=2, context=ctx) as resp:
            return resp.status == 200
    except (OSError, urllib.error.URLError):
        return False


def fake_node(name: str, labels: dict[str, str] | None = None, cpu: str = "64", memory: str = "512Gi") -> dict:
    """A Node KWOK manages (it fills in conditions, addresses and nodeInfo and keeps it Ready)."""
    allocatable = {"cpu": cpu, "memory": memory, "pods": "110"}
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "annotations": {KWOK_ANNOTATION: "fake"},
                         "labels": {"kubernetes.io/hostname": name, "type": "kwok", **(labels or {})}},
            "status": {"allocatable": allocatable, "capacity": dict(allocatable)}}


class Lifecycle:
    """The lifecycle components around ``cluster``. ``Lifecycle.start(...)`` and ``stop()``."""

    def __init__(self, cluster: Cluster, kwok_binary: Path):
        self.cluster = cluster
        self.kwok_binary = Path(kwok_binary)
        self.procs: dict[str, _Proc] = {}
        self.seconds: dict[str, float] = {}

    @classmethod
    def start(cls, bin_dir: Path, kwok_binary: Path, keep_dir: bool = False) -> Lifecycle:
        t0 = time.monotonic()
        cluster = Cluster.start("lifecycle", bin_dir, GATES, keep_dir=keep_dir)
        life = cls(cluster, kwok_binary)
        life.seconds["apiserver"] = round(time.monotonic() - t0, 1)
        try:
            life._start_components()
        except BaseException:
            life.stop()
            raise
        return life

    def stop(self) -> None:
        for p in reversed(list(self.procs.values())):
            p.stop()
        self.cluster.stop()

    # ------------------------------------------------------------------------------ components
    def _gates(self) -> str:
        return ",".join(f"{k}={str(v).lower()}" for k, v in sorted(GATES.items()))

    def _serving(self, name: str) -> tuple[list[str], str]:
        port = free_port()
        return [f"--secure-port={port}", "--bind-address=127.0.0.1",
                f"--cert-dir={self.cluster.dir / (name + '-certs')}"], f"https://127.0.0.1:{port}/healthz"

    def _start_components(self) -> None:
        c = self.cluster
        kc = str(c.kubeconfig)
        serve, kcm_health = self._serving("kcm")
        t = time.monotonic()
        self.procs["kube-controller-manager"] = _Proc("kube-controller-manager", [
            str(c.bin_dir / "kube-controller-manager"), f"--kubeconfig={kc}", "--leader-elect=false",
            *serve, f"--feature-gates={self._gates()}",
            f"--service-account-private-key-file={c.pki.sa_private_key}", f"--root-ca-file={c.pki.ca_cert}",
            "--use-service-account-credentials=false", "--controllers=*",
            # fast garbage collection and Job pod tracking in tests
            "--concurrent-gc-syncs=5", "--v=1",
        ], c.dir / "kube-controller-manager.log")
        serve, sched_health = self._serving("scheduler")
        self.procs["kube-scheduler"] = _Proc("kube-scheduler", [
            str(c.bin_dir / "kube-scheduler"), f"--kubeconfig={kc}", "--leader-elect=false", *serve,
            f"--feature-gates={self._gates()}", "--v=1",
        ], c.dir / "kube-scheduler.log")
        stages = c.dir / "kwok-stages.yaml"
        stages.write_text("\n---\n".join(p.read_text() for p in kwok_build.stage_files()))
        self.procs["kwok"] = _Proc("kwok", [
            str(self.kwok_binary), f"--kubeconfig={kc}", f"--config={stages}",
            "--manage-all-nodes=false", f"--manage-nodes-with-annotation-selector={KWOK_ANNOTATION}=fake",
            f"--node-lease-duration-seconds={NODE_LEASE_SECONDS}", "--cidr=10.244.0.0/16",
            "--node-ip=10.244.255.1",
        ], c.dir / "kwok.log", env={"HOME": str(c.dir), "PATH": "/usr/bin:/bin"})
        self._wait("kube-controller-manager", lambda: _https_ok(kcm_health))
        self._wait("kube-scheduler", lambda: _https_ok(sched_health))
        self.seconds["components"] = round(time.monotonic() - t, 1)
        # The namespace "default" gets its ServiceAccount: the controller-manager's controllers run.
        self._wait("kube-controller-manager", lambda: c.kubectl(
            "get", "serviceaccount", "default", "-n", "default", check=False).returncode == 0,
            "the default ServiceAccount")
        self.seconds["controllers"] = round(time.monotonic() - t, 1)

    def _wait(self, name: str, check, what: str = "/healthz", timeout: float = START_TIMEOUT) -> None:
        proc = self.procs[name]
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for p in self.procs.values():
                if not p.alive():
                    raise ClusterError(f"{p.name} exited with {p.popen.returncode}:\n{p.tail()}")
            if check():
                return
            time.sleep(0.3)
        raise ClusterError(f"timed out after {timeout}s waiting for {name} {what}:\n{proc.tail()}")

    # ---------------------------------------------------------------------------------- nodes
    def add_nodes(self, nodes: list[dict], timeout: float = 60) -> float:
        """Create fake nodes and wait until KWOK has made every one Ready; the seconds it took."""
        t = time.monotonic()
        self.cluster.apply(nodes)
        names = [n["metadata"]["name"] for n in nodes]
        def ready() -> bool:
            doc = self.cluster.get_json("nodes", *names)
            got = doc["items"] if "items" in doc else [doc]
            return len(got) == len(names) and all(_ready(n) for n in got)

        self._wait("kwok", ready, f"nodes {', '.join(names)} Ready", timeout)
        return round(time.monotonic() - t, 1)

    def logs(self) -> str:
        return self.cluster.logs() + "\n" + "\n".join(
            f"--- {p.name} ---\n{p.tail(60)}" for p in self.procs.values())


def _ready(node: dict) -> bool:
    return any(c.get("type") == "Ready" and c.get("status") == "True"
               for c in (node.get("status") or {}).get("conditions") or [])


def pods_of(cluster: Cluster, namespace: str, job: str) -> list[dict]:
    return json.loads(cluster.kubectl("get", "pods", "-n", namespace, "-l", f"batch.kubernetes.io/job-name={job}",
                                      "-o", "json").stdout)["items"]
