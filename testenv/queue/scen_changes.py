"""Changes after admission: the record Kueue wrote at admission stands when the objects it was
computed from change afterwards (a DeviceClass deleted, a mapping renamed, a flavor relabelled or
tainted, the quota lowered). ``explain`` must show the recorded admission, not a rejection or a
waiting cause worked out from today's objects.

The DRA ones use the DeviceClass ``fpga.example.com`` of the devices world (mapped to
``example.com/accel``); the queue world is the devices world, so they run on the same Kueue.
Renaming a mapping restarts Kueue with another configuration, so that scenario has a world of its
own (``REMAP``).
"""

from __future__ import annotations

import copy

from testenv.builders import request, template
from testenv.oracle_scenarios import DEVICES_MAPPINGS
from testenv.queue.actions import Delete, Patch, Restart
from testenv.queue.model import QueueScenario, Step, admitted
from testenv.queue.objects import NS, flavor, group, job, pod, queue_spec, quota, taint

ACCEL = "example.com/accel"
FPGA = "fpga.example.com"
RENAMED = "example.com/accel-v2"


def _fpga_template() -> dict:
    t = template("fpga-1", request(FPGA))
    t["metadata"]["namespace"] = NS
    return t


def _dra(sid: str, title: str, step: Step) -> QueueScenario:
    cq = queue_spec(group(["cpu", ACCEL], quota("f", {"cpu": "4", ACCEL: "4"})))
    return QueueScenario(sid, title, "changes", cq, ["job/train"], [[job("train", pod(claims={"fpga": "fpga-1"}))]],
                         {"job/train": admitted(**{"cpu": "f", ACCEL: "f"})}, setup=[flavor("f"), _fpga_template()],
                         steps=[step], drift=True)


def remapped() -> list[dict]:
    """DEVICES_MAPPINGS with example.com/accel renamed."""
    out = copy.deepcopy(DEVICES_MAPPINGS)
    for m in out:
        if m["name"] == ACCEL:
            m["name"] = RENAMED
    return out


def scenarios() -> list[QueueScenario]:
    """The scenarios of the queue world (the remap one is ``remap_scenarios``)."""
    spot = {"instance": "spot"}
    return [
        _dra("deviceclass-deleted", f"admitted with a {FPGA} claim; then the DeviceClass is deleted",
             Step(f"delete DeviceClass {FPGA}", [Delete("deviceclasses.resource.k8s.io", FPGA, namespaced=False)],
                  {"job/train": admitted(**{"cpu": "f", ACCEL: "f"})})),
        QueueScenario("flavor-relabelled", "admitted on spot by nodeSelector; then the flavor's label changes",
                      "changes", queue_spec(group(["cpu"], quota("ondemand", {"cpu": "4"}), quota("spot", {"cpu": "4"}))),
                      ["job/train"], [[job("train", pod(node_selector=spot))]], {"job/train": admitted(cpu="spot")},
                      setup=[flavor("ondemand", {"instance": "on-demand"}), flavor("spot", spot)], drift=True,
                      steps=[Step("relabel flavor spot instance=preemptible",
                                  [Patch("resourceflavors.kueue.x-k8s.io", "{cq}-spot",
                                         {"spec": {"nodeLabels": {"instance": "preemptible"}}}, namespaced=False)],
                                  {"job/train": admitted(cpu="spot")})]),
        QueueScenario("flavor-tainted", "admitted on the only flavor; then the flavor gets a taint the pod does "
                      "not tolerate", "changes", queue_spec(group(["cpu"], quota("f", {"cpu": "4"}))), ["job/train"],
                      [[job("train")]], {"job/train": admitted(cpu="f")}, setup=[flavor("f")], drift=True,
                      steps=[Step("taint flavor f", [Patch("resourceflavors.kueue.x-k8s.io", "{cq}-f",
                                                           {"spec": {"nodeTaints": [taint("maintenance", "true")]}},
                                                           namespaced=False)],
                                  {"job/train": admitted(cpu="f")})]),
        QueueScenario("quota-lowered", "admitted with 2 cpu; then the ClusterQueue's quota drops to 1", "changes",
                      queue_spec(group(["cpu"], quota("f", {"cpu": "2"}))), ["job/train"], [[job("train", pod("2"))]],
                      {"job/train": admitted(cpu="f")}, setup=[flavor("f")], drift=True,
                      steps=[Step("lower the quota to 1 cpu", [Patch(
                          "clusterqueues.kueue.x-k8s.io", "{cq}",
                          {"spec": {"resourceGroups": [group(["cpu"], quota("f", {"cpu": "1"}))]}}, namespaced=False)],
                          {"job/train": admitted(cpu="f")})]),
    ]


def remap_scenarios(gates: dict[str, bool]) -> list[QueueScenario]:
    """``gates``: the world's Kueue gates, kept across the restart."""
    return [_dra("mapping-renamed", f"admitted with a {FPGA} claim charged as {ACCEL}; then Kueue restarts "
                 f"with the mapping renamed {RENAMED}",
                 Step(f"restart Kueue with {ACCEL} renamed {RENAMED}", [Restart(remapped(), dict(gates),
                                                                                    title=f"restart Kueue with the mapping renamed {RENAMED}")],
                      {"job/train": admitted(**{"cpu": "f", ACCEL: "f"})}))]
