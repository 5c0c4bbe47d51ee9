"""The capacity path (alpha): shareable devices whose mapping charges a capacity, with its
requestPolicy (default, valid values), and its scenarios."""

from __future__ import annotations

from testenv.builders import device_class, job, pod_spec, request, resource_slice, template
from testenv.oracle_scenarios.base import BASE_QUOTA, V19, Scenario, World


# --------------------------------------------------------------------- the capacity path (alpha)
SHARE = "share.example.com"
CAPACITY_GATES = {"KueueDRAIntegrationConsumableCapacity": True}


def _capacity(name: str) -> dict:
    return {"capacity": {"name": name, "driver": SHARE, "deviceSelector": {"cel": {"expression": "true"}}}}


def capacity_world(name: str) -> World:
    """Shareable devices (allowMultipleAllocations) with a memory capacity and its requestPolicy."""
    def shared(i: int) -> dict:
        return {"name": f"share-{i}", "allowMultipleAllocations": True, "attributes": {"type": {"string": "share"}},
                "capacity": {"memory": {"value": "40Gi", "requestPolicy": {
                    "default": "10Gi", "validValues": ["10Gi", "20Gi", "40Gi"]}}}}

    mappings = [{"name": "gpu.share", "deviceClassNames": ["share.example.com"], "sources": [_capacity("memory")]},
                {"name": "gpu.nodim", "deviceClassNames": ["nodim.example.com"], "sources": [_capacity("bandwidth")]}]
    classes = [[device_class("share.example.com", f"device.driver == '{SHARE}'"),
                device_class("nodim.example.com", f"device.driver == '{SHARE}'")]]
    slices = [resource_slice("node-s-share", SHARE, "node-s", node="fake-node-s", devices=[shared(i) for i in range(2)])]
    return World(name, V19, mappings, dict(CAPACITY_GATES), classes, slices)


def _capacity_request(cls: str, memory: str | None = None) -> dict:
    r = request(cls)
    if memory:
        r["exactly"]["capacity"] = {"requests": {"memory": memory}}
    return r


def _capacity_scenarios(w: World) -> list[Scenario]:
    S = Scenario
    q = {**BASE_QUOTA, "gpu.share": "1Ti", "gpu.nodim": "1Ti"}
    return [
        S("capacity-rounded", "capacity request 15Gi rounded up to the valid value 20Gi", w, q,
          [template("c", _capacity_request("share.example.com", "15Gi")), job("train", pod_spec({"g": "c"}))],
          ["job/train"]),
        S("capacity-default", "no capacity request: the requestPolicy default (10Gi)", w, q,
          [template("c", _capacity_request("share.example.com")), job("train", pod_spec({"g": "c"}))],
          ["job/train"]),
        S("capacity-unsatisfiable", "capacity request 50Gi above every valid value: Kueue rejects it", w, q,
          [template("c", _capacity_request("share.example.com", "50Gi")), job("train", pod_spec({"g": "c"}))],
          ["job/train"], expect="inadmissible"),
        S("cel-allow-multiple-shared", "shareable devices, selector device.allowMultipleAllocations: Kueue's CEL "
          "device does not copy the field, so none matches", w, q,
          [template("c", request("share.example.com", selector="device.allowMultipleAllocations")),
           job("train", pod_spec({"g": "c"}))], ["job/train"], expect="inadmissible"),
        S("capacity-no-dimension", "the mapping's capacity (bandwidth) is published by no device", w, q,
          [template("c", _capacity_request("nodim.example.com")), job("train", pod_spec({"g": "c"}))],
          ["job/train"], expect="inadmissible"),
    ]
