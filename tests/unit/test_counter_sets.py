"""Devices whose counters do not fit their counter sets (issue 16 class 5): a set no slice of the
pool defines, a counter missing from its set, a consumption larger than the set. Kueue charges
the MAX over every entry regardless (v0.19.2 pkg/dra/counters.go), so the charge follows it; the
scheduler checks only defined counters, so the problem is a finding on the driver."""

import json
import shutil

import pytest
import yaml
from testenv.clirun import run

BASE = "examples/mig-partitionable"


def _mutated(tmp_path, change):
    snap = tmp_path / "snap"
    shutil.copytree(BASE, snap)
    path = snap / "resourceslices.yaml"
    docs = list(yaml.safe_load_all(path.read_text()))
    device = next(d for s in docs for d in s["spec"].get("devices") or [] if d.get("consumesCounters"))
    change(device["consumesCounters"][0])
    path.write_text(yaml.safe_dump_all(docs))
    return snap, device["name"]


CASES = {
    "undefined set": (lambda e: e.update(counterSet="no-such-set"), "consumes counter set no-such-set, which no"),
    "missing counter": (lambda e: e["counters"].update(bogus={"value": "1"}),
                        "consumes counter bogus, which counter set gpu-0-counter-set does not define"),
    "larger than the set": (lambda e: e["counters"].update(memory={"value": "200Gi"}),
                            "consumes 200Gi of counter memory from set gpu-0-counter-set, which holds 40192Mi"),
}


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_inconsistent_counters_are_a_finding_on_the_driver(tmp_path, case):
    change, words = case
    snap, device = _mutated(tmp_path, change)
    doc = json.loads(run("map", "--from", str(snap), "-o", "json").stdout)
    found = [f for f in doc["findings"] if f["code"] == "InconsistentCounterSets"]
    assert len(found) == 1, doc["findings"]
    assert "driver gpu.nvidia.com" in found[0]["message"] and f"device {device} of pool" in found[0]["message"]
    assert words in found[0]["message"], found[0]["message"]


def test_the_example_itself_is_consistent():
    doc = json.loads(run("map", "--from", BASE, "-o", "json").stdout)
    assert not [f for f in doc["findings"] if f["code"] == "InconsistentCounterSets"]
