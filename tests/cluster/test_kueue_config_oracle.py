"""`verify`'s kueue-config verdict against the real Kueue binary: for every configuration text of
the table, Kueue refuses to start exactly when `verify` says FAIL.

Each text is run by the Kueue controller built from its Go module (v0.19.2 and v0.18.4, or
``KUEUE_DRA_CONFIG_ORACLE_VERSIONS``) against one API server with that version's CRDs: a refusal
is the process exiting before ``/readyz`` (Kueue exits within a second or two), a start is
``/readyz`` answering, after which Kueue is stopped. The same text, in ConfigMap
``kueue-manager-config`` of a snapshot beside a Deployment whose image tag names the version, goes
to ``verify --from`` in this process. Every text starts with what a Kueue outside a pod needs (no
leader election, probes and webhooks on free local ports) and then the case's own lines.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass

import pytest

from testenv.binaries import kueue_build
from testenv.harness import GATES_ON, Cluster, run_plugin
from testenv.procs import _http_ok, _Proc, free_port
from testenv.kueue_harness import CONFIG_KEY, CONFIGMAP, DEPLOYMENT, IMAGE, NAMESPACE, KueueRunner

VERSIONS = tuple(v.strip() for v in os.environ.get("KUEUE_DRA_CONFIG_ORACLE_VERSIONS", "v0.19.2,v0.18.4").split(",")
                 if v.strip())
START_TIMEOUT = 90.0

HEAD = "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"
MAPPING = ("resources:\n  deviceClassMappings:\n  - name: example.com/gpu\n"
           "    deviceClassNames: [gpu.example.com]\n")
COUNTER = ("resources:\n  deviceClassMappings:\n  - name: example.com/gpu-memory\n"
           "    deviceClassNames: [gpu.example.com]\n    sources:\n    - counter:\n        name: memory\n"
           "        driver: gpu.example.com\n        deviceSelector:\n          cel:\n"
           "            expression: \"device.driver == 'gpu.example.com'\"\n")
CAPACITY = COUNTER.replace("- counter:", "- capacity:").replace("name: memory", "name: memory").replace(
    "gpu-memory", "gpu-capacity")


@dataclass(frozen=True)
class Case:
    id: str
    body: str  # the lines after the common part
    head: str = HEAD  # before the common part
    tail: str = ""  # after the body (later YAML documents)


CASES = [
    # what Kueue accepts
    Case("minimal", ""),
    Case("no-apiversion-no-kind", "", head=""),
    Case("v1beta1", "", head="apiVersion: config.kueue.x-k8s.io/v1beta1\nkind: Configuration\n"),
    Case("mapping", MAPPING),
    Case("counter-source", COUNTER),
    Case("counter-source-gate-on", COUNTER + "featureGates:\n  KueueDRAIntegrationPartitionableDevices: true\n"),
    Case("mapping-named-pods", MAPPING.replace("example.com/gpu", "pods")),
    Case("yes-as-boolean", "manageJobsWithoutQueueName: yes\n"),
    Case("on-as-boolean", "manageJobsWithoutQueueName: on\n"),
    Case("multi-document", MAPPING, tail="---\nfoo: bar\n"),
    Case("multi-document-second-invalid", MAPPING, tail="---\nresources: 5\nunknownField: [\n"),
    Case("gate-kueue-dra", "featureGates:\n  KueueDRAIntegration: true\n"),
    Case("gate-kubernetes-name", "featureGates:\n  DynamicResourceAllocation: true\n"),
    Case("transformation-retain", "resources:\n  transformations:\n  - input: nvidia.com/mig-1g.5gb\n"
                                  "    strategy: Retain\n    outputs:\n      example.com/gpu: 1\n"),
    Case("float-for-int", "clientConnection:\n  burst: 1e2\n  qps: 50\n"),
    Case("hex-int", "clientConnection:\n  burst: 0x40\n"),
    Case("null-field", "resources:\nfairSharing: null\n"),
    Case("selector-labels", "managedJobsNamespaceSelector:\n  matchLabels:\n    team: ml\n"),
    Case("exclude-prefixes", "resources:\n  excludeResourcePrefixes: [example.com/]\n"),
    # wrong types at several depths
    Case("mappings-number", "resources:\n  deviceClassMappings: 5\n"),
    Case("resources-string", 'resources: "x"\n'),
    Case("cel-string", COUNTER.replace("cel:\n            expression: \"device.driver == 'gpu.example.com'\"",
                                       'cel: "x"')),
    Case("mapping-name-number", MAPPING.replace("example.com/gpu", "5")),
    Case("classes-string", MAPPING.replace("[gpu.example.com]", "gpu.example.com")),
    Case("gate-not-bool", "featureGates:\n  KueueDRAIntegration: maybe\n"),
    Case("gates-number", "featureGates: 5\n"),
    Case("bool-for-string", "pprofBindAddress: yes\n"),
    Case("duration-number", "clientConnection:\n  qps: 5\nmultiKueue:\n  gcInterval: 15\n"),
    Case("duration-text", "multiKueue:\n  gcInterval: 15 seconds\n"),
    Case("int-fraction", "clientConnection:\n  burst: 1.5\n"),
    Case("quantity-bad", "resources:\n  transformations:\n  - input: a.com/x\n    outputs:\n      b.com/y: 1x\n"),
    # unknown fields
    Case("unknown-top", "resource:\n  deviceClassMappings: []\n"),
    Case("unknown-nested", "resources:\n  deviceClassMapping: []\n"),
    Case("unknown-in-mapping", MAPPING + "    extra: 1\n"),
    Case("wrong-case", "Resources: {}\n"),
    Case("y-as-key", "y: 1\n"),
    # duplicate keys
    Case("duplicate-top", "resources: {}\nresources: {}\n"),
    Case("duplicate-nested", "resources:\n  excludeResourcePrefixes: [a]\n  excludeResourcePrefixes: [b]\n"),
    Case("duplicate-in-mapping", MAPPING + "    name: other.com/x\n"),
    # apiVersion, kind, the document
    Case("apiversion-wrong-group", "", head="apiVersion: v1\nkind: Configuration\n"),
    Case("apiversion-unknown-version", "", head="apiVersion: config.kueue.x-k8s.io/v9\nkind: Configuration\n"),
    Case("kind-other", "", head="apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Other\n"),
    Case("malformed-yaml", "resources: [\n"),
    Case("v1beta1-with-sources", COUNTER, head="apiVersion: config.kueue.x-k8s.io/v1beta1\nkind: Configuration\n"),
    # feature gates
    Case("gate-unknown", "featureGates:\n  NoSuchGate: true\n"),
    Case("gate-locked", "featureGates:\n  DynamicResourceAllocation: false\n"),
    Case("gate-dependency", "featureGates:\n  KueueDRAIntegration: false\n"
                            "  KueueDRAIntegrationPartitionableDevices: true\n"),
    Case("gate-old-name", "featureGates:\n  DRAExtendedResources: true\n"),
    # validation
    Case("counter-source-gate-off", COUNTER + "featureGates:\n  KueueDRAIntegrationPartitionableDevices: false\n"),
    Case("capacity-source", CAPACITY),
    Case("mapping-bad-name", MAPPING.replace("example.com/gpu", "Bad Name!")),
    Case("mapping-no-classes", MAPPING.replace("[gpu.example.com]", "[]")),
    Case("mapping-duplicate-names", MAPPING + "  - name: example.com/gpu\n    deviceClassNames: [other.example.com]\n"),
    Case("class-in-two-mappings", MAPPING + "  - name: example.com/other\n    deviceClassNames: [gpu.example.com]\n"),
    Case("transformation-bad-strategy", "resources:\n  transformations:\n  - input: a.com/x\n    strategy: Keep\n"),
    Case("transformation-duplicate-input", "resources:\n  transformations:\n  - input: a.com/x\n  - input: a.com/x\n"),
    Case("selector-matches-everything", "managedJobsNamespaceSelector: {}\n"),
]


def common(runner: KueueRunner, health: int) -> str:
    return (f"namespace: {NAMESPACE}\nleaderElection:\n  leaderElect: false\n"
            f"health:\n  healthProbeBindAddress: 127.0.0.1:{health}\nmetrics:\n  bindAddress: \"0\"\n"
            f"webhook:\n  host: 127.0.0.1\n  port: {runner.webhook_port}\n  certDir: {runner.cert_dir}\n"
            "integrations:\n  frameworks: [batch/job]\n")


def text_of(case: Case, runner: KueueRunner, health: int) -> str:
    return case.head + common(runner, health) + case.body + case.tail


def kueue_starts(runner: KueueRunner, text: str, name: str) -> tuple[bool, str, float]:
    """(started, log tail, seconds) for one run of the binary with ``text``."""
    health = int(text.split("healthProbeBindAddress: 127.0.0.1:")[1].split("\n")[0])
    path = runner.dir / f"{name}.yaml"
    path.write_text(text)
    argv = [str(runner.binary), f"--config={path}", f"--kubeconfig={runner.cluster.kubeconfig}"]
    t0 = time.monotonic()
    proc = _Proc(f"kueue-{name}", argv, runner.dir / f"{name}.log")
    try:
        while time.monotonic() - t0 < START_TIMEOUT:
            if not proc.alive():
                return False, proc.tail(8), time.monotonic() - t0
            if _http_ok(f"http://127.0.0.1:{health}/readyz"):
                return True, "", time.monotonic() - t0
            time.sleep(0.1)
        raise AssertionError(f"Kueue neither started nor exited within {START_TIMEOUT}s:\n{proc.tail(20)}")
    finally:
        proc.stop()


def verify_verdict(cluster: Cluster, version: str, text: str, tmp) -> dict:
    """verify's kueue-config check on a snapshot holding the text and Kueue's Deployment."""
    labels = {"control-plane": "controller-manager"}
    snapshot = {"apiVersion": "v1", "kind": "List", "items": [
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": CONFIGMAP, "namespace": NAMESPACE},
         "data": {CONFIG_KEY: text}},
        {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": DEPLOYMENT, "namespace": NAMESPACE},
         "spec": {"replicas": 1, "selector": {"matchLabels": labels}, "template": {
             "metadata": {"labels": labels},
             "spec": {"containers": [{"name": "manager", "image": f"{IMAGE}:{version}",
                                      "args": ["--config=/controller_manager_config.yaml"]}],
                      "volumes": [{"name": "manager-config", "configMap": {"name": CONFIGMAP}}]}}}}]}
    path = tmp / "snapshot.json"
    path.write_text(json.dumps(snapshot))
    proc = run_plugin(cluster, "verify", "--from", str(path), "-o", "json")
    assert "Traceback" not in proc.stderr, proc.stderr
    checks = {c["id"]: c for c in json.loads(proc.stdout)["checks"]}
    return checks["kueue-config"]


@pytest.fixture(scope="module")
def outcomes(request, controlplane_bin, tmp_path_factory):
    """{(version, case id): (Kueue started, log tail, verify's check)}; each version in turn on one
    API server (its CRDs installed before its runs)."""
    cluster = Cluster.start("config-oracle", controlplane_bin, GATES_ON)
    request.addfinalizer(cluster.stop)
    out, seconds = {}, {}
    for version in VERSIONS:
        runner = KueueRunner(cluster, kueue_build.build(version), version)
        request.addfinalizer(runner.close)
        runner.install()
        t0 = time.monotonic()
        for case in CASES:
            text = text_of(case, runner, free_port())
            started, tail, took = kueue_starts(runner, text, case.id)
            check = verify_verdict(cluster, version, text, tmp_path_factory.mktemp(case.id))
            out[(version, case.id)] = (started, tail, check, round(took, 1))
        seconds[version] = round(time.monotonic() - t0, 1)
    starts = [v[3] for v in out.values() if v[0]]
    refusals = [v[3] for v in out.values() if not v[0]]
    differ = [f"{v} {c}: Kueue {'started' if o[0] else 'refused'}, verify {o[2]['status']}"
              for (v, c), o in out.items() if o[0] != (o[2]["status"] != "fail")]
    print("\n" + "\n".join(differ or ["verify agrees with Kueue on every run"]), flush=True)
    print(f"\nconfig oracle: {len(out)} runs in {seconds} s; starts {min(starts, default=0)}–"
          f"{max(starts, default=0)} s, refusals {min(refusals, default=0)}–{max(refusals, default=0)} s", flush=True)
    return out


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_verify_fails_exactly_where_kueue_refuses_to_start(outcomes, version, case):
    started, tail, check, _ = outcomes[(version, case.id)]
    if started:
        assert check["status"] in ("pass", "warn"), (check, "Kueue started")
    else:
        assert check["status"] == "fail", (check, f"Kueue refused:\n{tail}")


def test_the_table_holds_both_verdicts_for_every_version(outcomes):
    for version in VERSIONS:
        verdicts = {outcomes[(version, c.id)][0] for c in CASES}
        assert verdicts == {True, False}, version
    assert len(CASES) >= 40


def test_a_multi_document_text_warns_and_names_the_documents(outcomes):
    _, _, check, _ = outcomes[(VERSIONS[0], "multi-document")]
    assert check["status"] == "warn" and "2 YAML documents" in check["message"]
