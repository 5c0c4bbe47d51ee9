"""kueue/install/operator_render.py: what the operator would render, and the stale-render comparison (the
same rules are proven against the real operator in tests/cluster/test_operator.py)."""

from kubectl_kueue_dra.kueue.install.operator_render import RECONCILE_COMMAND, expected_render, stale_differences

EXT, PD = "KueueDRAIntegrationExtendedResource", "KueueDRAIntegrationPartitionableDevices"
COUNTER = {"type": "Counter", "counter": {"name": "memory", "driver": "gpu.example.com",
                                          "deviceSelector": {"type": "CEL", "cel": {"expression": "true"}}}}


def cr(*mappings, frameworks=("BatchJob",), **config):
    body = {"integrations": {"frameworks": list(frameworks)}, **config}
    if mappings:
        body["resources"] = {"deviceClassMappings": list(mappings)}
    return {"spec": {"config": body}}


def fg(feature_set, *enabled):
    spec = {"featureSet": feature_set} if feature_set else {}
    if feature_set == "CustomNoUpgrade":
        spec["customNoUpgrade"] = {"enabled": list(enabled)}
    return {"spec": spec}


def rendered(*mappings, gates=None):
    doc = {"resources": {"deviceClassMappings": list(mappings)}} if mappings else {}
    if gates:
        doc["featureGates"] = gates
    return doc


GPU = {"name": "gpu", "deviceClassNames": ["gpu.example.com"]}
MEM = {"name": "gpu.memory", "deviceClassNames": ["mig.example.com"], "sources": [COUNTER]}
MEM_KUEUE = {"name": "gpu.memory", "deviceClassNames": ["mig.example.com"], "sources": [
    {"counter": {"name": "memory", "driver": "gpu.example.com", "deviceSelector": {"cel": {"expression": "true"}}}}]}


def test_only_custom_spec_enables_dra_gates():
    both = fg("CustomNoUpgrade", "DRAExtendedResource", "DRAPartitionableDevices")
    assert expected_render(cr(GPU, MEM), both, openshift=True).feature_gates == {EXT: True, PD: True}
    # partitionable devices only with counter sources
    assert expected_render(cr(GPU), both, openshift=True).feature_gates == {EXT: True}
    assert expected_render(cr(MEM), fg("TechPreviewNoUpgrade"), openshift=True).feature_gates == {}
    assert expected_render(cr(MEM), fg(""), openshift=True).feature_gates == {}


def test_not_openshift_and_no_featuregate():
    both = fg("CustomNoUpgrade", "DRAExtendedResource", "DRAPartitionableDevices")
    off = expected_render(cr(MEM), both, openshift=False)
    assert off.feature_gates == {} and off.gates_known and "project.openshift.io" in off.why
    missing = expected_render(cr(MEM), None, openshift=True)
    assert missing.feature_gates == {} and not missing.gates_known


def test_other_gates_the_operator_writes():
    spark = expected_render(cr(frameworks=("BatchJob", "SparkApplication")), None, openshift=True)
    assert spark.feature_gates == {"SparkApplicationIntegration": True}
    external = cr(integrations={"frameworks": ["BatchJob"], "externalFrameworks": [{"group": "g"}]})
    assert expected_render(external, None, openshift=False).feature_gates == {"ShortWorkloadNames": True}


def test_up_to_date_render_has_no_differences():
    want = expected_render(cr(GPU, MEM), fg("CustomNoUpgrade", "DRAPartitionableDevices"), openshift=True)
    assert stale_differences(want, rendered(GPU, MEM_KUEUE, gates={PD: True})) == []


def test_stale_gates_and_mappings_are_named():
    want = expected_render(cr(GPU, MEM), fg("CustomNoUpgrade", "DRAExtendedResource"), openshift=True)
    diffs = stale_differences(want, rendered(GPU, gates={PD: True}))
    assert any("gpu.memory" in d and "not rendered" in d for d in diffs)
    assert any(EXT in d and "rendered off" in d for d in diffs)
    assert any(PD in d and "rendered on" in d for d in diffs)
    gone = stale_differences(expected_render(cr(GPU), None, openshift=True), rendered(GPU, MEM_KUEUE))
    assert gone == ["mapping gpu.memory (mig.example.com) +counter memory@gpu.example.com is rendered but no "
                    "longer in the CR"]


def test_unknown_gates_are_not_called_stale():
    want = expected_render(cr(GPU), None, openshift=True)  # the operator keeps what it read last
    assert stale_differences(want, rendered(GPU, gates={EXT: True})) == []
    assert RECONCILE_COMMAND.startswith("oc annotate kueues.kueue.openshift.io cluster ")
