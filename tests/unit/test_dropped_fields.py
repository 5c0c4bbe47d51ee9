"""Fields a writer sent that the API server dropped (k8s/written, commands/dropped), on the objects as
kube-apiserver 1.34 stores them with DRAExtendedResource and DRAPartitionableDevices off (the
managedFields and annotations below are what that server returned, names shortened)."""

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from kubectl_kueue_dra import gates as g
from kubectl_kueue_dra.commands.classes.report import classes_report
from kubectl_kueue_dra.commands.dropped import dropped_evidence, dropped_fields, finding, of_kind, together
from kubectl_kueue_dra.findings import codes as F
from kubectl_kueue_dra.k8s.written import OnRecord, keep_top_fields, written_but_absent
from kubectl_kueue_dra.kueue.config.mappings import parse_mappings

ER = ("spec", "extendedResourceName")


def dc(name, manager="kueue-dra-tests", operation="Apply", fields=None, annotation=None, spec=None):
    meta = {"name": name, "managedFields": [{
        "apiVersion": "resource.k8s.io/v1", "fieldsType": "FieldsV1", "manager": manager, "operation": operation,
        "time": "2026-12-04T11:02:01Z",
        "fieldsV1": fields if fields is not None else {"f:spec": {"f:extendedResourceName": {}}}}]}
    if annotation is not None:
        meta["annotations"] = {"kubectl.kubernetes.io/last-applied-configuration": json.dumps(annotation) + "\n"}
    return {"kind": "DeviceClass", "metadata": meta, "spec": spec if spec is not None else {}}


def test_a_field_a_manager_owns_that_the_object_lacks_was_dropped():
    w = written_but_absent(dc("ssa"), ER)
    assert w is not None and w.field == "spec.extendedResourceName"
    assert w.managers == ("kueue-dra-tests (Apply at 2026-12-04T11:02:01Z)",) and w.values == ()
    # kubectl create: an Update by kubectl-create
    assert written_but_absent(dc("c", "kubectl-create", "Update"), ER).by().startswith("kubectl-create (Update")


def test_client_side_apply_also_says_the_value():
    sent = {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "csa"},
            "spec": {"extendedResourceName": "example.com/gpu"}}
    fields = {"f:metadata": {"f:annotations": {".": {}, "f:kubectl.kubernetes.io/last-applied-configuration": {}}},
              "f:spec": {"f:extendedResourceName": {}}}
    w = written_but_absent(dc("csa", "kubectl-client-side-apply", "Update", fields, sent), ER)
    assert w.values == ("example.com/gpu",) and w.managers[0].startswith("kubectl-client-side-apply")
    # an annotation alone (a snapshot from kubectl get -o yaml has no managedFields) still tells
    alone = dc("csa", annotation=sent)
    del alone["metadata"]["managedFields"]
    assert written_but_absent(alone, ER).values == ("example.com/gpu",)


def test_a_stored_field_or_one_nobody_wrote_is_not_dropped():
    assert written_but_absent(dc("kept", spec={"extendedResourceName": "example.com/gpu"}), ER) is None
    assert written_but_absent(dc("other", fields={"f:spec": {"f:selectors": {}}}), ER) is None
    assert written_but_absent({"kind": "DeviceClass", "metadata": {"name": "bare"}, "spec": {}}, ER) is None


def test_inside_an_atomic_list_only_the_annotation_tells():
    sl = {"kind": "ResourceSlice", "metadata": {"name": "s", "managedFields": [{
        "manager": "driver", "operation": "Apply",
        "fieldsV1": {"f:spec": {"f:devices": {}, "f:driver": {}, "f:sharedCounters": {}}}}]},
          "spec": {"driver": "d", "devices": [{"name": "m0"}]}}
    found = {d.written.field for d in dropped_fields([sl])}
    assert found == {"spec.sharedCounters"}  # devices is owned whole: consumesCounters is not on record
    sl["metadata"]["annotations"] = {"kubectl.kubernetes.io/last-applied-configuration": json.dumps(
        {"spec": {"devices": [{"name": "m0", "consumesCounters": [{"counterSet": "gpu-0"}]}]}})}
    assert {d.written.field for d in dropped_fields([sl])} == {"spec.sharedCounters", "spec.devices[*].consumesCounters"}
    assert all(d.gate == g.DRA_PARTITIONABLE for d in dropped_fields([sl]))


