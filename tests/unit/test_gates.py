"""Feature-gate logic: /metrics parsing, version defaults, resolution precedence, Kueue gates,
the OpenShift operator's detection gap, and the dry-run probe (with a fake client)."""

import pytest

from kubectl_kueue_dra import gates as g
from kubectl_kueue_dra.commands.probes import dry_run_probe, read_feature_metrics
from kubectl_kueue_dra.kube import errors

# Lines as a real kube-apiserver v1.36.3 serves them (gates-off test server), plus noise.
METRICS = """\
# HELP apiserver_request_total [STABLE] Counter of apiserver requests
# TYPE apiserver_request_total counter
apiserver_request_total{code="200",verb="GET"} 12
# HELP kubernetes_feature_enabled [BETA] This metric records the data about the stage and enablement of a k8s feature.
# TYPE kubernetes_feature_enabled gauge
kubernetes_feature_enabled{name="DRAAdminAccess",stage=""} 1
kubernetes_feature_enabled{name="DRAConsumableCapacity",stage="BETA"} 1
kubernetes_feature_enabled{name="DRAExtendedResource",stage="BETA"} 0
kubernetes_feature_enabled{name="DRAPartitionableDevices",stage="BETA"} 0
kubernetes_feature_enabled{name="DynamicResourceAllocation",stage=""} 1
kubernetes_feature_enabled{stage="ALPHA",name="Reordered"} 1e+00 1700000000000
kubernetes_feature_enabled{name="Escaped\\"Name",stage="ALPHA"} 0
kubernetes_feature_enabled{name="NotANumber",stage="ALPHA"} NaN
kubernetes_feature_enabled{name="Broken",stage="ALPHA"} yes
kubernetes_feature_enabled_total{name="Other"} 1
"""


# ---- /metrics --------------------------------------------------------------------------------
def test_parse_feature_metrics():
    m = g.parse_feature_metrics(METRICS)
    assert m["DRAExtendedResource"] == g.FeatureMetric(False, "BETA")
    assert m["DRAPartitionableDevices"].enabled is False
    assert m["DRAConsumableCapacity"].enabled is True
    assert m["DynamicResourceAllocation"] == g.FeatureMetric(True, "")
    assert m["Reordered"].enabled is True  # label order, float value and a timestamp
    assert 'Escaped"Name' in m
    assert "NotANumber" not in m and "Broken" not in m and "Other" not in m
    assert g.parse_feature_metrics("") == {}


def test_metrics_evidence():
    m = g.parse_feature_metrics(METRICS)
    on = g.metrics_evidence("DynamicResourceAllocation", m, None)
    assert on.enabled is True and "GA" in on.detail
    off = g.metrics_evidence("DRAExtendedResource", m, None)
    assert off.enabled is False and 'name="DRAExtendedResource"} 0' in off.detail
    missing = g.metrics_evidence("DRAListTypeAttributes", m, None)
    assert missing.enabled is False and "not registered" in missing.detail
    forbidden = g.metrics_evidence("DRAExtendedResource", None, "cannot get /metrics: forbidden")
    assert forbidden.enabled is None and "forbidden" in forbidden.detail
    assert g.metrics_evidence("X", {}, None).enabled is None  # no series at all: cannot tell


# ---- versions and defaults -------------------------------------------------------------------
def test_kube_minor_prefers_emulated_version():
    assert g.kube_minor({"major": "1", "minor": "36", "emulationMajor": "1", "emulationMinor": "35"}) == 35
    assert g.kube_minor({"major": "1", "minor": "34+"}) == 34
    assert g.kube_minor({"gitVersion": "v1.33.2-eks-1"}) == 33
    assert g.kube_minor(None) is None and g.kube_minor({}) is None


@pytest.mark.parametrize("gate,minor,expected", [
    ("DynamicResourceAllocation", 33, ("BETA", False)),
    ("DynamicResourceAllocation", 34, ("GA", True)),
    ("DRAExtendedResource", 33, None),
    ("DRAExtendedResource", 35, ("ALPHA", False)),
    ("DRAExtendedResource", 36, ("BETA", True)),
    ("DRAExtendedResource", 37, ("GA", True)),
    ("DRAPartitionableDevices", 35, ("ALPHA", False)),
    ("DRAPartitionableDevices", 36, ("BETA", True)),
    ("DRAPartitionableDevices", 40, ("BETA", True)),
    ("DRAConsumableCapacity", 34, ("ALPHA", False)),
    ("DRAConsumableCapacity", 36, ("BETA", True)),
])
def test_kubernetes_defaults(gate, minor, expected):
    assert g.kubernetes_default(gate, minor) == expected


