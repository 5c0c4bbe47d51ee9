"""The real Red Hat build of Kueue operator, run out of cluster against a test API server of its own.

The operator (built by ``operator_build``) expects an OpenShift cluster with cert-manager; the
stand-ins for what it reads and writes there (cert-manager's kinds and a certificate issuing loop
``CertIssuer``, the ``project.openshift.io`` group, the ``APIServer`` object, OLM's CSV) are
``testenv.operator_platform``, re-exported here.

``OperatorRunner.start()`` runs ``kueue-operator operator`` with ``POD_NAMESPACE`` and
``RELATED_IMAGE_OPERAND_IMAGE`` set, in a temporary ``TMPDIR``; ``wait_synced()`` waits for its
first full sync (the rendered ConfigMap and the CR's status conditions); ``stop()`` sends SIGTERM.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from testenv.harness import Cluster, ClusterError
from testenv.operator_platform import (  # noqa: F401  (re-exported: callers write oh.X)
    APISERVER_CRD_GLOB, NAMESPACE, STANDIN_CRDS, CertIssuer, _open_crd, apiserver_crd, install_openshift_standins,
    operand_image, published_csv, remove_project_group,
)
from testenv.procs import _Proc

CONFIGMAP = "kueue-manager-config"
CONFIG_KEY = "controller_manager_config.yaml"
DEPLOYMENT = "kueue-controller-manager"
KUEUE_CR = "kueues.kueue.openshift.io"
RECONCILE_ANNOTATION = "kueue-dra.io/reconcile"
START_TIMEOUT = float(os.environ.get("KUEUE_DRA_OPERATOR_START_TIMEOUT", "180"))


# ----------------------------------------------------------------------------------- operator
@dataclass
class Rendered:
    """The ConfigMap the operator rendered: its text, parsed document and resourceVersion."""

    text: str
    document: dict
    resource_version: str

    @property
    def mappings(self) -> list[dict]:
        return ((self.document.get("resources") or {}).get("deviceClassMappings")) or []

    @property
    def feature_gates(self) -> dict[str, bool]:
        return dict(self.document.get("featureGates") or {})


class OperatorRunner:
    """``kueue-operator operator`` against ``cluster``. ``start()``/``stop()``; ``rendered()``."""

    def __init__(self, cluster: Cluster, binary: Path, operand_image: str):
        self.cluster, self.binary, self.operand_image = cluster, binary, operand_image
        self.dir = Path(tempfile.mkdtemp(prefix="kueue-dra-operator-"))
        self._proc: _Proc | None = None
        self.starts = 0
        self.sync_seconds: list[float] = []
        self.first: Rendered | None = None  # the render of the first full sync

    def start(self) -> None:
        self.stop()
        self.starts += 1
        tmp = self.dir / f"tmp-{self.starts}"
        tmp.mkdir()
        env = {"PATH": os.environ.get("PATH", ""), "HOME": str(tmp), "TMPDIR": str(tmp),
               "POD_NAMESPACE": NAMESPACE, "RELATED_IMAGE_OPERAND_IMAGE": self.operand_image}
        argv = [str(self.binary), "operator", f"--kubeconfig={self.cluster.kubeconfig}", f"--namespace={NAMESPACE}"]
        self._proc = _Proc("kueue-operator", argv, self.dir / f"operator-{self.starts}.log", env=env)

    def alive(self) -> bool:
        return self._proc is not None and self._proc.alive()

    def log_tail(self, n: int = 40) -> str:
        return self._proc.tail(n) if self._proc is not None else ""

    def stop(self) -> None:
        if self._proc is not None:
            self._proc.stop()
            self._proc = None

    def close(self, keep: bool = False) -> None:
        self.stop()
        if not keep:
            shutil.rmtree(self.dir, ignore_errors=True)

    # reading what it did -------------------------------------------------------------------------
    def rendered(self) -> Rendered | None:
        status, body = self.cluster.request("GET", f"/api/v1/namespaces/{NAMESPACE}/configmaps/{CONFIGMAP}")
        if status != 200:
            return None
        cm = json.loads(body)
        text = (cm.get("data") or {}).get(CONFIG_KEY) or ""
        return Rendered(text, yaml.safe_load(text) or {}, cm["metadata"]["resourceVersion"])

    def kueue_cr(self) -> dict | None:
        status, body = self.cluster.request("GET", "/apis/kueue.openshift.io/v1/kueues/cluster")
        return json.loads(body) if status == 200 else None

    def conditions(self) -> dict[str, dict]:
        cr = self.kueue_cr() or {}
        return {c.get("type"): c for c in (cr.get("status") or {}).get("conditions") or []}

    def wait_for(self, what: str, check: Callable[[], Any], timeout: float = START_TIMEOUT, poll: float = 0.1) -> Any:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self._proc is not None and not self._proc.alive():
                raise ClusterError(f"kueue-operator exited with {self._proc.popen.returncode} while waiting for "
                                   f"{what}:\n{self._proc.tail(30)}")
            value = check()
            if value:
                return value
            time.sleep(poll)
        raise ClusterError(f"timed out after {timeout}s waiting for {what}:\n{self.log_tail(30)}")

    def wait_synced(self) -> Rendered:
        """The first full sync: the ConfigMap is rendered and the CR has status conditions (written
        at the end of a sync)."""
        t0 = time.monotonic()
        self.wait_for("the operator's first full sync (Kueue CR status conditions)",
                      lambda: "Available" in self.conditions())
        rendered = self.wait_for("the rendered ConfigMap", self.rendered)
        self.sync_seconds.append(round(time.monotonic() - t0, 1))
        return rendered

    def wait_rendered(self, check: Callable[[Rendered], bool], what: str, timeout: float = 60) -> Rendered:
        def ready() -> Rendered | None:
            r = self.rendered()
            return r if r is not None and check(r) else None
        return self.wait_for(what, ready, timeout)

    def _versions(self) -> tuple[str, ...]:
        out = []
        for path in ("/apis/kueue.openshift.io/v1/kueues/cluster",
                     f"/api/v1/namespaces/{NAMESPACE}/configmaps/{CONFIGMAP}",
                     f"/apis/apps/v1/namespaces/{NAMESPACE}/deployments/{DEPLOYMENT}"):
            status, body = self.cluster.request("GET", path)
            out.append(json.loads(body)["metadata"]["resourceVersion"] if status == 200 else "")
        return tuple(out)

    def wait_idle(self, quiet: float = 2.0, timeout: float = 60) -> float:
        """Wait until the operator has stopped writing: the CR, the ConfigMap and the Deployment
        keep their resourceVersions for ``quiet`` seconds. Its next sync is then the next event
        or the 5-minute resync. Returns the seconds waited."""
        t0 = time.monotonic()
        last, since = self._versions(), time.monotonic()
        while time.monotonic() - t0 < timeout:
            time.sleep(0.2)
            now = self._versions()
            if now != last:
                last, since = now, time.monotonic()
            elif time.monotonic() - since >= quiet:
                return round(time.monotonic() - t0, 1)
        raise ClusterError(f"the operator kept writing for {timeout}s:\n{self.log_tail(20)}")

    def trigger_reconcile(self) -> None:
        """What makes the operator re-render now: any change to the Kueue CR (it does not watch the
        FeatureGate). The same command ``verify`` prints as the fix for a stale render."""
        self.cluster.kubectl("annotate", f"{KUEUE_CR}/cluster", f"{RECONCILE_ANNOTATION}={time.time_ns()}",
                             "--overwrite")


@dataclass
class OperatorCluster:
    """A dedicated cluster with the stand-ins, the certificate issuer and the synced operator."""

    cluster: Cluster
    issuer: CertIssuer
    operator: OperatorRunner

    def close(self, keep: bool = False) -> None:
        self.operator.close(keep=keep)
        self.issuer.stop()
        self.cluster.stop()


def start_operator_cluster(bin_dir: Path, binary: Path, keep_dir: bool = False) -> OperatorCluster:
    """Start the cluster, install the stand-ins and a Kueue CR with one mapping, start the issuer
    and the operator, and wait for its first full sync."""
    from testenv.harness import GATES_ON

    cluster = Cluster.start("operator", bin_dir, GATES_ON, keep_dir=keep_dir)
    issuer: CertIssuer | None = None
    runner: OperatorRunner | None = None
    try:
        install_openshift_standins(cluster)
        cluster.apply(kueue_cr(mappings=[{"name": "example.com/gpu", "deviceClassNames": ["gpu.example.com"]}]))
        issuer = CertIssuer(cluster).start()
        runner = OperatorRunner(cluster, binary, operand_image())
        runner.start()
        runner.first = runner.wait_synced()
    except BaseException:
        if runner is not None:
            runner.close()
        if issuer is not None:
            issuer.stop()
        cluster.stop()
        raise
    return OperatorCluster(cluster, issuer, runner)


def kueue_cr(frameworks: tuple[str, ...] = ("BatchJob",), mappings: list[dict] | None = None) -> dict:
    config: dict[str, Any] = {"integrations": {"frameworks": list(frameworks)}}
    if mappings:
        config["resources"] = {"deviceClassMappings": mappings}
    return {"apiVersion": "kueue.openshift.io/v1", "kind": "Kueue", "metadata": {"name": "cluster"},
            "spec": {"managementState": "Managed", "config": config}}


def run_kueue_config_check(binary: Path, cluster: Cluster, rendered_text: str,
                           timeout: float = 15) -> subprocess.CompletedProcess:
    """Start Kueue with a rendered configuration (out-of-cluster adjustments as in the chain): its
    verdict on the render. Kueue validates its configuration within a second of starting; one
    still running after ``timeout`` (or ready) accepted it (returncode 0, then it is stopped)."""
    from testenv.kueue_harness import KueueRunner
    from testenv.procs import _http_ok, free_port

    runner = KueueRunner(cluster, binary, "check")
    try:
        health = free_port()
        cfg = runner.rendered_configuration(rendered_text, health)
        path = runner.dir / "config.yaml"
        path.write_text(yaml.safe_dump(cfg, sort_keys=False))
        argv = [str(binary), f"--config={path}", f"--kubeconfig={cluster.kubeconfig}"]
        proc = _Proc("kueue-check", argv, runner.dir / "kueue.log")
        deadline = time.monotonic() + timeout
        while proc.alive() and time.monotonic() < deadline and not _http_ok(f"http://127.0.0.1:{health}/readyz"):
            time.sleep(0.2)
        code = proc.popen.poll()
        proc.stop()
        return subprocess.CompletedProcess(argv, 0 if code is None else code, proc.tail(60), "")
    finally:
        runner.close()


def put_kueue_cr(cluster: Cluster, cr: dict) -> None:
    """Make the Kueue CR's spec exactly ``cr``'s (an update, not an apply: list entries other
    writers own, e.g. mappings ``map set`` wrote, do not survive). Created when missing."""
    path = "/apis/kueue.openshift.io/v1/kueues/cluster"
    status, body = cluster.request("GET", path)
    if status == 404:
        cluster.apply(cr)
        return
    current = json.loads(body)
    current["spec"] = cr["spec"]
    status, body = cluster.request("PUT", path, current)
    if status != 200:
        raise ClusterError(f"PUT {path}: {status} {body[:500]!r}")


def feature_gate(feature_set: str | None, enabled: tuple[str, ...] = ()) -> dict:
    spec: dict[str, Any] = {"featureSet": feature_set} if feature_set else {}
    if feature_set == "CustomNoUpgrade":
        spec["customNoUpgrade"] = {"enabled": list(enabled), "disabled": []}
    return {"apiVersion": "config.openshift.io/v1", "kind": "FeatureGate", "metadata": {"name": "cluster"},
            "spec": spec}


def set_feature_gate(cluster, fg) -> None:
    """Apply the FeatureGate; a featureSet change goes through a delete (the CRD refuses moving
    away from CustomNoUpgrade or TechPreviewNoUpgrade in place)."""
    current = cluster.kubectl("get", "featuregates.config.openshift.io/cluster", "-o", "json", check=False)
    have = (json.loads(current.stdout).get("spec") or {}).get("featureSet") or "" if current.returncode == 0 else None
    if have is not None and (fg is None or fg[0] != have):
        cluster.kubectl("delete", "featuregates.config.openshift.io/cluster", "--wait=true")
    if fg is not None:
        cluster.apply(feature_gate(*fg))