def test_a_compacted_slice_keeps_what_tells_a_dropped_field():
    entry = {"manager": "driver", "fieldsV1": {"f:spec": {"f:sharedCounters": {"k:x": {}}, "f:pool": {"f:name": {}}}}}
    assert keep_top_fields(entry) == {"manager": "driver", "fieldsV1": {"f:spec": {"f:sharedCounters": {},
                                                                                   "f:pool": {}}}}
    assert keep_top_fields({"manager": "m"}) == {"manager": "m"}


def test_slices_with_the_same_field_dropped_are_said_together():
    def sl(name):
        return {"kind": "ResourceSlice", "metadata": {"name": name, "managedFields": [
            {"manager": "driver", "operation": "Apply", "time": name, "fieldsV1": {"f:spec": {"f:sharedCounters": {}}}}]},
                "spec": {}}
    grouped = together(dropped_fields([sl(f"n{i}") for i in range(5)]))
    assert len(grouped) == 1 and grouped[0].others == ("n1", "n2", "n3", "n4")
    assert grouped[0].message().startswith("5 ResourceSlices (n0, n1, n2 and 2 more) were written with "
                                           "spec.sharedCounters (by driver")


def test_the_finding_says_the_gate_its_state_now_and_the_fix_for_the_platform():
    [d] = dropped_fields(of_kind([dc("gpu.example.com")], "DeviceClass"))
    now = g.GateState(g.DRA_EXTENDED, "off", "metrics", 'kubernetes_feature_enabled{name="DRAExtendedResource"} 0 (alpha)')
    f = finding(d, now=now)
    assert f["code"] == F.GatedFieldDropped.name and f["severity"] == "warning"
    assert f["message"] == (
        "DeviceClass gpu.example.com was written with spec.extendedResourceName (by kueue-dra-tests (Apply at "
        "2026-12-04T11:02:01Z)), which the API server dropped: it drops spec.extendedResourceName while "
        "DRAExtendedResource is off, so DRAExtendedResource was off when it was written; DRAExtendedResource is "
        "off now (kube-apiserver /metrics: kubernetes_feature_enabled{name=\"DRAExtendedResource\"} 0 (alpha))")
    assert "--feature-gates=DRAExtendedResource=true" in f["fix"] and "write DeviceClass gpu.example.com again" in f["fix"]
    assert f["dropped"]["field"] == "spec.extendedResourceName"
    on_4_21 = finding(d, openshift=True, openshift_release=(4, 21))
    assert "in OpenShift 4.21 only featureSet CustomNoUpgrade with DRAExtendedResource" in on_4_21["fix"]
    assert dropped_evidence([d])[g.DRA_EXTENDED].enabled is False


def test_openshift_feature_sets_per_release():
    assert g.enabling_feature_sets(g.DRA_PARTITIONABLE, (4, 22)) == (
        "in OpenShift 4.22 featureSet TechPreviewNoUpgrade or featureSet DevPreviewNoUpgrade, or featureSet "
        "CustomNoUpgrade with DRAPartitionableDevices in spec.customNoUpgrade.enabled turns it on")
    assert g.enabling_feature_sets(g.DRA_PARTITIONABLE, (4, 21)).startswith("in OpenShift 4.21 only featureSet "
                                                                             "CustomNoUpgrade")
    assert g.enabling_feature_sets(g.DRA_EXTENDED, (4, 22)).startswith("in OpenShift 4.22 only featureSet "
                                                                        "CustomNoUpgrade")
    assert g.enabling_feature_sets(g.DRA_EXTENDED, (4, 23)).startswith("on by default in OpenShift 4.23")
    assert g.enabling_feature_sets(g.DRA_EXTENDED, (4, 20)) is None  # not known: said as nothing
    assert g.enabling_feature_sets(g.DRA_CONSUMABLE, (4, 22)) is None


