"""``queues`` offline: each ClusterQueue's quota beside what Kueue recorded, the Workloads holding
and waiting, the cohort tree, DRA resources marked with their DeviceClasses, the bars, partial
answers, and the command's flags and errors."""

from __future__ import annotations

import copy
import io
import json
from pathlib import Path

import pytest

from kubectl_kueue_dra.cli import main
from kubectl_kueue_dra.commands.explain.context import Settings
from kubectl_kueue_dra.commands.explain.document import explain
from kubectl_kueue_dra.commands.explain.subject import resolve
from kubectl_kueue_dra.commands.queues.report import percent
from kubectl_kueue_dra.commands.queues.request import QueuesRequest, queues_document
from kubectl_kueue_dra.kube import errors
from kubectl_kueue_dra.k8s.refs import parse_ref
from kubectl_kueue_dra.kube.snapshot import load_objects
from kubectl_kueue_dra.kube.snapshot import SnapshotView
from kubectl_kueue_dra.kueue.queues.holdings import by_cluster_queue
from kubectl_kueue_dra.render.output import Style
from kubectl_kueue_dra.render.queues import bar

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
COHORT = str(EXAMPLES / "cohort-sharing")


def objects(setup: str) -> list[dict]:
    return copy.deepcopy(load_objects(str(EXAMPLES / setup)))


def document(objs: list[dict], cluster_queue: str | None = None, view_cls=SnapshotView) -> dict:
    return queues_document(view_cls(objs, "test"), QueuesRequest(cluster_queue=cluster_queue))


def cq(doc: dict, name: str) -> dict:
    return next(c for c in doc["clusterQueues"] if c["name"] == name)


def row(entry: dict, resource: str) -> dict:
    return next(r for r in entry["resources"] if r["resource"] == resource)


def run_json(capsys, *args: str) -> dict:
    assert main(["queues", *args, "-o", "json"]) == 0
    return json.loads(capsys.readouterr().out)


# ---- the document --------------------------------------------------------------------------------
def test_cohort_example_reserved_borrowed_limits_and_what_the_tree_gives():
    doc = document(objects("cohort-sharing"))
    assert [c["name"] for c in doc["clusterQueues"]] == ["team-a-cq", "team-b-cq"]
    a, b = cq(doc, "team-a-cq"), cq(doc, "team-b-cq")
    assert a["cohort"] == b["cohort"] == "gpu-pool" and a["active"] is True
    assert (a["pendingWorkloads"], a["reservingWorkloads"], a["admittedWorkloads"]) == (0, 1, 1)
    gpus = row(a, "gpus")
    assert (gpus["flavor"], gpus["nominalQuota"], gpus["reserved"], gpus["reservedBorrowed"]) == ("h100", "8", "10", "2")
    assert gpus["usedPercent"] == 125  # borrowing: above its nominal quota
    # the cohort shares 4 (its own) + 8 (team-a) + 2 (what team-b may lend) = 14; team-a can get all
    # of it plus nothing of team-b's kept 2; team-b keeps 2 of its own beside it
    assert (gpus["maximumCapacity"], gpus["available"]) == ("14", "4")
    gb = row(b, "gpus")
    assert (gb["lendingLimit"], gb["borrowingLimit"], gb["maximumCapacity"], gb["available"]) == ("2", None, "16", "4")
    assert gb["dra"] == {"via": "mapping", "mapping": "gpus", "deviceClasses": ["gpu.nvidia.com"],
                         "counters": [], "capacities": []}
    assert row(b, "cpu")["dra"] is None and row(b, "memory")["reserved"] == "32Gi"


def test_available_agrees_with_explains_quota_verdict():
    """One cohort model: what queues says team-b-cq can give now is what explain judges the waiting
    fine-tune against (and the 2 GPUs it misses are Kueue's own "2 more needed")."""
    objs = objects("cohort-sharing")
    doc = document(objs)
    view = SnapshotView(objs, "test")
    explained = explain(view, resolve(view, parse_ref("job/finetune"), "team-b"), Settings())
    quota = {q["resource"]: q for q in explained["queue"]["quota"]}
    assert quota["gpus"]["available"] == row(cq(doc, "team-b-cq"), "gpus")["available"] == "4"
    assert quota["gpus"]["maximumCapacity"] == row(cq(doc, "team-b-cq"), "gpus")["maximumCapacity"]
    assert cq(doc, "team-b-cq")["pending"]["requests"]["gpus"] == "6"
    verdict = next(f for f in explained["findings"] if f["code"] == "QuotaExhausted")
    assert "kubectl kueue-dra queues team-b-cq --workloads" in verdict["fix"]


