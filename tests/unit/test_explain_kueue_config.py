"""``explain`` under the Kueue configuration that changes the scheduler: waitForPodsReady.blockAdmission
(a workload that fits waits while a workload holding quota, in any ClusterQueue, has pods that are
not all ready — Kueue's scheduler blocks in ``waitForPodsReadyIfNeeded``), in every form that turns
it on or leaves it off (v1beta1 ``enable`` with blockAdmission defaulted to it, v1beta2 defaulted to
false, the OpenShift CR's gangScheduling, the 0.19 gate DisableWaitForPodsReady); and
resources.quotaCheckStrategy IgnoreUndeclared (a resource no resource group declares is neither
searched nor charged, under the gate QuotaCheckStrategy)."""

from __future__ import annotations

import copy

import pytest
import yaml

from kubectl_kueue_dra.commands.explain.context import Settings
from kubectl_kueue_dra.commands.explain.document import explain
from kubectl_kueue_dra.commands.explain.subject import Subject
from kubectl_kueue_dra.kube.snapshot import SnapshotView
from kubectl_kueue_dra.kueue.workloads.podsets import podsets_from_workload
from testenv.queue.builders import cluster_queue, cond, flavor, flavor_quotas, group, local_queue, workload

NS = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "default", "labels": {}}}
WAITING = "waiting for all admitted workloads to be in PodsReady condition"


def config_map(config: dict) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "kueue-manager-config",
                                                                  "namespace": "kueue-system"},
            "data": {"controller_manager_config.yaml": yaml.safe_dump(config)}}


def v1beta2(pods_ready: dict | None, gates: dict | None = None) -> dict:
    config: dict = {"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration"}
    if pods_ready is not None:
        config["waitForPodsReady"] = pods_ready
    if gates:
        config["featureGates"] = gates
    return config_map(config)


def v1beta1(pods_ready: dict) -> dict:
    return config_map({"apiVersion": "config.kueue.x-k8s.io/v1beta1", "kind": "Configuration",
                       "waitForPodsReady": pods_ready})


def kueue_cr(gang: dict) -> dict:
    return {"apiVersion": "kueue.openshift.io/v1", "kind": "Kueue", "metadata": {"name": "cluster"},
            "spec": {"managementState": "Managed", "config": {"gangScheduling": gang}}}


def world(running_ready: bool | None = False, me_conditions=()) -> list[dict]:
    """cq-a holds ``running`` (PodsReady False, True, or no condition when None); ``me`` waits in
    cq-b, where it fits."""
    ready = [] if running_ready is None else [cond("PodsReady", "True" if running_ready else "False", "WaitForStart")]
    return [flavor("default"),
            cluster_queue("cq-a", group(flavor_quotas("default", cpu="4"))),
            cluster_queue("cq-b", group(flavor_quotas("default", cpu="4"))),
            local_queue("lq-a", "cq-a"), local_queue("lq", "cq-b"),
            workload("running", queue="lq-a", requests={"cpu": "2"}, admitted_to="cq-a", flavors={"cpu": "default"},
                     conditions=[cond("Admitted"), *ready]),
            workload("me", conditions=list(me_conditions))]


def doc_of(objects, name="me"):
    view = SnapshotView(copy.deepcopy([NS, *objects]), "test")
    wl = next(o for o in view.list("Workload", "default") if o["metadata"]["name"] == name)
    return explain(view, Subject("default", podsets_from_workload(wl), workload=wl), Settings())


def found(doc, code):
    return [f for f in doc["findings"] if f["code"] == code]


def test_a_workload_that_fits_waits_for_the_pods_of_another_queues_workload():
    said = [cond("QuotaReserved", "False", "WaitingForPodsReady", WAITING)]
    doc = doc_of([v1beta2({"blockAdmission": True}), *world(me_conditions=said)])
    block = found(doc, "WaitingForPodsReady")
    assert len(block) == 1, doc["findings"]  # Kueue's recorded condition is not said a second time
    assert (doc["state"], doc["reason"]) == ("Pending", "WaitingForPodsReady")
    assert block[0]["severity"] == "warning" and block[0]["predicted"] is True
    assert "not ready now: default/running (ClusterQueue cq-a)" in block[0]["message"]
    assert block[0]["fix"].startswith("wait until the pods of default/running are ready")
    assert "edit configmap kueue-manager-config  # waitForPodsReady.blockAdmission: false" in block[0]["fix"]
    assert not found(doc, "FitsNow") and not found(doc, "NotAdmitted")