def test_a_dropped_field_is_evidence_that_the_gate_was_off():
    [d] = dropped_fields([dc("x")])
    states = g.resolve_kubernetes_gates(g.KubernetesInputs(minor=36, dropped=dropped_evidence([d])))
    state = states[g.DRA_EXTENDED]
    assert (state.state, state.learned_from) == ("off", "objects")  # stronger than the 1.36 default (on)
    assert "DeviceClass x was written with spec.extendedResourceName, which the API server dropped" in state.detail


def test_classes_say_the_dropped_name_instead_of_an_absent_one():
    gpu = dc("gpu.example.com")
    pairs = [(d, finding(d)) for d in dropped_fields([gpu])]
    [doc] = classes_report([gpu], mappings=parse_mappings([]), cluster_queues=None, pools=None, dropped=pairs)
    assert [f["code"] for f in doc["findings"]] == [F.GatedFieldDropped.name, F.NoQuotaResource.name]
    assert "(the one it was written with was dropped by the API server)" in doc["findings"][1]["message"]
    assert doc["droppedFields"] == [{"kind": "DeviceClass", "name": "gpu.example.com", "gate": g.DRA_EXTENDED,
                                     "field": "spec.extendedResourceName",
                                     "writtenBy": ["kueue-dra-tests (Apply at 2026-12-04T11:02:01Z)"], "values": []}]
    [plain] = classes_report([gpu], mappings=parse_mappings([]), cluster_queues=None, pools=None)
    assert plain["droppedFields"] == [] and [f["code"] for f in plain["findings"]] == [F.NoQuotaResource.name]


_TREES = st.recursive(st.just({}), lambda inner: st.dictionaries(
    st.sampled_from(["f:spec", "f:devices", "f:sharedCounters", "f:consumesCounters", "f:capacity", "k:{}", "v:x",
                     "f:requestPolicy", "f:allowMultipleAllocations"]), inner, max_size=3), max_leaves=8)
_SLICE_PATHS = tuple(path for kind_path in g.GATED_FIELDS.values() for kind, path in kind_path
                     if kind == "ResourceSlice")


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.none(), _TREES), max_size=3), st.booleans(), st.integers(0, 2))
def test_a_field_not_on_record_was_not_written(trees, applied, devices):
    """``OnRecord`` leaves out a path only when ``written_but_absent`` finds nothing for it, and says
    the same of a later object holding the same trees."""
    sl = {"kind": "ResourceSlice", "metadata": {"name": "s", "managedFields": [
        {"manager": f"m{i}", "fieldsV1": t} if t is not None else {"manager": f"m{i}"} for i, t in enumerate(trees)]},
          "spec": {"devices": [{"name": f"d{i}"} for i in range(devices)]}}
    if applied:
        sl["metadata"]["annotations"] = {"kubectl.kubernetes.io/last-applied-configuration": json.dumps(
            {"spec": {"sharedCounters": [{"name": "c"}], "devices": [{"consumesCounters": [{"counterSet": "c"}]}]}})}
    on_record = OnRecord(_SLICE_PATHS)
    written = {path for path in _SLICE_PATHS if written_but_absent(sl, path) is not None}
    for _ in range(2):  # the second time through what it learnt of the trees
        assert written <= set(on_record(sl))


def test_a_shared_tree_is_walked_once(monkeypatch):
    from kubectl_kueue_dra.k8s import written

    walked = []
    real = written._owns
    monkeypatch.setattr(written, "_owns", lambda fields, path: walked.append(path) or real(fields, path))
    shared = {"f:spec": {"f:driver": {}, "f:devices": {}}}
    slices = [{"kind": "ResourceSlice", "metadata": {"name": f"s{i}", "managedFields": [{"fieldsV1": shared}]},
               "spec": {}} for i in range(50)]
    assert dropped_fields(slices) == []
    assert [p for p in walked if p in _SLICE_PATHS] == list(_SLICE_PATHS)  # once each, for 50 slices
    owning = {"f:spec": {"f:sharedCounters": {}}}
    assert [d.name for d in dropped_fields([*slices, {**slices[0], "metadata": {
        "name": "o", "managedFields": [{"fieldsV1": owning}]}}])] == ["o"]
