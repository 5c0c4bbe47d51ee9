"""Partial RBAC offline: a view that answers 403 for some kinds, over the example snapshots. What
depends on a forbidden list is unknown with the 403 as the reason, never a rejection, a 0 or
"not found" (the live counterpart, every resource of the reader role, is
tests/cluster/test_rbac_partial.py)."""

from __future__ import annotations

import copy
from pathlib import Path

from kubectl_kueue_dra.kube import errors
from kubectl_kueue_dra.kube.snapshot import load_objects
from kubectl_kueue_dra.kube.snapshot import SnapshotView
from kubectl_kueue_dra.k8s.refs import parse_ref
from kubectl_kueue_dra.commands.explain.context import Settings
from kubectl_kueue_dra.commands.explain.document import explain
from kubectl_kueue_dra.commands.explain.subject import resolve
from kubectl_kueue_dra.commands.version.request import VersionRequest, version_document
from kubectl_kueue_dra.render.version import version_text
from kubectl_kueue_dra.commands.verify.facts import gather
from kubectl_kueue_dra.commands.verify.run import run_checks

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
REJECTIONS = {"DeviceClassMissing", "DeviceClassNotMapped", "ClaimTemplateMissing", "NotEnoughMatchingDevices",
              "ChargeMismatch", "LocalQueueMissing", "ClusterQueueMissing", "KueueConfigNotFound"}


def forbidding(setup: str, *kinds: str) -> SnapshotView:
    """The example ``setup`` as a view on which every list and get of ``kinds`` is a 403."""
    class Forbidden(SnapshotView):
        def _list(self, kind, namespace, field_selector, label_selector):
            if kind.kind in kinds:
                raise errors.Forbidden("list", kind.resource, namespace, None, "someone")
            return super()._list(kind, namespace, field_selector, label_selector)

        def _get(self, kind, name, namespace):
            if kind.kind in kinds:
                raise errors.Forbidden("get", kind.resource, namespace, name, "someone")
            return super()._get(kind, name, namespace)

        def serves(self, kind):
            return kind in kinds or super().serves(kind)
    return Forbidden(copy.deepcopy(load_objects(str(EXAMPLES / setup))), "test")


def explained(setup: str, ref: str, ns: str, *kinds: str) -> dict:
    view = forbidding(setup, *kinds)
    return explain(view, resolve(view, parse_ref(ref), ns), Settings())


def codes(doc: dict) -> set[str]:
    return {f["code"] for f in doc["findings"]}


def test_without_resourceslices_an_admitted_workload_is_not_rejected_its_charge_is_unknown():
    full = explained("mig-partitionable", "job/notebook-eval", "ml-research")
    assert full["dra"]["processed"] is True and full["podSets"][0]["charge"]["gpu.memory"] == "19Gi"
    doc = explained("mig-partitionable", "job/notebook-eval", "ml-research", "ResourceSlice")
    assert doc["partial"] is True
    assert doc["dra"] == {"processed": None, "failedStep": None, "message": None, "retried": None, "afterAdmission": False,
                          "unknown": "cannot list resourceslices.resource.k8s.io at cluster scope: forbidden "
                                     "(as someone)"}
    ps = doc["podSets"][0]
    assert "gpu.memory" not in ps["charge"] and "forbidden" in ps["unknown"]["gpu.memory"]
    assert ps["charge"]["cpu"] == full["podSets"][0]["charge"]["cpu"]  # what does not depend on it stays
    assert not codes(doc) & REJECTIONS
    assert "ChargeUnknown" in codes(doc)  # (the Unreadable finding is the command's, commands/explain/request)
    assert doc["draCharge"] == {}


def test_without_deviceclasses_no_class_is_missing():
    """Kueue reads a DeviceClass only for a request with CEL selectors (the availability check):
    a template without them is charged without it, and what needs it is unknown."""
    doc = explained("resourceclaimtemplate", "job/train-llm", "team-a", "DeviceClass")
    assert doc["podSets"][0]["charge"]["whole-gpus"] == "4" and doc["dra"]["processed"] is True
    doc = explained("mig-partitionable", "job/notebook-eval", "ml-research", "DeviceClass")
    assert not codes(doc) & REJECTIONS and doc["partial"] is True
    assert "forbidden" in doc["podSets"][0]["unknown"]["gpu.memory"]


def test_without_deviceclasses_an_extended_resource_is_unknown_not_charged_under_its_own_name():
    full = explained("extended-resource", "job/finetune", "team-b")
    assert full["podSets"][0]["charge"]["nvidia.com/gpu"] == "6"
    doc = explained("extended-resource", "job/finetune", "team-b", "DeviceClass")
    ps = doc["podSets"][0]
    assert "nvidia.com/gpu" not in ps["charge"] and "forbidden" in ps["unknown"]["nvidia.com/gpu"]
    assert not codes(doc) & REJECTIONS