def test_default_evidence():
    assert g.default_evidence("DRAPartitionableDevices", 36).enabled is True
    absent = g.default_evidence("DRAExtendedResource", 33)
    assert absent.enabled is False and "does not exist" in absent.detail
    assert g.default_evidence("DRAExtendedResource", None).enabled is None


def test_openshift_versions():
    cv = {"status": {"desired": {"version": "4.22.3"}, "history": [{"version": "4.21.9"}]}}
    assert g.openshift_version(cv) == "4.22.3"
    assert g.openshift_version({"status": {"history": [{"version": "4.21.9"}]}}) == "4.21.9"
    assert g.openshift_version(None) is None
    assert [g.openshift_kube_minor(v) for v in ("4.20.1", "4.21", "4.22.0", "4.23.0", "5.0.1")] == [33, 34, 35, 36, 36]
    assert g.openshift_kube_minor("3.11") is None


# ---- OpenShift FeatureGate -------------------------------------------------------------------
def featuregate(feature_set="", enabled=(), status=None):
    fg = {"metadata": {"name": "cluster"}, "spec": {"featureSet": feature_set}}
    if enabled:
        fg["spec"]["customNoUpgrade"] = {"enabled": list(enabled)}
    if status is not None:
        fg["status"] = {"featureGates": status}
    return fg


STATUS = [
    {"version": "4.22.3", "enabled": [{"name": "DRAPartitionableDevices"}], "disabled": [{"name": "DRAExtendedResource"}]},
    {"version": "4.21.9", "enabled": [{"name": "DRAExtendedResource"}], "disabled": []},
]


def test_featuregate_status_picks_the_current_version():
    fg = featuregate(status=STATUS)
    on = g.featuregate_status_evidence("DRAPartitionableDevices", fg, "4.22.3")
    assert on.enabled is True and "4.22.3" in on.detail
    assert g.featuregate_status_evidence("DRAExtendedResource", fg, "4.22.3").enabled is False
    # The older entry decides only when the current version is asked for.
    assert g.featuregate_status_evidence("DRAExtendedResource", fg, "4.21.9").enabled is True
    # Unknown version: the first entry (the config operator writes its own version first).
    fallback = g.featuregate_status_evidence("DRAExtendedResource", fg, "4.99.0")
    assert fallback.enabled is False and "none for the current 4.99.0" in fallback.detail
    unlisted = g.featuregate_status_evidence("DRAConsumableCapacity", fg, "4.22.3")
    assert unlisted.enabled is None and "upstream default" in unlisted.detail
    assert g.featuregate_status_evidence("X", featuregate(), "4.22.3").enabled is None
    assert g.featuregate_status_evidence("X", None, "4.22.3") is None


def test_featuregate_spec_evidence():
    custom = g.featuregate_spec(featuregate("CustomNoUpgrade", ["DRAExtendedResource"]))
    assert custom.custom
    assert g.featuregate_spec_evidence("DRAExtendedResource", custom).enabled is True
    assert g.featuregate_spec_evidence("DRAPartitionableDevices", custom).enabled is None
    tech = g.featuregate_spec(featuregate("TechPreviewNoUpgrade", ["DRAExtendedResource"]))
    assert g.featuregate_spec_evidence("DRAExtendedResource", tech).enabled is None  # only CustomNoUpgrade


# ---- precedence ------------------------------------------------------------------------------
def ev(method, enabled, detail="x"):
    return g.Evidence(method, enabled, detail)


def test_resolution_precedence():
    all_methods = [ev("default", True), ev("objects", True), ev("featuregate-spec", True), ev("probe", False),
                   ev("metrics", True), ev("featuregate-status", False)]
    state = g.resolve("G", all_methods)
    assert (state.state, state.learned_from) == ("off", "featuregate-status")
    assert "metrics" in state.conflict  # the serving API server disagrees: a rollout in progress
    assert g.resolve("G", all_methods[:5]).learned_from == "metrics"
    state = g.resolve("G", all_methods[:4])
    assert (state.state, state.learned_from, state.conflict) == ("off", "probe", None)
    assert g.resolve("G", all_methods[:3]).learned_from == "featuregate-spec"
    assert g.resolve("G", all_methods[:2]).learned_from == "objects"
    assert g.resolve("G", all_methods[:1]).learned_from == "default"
    # Methods that could not tell are skipped; nothing decisive means unknown, with the reasons.
    state = g.resolve("G", [ev("metrics", None, "forbidden"), ev("probe", None, "no create"),
                            ev("default", None, "version unknown")])
    assert state.state == "unknown" and state.learned_from is None
    assert "forbidden" in state.detail and "no create" in state.detail


