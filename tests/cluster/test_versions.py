"""What the plugin says on each kube-apiserver version (KUEUE_DRA_KUBE_VERSION), with the DRA gates
at the server's defaults and with each alpha path gate turned on alone (on 1.34 and 1.35:
DRAExtendedResource, DRAPartitionableDevices, DRAConsumableCapacity; 1.36 has none alpha).

The truth is the server: its own /metrics (read by the test), and what it stores of an object
written with a gated field. Against it: the plugin's table of gate defaults (``gates``), and the
test side's (``testenv/kube_versions``); ``verify`` (the server version, each gate's state and how
it was learned, by /metrics and by the dry-run probe); ``classes`` and ``explain`` on a field the
server dropped; ``map set`` of a counter source while the server drops counters.
"""

from __future__ import annotations

import json
import re
import secrets

import pytest

from kubectl_kueue_dra import gates as g
from testenv import kube_versions as kv
from testenv.builders import device, device_class, resource_slice
from testenv.binaries import controlplane
from testenv.harness import Cluster, run_plugin

pytestmark = pytest.mark.versions

VERSION = controlplane.kube_version()
#: the settings a cluster is started with: the defaults, then each alpha path gate on alone
SETTINGS = ["defaults", *kv.alpha_gates(VERSION)]
SEL = "device.driver == 'gpu.example.com'"
RBAC = "rbac.authorization.k8s.io/v1"


@pytest.fixture(scope="module", params=SETTINGS)
def server(request, controlplane_bin):
    """A cluster of its own per setting (started one after the other, each stopped before the next)."""
    gates = {} if request.param == "defaults" else {request.param: True}
    c = Cluster.start(f"versions-{request.param}".lower()[:30], controlplane_bin, gates)
    request.addfinalizer(c.stop)
    return c


def metrics_gates(cluster: Cluster) -> dict[str, tuple[str, bool]]:
    """name → (stage, enabled) of every DRA gate, from the server's /metrics, read by the test."""
    text = cluster.kubectl("get", "--raw", "/metrics").stdout
    found = re.findall(r'^kubernetes_feature_enabled\{name="(DRA\w*|DynamicResourceAllocation)",stage="(\w*)"\} (\d)$',
                       text, re.M)
    assert found
    return {name: (stage, value == "1") for name, stage, value in found}


def expected_on(cluster: Cluster, gate: str) -> bool:
    """What the test expects of a path gate: on when the cluster turned it on, else its default."""
    return cluster.feature_gates.get(gate, kv.default_on(cluster.kube_version, gate))


def plugin_json(cluster: Cluster, *args: str, context: str = "admin", codes: tuple[int, ...] = (0, 1)):
    proc = run_plugin(cluster, *args, "-o", "json", context=context)
    assert proc.returncode in codes and "Traceback" not in proc.stderr, (proc.returncode, proc.stderr)
    return json.loads(proc.stdout)


# ---- the tables against the server -----------------------------------------------------------
def test_the_gate_tables_agree_with_the_server(server):
    """Every DRA gate the server registers, at its default: stage and default as the plugin's table
    (``gates.kubernetes_default``) and the tests' (``kube_versions``) say; a gate the cluster turned
    on is on. The plugin knows every gate the server has."""
    minor = kv.minor(server.kube_version)
    said = metrics_gates(server)
    assert set(said) <= set(g.DRA_GATES), f"gates the plugin does not know: {set(said) - set(g.DRA_GATES)}"
    for name, (stage, enabled) in said.items():
        table = g.kubernetes_default(name, minor)
        assert table is not None, name
        want_stage = "" if table[0] == "GA" else table[0]  # /metrics labels a GA gate with no stage
        assert stage == want_stage, (name, stage, table)
        assert enabled is (server.feature_gates.get(name, table[1])), (name, enabled)
    for gate in kv.PATH_GATES:
        assert said[gate] == (kv.defaults(server.kube_version)[gate][0], expected_on(server, gate)), gate
    # the other way: no gate the plugin expects for this minor is missing on the server
    missing = [n for n in g.DRA_GATES if g.kubernetes_default(n, minor) is not None and n not in said]
    assert not missing, f"the plugin's table has gates this server does not register: {missing}"


# ---- verify --------------------------------------------------------------------------------------
def test_verify_names_the_version_and_each_gate_learned_from_metrics(server):
    doc = plugin_json(server, "verify", "--path", "extended", "--path", "partitionable")
    checks = {c["id"]: c for c in doc["checks"]}
    minor = kv.minor(server.kube_version)
    assert checks["platform-version"]["message"].startswith(f"Kubernetes 1.{minor} (server {server.kube_version}): ")
    said = metrics_gates(server)
    states = {s["name"]: s for s in doc["kubernetesGates"]}
    for name, (_, enabled) in said.items():
        if name == "DynamicResourceAllocation":
            assert states[name]["learnedFrom"] == "discovery"
            continue
        assert (states[name]["state"], states[name]["learnedFrom"]) == ("on" if enabled else "off", "metrics"), name
    for gate in (g.DRA_EXTENDED, g.DRA_PARTITIONABLE):
        check = checks[f"gate-{gate}"]
        assert check["status"] == ("pass" if expected_on(server, gate) else "fail"), check
        assert check["learnedFrom"] == "metrics"