def test_without_the_config_no_class_is_unmapped():
    doc = explained("resourceclaimtemplate", "job/train-llm", "team-a", "ConfigMap")
    assert not codes(doc) & REJECTIONS
    assert "KueueConfigUnknown" in codes(doc)
    assert doc["podSets"][0]["unknown"] == {"DRA devices": "cannot get configmaps "
                                            '"kueue-manager-config" in namespace "kueue-system": forbidden (as someone)'}


def test_without_templates_no_template_is_missing():
    doc = explained("resourceclaimtemplate", "job/train-llm", "team-a", "ResourceClaimTemplate")
    assert not codes(doc) & REJECTIONS
    assert set(doc["podSets"][0]["unknown"]) == {"whole-gpus"}


def test_without_queues_a_pending_workload_has_no_missing_queue():
    for kind in ("LocalQueue", "ClusterQueue"):
        doc = explained("resourceclaimtemplate", "job/batch-infer", "team-a", kind)
        assert not codes(doc) & REJECTIONS, kind
        assert doc["partial"] is True


def test_verify_without_slices_does_not_pass_what_needs_the_devices():
    f = gather(forbidding("mig-partitionable", "ResourceSlice"))
    checks = {c.id: c for c in run_checks(f, None)}
    full = {c.id: c for c in run_checks(gather(forbidding("mig-partitionable")), None)}
    assert full["cohort-counter-units"].status == "pass"
    units = checks["cohort-counter-units"]
    assert units.status == "skip" and "forbidden" in units.message and "unknown" in units.message


def test_verify_without_pods_or_featuregate_says_so():
    f = gather(forbidding("mig-partitionable", "FeatureGate"))
    checks = {c.id: c for c in run_checks(f, None)}
    assert checks["openshift-operator-gates"].status == "skip"
    assert "featuregates.config.openshift.io" in checks["openshift-operator-gates"].message


def test_version_names_its_403s():
    def doc_of(*kinds):
        doc, error = version_document(VersionRequest(), {"kueueDra": "1", "platform": "x"},
                                      lambda: forbidding("resourceclaimtemplate", *kinds))
        assert error is None
        return doc
    assert doc_of()["partial"] is False and doc_of()["unreadable"] == []
    doc = doc_of("ConfigMap")
    assert doc["partial"] is True and doc["kueue"]["config"] is None
    assert doc["kueue"]["configDescription"].startswith("unknown (cannot get configmaps")
    text = version_text(doc)
    assert "Kueue Config: unknown (cannot get configmaps" in text and "not found" not in text
    assert "Partial: cannot get configmaps" in text
    text = version_text(doc_of("Deployment"))
    assert "Kueue Version: unknown (cannot list deployments.apps" in text


def test_explain_text_says_the_dra_charge_is_unknown_once():
    from types import SimpleNamespace

    from kubectl_kueue_dra.render.explain import explain_text
    from kubectl_kueue_dra.render.output import Style

    doc = explained("mig-partitionable", "job/notebook-eval", "ml-research", "ResourceSlice")
    text = explain_text(doc, SimpleNamespace(output="table", no_headers=False, style=Style("never")))
    lines = text.splitlines()
    row = next(line for line in lines if "gpu.memory" in line and "19Gi" in line)
    assert row.split()[1:3] == ["unknown", "unknown"]  # per pod, charge; RECORDED stays Kueue's
    assert "What Kueue makes of the DRA requests is unknown: cannot list resourceslices" in text
    assert "Kueue rejects" not in text
    assert sum("gpu.memory unknown" in line for line in lines) == 0  # not repeated as an adjustment


def test_verify_without_the_config_does_not_say_it_is_missing():
    checks = {c.id: c for c in run_checks(gather(forbidding("resourceclaimtemplate", "ConfigMap")), None)}
    assert checks["kueue-config"].status == "skip" and "forbidden" in checks["kueue-config"].message
    installed = checks["kueue-installed"].message
    assert "not found" not in installed and "configuration unknown (cannot get configmaps" in installed


def test_without_deviceclasses_the_raw_extended_request_is_no_charge_line():
    doc = explained("extended-resource", "job/finetune", "team-b", "DeviceClass")
    assert "nvidia.com/gpu" not in {line.get("resource") for line in doc["podSets"][0]["lines"]}


def test_verify_quota_coverage_does_not_pass_without_the_mappings_or_the_classes():
    full = {c.id: c for c in run_checks(gather(forbidding("extended-resource")), None)}
    assert full["quota-coverage"].status == "fail"
    for kind in ("ConfigMap", "DeviceClass"):
        checks = {c.id: c for c in run_checks(gather(forbidding("extended-resource", kind)), None)}
        c = checks["quota-coverage"]
        # a mapping no queue covers fails whatever the classes say; without the mappings, a skip
        assert (c.status, kind) in (("fail", "DeviceClass"), ("skip", "ConfigMap")), (c.status, kind, c.message)
        assert c.status == "fail" or "forbidden" in c.message
    checks = {c.id: c for c in run_checks(gather(forbidding("extended-resource", "ConfigMap")), None)}
    assert checks["dra-quota-configured"].status == "skip"