def test_resolve_kubernetes_gates_live_metrics():
    inp = g.KubernetesInputs(dra_served=True, dra_versions=["v1", "v1beta2"], minor=36,
                             metrics=g.parse_feature_metrics(METRICS))
    states = g.resolve_kubernetes_gates(inp)
    assert states["DynamicResourceAllocation"].learned_from == "discovery"
    assert states["DRAExtendedResource"].state == "off" and states["DRAExtendedResource"].learned_from == "metrics"
    assert states["DRAConsumableCapacity"].on
    # Every DRA gate is resolved, not only the four the paths need (verify lists each one).
    assert list(states) == list(g.DRA_GATES)
    assert states["DRAAdminAccess"].on and states["DRAAdminAccess"].learned_from == "metrics"
    # /metrics lists every registered gate: one it lacks is not in this kube-apiserver.
    assert states["DRAPrioritizedList"].state == "off" and "not registered" in states["DRAPrioritizedList"].detail
    inp.metrics = None
    states = g.resolve_kubernetes_gates(inp)
    assert states["DRAPrioritizedList"].on and states["DRAPrioritizedList"].learned_from == "default"
    assert "beta, on by default in Kubernetes 1.36" in states["DRADeviceTaints"].detail
    assert states["DRAListTypeAttributes"].state == "off"


def test_a_dra_gate_the_plugin_does_not_know_is_resolved_from_metrics_without_a_default():
    metrics = METRICS + 'kubernetes_feature_enabled{name="DRAFutureGate",stage="ALPHA"} 1\n'
    inp = g.KubernetesInputs(dra_served=True, dra_versions=["v1"], minor=36, metrics=g.parse_feature_metrics(metrics))
    states = g.resolve_kubernetes_gates(inp)
    assert list(states)[-1] == "DRAFutureGate" and states["DRAFutureGate"].learned_from == "metrics"
    assert "Reordered" not in states  # not a DRA gate
    inp.metrics = None
    assert "DRAFutureGate" not in g.resolve_kubernetes_gates(inp)
    unknown = g.resolve_kubernetes_gates(g.KubernetesInputs(feature_gate={"status": {"featureGates": [
        {"version": "4.23.0", "enabled": [{"name": "DRAFutureGate"}]}]}}, openshift_version="4.23.0"))
    assert unknown["DRAFutureGate"].on and unknown["DRAFutureGate"].learned_from == "featuregate-status"


def test_path_minimum_versions_follow_the_feature_gate_history():
    # k8s.io/kubernetes v1.36.3 pkg/features/kube_features.go: v1 is served from 1.34 (DRA GA); the
    # path gates exist from 1.33/1.34 and are on by default from 1.36.
    assert g.DRA_V1_MINOR == 34
    assert {gate: g.minimum_minor(gate) for gate in g.K8S_GATES} == {
        g.DRA: 34, g.DRA_EXTENDED: 34, g.DRA_PARTITIONABLE: 34, g.DRA_CONSUMABLE: 34}
    assert {gate: g.default_on_minor(gate) for gate in g.K8S_GATES} == {
        g.DRA: 34, g.DRA_EXTENDED: 36, g.DRA_PARTITIONABLE: 36, g.DRA_CONSUMABLE: 36}
    assert g.default_on_minor("DRAListTypeAttributes") is None
    assert g.release_of("4.21.3") == (4, 21) and g.release_of("bad") is None
    assert g.OPENSHIFT_MINIMUM[g.DRA_PARTITIONABLE] == (4, 22) and g.OPENSHIFT_MINIMUM[g.DRA] == (4, 21)