def test_holders_and_waiters_with_priority_and_what_each_holds():
    b = cq(document(objects("cohort-sharing")), "team-b-cq")
    assert b["workloads"] == [{"namespace": "team-b", "name": "job-eval-d7302", "state": "Admitted",
                               "localQueue": "gpus", "priority": 1000, "priorityClassName": "production",
                               "usage": [{"flavor": "h100", "resource": "cpu", "amount": "8"},
                                         {"flavor": "h100", "resource": "memory", "amount": "32Gi"},
                                         {"flavor": "h100", "resource": "gpus", "amount": "2"}]}]
    pending = b["pending"]
    assert pending["count"] == 1 and pending["withoutRequests"] == 0
    assert pending["workloads"][0]["name"] == "job-finetune-f1303" and pending["workloads"][0]["state"] == "Pending"
    assert pending["requests"] == {"cpu": "24", "gpus": "6", "memory": "96Gi"}


def test_cohort_tree_own_quota_shared_quota_and_sums():
    doc = document(objects("cohort-sharing"))
    [pool] = doc["cohorts"]
    assert (pool["name"], pool["parent"], pool["cohortObject"]) == ("gpu-pool", None, True)
    assert pool["clusterQueues"] == ["team-a-cq", "team-b-cq"] and pool["cohorts"] == []
    gpus = row(pool, "gpus")
    assert (gpus["nominalQuota"], gpus["subtreeQuota"], gpus["reserved"], gpus["reservedBorrowed"]) == \
        ("4", "14", "12", "2")
    cpu = row(pool, "cpu")  # a resource only the queues give: no quota of the cohort's own
    assert (cpu["nominalQuota"], cpu["subtreeQuota"], cpu["reserved"]) == (None, "192", "48")


def test_one_cluster_queue_and_the_cohorts_above_it(capsys):
    doc = run_json(capsys, "team-b-cq", "--from", COHORT)
    assert [c["name"] for c in doc["clusterQueues"]] == ["team-b-cq"]
    assert [c["name"] for c in doc["cohorts"]] == ["gpu-pool"]
    doc = run_json(capsys, "--from", str(EXAMPLES / "resourceclaimtemplate"))
    assert doc["cohorts"] == [] and cq(doc, "gpu-cq")["cohort"] is None


def test_dra_resources_are_marked_with_their_classes_and_counters():
    mig = row(cq(document(objects("mig-partitionable")), "research-cq"), "gpu.memory")
    assert mig["dra"] == {"via": "mapping", "mapping": "gpu.memory",
                          "deviceClasses": ["gpu.nvidia.com", "mig.nvidia.com"],
                          "counters": [{"name": "memory", "driver": "gpu.nvidia.com"}], "capacities": []}
    assert mig["reserved"] == "99Gi"  # Kueue's 101376Mi, in the form Kueue writes a counter charge
    ern = row(cq(document(objects("extended-resource")), "gpu-cq"), "nvidia.com/gpu")
    # two classes name nvidia.com/gpu: the one the scheduler and Kueue pick (the newest)
    assert ern["dra"]["via"] == "extendedResourceName" and ern["dra"]["deviceClasses"] == ["gpu.nvidia.com"]


def test_cohort_cycle_leaves_what_the_tree_gives_unknown():
    objs = objects("cohort-sharing")
    cohort = next(o for o in objs if o["kind"] == "Cohort")
    cohort["spec"]["parentName"] = "other"
    objs.append({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Cohort", "metadata": {"name": "other"},
                 "spec": {"parentName": "gpu-pool"}})
    doc = document(objs)
    assert "CohortCycle" in {f["code"] for f in doc["findings"]}
    gpus = row(cq(doc, "team-a-cq"), "gpus")
    assert gpus["maximumCapacity"] is None and gpus["available"] is None and gpus["reserved"] == "10"