def test_the_probe_finds_the_same_states_without_metrics(server):
    """A user who may dry-run create DRA objects but not read /metrics: the probe tells each path gate."""
    rules = [{"apiGroups": ["resource.k8s.io"], "resources": ["deviceclasses", "resourceslices"],
              "verbs": ["get", "list", "create"]}]
    server.apply([
        {"apiVersion": RBAC, "kind": "ClusterRole", "metadata": {"name": "versions-prober"}, "rules": rules},
        {"apiVersion": RBAC, "kind": "ClusterRoleBinding", "metadata": {"name": "versions-prober"},
         "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "versions-prober"},
         "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "prober"}]}])
    doc = plugin_json(server, "verify", "--as", "prober", "--path", "extended", "--path", "partitionable")
    states = {s["name"]: s for s in doc["kubernetesGates"]}
    for gate in kv.PATH_GATES:
        assert (states[gate]["state"], states[gate]["learnedFrom"]) == (
            "on" if expected_on(server, gate) else "off", "probe"), states[gate]
    assert not [i for i in server.get_json("deviceclasses,resourceslices")["items"]
                if i["metadata"]["name"].startswith("kueue-dra-probe-")]


# ---- a field the server dropped ---------------------------------------------------------------------
def _dropped(findings: list[dict]) -> list[dict]:
    return [f for f in findings if f["code"] == "GatedFieldDropped"]


def test_classes_and_verify_say_a_dropped_extended_resource_name(server):
    name = f"er-{secrets.token_hex(3)}.example.com"
    server.apply(device_class(name, SEL, er=f"example.com/{name[:9]}"))
    try:
        stored = server.get_json("deviceclass", name)["spec"]
        on = expected_on(server, g.DRA_EXTENDED)
        assert ("extendedResourceName" in stored) is on  # the server is the truth
        doc = plugin_json(server, "classes")
        [cls] = [c for c in doc["deviceClasses"] if c["name"] == name]
        found = _dropped(cls["findings"])
        if on:
            assert not found and cls["extendedResourceName"] == f"example.com/{name[:9]}"
            return
        [f] = found
        assert cls["droppedFields"][0]["field"] == "spec.extendedResourceName"
        assert f"DeviceClass {name} was written with spec.extendedResourceName (by kueue-dra-tests (Apply" in f["message"]
        assert "DRAExtendedResource is off now (kube-apiserver /metrics" in f["message"]
        assert "--feature-gates=DRAExtendedResource=true" in f["fix"]
        v = plugin_json(server, "verify", "--path", "extended")
        checks = {c["id"]: c for c in v["checks"]}
        assert checks["dropped-fields"]["status"] == "warn" and name in checks["dropped-fields"]["message"]
    finally:
        server.delete(device_class(name), check=False)


def test_explain_says_an_extended_resource_whose_class_lost_its_name(server):
    """A pod requesting the extended resource of a DeviceClass written with it: on a server that
    dropped the name, explain says the name is charged as itself and why."""
    name = f"erx-{secrets.token_hex(3)}.example.com"
    resource = f"example.com/{name[:10]}"
    # client-side apply: the last-applied annotation keeps the value the server dropped
    server.kubectl("apply", "-f", "-", input=json.dumps(device_class(name, SEL, er=resource)))
    ns = server.create_namespace("versions-explain")
    job = {"apiVersion": "batch/v1", "kind": "Job",
           "metadata": {"name": "erjob", "namespace": ns, "labels": {"kueue.x-k8s.io/queue-name": "lq"}},
           "spec": {"suspend": True, "template": {"spec": {"restartPolicy": "Never", "containers": [
               {"name": "c", "image": "busybox", "resources": {"requests": {resource: "1"}, "limits": {resource: "1"}}}]}}}}
    try:
        proc = run_plugin(server, "explain", "-f", "-", "-o", "json", input=json.dumps(job))
        assert proc.returncode == 0, proc.stderr
        doc = json.loads(proc.stdout)
        found = _dropped(doc["findings"])
        if expected_on(server, g.DRA_EXTENDED):
            assert not found
            return
        [f] = found
        assert f["message"].startswith(f"{resource} is backed by no DeviceClass, so Kueue charges it as {resource} "
                                       f"itself, not as DRA devices: DeviceClass {name} was written with "
                                       f"spec.extendedResourceName ({resource}, by kubectl-client-side-apply")
        assert doc["podSets"][0]["charge"][resource] == "1"
    finally:
        server.delete(device_class(name), check=False)


def template_of(name: str) -> dict:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate", "metadata": {"name": name},
            "spec": {"spec": {"devices": {"requests": [{"name": "dev", "exactly": {
                "deviceClassName": "mig.example.com"}}]}}}}


def _counter_slices(prefix: str) -> list[dict]:
    counters = resource_slice(f"{prefix}-counters", "gpu.example.com", prefix, slice_count=2,
                              counter_sets={"gpu-0": {"memory": "40Gi"}})
    devices = resource_slice(f"{prefix}-devices", "gpu.example.com", prefix, slice_count=2,
                             devices=[device("gpu-0-mig-0", [("gpu-0", {"memory": "10Gi"})], type="mig")])
    return [counters, devices]


def test_classes_say_dropped_counters_and_map_set_refuses_a_counter_source(server):
    prefix = f"ver-{secrets.token_hex(3)}"
    slices = kv.slices_for(_counter_slices(prefix), server.kube_version)
    server.apply(slices)
    ns = server.create_namespace("versions-kueue")
    server.apply({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "kueue-manager-config", "namespace": ns},
                  "data": {"controller_manager_config.yaml": "apiVersion: config.kueue.x-k8s.io/v1beta2\n"
                                                             "kind: Configuration\n"}})
    server.apply(device_class("mig.example.com", SEL))
    try:
        on = expected_on(server, g.DRA_PARTITIONABLE)
        stored = [server.get_json("resourceslice", s["metadata"]["name"])["spec"] for s in slices]
        assert any(s.get("sharedCounters") for s in stored) is on
        doc = plugin_json(server, "classes", "--kueue-namespace", ns)
        found = [f for f in _dropped(doc["findings"]) if f["dropped"]["name"].startswith(prefix)]
        if on:
            assert not found
        else:
            [f] = found
            assert f["dropped"]["field"] == "spec.sharedCounters" and f["dropped"]["gate"] == g.DRA_PARTITIONABLE
            assert "DRAPartitionableDevices is off now (kube-apiserver /metrics" in f["message"]
        proc = run_plugin(server, "map", "set", "gpu.memory", "--device-class", "mig.example.com", "--counter", "memory",
                          "--driver", "gpu.example.com", "--selector", SEL, "--kueue-namespace", ns, "--dry-run=server")
        if on:
            assert proc.returncode == 0, proc.stderr
            assert "GateOffForPath" not in proc.stdout + proc.stderr
        else:
            assert proc.returncode == 1
            assert proc.stderr.startswith("error: refused, nothing written: mapping gpu.memory: DRAPartitionableDevices "
                                          "is off (kube-apiserver /metrics"), proc.stderr
            assert "[GateOffForPath]" in proc.stderr
            allowed = run_plugin(server, "map", "set", "gpu.memory", "--device-class", "mig.example.com", "--counter",
                                 "memory", "--driver", "gpu.example.com", "--selector", SEL, "--kueue-namespace", ns,
                                 "--dry-run=server", "--allow-gate-off")
            # the server dropped the counters: the counter is published nowhere, which stays a refusal
            assert "[GateOffForPath]" not in allowed.stderr and "[CounterNotPublished]" in allowed.stderr
        # explain of a workload charged by that counter says where its counters went
        server.apply({"apiVersion": "v1", "kind": "ConfigMap",
                      "metadata": {"name": "kueue-manager-config", "namespace": ns},
                      "data": {"controller_manager_config.yaml": (
                          "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nresources:\n"
                          "  deviceClassMappings:\n  - name: gpu.memory\n    deviceClassNames: [mig.example.com]\n"
                          "    sources:\n    - counter:\n        name: memory\n        driver: gpu.example.com\n"
                          f"        deviceSelector:\n          cel:\n            expression: \"{SEL}\"\n")}})
        manifest = [template_of("mig-1"), {
            "apiVersion": "batch/v1", "kind": "Job",
            "metadata": {"name": "migjob", "namespace": ns, "labels": {"kueue.x-k8s.io/queue-name": "lq"}},
            "spec": {"suspend": True, "template": {"spec": {
                "restartPolicy": "Never", "resourceClaims": [{"name": "m", "resourceClaimTemplateName": "mig-1"}],
                "containers": [{"name": "c", "image": "busybox", "resources": {"claims": [{"name": "m"}]}}]}}}}]
        manifest[0]["metadata"]["namespace"] = ns
        proc = run_plugin(server, "explain", "-f", "-", "-o", "json", "--kueue-namespace", ns,
                          input=json.dumps({"apiVersion": "v1", "kind": "List", "items": manifest}))
        assert proc.returncode == 0, proc.stderr
        said = [f for f in _dropped(json.loads(proc.stdout)["findings"]) if prefix in f["message"]]
        if on:
            assert not said
        else:
            [f] = said
            assert f["message"].startswith("the counters gpu.memory charges are not where the driver wrote them: "
                                           f"ResourceSlice {prefix}-")
    finally:
        server.delete(slices, check=False)
        server.delete(device_class("mig.example.com"), check=False)