def test_resolve_kubernetes_gates_without_dra_api():
    inp = g.KubernetesInputs(dra_served=False, dra_versions=["v1beta1"], minor=33)
    dra = g.resolve_kubernetes_gates(inp)["DynamicResourceAllocation"]
    assert dra.state == "off" and "v1beta1" in dra.detail
    none = g.resolve_kubernetes_gates(g.KubernetesInputs(dra_served=False, dra_versions=[]))
    assert "not served" in none["DynamicResourceAllocation"].detail


def test_resolve_falls_back_to_objects_then_default():
    dc = {"metadata": {"name": "gpu"}, "spec": {"extendedResourceName": "nvidia.com/gpu"}}
    sl = {"metadata": {"name": "s"}, "spec": {"devices": [{"name": "d", "consumesCounters": [{"counterSet": "c"}]}]}}
    states = g.resolve_kubernetes_gates(g.KubernetesInputs(minor=35, device_classes=[dc], slices=[sl],
                                                           metrics_problem="forbidden"))
    assert states["DRAExtendedResource"].learned_from == "objects" and states["DRAExtendedResource"].on
    assert states["DRAPartitionableDevices"].learned_from == "objects"
    assert states["DRAConsumableCapacity"].learned_from == "default"
    assert states["DRAConsumableCapacity"].state == "off"


def test_objects_evidence_is_only_positive():
    assert g.objects_evidence("DRAExtendedResource", [{"metadata": {"name": "a"}, "spec": {}}], []) is None
    shared = {"metadata": {"name": "s"}, "spec": {"sharedCounters": [{"name": "x"}]}}
    assert g.objects_evidence("DRAPartitionableDevices", [], [shared]).enabled is True
    cc = {"metadata": {"name": "s"}, "spec": {"devices": [{"name": "d", "allowMultipleAllocations": True}]}}
    assert g.objects_evidence("DRAConsumableCapacity", [], [cc]).enabled is True


def test_probe_evidence():
    kept = g.probe_evidence("DRAExtendedResource", {"spec": {"extendedResourceName": "x/y"}})
    assert kept.enabled is True and "nothing was persisted" in kept.detail
    assert g.probe_evidence("DRAExtendedResource", {"spec": {}}).enabled is False
    assert g.probe_evidence("DRAPartitionableDevices", {"spec": {"sharedCounters": [{}]}}).enabled is True
    assert g.probe_evidence("DRAPartitionableDevices", {"spec": {"allNodes": True}}).enabled is False
    assert g.probe_evidence("DRAConsumableCapacity",
                            {"spec": {"devices": [{"name": "p", "allowMultipleAllocations": True}]}}).enabled
    assert not g.probe_evidence("DRAConsumableCapacity", {"spec": {"devices": [{"name": "p"}]}}).enabled


# ---- probes and /metrics through a fake client -------------------------------------------------
class FakeClient:
    def __init__(self, respond):
        self.respond = respond
        self.calls = []

    def request(self, method, path, target, *, query=None, body=None, text=False, **_):
        self.calls.append((method, path, query, body, text))
        return self.respond(method, path, body)


class FakeView:
    def __init__(self, client, version="v1"):
        self.client = client
        self.version = version

    def api_version(self, kind):
        return self.version


def test_dry_run_probe_sends_only_dry_runs_with_generated_names():
    client = FakeClient(lambda m, p, body: body)  # a server that keeps every field
    view = FakeView(client)
    for gate in ("DRAExtendedResource", "DRAPartitionableDevices", "DRAConsumableCapacity"):
        assert dry_run_probe(view, gate).enabled is True
    for method, _path, query, body, _ in client.calls:
        assert method == "POST" and query == {"dryRun": "All"}
        assert "name" not in body["metadata"] and body["metadata"]["generateName"]
    assert [c[1] for c in client.calls] == ["/apis/resource.k8s.io/v1/deviceclasses",
                                             "/apis/resource.k8s.io/v1/resourceslices",
                                             "/apis/resource.k8s.io/v1/resourceslices"]


def test_dry_run_probe_dropped_field_and_refusals():
    dropped = FakeClient(lambda m, p, body: {"spec": {}})
    assert dry_run_probe(FakeView(dropped), "DRAExtendedResource").enabled is False

    def forbid(m, p, body):
        raise errors.Forbidden("create", "deviceclasses.resource.k8s.io", None, None, "reader")
    probe = dry_run_probe(FakeView(FakeClient(forbid)), "DRAExtendedResource")
    assert probe.enabled is None and "no permission" in probe.detail

    def invalid(m, p, body):
        raise errors.Invalid("cannot create: spec.x: Invalid value", status=422)
    assert dry_run_probe(FakeView(FakeClient(invalid)), "DRAPartitionableDevices").enabled is None
    assert dry_run_probe(FakeView(FakeClient(invalid), version=None), "DRAExtendedResource").enabled is None