def test_forbidden_workloads_make_a_partial_answer_naming_the_list():
    class NoWorkloads(SnapshotView):
        def _list(self, kind, namespace, field_selector, label_selector):
            if kind.kind == "Workload":
                raise errors.Forbidden("list", kind.resource, namespace, None, "someone")
            return super()._list(kind, namespace, field_selector, label_selector)

    doc = document(objects("cohort-sharing"), view_cls=NoWorkloads)
    assert doc["partial"] is True
    unreadable = [f for f in doc["findings"] if f["code"] == "Unreadable"]
    assert unreadable and "workloads.kueue.x-k8s.io" in unreadable[0]["message"]
    b = cq(doc, "team-b-cq")
    assert b["workloads"] is None and b["pending"] is None
    assert row(b, "gpus")["reserved"] == "2"  # what the ClusterQueue's status says stays known


def test_a_snapshot_without_workloads_says_they_are_unknown():
    objs = [o for o in objects("cohort-sharing") if o["kind"] != "Workload"]
    doc = document(objs)
    assert cq(doc, "team-a-cq")["workloads"] is None and doc["partial"] is True  # unknown, so partial
    [unknown] = [f for f in doc["findings"] if f["code"] == "WorkloadsUnknown"]
    assert "no Workload objects" in unknown["message"] and unknown["fix"].startswith("add them to the snapshot: ")


def test_holdings_skip_finished_and_deactivated_workloads_and_count_those_without_requests():
    lq = {"metadata": {"name": "q", "namespace": "ns"}, "spec": {"clusterQueue": "cq"}}

    def wl(name, **kw):
        return {"metadata": {"name": name, "namespace": "ns"}, "spec": {"queueName": "q", **kw.get("spec", {})},
                "status": kw.get("status", {})}
    finished = wl("done", status={"admission": {"clusterQueue": "cq"},
                                  "conditions": [{"type": "Finished", "status": "True"}]})
    inactive = wl("off", spec={"active": False})
    fresh = wl("fresh")  # Kueue has not written resourceRequests yet
    asking = wl("asking", spec={"priority": 5, "priorityClassName": "v1beta1-style"},
                status={"resourceRequests": [{"name": "a", "resources": {"cpu": "500m", "gpus": "1"}},
                                                       {"name": "b", "resources": {"gpus": "2"}}]})
    found = by_cluster_queue([finished, inactive, fresh, asking], [lq])["cq"]
    assert not found.holders and [w.name for w in found.waiters] == ["asking", "fresh"]
    assert found.demand() == {"cpu": 500, "gpus": 3} and found.without_requests() == 1
    assert (found.waiters[0].priority, found.waiters[0].priority_class) == (5, "v1beta1-style")
    assert by_cluster_queue([asking], None) == {}  # LocalQueues unknown: nobody is known to wait


def test_percent_rounds_half_up_and_needs_a_nominal_quota():
    assert [percent(u, 160) for u in (0, 99, 100, 160, 200)] == [0, 62, 63, 100, 125]
    assert percent(1, 0) is None and percent(None, 8) is None
    assert percent(-5, 8) is None and percent(5, -8) is None  # Kueue never records a negative amount


# ---- the table -----------------------------------------------------------------------------------
class _Stream(io.StringIO):
    def __init__(self, tty: bool, encoding: str):
        super().__init__()
        self._tty, self._encoding = tty, encoding

    def isatty(self) -> bool:
        return self._tty

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return self._encoding


def test_bar_is_ascii_without_colour_or_utf8_and_blocks_on_a_utf8_terminal():
    plain = Style("auto", _Stream(False, "utf-8"))
    assert not plain.unicode and bar(50, plain) == "[####....] 50%" and bar(None, plain) == "-"
    assert bar(125, plain) == "[########] 125%" and bar(0, plain) == "[........] 0%"
    assert not Style("auto", _Stream(True, "ascii")).unicode
    tty = Style("auto", _Stream(True, "UTF-8"))
    assert tty.unicode and "\u2588\u2588\u2588\u2588" in bar(50, tty) and "\u2591\u2591\u2591\u2591" in bar(50, tty)


