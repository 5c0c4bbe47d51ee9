"""``map``, ``map set``/``remove`` and ``classes set-extended-resource`` on a real API server with
the real OpenShift Kueue operator CRD, real ConfigMaps and RBAC-restricted users.

The Kueue CR is a cluster singleton: each test that uses it starts from a known object, and the
module puts back whatever was there before.
"""

from __future__ import annotations

import json
import secrets
import shlex
import subprocess
import sys

import pytest
import yaml

from testenv import builders, kube_versions
from testenv.harness import REPO_ROOT, run_plugin

KUEUE = "kueues.kueue.openshift.io"
SEL = "device.driver == 'gpu.example.com'"
COUNTER_ARGS = ("--counter", "memory", "--driver", "gpu.example.com", "--selector", SEL)
CONFIG_KEY = "controller_manager_config.yaml"


# ------------------------------------------------------------- utilities
def mapping(name, *classes):
    return {"name": name, "deviceClassNames": list(classes)}


def added(diff, text):
    return any(line.startswith("+") and line.rstrip().endswith(text) for line in diff.splitlines())


def get_cr(cluster):
    return cluster.get_json(f"{KUEUE}/cluster")


def reset_cr(cluster, mappings=None):
    """A fresh Kueue CR with fields the plugin must not touch."""
    cluster.kubectl("delete", KUEUE, "cluster", "--ignore-not-found")
    config = {"integrations": {"frameworks": ["BatchJob", "Pod"]},
              "preemption": {"preemptionPolicy": "FairSharing"},
              "workloadManagement": {"labelPolicy": "QueueName"}}
    if mappings:
        config["resources"] = {"deviceClassMappings": mappings}
    cluster.kubectl("create", "-f", "-", input=json.dumps({
        "apiVersion": "kueue.openshift.io/v1", "kind": "Kueue",
        "metadata": {"name": "cluster", "labels": {"team": "platform"},
                     "annotations": {"note": "keep me"}},
        "spec": {"managementState": "Managed", "logLevel": "Debug", "config": config}}))
    return get_cr(cluster)


def plugin(cluster, *args, context="admin"):
    return run_plugin(cluster, *args, context=context)


def plugin_json(cluster, *args, context="admin"):
    proc = run_plugin(cluster, *args, "-o", "json", context=context)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def one_line_error(proc):
    assert proc.returncode == 1, (proc.stdout, proc.stderr)
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), proc.stderr
    assert "Traceback" not in proc.stderr
    return lines[0]


def without_volatile(obj):
    meta = {k: v for k, v in obj["metadata"].items()
            if k not in ("resourceVersion", "generation", "managedFields")}
    return dict(obj, metadata=meta)