def test_dry_run_probe_v1beta1_shape():
    client = FakeClient(lambda m, p, body: body)
    assert dry_run_probe(FakeView(client, "v1beta1"), "DRAConsumableCapacity").enabled is True
    device = client.calls[0][3]["spec"]["devices"][0]
    assert device["basic"]["allowMultipleAllocations"] is True


def test_read_feature_metrics():
    client = FakeClient(lambda m, p, body: METRICS)
    metrics, problem = read_feature_metrics(client)
    assert problem is None and metrics["DRAExtendedResource"].enabled is False
    assert client.calls[0][4] is True  # asked for text

    def forbid(m, p, body):
        raise errors.Forbidden("get", "/metrics", None, None, "nobody")
    metrics, problem = read_feature_metrics(FakeClient(forbid))
    assert metrics is None and "forbidden" in problem


# ---- Kueue gates -----------------------------------------------------------------------------
def test_parse_gate_list_and_args():
    assert g.parse_gate_list("A=true, B=False,C=1") == ({"A": True, "B": False, "C": True}, [])
    gates, problems = g.parse_gate_list("A=yes,B")
    assert gates == {} and len(problems) == 2
    assert g.feature_gates_arg(["--config=x", "--feature-gates=A=true"]) == "A=true"
    assert g.feature_gates_arg(["--feature-gates", "B=false"]) == "B=false"
    assert g.feature_gates_arg(["--zap-log-level=2"]) is None


@pytest.mark.parametrize("version,gate,state", [
    ("0.19.2", "KueueDRAIntegration", "on"),
    ("0.19.2", "KueueDRAIntegrationExtendedResource", "on"),
    ("0.19.2", "KueueDRAIntegrationPartitionableDevices", "on"),
    ("0.19.2", "KueueDRAIntegrationConsumableCapacity", "off"),
    ("0.19.2", "KueueDRARejectWorkloadsWhenDRADisabled", "on"),
    ("0.18.5", "KueueDRAIntegrationExtendedResource", "off"),
    ("0.18.5", "KueueDRAIntegrationPartitionableDevices", "off"),
    ("0.18.5", "KueueDRAIntegrationConsumableCapacity", "off"),  # does not exist yet
    ("v0.20.0-devel", "KueueDRAIntegrationPartitionableDevices", "on"),
    ("0.16.6", "KueueDRAIntegration", "off"),  # then named DynamicResourceAllocation, alpha
])
def test_kueue_version_defaults(version, gate, state):
    k = g.derive_kueue_gates(version)
    assert k.gates[gate].state == state
    assert k.gates[gate].learned_from == "kueue-default"
    assert not k.problems and not k.version_assumed


def test_kueue_unknown_version_is_assumed():
    k = g.derive_kueue_gates(None)
    assert k.version_assumed and k.version == (0, 19)
    assert "assumed" in k.gates["KueueDRAIntegration"].detail


def test_kueue_config_then_args_precedence():
    k = g.derive_kueue_gates("0.18.5", config={"KueueDRAIntegrationPartitionableDevices": True})
    assert k.gates["KueueDRAIntegrationPartitionableDevices"].on
    assert k.gates["KueueDRAIntegrationPartitionableDevices"].learned_from == "kueue-config"
    # The flag wins (Kueue ignores the map) and both together stop Kueue.
    k = g.derive_kueue_gates("0.19.2", cli="KueueDRAIntegrationExtendedResource=false",
                             config={"KueueDRAIntegrationExtendedResource": True})
    assert k.gates["KueueDRAIntegrationExtendedResource"].state == "off"
    assert k.gates["KueueDRAIntegrationExtendedResource"].learned_from == "kueue-args"
    assert any("cannot both" in p.message and p.severity == "error" for p in k.problems)


def test_kueue_all_beta():
    k = g.derive_kueue_gates("0.19.2", config={"AllBeta": False, "KueueDRAIntegration": True})
    assert k.gates["KueueDRAIntegration"].on  # named explicitly
    assert k.gates["KueueDRAIntegrationExtendedResource"].state == "off"
    assert "AllBeta=false" in k.gates["KueueDRAIntegrationExtendedResource"].detail