def test_a_workload_never_evaluated_waits_for_them_too():
    doc = doc_of([v1beta2({"blockAdmission": True}), *world(running_ready=None)])
    assert (doc["state"], doc["reason"]) == ("Pending", "WaitingForPodsReady")


def test_all_pods_ready_means_no_block():
    doc = doc_of([v1beta2({"blockAdmission": True}), *world(running_ready=True)])
    assert not found(doc, "WaitingForPodsReady") and found(doc, "NotEvaluatedYet")


def test_a_recorded_wait_whose_pods_are_ready_now_is_said_as_over():
    said = [cond("QuotaReserved", "False", "Waiting", WAITING)]  # Kueue 0.18's reason
    doc = doc_of([v1beta2({"blockAdmission": True}), *world(running_ready=True, me_conditions=said)])
    (block,) = found(doc, "WaitingForPodsReady")
    assert block["severity"] == "info" and block["fix"] is None
    assert "all of them do now: Kueue admits it when its scheduler goes on" in block["message"]


@pytest.mark.parametrize("config, blocks", [
    (v1beta2({"blockAdmission": True}), True),
    (v1beta2({"timeout": "5m"}), False),  # v1beta2 defaults blockAdmission to false
    (v1beta2(None), False),
    (v1beta2({"blockAdmission": True}, gates={"DisableWaitForPodsReady": True}), False),
    (v1beta1({"enable": True}), True),  # v1beta1 defaults blockAdmission to enable
    (v1beta1({"enable": True, "blockAdmission": False}), False),
    (v1beta1({"enable": False, "blockAdmission": True}), False),
    (kueue_cr({"policy": "ByWorkload", "byWorkload": {"admission": "Sequential"}}), True),
    (kueue_cr({"policy": "ByWorkload", "byWorkload": {"admission": "Parallel"}}), False),
    (kueue_cr({"policy": "ByWorkload"}), False),
    (kueue_cr({"policy": "None"}), False),
])
def test_the_configurations_that_block(config, blocks):
    doc = doc_of([config, *world()])
    assert bool(found(doc, "WaitingForPodsReady")) is blocks


def test_the_openshift_fix_patches_the_kueue_cr():
    doc = doc_of([kueue_cr({"policy": "ByWorkload", "byWorkload": {"admission": "Sequential"}}), *world()])
    (block,) = found(doc, "WaitingForPodsReady")
    assert block["fix"].endswith("oc patch kueues.kueue.openshift.io cluster --type=merge -p "
                                 "'{\"spec\":{\"config\":{\"gangScheduling\":{\"byWorkload\":{\"admission\":"
                                 "\"Parallel\"}}}}}'")


def _undeclared(strategy: str | None, gates: dict | None = None, admitted: bool = False) -> list[dict]:
    resources = {"quotaCheckStrategy": strategy} if strategy else {}
    config = {"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration", "resources": resources,
              **({"featureGates": gates} if gates else {})}
    wl = workload("me", requests={"cpu": "1", "example.com/widget": "1"},
                  **({"admitted_to": "cq", "flavors": {"cpu": "default"}, "usage": {"cpu": "1"},
                      "conditions": [cond("Admitted")]} if admitted else {}))
    return [config_map(config), flavor("default"), cluster_queue("cq", group(flavor_quotas("default", cpu="4"))),
            local_queue("lq", "cq"), wl]


def test_ignore_undeclared_admits_without_charging_the_undeclared_resource():
    doc = doc_of(_undeclared("IgnoreUndeclared"))
    (uncovered,) = found(doc, "ResourceNotCovered")
    assert uncovered["severity"] == "warning" and "admits the workload without charging example.com/widget" in \
        uncovered["message"]
    assert doc["reason"] == "NotEvaluatedYet" and doc["queue"]["verdict"] is None  # it fits: no flavor failure
    assert found(doc_of(_undeclared("IgnoreUndeclared", admitted=True)), "ResourceNotCovered")[0]["severity"] == \
        "warning"  # admitted: said, not as a rejection on re-queue


@pytest.mark.parametrize("strategy, gates", [(None, None), ("BlockUndeclared", None),
                                             ("IgnoreUndeclared", {"QuotaCheckStrategy": False})])
def test_without_ignore_undeclared_an_undeclared_resource_is_never_admitted(strategy, gates):
    doc = doc_of(_undeclared(strategy, gates))
    (uncovered,) = found(doc, "ResourceNotCovered")
    assert uncovered["severity"] == "error" and doc["queue"]["verdict"]["code"] == "ResourceNotCovered"