def in_process(cluster, capsys, *args, context="admin"):
    from kubectl_kueue_dra.cli import main

    code = main(["--kubeconfig", str(cluster.kubeconfig), "--context", context, *args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module", autouse=True)
def _restore_kueue_cr(cluster):
    before = cluster.kubectl("get", f"{KUEUE}/cluster", "-o", "json", check=False)
    yield
    cluster.kubectl("delete", KUEUE, "cluster", "--ignore-not-found")
    if before.returncode == 0:
        obj = json.loads(before.stdout)
        for key in ("resourceVersion", "uid", "creationTimestamp", "generation", "managedFields"):
            obj["metadata"].pop(key, None)
        cluster.kubectl("create", "-f", "-", input=json.dumps(obj))


#: the DeviceClasses the tests below name without meaning them to be missing (map set refuses a class
#: that does not exist), and the driver whose slices publish the counter COUNTER_ARGS names
NAMED_CLASSES = ["gpu.example.com", "mig.example.com", "x.example.com", "a.example.com", "n.example.com",
                 "m.example.com", *[f"team{i}.example.com" for i in range(6)]]
MEMORY_SLICES = [  # written in the layout of the server (1.34: the counter set beside the device)
    builders.resource_slice("map-test-gpu-example-com-counters", "gpu.example.com", "map-test-pool", slice_count=2,
                            counter_sets={"gpu-0-counters": {"memory": "40Gi", "multiprocessors": "98"}}),
    builders.resource_slice("map-test-gpu-example-com", "gpu.example.com", "map-test-pool", slice_count=2, devices=[
        builders.device("gpu-0", [("gpu-0-counters", {"memory": "40Gi", "multiprocessors": "98"})], type="gpu")])]


@pytest.fixture(scope="module", autouse=True)
def _named_classes_and_a_counter(cluster):
    """The classes and the published counter exist while this module runs, and only then (other
    modules count the cluster's DeviceClasses and devices)."""
    objs = [builders.device_class(n, SEL) for n in NAMED_CLASSES] + kube_versions.slices_for(MEMORY_SLICES,
                                                                                           cluster.kube_version)
    created = [o for o in objs if cluster.kubectl("get", o["kind"].lower(), o["metadata"]["name"],
                                                  check=False).returncode != 0]
    cluster.apply(created)
    yield
    for o in created:
        cluster.delete(o, check=False)


@pytest.fixture()
def device_classes(cluster):
    suffix = secrets.token_hex(3)
    names = [f"gpu-{suffix}.example.com", f"mig-{suffix}.example.com"]
    cluster.apply([builders.device_class(n, SEL) for n in names])
    return names


_UPSTREAM_INSTALLS: list[tuple[object, str]] = []


@pytest.fixture(autouse=True)
def _remove_upstream_installs():
    """Each upstream installation a test makes is gone after it: other modules share the cluster,
    and a second Kueue Deployment would make every later command's installation ambiguous. (No
    namespace controller runs, so the namespace's objects are deleted one by one.)"""
    yield
    while _UPSTREAM_INSTALLS:
        cluster, ns = _UPSTREAM_INSTALLS.pop()
        cluster.kubectl("delete", "-n", ns, "deployment/kueue-controller-manager",
                        "configmap/kueue-manager-config", "--ignore-not-found", "--wait=false")


def upstream_kueue(cluster, version="v0.19.2", text=None, annotations=None):
    """A namespace with upstream Kueue's ConfigMap and controller Deployment (no pods run: there
    is no controller-manager in the test cluster)."""
    ns = cluster.create_namespace("kueue")
    _UPSTREAM_INSTALLS.append((cluster, ns))
    text = text or (
        "apiVersion: config.kueue.x-k8s.io/v1beta2\n"
        "kind: Configuration\n"
        "# managed by hand, please keep this comment\n"
        f"namespace: {ns}\n"
        "health:\n  healthProbeBindAddress: :8081   # probes\n"
        "resources:\n"
        "  excludeResourcePrefixes: [\"example.com/\"]\n"
        "  deviceClassMappings:\n"
        "  - name: gpu\n"
        "    deviceClassNames: [gpu.example.com]   # flow style\n"
        "integrations:\n  frameworks:\n  - batch/job\n")
    template_meta = {"labels": {"app": "kueue"}}
    if annotations:
        template_meta["annotations"] = annotations
    cluster.apply([
        {"apiVersion": "v1", "kind": "ConfigMap",
         "metadata": {"name": "kueue-manager-config", "namespace": ns},
         "data": {CONFIG_KEY: text, "other-key": "untouched: true\n"}},
        {"apiVersion": "apps/v1", "kind": "Deployment",
         "metadata": {"name": "kueue-controller-manager", "namespace": ns},
         "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "kueue"}},
                  "template": {"metadata": template_meta, "spec": {"containers": [{
                      "name": "manager", "image": f"registry.k8s.io/kueue/kueue:{version}",
                      "args": ["--config=/controller_manager_config.yaml"]}],
                      "volumes": [{"name": "manager-config",
                                   "configMap": {"name": "kueue-manager-config"}}]}}}},
    ])
    return ns


def config_text(cluster, ns):
    return cluster.get_json("configmap", "kueue-manager-config", "-n", ns)["data"][CONFIG_KEY]


# ------------------------------------------------------- the Kueue CR (OpenShift)
def test_map_lists_the_cr_mappings(cluster, device_classes):
    gpu, _mig = device_classes
    reset_cr(cluster, [mapping("gpu", gpu, "absent.example.com")])
    cq = f"cq-{secrets.token_hex(3)}"
    cluster.apply({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {"name": cq},
                   "spec": {"resourceGroups": [{"coveredResources": ["gpu"], "flavors": [
                       {"name": "default", "resources": [{"name": "gpu", "nominalQuota": "8"}]}]}]}})
    doc = plugin_json(cluster, "map")
    assert doc["target"] == {"kind": "Kueue", "name": "cluster", "namespace": None}
    [m] = doc["mappings"]
    assert m["name"] == "gpu" and cq in m["coveredBy"]
    assert m["deviceClasses"] == [{"name": gpu, "exists": True}, {"name": "absent.example.com", "exists": False}]
    assert [f["code"] for f in doc["findings"]] == ["DeviceClassMissing"]
    text = plugin(cluster, "map")
    assert text.returncode == 0 and text.stdout.startswith("Kueue CR cluster (kueue.openshift.io)")
    # the read-only role can read it
    assert plugin(cluster, "map", context="reader").returncode == 0


def test_set_replace_remove_on_the_cr_keep_everything_else(cluster, device_classes):
    gpu, mig = device_classes
    before = reset_cr(cluster, [mapping("gpu", gpu)])

    doc = plugin_json(cluster, "map", "set", "gpu.memory", "--device-class", mig, *COUNTER_ARGS)
    assert doc["changed"] and doc["written"] and added(doc["diff"], "name: gpu.memory")
    assert any(f["code"] == "OperatorRollout" for f in doc["findings"])
    after = get_cr(cluster)
    maps = after["spec"]["config"]["resources"]["deviceClassMappings"]
    assert maps[0] == mapping("gpu", gpu)
    assert maps[1] == {"name": "gpu.memory", "deviceClassNames": [mig], "sources": [
        {"type": "Counter", "counter": {"name": "memory", "driver": "gpu.example.com",
                                        "deviceSelector": {"type": "CEL", "cel": {"expression": SEL}}}}]}
    for key in ("integrations", "preemption", "workloadManagement"):
        assert after["spec"]["config"][key] == before["spec"]["config"][key]
    assert after["spec"]["logLevel"] == "Debug" and after["metadata"]["labels"] == {"team": "platform"}
    assert after["metadata"]["annotations"] == {"note": "keep me"}

    # replace keeps the position (Kueue charges a class to the first mapping listing it)
    plugin_json(cluster, "map", "set", "gpu", "--device-class", gpu, "--device-class", "extra.example.com",
                "--allow-missing-class")
    maps = get_cr(cluster)["spec"]["config"]["resources"]["deviceClassMappings"]
    assert [m["name"] for m in maps] == ["gpu", "gpu.memory"]
    assert maps[0]["deviceClassNames"] == [gpu, "extra.example.com"]

    # idempotent: the same set writes nothing
    rv = get_cr(cluster)["metadata"]["resourceVersion"]
    doc = plugin_json(cluster, "map", "set", "gpu", "--device-class", gpu, "--device-class", "extra.example.com")
    assert not doc["changed"] and not doc["written"]  # (a class already mapped is not judged again)
    assert get_cr(cluster)["metadata"]["resourceVersion"] == rv

    plugin_json(cluster, "map", "remove", "gpu", "--device-class", "extra.example.com")
    plugin_json(cluster, "map", "remove", "gpu.memory")
    assert get_cr(cluster)["spec"]["config"]["resources"]["deviceClassMappings"] == [mapping("gpu", gpu)]
    # removing the last mapping removes resources (the CRD rejects [] and {})
    plugin_json(cluster, "map", "remove", "gpu")
    final = get_cr(cluster)
    assert "resources" not in final["spec"]["config"]
    assert without_volatile(final)["spec"] == dict(before["spec"], config={
        k: v for k, v in before["spec"]["config"].items() if k != "resources"})


@pytest.mark.versions
def test_dry_runs_write_nothing(cluster, device_classes):
    gpu, _ = device_classes
    rv = reset_cr(cluster, [mapping("gpu", gpu)])["metadata"]["resourceVersion"]
    for mode in ("server", "client"):
        doc = plugin_json(cluster, "map", "set", "other", "--device-class", "x.example.com", f"--dry-run={mode}")
        assert doc["changed"] and not doc["written"] and doc["dryRun"] == mode
        assert added(doc["diff"], "name: other")
        assert get_cr(cluster)["metadata"]["resourceVersion"] == rv
    text = plugin(cluster, "map", "remove", "gpu", "--dry-run=server")
    assert text.returncode == 0 and "server dry run: accepted, nothing written" in text.stdout
    assert any(line.startswith("-") and line.endswith("name: gpu") for line in text.stdout.splitlines())
    assert get_cr(cluster)["metadata"]["resourceVersion"] == rv


@pytest.mark.parametrize("args,rule", [
    (("pods", "--device-class", "a.example.com"), "ReservedName"),
    (("g", *[f"--device-class=c{i}.example.com" for i in range(9)]), "TooManyDeviceClasses"),
    (("other", "--device-class", "{gpu}"), "DeviceClassInTwoMappings"),
    (("g", "--device-class", "a.example.com", "--counter", "memory", "--driver", "d" * 64,
      "--selector", "true"), "DriverTooLong"),
    (("g", "--device-class", "a.example.com", "--counter", "memory", "--driver", "gpu.example.com",
      "--selector", "device.driver =="), "SelectorDoesNotCompile"),
    (("g", "--device-class", "a.example.com", "--counter", "Memory", "--driver", "gpu.example.com",
      "--selector", "true"), "InvalidCounterName"),
    (("g", "--device-class", "a.example.com", "--capacity", "memory", "--driver", "gpu.example.com",
      "--selector", "true"), "CapacityNotSupported"),
    (("bad name!", "--device-class", "a.example.com"), "InvalidName"),
    (("g", "--device-class", "a.example.com", "--kueue-version", "0.18", *COUNTER_ARGS),
     "CounterSourcesDisabled"),
])
def test_refusals_name_the_rule_and_write_nothing(cluster, device_classes, args, rule):
    gpu, _ = device_classes
    if rule == "CounterSourcesDisabled":
        # The rule depends on the FeatureGate singleton, which other tests may have set: make it absent.
        cluster.kubectl("delete", "featuregates.config.openshift.io", "cluster", "--ignore-not-found")
        assert not pd_gate_in_featuregate(cluster)
    rv = reset_cr(cluster, [mapping("gpu", gpu)])["metadata"]["resourceVersion"]
    args = tuple(a.replace("{gpu}", gpu) for a in args)
    line = one_line_error(plugin(cluster, "map", "set", *args))
    assert f"[{rule}]" in line and "nothing written" in line
    assert get_cr(cluster)["metadata"]["resourceVersion"] == rv


def test_what_the_cluster_would_not_honour_is_refused_and_nothing_written(cluster, device_classes):
    """A missing DeviceClass, a counter the driver's slices do not publish, a replacement that drops
    classes or the source: one line each, nothing written; --allow-missing-class and --replace
    confirm; a driver with no slices is a warning, not a refusal."""
    gpu, mig = device_classes
    rv = reset_cr(cluster, [mapping("gpu", gpu), {**mapping("gpu.memory", mig), "sources": [
        {"type": "Counter", "counter": {"name": "memory", "driver": "gpu.example.com",
                                        "deviceSelector": {"type": "CEL", "cel": {"expression": SEL}}}}]}
    ])["metadata"]["resourceVersion"]
    cases = [
        (("new", "--device-class", "nosuch.example.com"), "[DeviceClassNotFound]",
         "DeviceClass nosuch.example.com does not exist"),
        (("new", "--device-class", "nosuch.example.com", "--allow-missing-class", "--counter", "mem", "--driver",
          "gpu.example.com", "--selector", SEL), "[CounterNotPublished]", "(it publishes: memory, multiprocessors)"),
        (("gpu", "--device-class", "x.example.com"), "[ClassesDropped]", f"this set would drop {gpu}"),
        (("gpu.memory", "--device-class", mig), "[SourceDropped]", "it charges counter memory of gpu.example.com"),
    ]
    for args, rule, text in cases:
        line = one_line_error(plugin(cluster, "map", "set", *args))
        assert rule in line and text in line and "nothing written" in line, line
        assert get_cr(cluster)["metadata"]["resourceVersion"] == rv
    # -o json: the refusal as findings, nothing else
    proc = plugin(cluster, "map", "set", "gpu", "--device-class", "x.example.com", "-o", "json")
    assert proc.returncode == 1 and json.loads(proc.stdout)["findings"][0]["code"] == "ClassesDropped"
    # the fix a refusal gives keeps what the mapping has, and passes
    line = one_line_error(plugin(cluster, "map", "set", "gpu.memory", "--device-class", mig))
    keep = line.split("or keep what it has: oc kueue-dra ")[1]  # the Kueue CR: written for OpenShift
    proc = subprocess.run([sys.executable, "-m", "kubectl_kueue_dra", "--kubeconfig", str(cluster.kubeconfig),
                           "--context", "admin", *shlex.split(keep)], cwd=REPO_ROOT, capture_output=True, text=True)
    assert proc.returncode == 0 and "already as requested" in proc.stdout, proc.stderr
    # confirmed: written
    doc = plugin_json(cluster, "map", "set", "gpu", "--device-class", "x.example.com", "--replace")
    assert doc["written"]
    doc = plugin_json(cluster, "map", "set", "late", "--device-class", "late.example.com", "--allow-missing-class")
    assert doc["written"] and not {"DeviceClassNotFound", "DeviceClassesUnknown"} & {f["code"] for f in doc["findings"]}
    # a driver that has published nothing yet: a warning, and the change is made
    doc = plugin_json(cluster, "map", "set", "other", "--device-class", "a.example.com", "--counter", "memory",
                      "--driver", "nothing-yet.example.com", "--selector", "true")
    assert doc["written"] and "DriverNotPublishing" in [f["code"] for f in doc["findings"]]


def pd_gate_in_featuregate(cluster):
    fg = cluster.kubectl("get", "featuregates.config.openshift.io/cluster", "-o", "json", check=False)
    if fg.returncode != 0:
        return False
    spec = json.loads(fg.stdout).get("spec") or {}
    return spec.get("featureSet") == "CustomNoUpgrade" and \
        "DRAPartitionableDevices" in ((spec.get("customNoUpgrade") or {}).get("enabled") or [])


def test_too_many_mappings_refused(cluster):
    rv = reset_cr(cluster, [mapping(f"r{i}", f"c{i}.example.com") for i in range(16)])["metadata"]["resourceVersion"]
    line = one_line_error(plugin(cluster, "map", "set", "r16", "--device-class", "c16.example.com"))
    assert "[TooManyMappings]" in line
    assert get_cr(cluster)["metadata"]["resourceVersion"] == rv


def crd_verdict(cluster, mappings):
    """What the real CRD says about a list: (HTTP status, message), sent with dryRun=All."""
    obj = get_cr(cluster)
    obj["spec"]["config"]["resources"] = {"deviceClassMappings": mappings} if mappings is not None else {}
    status, body = cluster.request("PUT", "/apis/kueue.openshift.io/v1/kueues/cluster?dryRun=All", obj)
    return status, json.loads(body).get("message", "")


def test_the_real_crd_agrees_with_the_research(cluster):
    """Pin the operator CRD's behaviour the validation relies on (and where it is looser than
    Kueue: those inputs pass the CRD and would make Kueue exit at startup)."""
    reset_cr(cluster, [mapping("gpu", "gpu.example.com")])
    counter = {"type": "Counter", "counter": {"name": "memory", "driver": "gpu.example.com",
                                              "deviceSelector": {"type": "CEL", "cel": {"expression": SEL}}}}
    rejected = {
        "17 mappings": [mapping(f"r{i}", f"c{i}") for i in range(17)],
        "9 classes": [mapping("g", *[f"c{i}" for i in range(9)])],
        "class in two mappings": [mapping("a", "c"), mapping("b", "c")],
        "duplicate names": [mapping("a", "c"), mapping("a", "d")],
        "2 sources": [dict(mapping("g", "c"), sources=[counter, dict(counter, counter=dict(
            counter["counter"], name="cores"))])],
        "empty list": [],
        "empty resources": None,
        "bad name": [mapping("bad name", "c")],
        "counter name not a DNS label": [dict(mapping("g", "c"), sources=[dict(counter, counter=dict(
            counter["counter"], name="Memory"))])],
        "selector without type": [dict(mapping("g", "c"), sources=[dict(counter, counter=dict(
            counter["counter"], deviceSelector={"cel": {"expression": SEL}}))])],
    }
    for what, mappings in rejected.items():
        status, message = crd_verdict(cluster, mappings)
        assert status == 422, (what, status, message)
    accepted = {  # ... and what only Kueue's startup validation catches
        "driver of 64 characters": [dict(mapping("g", "c"), sources=[dict(counter, counter=dict(
            counter["counter"], driver="d" * 64))])],
        "CEL that does not compile": [dict(mapping("g", "c"), sources=[dict(counter, counter=dict(
            counter["counter"], deviceSelector={"type": "CEL", "cel": {"expression": "device.driver =="}}))])],
        "name pods": [mapping("pods", "c")],
    }
    for what, mappings in accepted.items():
        status, message = crd_verdict(cluster, mappings)
        assert status == 200, (what, status, message)


def test_crd_rejection_is_one_line(cluster, capsys, monkeypatch):
    """With the plugin's own checks switched off, the CRD's 422 comes back as one line."""
    import kubectl_kueue_dra.commands.map.change as map_change

    reset_cr(cluster, [mapping("gpu", "gpu.example.com")])
    rv = get_cr(cluster)["metadata"]["resourceVersion"]
    monkeypatch.setattr(map_change, "validate", lambda raw, rules: [])
    code, out, err = in_process(cluster, capsys, "map", "set", "other", "--device-class", "gpu.example.com")
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and err.startswith('error: cannot update kueues.kueue.openshift.io "cluster"')
    assert "each DeviceClass name can only appear in one mapping" in err
    assert get_cr(cluster)["metadata"]["resourceVersion"] == rv


def test_conflict_is_retried_from_a_fresh_read(cluster, capsys, monkeypatch):
    from kubectl_kueue_dra.kube.writes import ObjectWriter

    reset_cr(cluster, [mapping("gpu", "gpu.example.com")])
    real_replace = ObjectWriter.replace
    calls = []

    def replace_after_someone_else(self, obj, **kw):
        calls.append(obj["metadata"]["resourceVersion"])
        if len(calls) == 1:  # another writer gets in between our read and our write
            cluster.kubectl("annotate", f"{KUEUE}/cluster", "racer=was-here")
        return real_replace(self, obj, **kw)

    monkeypatch.setattr(ObjectWriter, "replace", replace_after_someone_else)
    code, out, err = in_process(cluster, capsys, "map", "set", "new", "--device-class", "n.example.com",
                                "-o", "json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["attempts"] == 2 and len(calls) == 2 and calls[0] != calls[1]
    cr = get_cr(cluster)
    assert cr["metadata"]["annotations"]["racer"] == "was-here"  # the other write is not lost
    assert [m["name"] for m in cr["spec"]["config"]["resources"]["deviceClassMappings"]] == ["gpu", "new"]


def test_concurrent_sets_both_survive(cluster):
    reset_cr(cluster, [mapping("gpu", "gpu.example.com")])
    names = [f"team{i}" for i in range(6)]
    base = [sys.executable, "-m", "kubectl_kueue_dra", "--kubeconfig", str(cluster.kubeconfig),
            "--context", "admin", "map", "set"]
    procs = [subprocess.Popen(base + [n, "--device-class", f"{n}.example.com"], cwd=REPO_ROOT,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for n in names]
    for p in procs:
        _, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
    got = [m["name"] for m in get_cr(cluster)["spec"]["config"]["resources"]["deviceClassMappings"]]
    assert got[0] == "gpu" and sorted(got[1:]) == names


def test_reader_gets_a_clear_403_on_write(cluster):
    rv = reset_cr(cluster, [mapping("gpu", "gpu.example.com")])["metadata"]["resourceVersion"]
    line = one_line_error(plugin(cluster, "map", "set", "x", "--device-class", "x.example.com", context="reader"))
    assert 'cannot update kueues.kueue.openshift.io "cluster" at cluster scope: forbidden (as reader)' in line
    assert "mapping-editor-clusterrole.yaml" in line
    line = one_line_error(plugin(cluster, "map", "set", "x", "--device-class", "x.example.com", context="nobody"))
    assert "forbidden" in line
    assert get_cr(cluster)["metadata"]["resourceVersion"] == rv


def test_restart_waits_for_the_operator_rollout(cluster):
    reset_cr(cluster, [mapping("gpu", "gpu.example.com")])
    proc = plugin(cluster, "map", "set", "more", "--device-class", "m.example.com", "--restart",
                  "--timeout", "1s")
    line = one_line_error(proc)
    assert "mapping more added." in proc.stdout  # the change is shown before the error
    # no operator runs here: the write happened, the wait ends cleanly
    assert "the Kueue CR was written (generation 2), but the operator had not rolled out" in line
    assert [m["name"] for m in get_cr(cluster)["spec"]["config"]["resources"]["deviceClassMappings"]] \
        == ["gpu", "more"]


def test_missing_operator_cr_says_how_to_create_it(cluster_gates_off):
    c = cluster_gates_off
    existed = c.kubectl("get", f"{KUEUE}/cluster", "-o", "json", check=False)
    c.kubectl("delete", KUEUE, "cluster", "--ignore-not-found")
    try:
        line = one_line_error(plugin(c, "map", "set", "g", "--device-class", "c.example.com"))
        assert "the Kueue CR cluster (kueues.kueue.openshift.io) does not exist" in line
        assert "create it first" in line
    finally:
        if existed.returncode == 0:
            obj = json.loads(existed.stdout)
            for key in ("resourceVersion", "uid", "creationTimestamp", "generation", "managedFields"):
                obj["metadata"].pop(key, None)
            c.kubectl("create", "-f", "-", input=json.dumps(obj))


# --------------------------------------------------------- upstream ConfigMap
def test_set_and_remove_in_an_upstream_configmap_keep_the_document(cluster):
    ns = upstream_kueue(cluster)
    original = config_text(cluster, ns)
    doc = plugin_json(cluster, "map", "set", "gpu.memory", "--device-class", "mig.example.com",
                      *COUNTER_ARGS, "--kueue-namespace", ns)
    assert doc["target"] == {"kind": "ConfigMap", "name": "kueue-manager-config", "namespace": ns}
    assert doc["written"] and doc["kueueVersion"] == "0.19.2"
    restart = [f for f in doc["findings"] if f["code"] == "RestartNeeded"]
    assert restart and f"kubectl rollout restart deployment/kueue-controller-manager -n {ns}" in restart[0]["fix"]
    text = config_text(cluster, ns)
    head, tail = original.split("integrations:\n")
    assert text.startswith(head) and text.endswith("integrations:\n" + tail)  # only an insertion
    assert "# managed by hand, please keep this comment\n" in text and "# flow style\n" in text
    parsed = yaml.safe_load(text)
    assert parsed["resources"]["deviceClassMappings"][1] == {
        "name": "gpu.memory", "deviceClassNames": ["mig.example.com"],
        "sources": [{"counter": {"name": "memory", "driver": "gpu.example.com",
                                 "deviceSelector": {"cel": {"expression": SEL}}}}]}
    cm = cluster.get_json("configmap", "kueue-manager-config", "-n", ns)
    assert cm["data"]["other-key"] == "untouched: true\n"

    plugin_json(cluster, "map", "remove", "gpu.memory", "--kueue-namespace", ns)
    assert config_text(cluster, ns) == original
    plugin_json(cluster, "map", "remove", "gpu", "--kueue-namespace", ns)
    left = yaml.safe_load(config_text(cluster, ns))
    assert left["resources"] == {"excludeResourcePrefixes": ["example.com/"]}
    assert "# managed by hand, please keep this comment\n" in config_text(cluster, ns)


@pytest.mark.versions
def test_upstream_server_dry_run_and_listing(cluster):
    ns = upstream_kueue(cluster)
    rv = cluster.get_json("configmap", "kueue-manager-config", "-n", ns)["metadata"]["resourceVersion"]
    proc = plugin(cluster, "map", "set", "more", "--device-class", "m.example.com", "--dry-run=server",
                  "--kueue-namespace", ns)
    assert proc.returncode == 0, proc.stderr
    assert f"ConfigMap {ns}/kueue-manager-config: mapping more added (server dry run" in proc.stdout
    assert "+  - name: more" in proc.stdout
    assert cluster.get_json("configmap", "kueue-manager-config", "-n", ns)["metadata"]["resourceVersion"] == rv
    doc = plugin_json(cluster, "map", "--kueue-namespace", ns)
    assert [m["name"] for m in doc["mappings"]] == ["gpu"] and doc["kueueVersion"] == "0.19.2"


@pytest.mark.versions
def test_kueue_018_without_the_gate_refuses_counter_sources(cluster):
    ns = upstream_kueue(cluster, version="v0.18.6")
    line = one_line_error(plugin(cluster, "map", "set", "gpu.memory", "--device-class", "mig.example.com",
                                 *COUNTER_ARGS, "--kueue-namespace", ns))
    assert "[CounterSourcesDisabled]" in line and "KueueDRAIntegrationPartitionableDevices" in line
    text = config_text(cluster, ns) + "featureGates:\n  KueueDRAIntegrationPartitionableDevices: true\n"
    cm = cluster.get_json("configmap", "kueue-manager-config", "-n", ns)
    cm["data"][CONFIG_KEY] = text
    cluster.kubectl("replace", "-f", "-", input=json.dumps(cm))
    doc = plugin_json(cluster, "map", "set", "gpu.memory", "--device-class", "mig.example.com",
                      *COUNTER_ARGS, "--kueue-namespace", ns)
    assert doc["written"]


def test_restart_rolls_the_deployment(cluster):
    ns = upstream_kueue(cluster)
    proc = plugin(cluster, "map", "set", "more", "--device-class", "m.example.com", "--kueue-namespace", ns,
                  "--restart", "--timeout", "2s")
    # no controller-manager runs here, so the rollout never completes: a clean, bounded failure
    line = one_line_error(proc)
    assert "mapping more added." in proc.stdout
    assert "restarted, but its rollout did not complete within 2s" in line
    deploy = cluster.get_json("deployment", "kueue-controller-manager", "-n", ns)
    assert "kubectl.kubernetes.io/restartedAt" in deploy["spec"]["template"]["metadata"]["annotations"]
    assert "more" in config_text(cluster, ns)
    # -o json: the document says what was written, and the failed wait as its last finding
    proc = plugin(cluster, "map", "set", "more2", "--device-class", "m2.example.com", "--kueue-namespace", ns,
                  "--restart", "--timeout", "2s", "-o", "json", "--allow-missing-class")
    assert proc.returncode == 1 and json.loads(proc.stdout)["written"]
    last = json.loads(proc.stdout)["findings"][-1]
    assert (last["code"], last["severity"]) == ("RolloutNotComplete", "error")
    assert "restarted, but its rollout did not complete within 2s" in last["message"]
    # oc where the cluster is OpenShift: another module may have left its ClusterVersion in this cluster
    cli = "oc" if cluster.kubectl("get", "clusterversion", "version", check=False).returncode == 0 else "kubectl"
    assert last["fix"] == f"check: {cli} rollout status deployment/kueue-controller-manager -n {ns}"


def test_operator_managed_configmap_is_never_written(cluster):
    ns = upstream_kueue(cluster, annotations={"kueueoperator.kueue.openshift.io/cluster": "1"})
    rv = cluster.get_json("configmap", "kueue-manager-config", "-n", ns)["metadata"]["resourceVersion"]
    line = one_line_error(plugin(cluster, "map", "set", "x", "--device-class", "x.example.com",
                                 "--kueue-namespace", ns))
    assert f"refusing to edit ConfigMap {ns}/kueue-manager-config" in line and "Kueue CR" in line
    assert cluster.get_json("configmap", "kueue-manager-config", "-n", ns)["metadata"]["resourceVersion"] == rv


def test_missing_upstream_configmap(cluster):
    ns = cluster.create_namespace("nokueue")
    line = one_line_error(plugin(cluster, "map", "--kueue-namespace", ns))
    assert f"ConfigMap {ns}/kueue-manager-config not found" in line and "--kueue-namespace" in line


# ------------------------------------------------ classes set-extended-resource
def device_class(c, name):
    c.apply(builders.device_class(name, SEL))


@pytest.mark.versions
def test_set_extended_resource_with_the_gate_on(cluster_gates_on):
    c = cluster_gates_on
    name = f"er-{secrets.token_hex(3)}.example.com"
    device_class(c, name)
    doc = plugin_json(c, "classes", "set-extended-resource", name, "example.com/gpu")
    assert doc["written"] and not doc["dropped"] and doc["extendedResourceName"] == "example.com/gpu"
    assert c.get_json("deviceclass", name)["spec"]["extendedResourceName"] == "example.com/gpu"
    assert c.get_json("deviceclass", name)["spec"]["selectors"] == [{"cel": {"expression": SEL}}]
    again = plugin_json(c, "classes", "set-extended-resource", name, "example.com/gpu")
    assert not again["changed"]
    dry = plugin_json(c, "classes", "set-extended-resource", name, "--clear", "--dry-run=server")
    assert dry["changed"] and not dry["written"]
    assert c.get_json("deviceclass", name)["spec"]["extendedResourceName"] == "example.com/gpu"
    line = one_line_error(plugin(c, "classes", "set-extended-resource", name, "--clear", context="reader"))
    assert "cannot update deviceclasses.resource.k8s.io" in line and "forbidden" in line
    cleared = plugin(c, "classes", "set-extended-resource", name, "--clear")
    assert cleared.returncode == 0 and "extendedResourceName cleared" in cleared.stdout
    assert "extendedResourceName" not in c.get_json("deviceclass", name)["spec"]
    # a name the API server would refuse is refused first, in one line, nothing sent
    before = c.get_json("deviceclass", name)["metadata"]["resourceVersion"]
    line = one_line_error(plugin(c, "classes", "set-extended-resource", name, "not a resource name"))
    assert line.startswith('error: extended resource name "not a resource name" must be a valid extended resource '
                           "name") and line.endswith("the API server would refuse it"), line
    assert c.get_json("deviceclass", name)["metadata"]["resourceVersion"] == before
    # 'classes' itself still works
    listing = plugin_json(c, "classes")
    assert name in [d["name"] for d in listing["deviceClasses"]]


@pytest.mark.versions
def test_set_extended_resource_against_a_snapshot_of_the_cluster(cluster_gates_on, tmp_path):
    """--from SNAPSHOT --dry-run=client computes the change the server dry run makes, sending nothing."""
    c = cluster_gates_on
    name = f"er-{secrets.token_hex(3)}.example.com"
    device_class(c, name)
    snap = tmp_path / "deviceclass.yaml"
    snap.write_text(c.kubectl("get", "deviceclass", name, "-o", "yaml").stdout)
    offline = plugin_json(c, "classes", "set-extended-resource", name, "example.com/gpu", "--from", str(snap),
                          "--dry-run=client")
    live = plugin_json(c, "classes", "set-extended-resource", name, "example.com/gpu", "--dry-run=server")
    assert offline["changed"] and not offline["written"] and offline["dryRun"] == "client"
    assert added(offline["diff"], "extendedResourceName: example.com/gpu")
    assert added(live["diff"], "extendedResourceName: example.com/gpu")
    assert "extendedResourceName" not in c.get_json("deviceclass", name)["spec"]
    # before the command too, like every global flag
    before = plugin_json(c, "--from", str(snap), "classes", "set-extended-resource", name, "example.com/gpu",
                         "--dry-run=client")
    assert before["diff"] == offline["diff"]


@pytest.mark.versions
def test_set_extended_resource_warns_when_the_gate_is_off(cluster_gates_off):
    c = cluster_gates_off
    name = f"er-{secrets.token_hex(3)}.example.com"
    device_class(c, name)
    proc = plugin(c, "classes", "set-extended-resource", name, "example.com/gpu")
    line = one_line_error(proc)
    assert "dropped spec.extendedResourceName" in line and "DRAExtendedResource" in line
    assert "the API server dropped extendedResourceName" in proc.stdout
    assert "extendedResourceName" not in c.get_json("deviceclass", name)["spec"]
    proc = run_plugin(c, "classes", "set-extended-resource", name, "example.com/gpu", "--dry-run=server",
                      "-o", "json")
    assert proc.returncode == 1
    doc = json.loads(proc.stdout)
    assert doc["dropped"] and doc["findings"][0]["code"] == "GatedFieldDropped"
    assert doc["findings"][0]["severity"] == "error"
    assert doc["findings"][0]["message"].startswith(f"DeviceClass {name} was written with spec.extendedResourceName "
                                                    "(example.com/gpu, by this update), which the API server dropped")
    assert "--feature-gates=DRAExtendedResource=true" in doc["findings"][0]["fix"]