def test_obsolete_gate_names():
    # Kueue 0.19 links Kubernetes' gates: DynamicResourceAllocation is known (locked on), and does
    # not set Kueue's DRA integration (tests/cluster/test_kueue_config_oracle.py starts it).
    k = g.derive_kueue_gates("0.19.2", config={"DynamicResourceAllocation": True})
    assert [p.severity for p in k.problems] == ["warning"]
    assert "Kubernetes gate" in k.problems[0].message and "KueueDRAIntegration" in k.problems[0].message
    k = g.derive_kueue_gates("0.19.1", cli="DRAExtendedResources=false")
    assert "KueueDRAIntegrationExtendedResource" in k.problems[0].message and k.problems[0].severity == "error"
    k = g.derive_kueue_gates("0.18.5", config={"DynamicResourceAllocation": True})
    assert k.problems[0].severity == "error" and "locks to false" in k.problems[0].message
    k = g.derive_kueue_gates("0.18.5", config={"DRAExtendedResources": False})
    assert k.problems[0].severity == "warning"
    # Before 0.18 they are the right names and set the DRA integration.
    k = g.derive_kueue_gates("0.16.6", config={"DynamicResourceAllocation": True})
    assert not k.problems and k.gates["KueueDRAIntegration"].on


def test_kueue_gate_dependencies_and_sources():
    k = g.derive_kueue_gates("0.19.2", config={"KueueDRAIntegration": False})
    msgs = [p.message for p in k.problems]
    assert any("KueueDRAIntegrationExtendedResource requires KueueDRAIntegration" in m for m in msgs)
    assert k.gates["KueueDRARejectWorkloadsWhenDRADisabled"].on
    k = g.derive_kueue_gates("0.18.5")
    problems = g.sources_problems(k, counter_sources=True, capacity_sources=True)
    assert [p.gate for p in problems] == ["KueueDRAIntegrationPartitionableDevices",
                                          "KueueDRAIntegrationConsumableCapacity"]
    assert not g.sources_problems(g.derive_kueue_gates("0.19.2"), counter_sources=True, capacity_sources=False)


def test_invalid_config_values():
    gates, problems = g.config_gate_map({"A": "true", "B": True})
    assert gates == {"B": True} and "A" in problems[0]
    assert g.config_gate_map(None) == (None, [])
    assert g.config_gate_map(["A"])[1]


# ---- the OpenShift operator ------------------------------------------------------------------
def _on(gate, method="featuregate-status"):
    return g.GateState(gate, "on", method, "enabled in FeatureGate cluster status")


def test_detection_gap_techpreview_on_kueue_018_crashes():
    spec = g.featuregate_spec(featuregate("TechPreviewNoUpgrade"))
    k8s = {"DRAPartitionableDevices": _on("DRAPartitionableDevices"), "DRAExtendedResource": g.GateState(
        "DRAExtendedResource", "off", "featuregate-status", "")}
    gaps = g.operator_detection_gaps(k8s, spec, (0, 18), counter_sources=True, extended_classes=False)
    assert [gap.gate for gap in gaps] == ["DRAPartitionableDevices"]
    assert "TechPreviewNoUpgrade" in gaps[0].how_on
    assert "crash-loops" in gaps[0].consequence and "MissingDependencies" in gaps[0].consequence


def test_detection_gap_upstream_default_on_kueue_019():
    k8s = {"DRAExtendedResource": _on("DRAExtendedResource", "default"),
           "DRAPartitionableDevices": _on("DRAPartitionableDevices", "metrics")}
    gaps = g.operator_detection_gaps(k8s, g.featuregate_spec(featuregate()), (0, 19), counter_sources=True,
                                     extended_classes=True)
    assert [gap.gate for gap in gaps] == ["DRAExtendedResource", "DRAPartitionableDevices"]
    assert "still charged" in gaps[0].consequence
    assert "Degraded" in gaps[1].consequence and "crash" not in gaps[1].consequence
    k18 = g.operator_detection_gaps(k8s, None, (0, 18), counter_sources=False, extended_classes=True)
    assert "not translated" in k18[0].consequence and "nothing breaks now" in k18[1].consequence


