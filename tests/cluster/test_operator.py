"""The OpenShift half against the real Red Hat build of Kueue operator (1.5.0, built from the shared
source archive by ``scripts/controlplane build-operator``), run out of cluster on a test API server
of its own (``operator_harness``).

* ``map set``/``map remove`` write the Kueue CR; the ConfigMap the operator renders holds exactly the
  mappings ``map`` says it wrote; what the plugin refuses, the CRD refuses or the operator renders
  into a configuration Kueue refuses;
* for each FeatureGate state (CustomNoUpgrade with each DRA gate on/off, TechPreviewNoUpgrade, none)
  and the operator's non-OpenShift mode, ``verify``'s prediction of Kueue's gates is the
  ``featureGates`` the operator renders; a FeatureGate change the operator has not rendered yet is
  reported as a stale render, with the command that makes it re-render (proven here);
* the CR's Degraded/MissingDependencies condition is reported by ``verify`` with the fix.

One cluster and one operator for the module; the operator re-renders in well under a second after
a CR change, so the tests wait on the ConfigMap, never sleep.
"""

from __future__ import annotations

import json
import os
import time

import pytest

from testenv.binaries import kueue_build
from testenv.binaries import operator_build
from testenv import operator_chain
from testenv import operator_harness as oh
from testenv import oracle
from testenv.harness import run_plugin

SEL = "device.driver == 'gpu.example.com'"
EXT, PD = "DRAExtendedResource", "DRAPartitionableDevices"
K_EXT, K_PD = "KueueDRAIntegrationExtendedResource", "KueueDRAIntegrationPartitionableDevices"


def _ci() -> bool:
    return os.environ.get("CI", "").lower() in ("true", "1", "yes")


@pytest.fixture(scope="module")
def op(request, controlplane_bin):
    try:
        directory = operator_build.build()
    except operator_build.controlplane.GoNotFound as e:
        if not _ci():
            pytest.skip(f"the operator cannot be built: {e}")
        pytest.fail(str(e), pytrace=False)
    except Exception as e:  # noqa: BLE001 - on CI and locally a failed build is a failure
        pytest.fail(f"building the Kueue operator failed: {e}", pytrace=False)
    try:
        started = oh.start_operator_cluster(controlplane_bin, directory / operator_build.BINARY,
                                            keep_dir=bool(os.environ.get("KUEUE_DRA_KEEP_CLUSTER_DIR")))
    except Exception as e:  # noqa: BLE001
        pytest.fail(f"starting the Kueue operator failed: {type(e).__name__}: {e}", pytrace=False)
    request.addfinalizer(started.close)
    return started.operator


# ------------------------------------------------------------------------------------ helpers
def plugin_json(cluster, *args):
    proc = run_plugin(cluster, *args, "-o", "json")
    assert proc.returncode in (0, 1), proc.stderr
    return json.loads(proc.stdout)


def verify_checks(cluster) -> dict[str, dict]:
    proc = run_plugin(cluster, "verify", "--no-probe", "-o", "json")
    assert "Traceback" not in proc.stderr, proc.stderr
    doc = json.loads(proc.stdout)
    return {c["id"]: c for c in doc["checks"]}


def rendered_after(op, before: oh.Rendered, what: str) -> oh.Rendered:
    return op.wait_rendered(lambda r: r.resource_version != before.resource_version, what)


def cr_mappings(op) -> list[dict]:
    return ((op.kueue_cr()["spec"]["config"].get("resources") or {}).get("deviceClassMappings")) or []


def kueue_dialect(mappings: list[dict]) -> list[dict]:
    """The CR's mappings as Kueue's configuration writes them (no ``type`` discriminators): what
    the operator must render."""
    out = []
    for m in mappings:
        k = {"name": m["name"], "deviceClassNames": list(m["deviceClassNames"])}
        if m.get("sources"):
            k["sources"] = [{"counter": {"name": s["counter"]["name"], "driver": s["counter"]["driver"],
                                         "deviceSelector": {"cel": dict(s["counter"]["deviceSelector"]["cel"])}}}
                            for s in m["sources"]]
        out.append(k)
    return out


def normalized(mappings: list[dict]) -> list[dict]:
    return json.loads(json.dumps(mappings, sort_keys=True))