def test_table_tree_and_workloads(capsys):
    assert main(["queues", "--from", COHORT, "--workloads"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0].split() == ["CLUSTERQUEUE", "COHORT", "FLAVOR", "RESOURCE", "NOMINAL", "RESERVED", "USAGE",
                                "WAITING", "WORKLOADS", "DEVICE", "CLASSES"]
    gpus_a = next(line for line in lines if " gpus " in line and "[########] 125%" in line)
    assert gpus_a.split()[:4] == ["h100", "gpus", "8", "10"]
    assert "1 holding, 1 pending" in out and "gpu.nvidia.com" in out
    assert "|- team-a-cq" in out and "`- team-b-cq" in out  # the cohort tree, drawn in ASCII here
    finetune = next(line for line in lines if "job-finetune" in line)
    assert finetune.split() == ["team-b-cq", "team-b/job-finetune-f1303", "Pending", "1000", "-", "cpu=24,",
                                "gpus=6,", "memory=96Gi"]
    assert "\x1b" not in out


def test_wide_adds_limits_maximum_and_available(capsys):
    assert main(["queues", "--from", COHORT, "-o", "wide", "--no-headers"]) == 0
    gpus_b = [line for line in capsys.readouterr().out.splitlines() if " gpus " in line][1]
    assert gpus_b.split()[-8:] == ["0", "-", "2", "2", "16", "4", "mapping", "gpus"]


def test_counters_in_the_device_classes_column(capsys):
    assert main(["queues", "--from", str(EXAMPLES / "mig-partitionable")]) == 0
    assert "gpu.nvidia.com,mig.nvidia.com (counter memory)" in capsys.readouterr().out


# ---- usage and errors ----------------------------------------------------------------------------
def test_unknown_cluster_queue_is_one_error_line(capsys):
    assert main(["queues", "nope", "--from", COHORT]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f'error: ClusterQueue "nope" not found (snapshot {COHORT}); list them with: kubectl kueue-dra '
                   "queues"]


@pytest.mark.parametrize("fmt", ["json", "yaml"])
def test_workloads_flag_with_a_document_output_is_a_usage_error(capsys, fmt):
    assert main(["queues", "--workloads", "-o", fmt, "--from", COHORT]) == 2
    assert "--workloads does nothing for -o " + fmt in capsys.readouterr().err


@pytest.mark.parametrize("setup", ["cohort-sharing", "mig-partitionable", "resourceclaimtemplate", "extended-resource"])
def test_json_is_the_documented_shape(capsys, setup):
    from output_schema import problems

    assert problems("queues", run_json(capsys, "--from", str(EXAMPLES / setup))) == []


def test_forbidden_cohorts_leave_what_the_tree_gives_unknown_not_zero(capsys):
    class NoCohorts(SnapshotView):
        def _list(self, kind, namespace, field_selector, label_selector):
            if kind.kind == "Cohort":
                raise errors.Forbidden("list", kind.resource, namespace, None, "someone")
            return super()._list(kind, namespace, field_selector, label_selector)

    doc = document(objects("cohort-sharing"), view_cls=NoCohorts)
    assert doc["partial"] is True and "cohorts.kueue.x-k8s.io" in doc["findings"][0]["message"]
    gpus = row(cq(doc, "team-b-cq"), "gpus")
    assert (gpus["maximumCapacity"], gpus["available"], gpus["reserved"]) == (None, None, "2")
    [pool] = doc["cohorts"]
    assert pool["cohortObject"] is None and pool["clusterQueues"] == ["team-a-cq", "team-b-cq"]
    assert {(r["nominalQuota"], r["subtreeQuota"]) for r in pool["resources"]} == {(None, None)}
    assert row(pool, "gpus")["reserved"] == "12"  # the queues' own status still adds up


def test_a_cluster_queue_outside_any_cohort_needs_no_cohorts():
    objs = objects("resourceclaimtemplate")
    doc = document(objs)
    assert row(cq(doc, "gpu-cq"), "whole-gpus")["maximumCapacity"] == "4"