def test_no_gap_when_customnoupgrade_lists_the_gate():
    spec = g.featuregate_spec(featuregate("CustomNoUpgrade", ["DRAExtendedResource", "DRAPartitionableDevices"]))
    k8s = {"DRAExtendedResource": _on("DRAExtendedResource"), "DRAPartitionableDevices": _on("DRAPartitionableDevices")}
    assert g.operator_detection_gaps(k8s, spec, (0, 18), counter_sources=True, extended_classes=True) == []


# ---- one table per fact: Kueue's DRA gates (gates/kueue) over the gate registry ----------------

def test_kueue_gate_defaults_are_the_registrys():
    """kueue_default reads the registry of the Kueue binaries (kueue_gate_table) for the minors it
    holds, the nearest lower one for newer versions, the old names before it."""
    from kubectl_kueue_dra.gates.kueue_gate_table import gate_table

    for gate in g.KUEUE_GATES:
        for minor in ("0.18", "0.19"):
            spec = gate_table(minor).get(gate)
            assert g.kueue_default(gate, g.kueue_minor(minor)) == ((spec.stage, spec.default) if spec else None)
        assert g.kueue_default(gate, (0, 21)) == g.kueue_default(gate, (0, 19))
    assert g.kueue_default(g.KUEUE_PARTITIONABLE, (0, 18)) == ("ALPHA", False)
    assert g.kueue_default(g.KUEUE_PARTITIONABLE, (0, 19)) == ("BETA", True)
    assert g.kueue_default(g.KUEUE_CONSUMABLE, (0, 18)) is None and g.default_on(g.KUEUE_CONSUMABLE, (0, 19)) is False
    assert g.kueue_default(g.KUEUE_DRA, (0, 14)) == ("ALPHA", False)  # as DynamicResourceAllocation
    assert g.kueue_default(g.KUEUE_EXTENDED, (0, 16)) is None and g.kueue_default(g.KUEUE_EXTENDED, (0, 17))


def test_the_defaults_elsewhere_derive_from_the_registry():
    """The charge engine's gates and map's rules default to the default Kueue version's gates."""
    from kubectl_kueue_dra.kueue.config.mapping_rules import Rules
    from kubectl_kueue_dra.kueue.install.semantics import DRAGates

    assert DRAGates() == DRAGates.from_kueue_gates(g.derive_kueue_gates(None))
    rules = Rules()
    assert (rules.counter_gate, rules.capacity_gate) == (g.default_on(g.SOURCE_GATES["counter"], (0, 19)),
                                                         g.default_on(g.SOURCE_GATES["capacity"], (0, 19)))
    assert g.SOURCE_GATES["counter"] in rules.counter_gate_hint


def test_the_source_rule_is_stated_once():
    """Counter/capacity sources need their gate: verify's problem and map's violation quote the
    same Kueue error."""
    from kubectl_kueue_dra.kueue.config.mapping_rules import Rules, validate

    assert g.source_refusal("counter") == ("counter sources require KueueDRAIntegrationPartitionableDevices "
                                           "to be enabled")
    off = g.derive_kueue_gates("0.18.4")
    [problem] = g.sources_problems(off, counter_sources=True, capacity_sources=False)
    mapping = [{"name": "m", "deviceClassNames": ["c"],
                "sources": [{"counter": {"name": "memory", "driver": "d.example.com",
                                         "deviceSelector": {"cel": {"expression": "true"}}}}]}]
    [violation] = validate(mapping, Rules(kueue_minor=18, counter_gate=False))
    assert g.source_refusal("counter") in problem.message and g.source_refusal("counter") in violation.message


def test_gate_names_are_spelled_in_gates_only():
    """The Kueue DRA gate names are constants of gates/kueue; no table elsewhere spells them (messages
    that quote Kueue's own words, and verify's check ids, may)."""
    from pathlib import Path

    package = Path(g.__file__).resolve().parents[1]
    tables = ("kueue/config/decode.py", "kueue/config/mapping_rules.py", "kueue/install/target.py",
              "kueue/install/operator_render.py", "kueue/install/semantics.py", "commands/verify/gate_states.py",
              "gates/openshift.py")
    assert [t for t in tables if '"KueueDRAIntegration' in (package / t).read_text()] == []
    assert g.OPERATOR_WRITES == {g.DRA_EXTENDED: g.KUEUE_EXTENDED, g.DRA_PARTITIONABLE: g.KUEUE_PARTITIONABLE}