# ----------------------------------------------------------------------------------- the harness
def test_first_sync_renders_the_cr(op):
    assert normalized(op.first.mappings) == normalized(kueue_dialect(cr_mappings(op)))
    assert op.first.document["namespace"] == oh.NAMESPACE
    conditions = op.conditions()
    assert conditions["CertManagerAvailable"]["status"] == "True"
    # no kube-controller-manager here: the Deployment the operator made has no ready replica
    assert conditions["Available"]["status"] == "False"
    deployment = op.cluster.get_json("deployment", oh.DEPLOYMENT, "-n", oh.NAMESPACE)
    [manager] = deployment["spec"]["template"]["spec"]["containers"]
    assert manager["image"] == oh.operand_image()
    print(f"operator first sync {op.sync_seconds[0]} s")


def test_version_reads_the_published_csv(op):
    """The operand image carries no version (``:latest``): the version comes from the operator's
    ClusterServiceVersion, the published one installed by the harness."""
    kueue = plugin_json(op.cluster, "version")["kueue"]
    assert kueue["image"] == oh.operand_image()
    assert kueue["deployment"] == {"namespace": oh.NAMESPACE, "name": oh.DEPLOYMENT}
    assert "1.5.0" in json.dumps(kueue) and "operator" in (kueue.get("versionSource") or "")
    # the documented read-only role can read it too (deploy/rbac/reader-clusterrole.yaml)
    proc = run_plugin(op.cluster, "version", "-o", "json", context="reader")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["kueue"] == kueue


# ----------------------------------------------------------------------------------------- map
def test_map_set_and_remove_are_rendered_exactly(op):
    c = op.cluster
    before = op.rendered()
    doc = plugin_json(c, "map", "set", "gpu.memory", "--device-class", "mig.example.com", "--allow-missing-class",
                      "--counter", "memory", "--driver", "gpu.example.com", "--selector", SEL)
    assert doc["written"] and doc["target"]["kind"] == "Kueue"
    t0 = time.monotonic()
    rendered = rendered_after(op, before, "the render of map set")
    print(f"CR written -> ConfigMap rendered: {time.monotonic() - t0:.2f} s")
    listed = plugin_json(c, "map")["mappings"]
    assert [m["name"] for m in listed] == [m["name"] for m in rendered.mappings] == ["example.com/gpu", "gpu.memory"]
    table = run_plugin(c, "map").stdout
    assert all(m["name"] in table for m in rendered.mappings), table
    assert normalized(rendered.mappings) == normalized(kueue_dialect(cr_mappings(op)))
    [_, memory] = rendered.mappings
    assert memory["sources"] == [{"counter": {"name": "memory", "driver": "gpu.example.com",
                                              "deviceSelector": {"cel": {"expression": SEL}}}}]

    before = rendered
    plugin_json(c, "map", "remove", "gpu.memory")
    rendered = rendered_after(op, before, "the render of map remove")
    assert [m["name"] for m in rendered.mappings] == ["example.com/gpu"]
    assert normalized(rendered.mappings) == normalized(kueue_dialect(cr_mappings(op)))


def test_server_dry_run_and_refusals_render_nothing(op):
    c = op.cluster
    before = op.rendered()
    cr = op.kueue_cr()  # the operator writes its status: compare the generation and the spec
    doc = plugin_json(c, "map", "set", "other", "--device-class", "x.example.com", "--allow-missing-class",
                      "--dry-run=server")
    assert doc["changed"] and not doc["written"]
    # a class already in another mapping: the plugin refuses (so does the CRD's CEL rule)
    proc = run_plugin(c, "map", "set", "other", "--device-class", "gpu.example.com")
    assert proc.returncode == 1 and "[DeviceClassInTwoMappings]" in proc.stderr
    after = op.kueue_cr()
    assert (after["metadata"]["generation"], after["spec"]) == (cr["metadata"]["generation"], cr["spec"])
    # nothing for the operator to do: a reconcile renders the same text
    op.trigger_reconcile()
    assert op.wait_for("a sync after the annotation", lambda: op.rendered()).text == before.text


# --------------------------------------------------------- map's rules vs the CRD, operator, Kueue
def _m(name="g", *classes, sources=None):
    m = {"name": name, "deviceClassNames": list(classes) or ["c.example.com"]}
    if sources is not None:
        m["sources"] = sources
    return m


