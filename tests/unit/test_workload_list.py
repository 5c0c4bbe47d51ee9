"""``explain`` with no TYPE/NAME, offline on the documented examples: one line per Workload, sorted
like kubectl, and each listed document the very one ``explain workload/NAME`` gives."""

import json

import pytest
from testenv.clirun import run  # in process (tests/clirun.py)


def _json(*args: str) -> dict:
    proc = run("explain", "-o", "json", *args)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_list_items_are_the_single_explain_documents():
    listed = _json("-A", "--from", "examples/resourceclaimtemplate")
    assert listed["kind"] == "List"
    names = [(d["summary"]["namespace"], d["summary"]["name"]) for d in listed["items"]]
    assert names == [("team-a", "job-batch-infer-b3c42"), ("team-a", "job-train-llm-a1c41")]
    for item in listed["items"]:
        single = _json(f"workload/{item['summary']['name']}", "-n", item["summary"]["namespace"],
                       "--from", "examples/resourceclaimtemplate")
        assert {k: v for k, v in item.items() if k != "summary"} == single


def test_summary_carries_state_charge_and_reason():
    items = {d["summary"]["name"]: d["summary"] for d in
             _json("-n", "team-a", "--from", "examples/resourceclaimtemplate")["items"]}
    assert items["job-train-llm-a1c41"] == {
        "namespace": "team-a", "name": "job-train-llm-a1c41", "owner": "job/train-llm",
        "localQueue": "gpu-queue", "clusterQueue": "gpu-cq", "flavors": ["default-flavor"],
        "flavorsSource": "recorded", "state": "Admitted",
        "draCharge": {"whole-gpus": "4"}, "reason": "Admitted"}
    pending = items["job-batch-infer-b3c42"]
    assert (pending["state"], pending["draCharge"], pending["reason"]) == \
        ("Pending", {"whole-gpus": "1"}, "QuotaExhausted")


def test_table_one_line_each_and_queue_filters():
    proc = run("explain", "-A", "--from", "examples/mig-partitionable")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].split()[:3] == ["NAMESPACE", "NAME", "OWNER"]
    assert [line.split()[1] for line in lines[1:]] == ["job-notebook-eval-d2c61", "job-pretrain-3a271"]
    assert "gpu.memory=80384Mi" in lines[2]
    assert _json("-A", "--cluster-queue", "nope", "--from", "examples/mig-partitionable")["items"] == []
    assert len(_json("-A", "--local-queue", "research", "--from", "examples/mig-partitionable")["items"]) == 2
    empty = run("explain", "-n", "nobody-here", "--from", "examples/mig-partitionable")
    assert (empty.returncode, empty.stdout.strip()) == (0, "No workloads found.")


@pytest.mark.parametrize("args", [["job/x", "--cluster-queue", "cq"], ["-f", "x.yaml", "--local-queue", "lq"]])
def test_queue_filters_only_go_with_a_list(args):
    proc = run("explain", *args, "--from", "examples/mig-partitionable")
    assert proc.returncode == 2 and "select the workloads to list" in proc.stderr
