"""``verify`` answers first: the verdict line (is GPU quota enforced, for how many DeviceClasses),
then what needs attention, the passes in one line; ``--all`` and ``-o wide`` list every check. And
the guidance it gives on OpenShift when Kueue or its CR is missing, and when a driver publishes no
counters."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from kubectl_kueue_dra.cli import main
from kubectl_kueue_dra.commands.verify.facts import gather
from kubectl_kueue_dra.commands.verify.registry import REGISTRY
from kubectl_kueue_dra.commands.verify.run import run_checks
from kubectl_kueue_dra.commands.verify.verdict import verdict
from kubectl_kueue_dra.kube import errors
from kubectl_kueue_dra.kube.snapshot import load_objects
from kubectl_kueue_dra.kube.snapshot import SnapshotView

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
MIG = str(EXAMPLES / "mig-partitionable")


def objects(setup: str) -> list[dict]:
    return copy.deepcopy(load_objects(str(EXAMPLES / setup)))


def judged(objs: list[dict], view_cls=SnapshotView) -> tuple[dict, dict, object]:
    facts = gather(view_cls(objs, "test"))
    checks = run_checks(facts)
    return verdict(facts, checks), {c.id: c for c in checks}, facts


def rerun(facts, check_id):
    return next(s for s in REGISTRY if s.id == check_id).fn(facts)


def out(capsys, *args: str) -> tuple[int, str]:
    code = main(["verify", *args])
    return code, capsys.readouterr().out


# ---- the verdict ---------------------------------------------------------------------------------
def test_a_healthy_openshift_snapshot_is_the_verdict_and_what_needs_attention(capsys):
    code, text = out(capsys, "--from", MIG)
    lines = text.splitlines()
    assert code == 0 and lines[0] == "GPU quota: ENFORCED for 2 of 2 DeviceClasses — 0 failures, 4 warnings"
    assert len(lines) <= 16, text
    assert not any(line.startswith(("PASS", "INFO")) for line in lines)
    assert [line.split()[1] for line in lines if line.startswith("WARN")] == [
        "kueue-installed", "kueue-version", "quota-vs-capacity", "uncharged-devices"]
    summary = next(line for line in lines if "checks passed" in line)
    assert summary.startswith("19 checks passed, 3 skipped (platform-version, openshift-kueue-status, "
                              "openshift-kueue-render), 5 info; -o wide or --all lists every check")


def test_all_and_wide_list_every_check(capsys):
    _, every = out(capsys, "--from", MIG, "--all")
    assert every.splitlines()[0].startswith("GPU quota: ENFORCED")
    assert "PASS      counters-published" in every and "INFO      gate-DRAExtendedResource" in every
    assert "19 passed, 4 warnings, 0 failed, 3 skipped, 5 info" in every and "To fix:" in every
    _, wide = out(capsys, "--from", MIG, "-o", "wide")
    assert "PASS" in wide and "FIX" in wide.splitlines()[2] and "To fix:" not in wide


@pytest.mark.parametrize("fmt", ["json", "yaml"])
def test_all_with_a_document_output_is_a_usage_error(capsys, fmt):
    assert main(["verify", "--from", MIG, "--all", "-o", fmt]) == 2
    assert "--all does nothing for -o " + fmt in capsys.readouterr().err


def test_verdict_names_the_classes_outside_quota(capsys):
    v, _, _ = judged(objects("extended-resource"))
    assert v["state"] == "partial" and (v["enforced"], v["total"]) == (1, 2)
    assert v["text"] == "GPU quota: ENFORCED for 1 of 2 DeviceClasses — 2 failures, 1 warning"
    legacy = next(c for c in v["deviceClasses"] if c["name"] == "gpu-legacy.nvidia.com")
    assert legacy["enforced"] is False and "resolves to gpu.nvidia.com" in legacy["reason"]
    code, text = out(capsys, "--from", str(EXAMPLES / "extended-resource"))
    assert code == 1 and text.splitlines()[1].startswith("  not enforced: gpu-legacy.nvidia.com — ")
    doc = json.loads((main(["verify", "--from", str(EXAMPLES / "extended-resource"), "-o", "json"]),
                      capsys.readouterr().out)[1])
    assert doc["verdict"]["deviceClasses"] == v["deviceClasses"]


def test_a_resource_no_queue_covers_is_not_enforced():
    objs = objects("resourceclaimtemplate")
    cq = next(o for o in objs if o["kind"] == "ClusterQueue")
    group = cq["spec"]["resourceGroups"][0]
    group["coveredResources"].remove("whole-gpus")
    group["flavors"][0]["resources"] = [r for r in group["flavors"][0]["resources"] if r["name"] != "whole-gpus"]
    v, checks, _ = judged(objs)
    assert checks["quota-coverage"].status == "fail"
    assert v["state"] == "not-enforced" and v["text"].startswith("GPU quota: NOT ENFORCED for any of 1 DeviceClass")
    assert v["deviceClasses"][0]["reason"] == "no ClusterQueue covers whole-gpus"


def test_kueue_dra_off_keeps_every_class_out():
    objs = objects("resourceclaimtemplate")
    cm = next(o for o in objs if o["kind"] == "ConfigMap")
    cm["data"]["controller_manager_config.yaml"] += "featureGates:\n  KueueDRAIntegration: false\n"
    v, checks, _ = judged(objs)
    assert checks["kueue-gate-KueueDRAIntegration"].status == "fail"
    # Kueue 0.19 refuses the sub-gates without it, so the configuration check fails first
    assert checks["kueue-config"].status == "fail"
    assert v["state"] == "not-enforced" and v["deviceClasses"][0]["reason"].startswith("kueue-config: ")


def test_forbidden_device_classes_leave_the_verdict_unknown():
    class NoClasses(SnapshotView):
        def _list(self, kind, namespace, field_selector, label_selector):
            if kind.kind == "DeviceClass":
                raise errors.Forbidden("list", kind.resource, namespace, None, "someone")
            return super()._list(kind, namespace, field_selector, label_selector)

    v, _, _ = judged(objects("mig-partitionable"), NoClasses)
    assert v["state"] == "unknown" and v["deviceClasses"] is None
    assert v["text"].startswith("GPU quota: UNKNOWN (cannot list deviceclasses.resource.k8s.io")


# ---- OpenShift: Kueue or its CR missing ----------------------------------------------------------
def test_openshift_without_kueue_points_at_the_operator_not_upstream_manifests():
    _, _, facts = judged(objects("mig-partitionable"))
    facts.live, facts.kueue_served, facts.kueue_operator_served = True, False, False
    result = rerun(facts, "kueue-installed")
    assert result.status == "fail" and "Kueue is not installed" in result.message
    assert "Red Hat build of Kueue operator" in result.fix and "openshift-kueue-operator" in result.fix
    assert "| oc create -f -" in result.fix and '"name":"cluster"' in result.fix
    assert "github.com/kubernetes-sigs/kueue" not in result.fix


def test_openshift_operator_without_its_cr_says_to_create_it():
    _, _, facts = judged(objects("mig-partitionable"))
    facts.live, facts.kueue_served, facts.kueue_operator_served, facts.kueue_cr = True, False, True, None
    result = rerun(facts, "kueue-installed")
    assert result.status == "fail" and "the Kueue CR cluster does not exist" in result.message
    cr = json.loads(result.fix.split("echo '")[1].split("' | oc create -f -")[0])
    assert cr["kind"] == "Kueue" and cr["metadata"] == {"name": "cluster"}
    assert cr["spec"]["config"]["integrations"]["frameworks"] == ["BatchJob"]


def test_upstream_without_kueue_keeps_the_upstream_manifest():
    _, _, facts = judged(objects("resourceclaimtemplate"))
    facts.live, facts.kueue_served = True, False
    result = rerun(facts, "kueue-installed")
    assert result.status == "fail" and "kubectl apply --server-side -f https://github.com/kubernetes-sigs/kueue" \
        in result.fix


# ---- a driver that publishes no counters ---------------------------------------------------------
def _without_counters(objs: list[dict], static: bool = False) -> list[dict]:
    for o in objs:
        if o["kind"] == "ResourceSlice":
            for d in o["spec"].get("devices") or []:
                d.pop("consumesCounters", None)
                if static and d["attributes"]["type"]["string"] == "mig":
                    d["capacity"]["memorySlice0"] = {"value": "1"}
    return objs


def test_no_counters_at_all_gives_the_driver_guidance_not_a_placeholder():
    _, checks, _ = judged(_without_counters(objects("mig-partitionable")))
    c = checks["counters-published"]
    assert c.status == "fail" and "consumes any counter" in c.message
    assert "dynamic MIG" in c.fix and "it publishes 16 gpu, 224 mig now" in c.fix
    assert "or charge whole devices instead: oc kueue-dra map set gpu.memory --device-class gpu.nvidia.com " \
           "--device-class mig.nvidia.com --replace" in c.fix
    assert "DRAPartitionableDevices" not in c.fix  # on in this snapshot: not a cause
    assert "<" not in c.fix


def test_no_counters_with_the_gate_off_says_the_gate_first_and_names_pre_created_mig():
    from kubectl_kueue_dra import gates as g

    _, _, facts = judged(_without_counters(objects("mig-partitionable"), static=True))
    facts.k8s_gates[g.DRA_PARTITIONABLE] = g.GateState(g.DRA_PARTITIONABLE, g.OFF, "metrics", "0 in /metrics")
    fix = rerun(facts, "counters-published").fix
    assert fix.startswith("the API server drops consumesCounters and sharedCounters from ResourceSlices while "
                          "DRAPartitionableDevices is off")
    assert "oc patch featuregate cluster" in fix and "pre-created MIG devices" in fix


@pytest.mark.parametrize("setup", ["mig-partitionable", "extended-resource", "cohort-sharing"])
def test_json_is_the_documented_shape(capsys, setup):
    from output_schema import problems

    main(["verify", "--from", str(EXAMPLES / setup), "-o", "json"])
    assert problems("verify", json.loads(capsys.readouterr().out)) == []