def _counter(name="memory", driver="gpu.example.com", expression=SEL, selector=None):
    return {"type": "Counter", "counter": {"name": name, "driver": driver,
                                           "deviceSelector": selector or {"type": "CEL", "cel": {"expression": expression}}}}


RULE_CASES = [
    # (rule map refuses, CR mappings that break it, who else refuses: "crd" | "kueue")
    ("TooManyMappings", [_m(f"r{i}", f"c{i}.example.com") for i in range(17)], "crd"),
    ("TooManyDeviceClasses", [_m("g", *[f"c{i}.example.com" for i in range(9)])], "crd"),
    ("NoDeviceClasses", [{"name": "g", "deviceClassNames": []}], "crd"),
    ("DuplicateDeviceClass", [_m("g", "c.example.com", "c.example.com")], "crd"),
    ("DeviceClassInTwoMappings", [_m("a", "c.example.com"), _m("b", "c.example.com")], "crd"),
    ("DuplicateName", [_m("a", "c.example.com"), _m("a", "d.example.com")], "crd"),
    ("InvalidName", [_m("bad name!")], "crd"),
    ("InvalidDeviceClassName", [_m("g", "bad class!")], "crd"),
    ("TooManySources", [_m(sources=[_counter(), _counter("cores")])], "crd"),
    ("InvalidCounterName", [_m(sources=[_counter("Memory")])], "crd"),
    ("InvalidDriver", [_m(sources=[_counter(driver="Bad_Driver")])], "crd"),
    ("SelectorTooLong", [_m(sources=[_counter(expression="true && " * 128 + "true")])], "crd"),
    ("MissingSelector", [_m(sources=[_counter(selector={"type": "CEL"})])], "crd"),
    ("CapacityNotSupported", [_m(sources=[{"type": "Capacity", "capacity": {"name": "memory"}}])], "crd"),
    ("DriverTooLong", [_m(sources=[_counter(driver="d" * 64)])], "kueue"),
    ("SelectorDoesNotCompile", [_m(sources=[_counter(expression="device.driver ==")])], "kueue"),
    # Kueue 0.20+ refuses a mapping named pods; 0.19.2 (the newest we can build) still starts with it
    ("ReservedName", [_m("pods")], "kueue-0.20"),
]


def test_every_operator_rule_is_refused_by_the_crd_or_by_kueue(op, request):
    """Each rule map enforces for the operator target: the plugin flags it; the real CRD rejects the
    CR, or accepts it, the operator renders it verbatim, and Kueue v0.19.2 refuses that render."""
    from kubectl_kueue_dra.kueue.config.mapping_rules import Rules, validate
    from kubectl_kueue_dra.kueue.config.mappings import OPERATOR

    c = op.cluster
    original = op.kueue_cr()
    request.addfinalizer(lambda: oh.put_kueue_cr(c, original))
    rules = Rules(dialect=OPERATOR, kueue_minor=19, counter_gate=True, capacity_gate=False)
    kueue = kueue_build.build(kueue_build.DEFAULT_VERSION)
    results = {}
    for rule, mappings, who in RULE_CASES:
        assert rule in {v.rule.name for v in validate(mappings, rules) if v.severity == "error"}, rule
        cr = oh.kueue_cr(mappings=mappings)
        status, body = c.request("PUT", "/apis/kueue.openshift.io/v1/kueues/cluster?dryRun=All",
                                 {**op.kueue_cr(), "spec": cr["spec"]})
        results[rule] = "crd" if status == 422 else "accepted"
        if status == 422 or who == "crd":
            assert (status, who) == (422, "crd"), (rule, status, body[:300])
            continue
        before = op.rendered()
        oh.put_kueue_cr(c, cr)
        rendered = rendered_after(op, before, f"the render of {rule}")
        assert normalized(rendered.mappings) == normalized(kueue_dialect(mappings)), rule
        proc = oh.run_kueue_config_check(kueue, c, rendered.text)
        results[rule] = f"kueue exit {proc.returncode}"
        if who == "kueue-0.20":
            assert proc.returncode == 0, (rule, proc.stdout[-2000:])  # 0.19.2 runs with it
        else:
            assert proc.returncode != 0 and "deviceClassMappings" in proc.stdout, (rule, proc.stdout[-2000:])
    print(results)


# ----------------------------------------------------------------------- the operator's gates
GATE_CASES = [
    # (id, FeatureGate (None: no object), counter sources in the CR, the Kueue gates the operator must render)
    # Ordered so that the featureSet never moves away from CustomNoUpgrade (the CRD forbids it).
    ("no-featuregate", None, True, {}),
    ("default", ("", ()), True, {}),
    ("techpreview", ("TechPreviewNoUpgrade", ()), True, {}),
    ("custom-none", ("CustomNoUpgrade", ()), True, {}),
    ("custom-partitionable-no-sources", ("CustomNoUpgrade", (PD,)), False, {}),
    ("custom-partitionable", ("CustomNoUpgrade", (PD,)), True, {K_PD: True}),
    ("custom-extended", ("CustomNoUpgrade", (EXT,)), True, {K_EXT: True}),
    ("custom-both", ("CustomNoUpgrade", (EXT, PD)), True, {K_EXT: True, K_PD: True}),
]


def _set_sources(op, sources: bool) -> None:
    args = ("--counter", "memory", "--driver", "gpu.example.com", "--selector", SEL) if sources else ()
    # the cluster has no DeviceClasses and no slices; dropping the counter source is meant
    proc = run_plugin(op.cluster, "map", "set", "gpu.memory", "--device-class", "mig.example.com",
                      "--allow-missing-class", "--replace", *args)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize("case,fg,sources,want", GATE_CASES, ids=[c[0] for c in GATE_CASES])
def test_verify_predicts_the_rendered_gates(op, case, fg, sources, want):
    c = op.cluster
    _set_sources(op, sources)
    op.wait_rendered(lambda r: bool(any(m.get("sources") for m in r.mappings)) == sources,
                     "the render of the sources")
    op.wait_idle()  # from here on only a CR event (or the 5-minute resync) makes it re-render
    oh.set_feature_gate(c, fg)
    rendered = op.rendered()
    render = verify_checks(c)["openshift-kueue-render"]
    assert op.rendered().resource_version == rendered.resource_version, "the operator re-rendered by itself"
    if dra_gates(rendered) != want:
        # the operator does not watch the FeatureGate: until a CR event the render is stale
        assert render["status"] == "warn", render
        assert "is stale" in render["message"] and render["fix"].startswith("oc annotate kueues.kueue.openshift.io")
        op.trigger_reconcile()  # what the fix does (verify prints it for oc)
        rendered = rendered_after(op, rendered, "the re-render after the reconcile annotation")
        render = verify_checks(c)["openshift-kueue-render"]
    assert dra_gates(rendered) == want
    assert render["status"] == "pass", render
    assert render["expectedFeatureGates"] == rendered.feature_gates == render["renderedFeatureGates"]


def dra_gates(rendered: oh.Rendered) -> dict[str, bool]:
    return {k: v for k, v in rendered.feature_gates.items() if k in (K_EXT, K_PD)}


def test_degraded_missing_dependencies_is_reported_with_the_fix(op):
    """Counter sources without DRAPartitionableDevices in the FeatureGate: the operator reports
    Degraded/MissingDependencies; verify shows its message and how to fix it."""
    c = op.cluster
    _set_sources(op, True)
    oh.set_feature_gate(c, ("CustomNoUpgrade", (EXT,)))
    op.trigger_reconcile()
    degraded = op.wait_for("Degraded/MissingDependencies",
                           lambda: (op.conditions().get("Degraded") or {}).get("reason") == "MissingDependencies"
                           and op.conditions()["Degraded"])
    assert "DRAPartitionableDevices" in degraded["message"]
    status = verify_checks(c)["openshift-kueue-status"]
    assert status["status"] == "fail" and "MissingDependencies" in status["message"]
    assert degraded["message"] in status["message"]
    assert "spec.customNoUpgrade.enabled" in status["fix"] and "oc annotate kueues.kueue.openshift.io" in status["fix"]
    # the fix, applied: the condition goes back to the Deployment's state
    oh.set_feature_gate(c, ("CustomNoUpgrade", (EXT, PD)))
    op.trigger_reconcile()
    op.wait_for("Degraded no longer MissingDependencies",
                lambda: (op.conditions().get("Degraded") or {}).get("reason") not in (None, "MissingDependencies"))


def test_cr_change_not_yet_rendered_is_stale(op):
    """A CR change the operator has not rendered (here: it is down) is a stale render too; the
    operator renders it as soon as it runs, and verify passes again."""
    c = op.cluster
    op.wait_idle()
    op.stop()
    proc = run_plugin(c, "map", "set", "late.example.com/gpu", "--device-class", "late.example.com",
                      "--allow-missing-class")
    assert proc.returncode == 0, proc.stderr
    render = verify_checks(c)["openshift-kueue-render"]
    assert render["status"] == "warn", render
    assert "mapping late.example.com/gpu (late.example.com) is in the CR but not rendered" in render["message"]
    before = op.rendered()
    op.start()
    rendered = rendered_after(op, before, "the render after the operator's start")
    assert "late.example.com/gpu" in [m["name"] for m in rendered.mappings]
    assert verify_checks(c)["openshift-kueue-render"]["status"] == "pass"
    proc = run_plugin(c, "map", "remove", "late.example.com/gpu")
    assert proc.returncode == 0, proc.stderr


# ------------------------------------------------------------------------------- the whole chain
CHAIN_WORLDS = operator_chain.worlds()
CHAIN = operator_chain.scenarios(CHAIN_WORLDS)
CHAIN_CASES = [(s.id, subject) for s in CHAIN for subject in s.subjects]
RENDERED_GATES = {"ocp-devices": {K_EXT: True}, "ocp-mig": {K_EXT: True, K_PD: True}, "ocp-techpreview": {}}


@pytest.fixture(scope="module")
def chain(request, op):
    try:
        binary = kueue_build.build(kueue_build.DEFAULT_VERSION)
    except Exception as e:  # noqa: BLE001 - a Kueue that cannot be built fails the chain
        if isinstance(e, kueue_build.controlplane.GoNotFound) and not _ci():
            pytest.skip(f"Kueue cannot be built: {e}")
        pytest.fail(f"building Kueue failed: {e}", pytrace=False)
    report, worlds, runner = operator_chain.run(op, binary, log=lambda m: print(m, flush=True))
    request.addfinalizer(runner.close)
    print("\n" + oracle.table(report), flush=True)
    return report, worlds


def test_chain_has_enough_openshift_scenarios():
    assert len(CHAIN) >= 8 and {s.world.name for s in CHAIN} == set(RENDERED_GATES)


def test_chain_kueue_ran_with_the_operators_gates(chain):
    _, worlds = chain
    for w in worlds:
        assert dra_gates(oh.Rendered("", {"featureGates": w.rendered["featureGates"]}, "")) == \
            RENDERED_GATES[w.world.name], w.world.name


@pytest.mark.parametrize("scenario,subject", CHAIN_CASES, ids=[f"{s}:{j}" for s, j in CHAIN_CASES])
def test_chain_explain_agrees_with_kueue(chain, scenario, subject):
    report, _ = chain
    row = next(r for r in report.rows if r.scenario == scenario and r.subject == subject)
    assert row.agree, (f"{scenario} {subject}: {row.why}\n  Kueue said:   {row.kueue}\n"
                       f"  explain said: {row.explain}\n  details: {row.details}")
    s = next(s for s in CHAIN if s.id == scenario)
    states = sorted(r.kueue_state for r in report.rows if r.scenario == scenario)
    want = ["admitted", "pending"] if s.expect == "one-pending" else [s.expect] * len(s.subjects)
    assert states == want, f"{scenario}: Kueue {states}, built for {want}"


def test_non_openshift_mode_reads_no_featuregate(op):
    """Without project.openshift.io the operator never reads the FeatureGate: no DRA gate is
    rendered whatever it says, and verify predicts exactly that. (Last: it restarts the operator.)"""
    c = op.cluster
    _set_sources(op, True)
    oh.set_feature_gate(c, ("CustomNoUpgrade", (EXT, PD)))
    op.trigger_reconcile()
    op.wait_rendered(lambda r: K_EXT in r.feature_gates, "the OpenShift-mode render")
    op.stop()
    oh.remove_project_group(c)
    op.start()
    before = op.rendered()
    op.trigger_reconcile()
    rendered = op.wait_rendered(lambda r: r.resource_version != before.resource_version,
                                "the non-OpenShift render", timeout=oh.START_TIMEOUT)
    assert not {K_EXT, K_PD} & set(rendered.feature_gates)
    render = verify_checks(c)["openshift-kueue-render"]
    assert render["status"] == "pass", render
    assert render["expectedFeatureGates"] == rendered.feature_gates
    assert "project.openshift.io not served" in render["gatesFrom"]
