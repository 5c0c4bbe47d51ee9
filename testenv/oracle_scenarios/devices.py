"""The devices world (DeviceClasses of the example.com drivers; ResourceSlices with a stale and an
incomplete pool) and its scenario sets: claims and extended resources, CEL runtime errors, and the
DRA feature gates."""

from __future__ import annotations

from testenv.builders import (
    container, device, device_class, job, pod_spec, request, resource_slice, template, workload,
)
from testenv.oracle_scenarios.base import ASIC, BASE_QUOTA, FPGA, GPU, GPU_Q, V19, Scenario, World, _is


def devices_classes() -> list[list[dict]]:
    return [
        [device_class("gpu.example.com", _is(GPU, "gpu")),
         device_class("fpga.example.com", _is(FPGA)),
         device_class("asic.example.com", _is(ASIC)),
         device_class("unmapped.example.com", _is(GPU, "gpu")),
         device_class("vgpu.example.com", _is(GPU, "gpu"), er="example.com/vgpu"),
         device_class("npu.example.com", _is(GPU, "gpu"), er="example.com/npu"),
         device_class("tpu-old.example.com", _is(GPU, "gpu"), er="example.com/tpu"),
         # a class whose own selector fails at run time on every device (no such attribute)
         device_class("badsel.example.com", f"device.attributes['{GPU}'].nosuch == 'x'")],
        # created later: the newest class with example.com/tpu; the tie pair in one request
        [device_class("tpu-new.example.com", _is(GPU, "gpu"), er="example.com/tpu"),
         device_class("tie-b.example.com", _is(GPU, "gpu"), er="example.com/tie"),
         device_class("tie-a.example.com", _is(GPU, "gpu"), er="example.com/tie")],
    ]


def devices_slices() -> list[dict]:
    gpus = [device(f"gpu-{i}", type="gpu", model=m) for i, m in enumerate(["a100", "a100", "h100", "h100"])]
    return [
        resource_slice("node-1-gpu", GPU, "node-1", devices=gpus),
        resource_slice("node-1-fpga", FPGA, "node-1", devices=[device(f"fpga-{i}") for i in range(2)]),
        resource_slice("node-1-asic", ASIC, "node-1", devices=[device(f"asic-{i}") for i in range(2)]),
        # node-2: generation 1 is stale (generation 2 replaced it), yet both slices still exist
        resource_slice("node-2-gpu-gen1", GPU, "node-2", node="fake-node-2", generation=1,
                       devices=[device(f"gpu-{i}", type="gpu", model="l40") for i in range(2)]),
        resource_slice("node-2-gpu-gen2", GPU, "node-2", node="fake-node-2", generation=2,
                       devices=[device("gpu-9", type="gpu", model="t4")]),
        # node-3: incomplete pool (two slices announced, one published)
        resource_slice("node-3-gpu-a", GPU, "node-3", node="fake-node-3", slice_count=2,
                       devices=[device("gpu-0", type="gpu", model="v100")]),
    ]


DEVICES_MAPPINGS = [
    {"name": "example.com/gpu", "deviceClassNames": ["gpu.example.com", "vgpu.example.com"]},
    {"name": "example.com/accel", "deviceClassNames": ["fpga.example.com", "asic.example.com"]},
    {"name": "example.com/tpu-quota", "deviceClassNames": ["tpu-old.example.com"]},
    {"name": "example.com/tie-b-quota", "deviceClassNames": ["tie-b.example.com"]},
]


def devices_world(name: str, version: str = V19, gates: dict | None = None,
                  mappings: list[dict] | None = None) -> World:
    return World(name, version, mappings if mappings is not None else DEVICES_MAPPINGS, gates or {},
                 devices_classes(), devices_slices())


def _devices_scenarios(w: World, prefix: str = "") -> list[Scenario]:
    P = prefix
    gpu1 = template("gpu-1", request("gpu.example.com"))
    gpu2 = template("gpu-2", request("gpu.example.com", 2))
    accel = {**BASE_QUOTA, "example.com/accel": "100"}
    all_q = {**BASE_QUOTA, "example.com/gpu": "100", "example.com/accel": "100"}
    S = Scenario
    return [
        S(P + "template-one", "1 device from a ResourceClaimTemplate", w, GPU_Q,
          [gpu1, job("train", pod_spec({"gpu": "gpu-1"}))], ["job/train"]),
        S(P + "template-count", "count 2 per claim, parallelism 3 (charge x pod count; cpu 100m x 3)", w, GPU_Q,
          [gpu2, job("train", pod_spec({"gpu": "gpu-2"}), parallelism=3)], ["job/train"]),
        S(P + "parallelism-completions", "parallelism 4, completions 2: min() pods", w, GPU_Q,
          [gpu1, job("train", pod_spec({"gpu": "gpu-1"}), parallelism=4, completions=2)], ["job/train"]),
        S(P + "classes-one-mapping", "two classes of one mapping in one claim (fpga 1 + asic 2)", w, accel,
          [template("accel", request("fpga.example.com", 1, name="f"), request("asic.example.com", 2, name="a")),
           job("train", pod_spec({"acc": "accel"}))], ["job/train"]),
        S(P + "two-claims", "two claims, two templates, two mappings", w, all_q,
          [gpu1, template("mixed", request("gpu.example.com", 2, name="g"), request("fpga.example.com", name="f")),
           job("train", pod_spec({"a": "gpu-1", "b": "mixed"}))], ["job/train"]),
        S(P + "same-template-twice", "one template named by two claims counts twice", w, GPU_Q,
          [gpu1, job("train", pod_spec({"a": "gpu-1", "b": "gpu-1"}), parallelism=2)], ["job/train"]),
        S(P + "several-podsets", "a Workload with two pod sets (1 x 1 GPU, 3 x 2 GPUs)", w, GPU_Q,
          [gpu1, gpu2, workload("ranks", [("driver", 1, pod_spec({"g": "gpu-1"})),
                                          ("workers", 3, pod_spec({"g": "gpu-2"}))])], ["workload/ranks"]),
        S(P + "init-containers", "init containers and a sidecar: cpu/memory as the scheduler sums them", w, GPU_Q,
          [gpu1, job("train", pod_spec(
              {"gpu": "gpu-1"},
              containers=[container("a", {"cpu": "500m", "memory": "1Gi"}, claims=["gpu"]),
                          container("b", {"cpu": "250m", "memory": "512Mi"})],
              init=[container("setup", {"cpu": "2", "memory": "256Mi"}),
                    container("proxy", {"cpu": "100m", "memory": "128Mi"}, restart_always=True)]),
              parallelism=2)], ["job/train"]),
        S(P + "cel-enough", "CEL selector, 2 of 2 matching devices", w, GPU_Q,
          [template("a100x2", request("gpu.example.com", 2, selector=f"device.attributes['{GPU}'].model == 'a100'")),
           job("train", pod_spec({"gpu": "a100x2"}))], ["job/train"]),
        S(P + "cel-two-requests", "two CEL requests of one class in one claim share the devices", w, GPU_Q,
          [template("two", request("gpu.example.com", 1, name="x", selector=f"device.attributes['{GPU}'].model == 'h100'"),
                    request("gpu.example.com", 1, name="y", selector=f"device.attributes['{GPU}'].model == 'h100'")),
           job("train", pod_spec({"gpu": "two"}))], ["job/train"]),
        S(P + "cel-too-few", "too few matching devices: 3 h100 requested, 2 exist", w, GPU_Q,
          [template("h100x3", request("gpu.example.com", 3, selector=f"device.attributes['{GPU}'].model == 'h100'")),
           job("train", pod_spec({"gpu": "h100x3"}))], ["job/train"], expect="inadmissible"),
        S(P + "cel-stale-pool", "CEL match only in a stale pool generation (counted, kueue#14573)", w, GPU_Q,
          [template("l40x2", request("gpu.example.com", 2, selector=f"device.attributes['{GPU}'].model == 'l40'")),
           job("train", pod_spec({"gpu": "l40x2"}))], ["job/train"]),
        S(P + "cel-incomplete-pool", "CEL match only in an incomplete pool (counted, kueue#14573)", w, GPU_Q,
          [template("v100", request("gpu.example.com", 1, selector=f"device.attributes['{GPU}'].model == 'v100'")),
           job("train", pod_spec({"gpu": "v100"}))], ["job/train"]),
        S(P + "er-mapped", "extended resource of a mapped class: charged under the mapping name", w,
          {**BASE_QUOTA, "example.com/gpu": "100"},
          [job("train", pod_spec(containers=[container(requests={"example.com/vgpu": "2"},
                                                       limits={"example.com/vgpu": "2"})]), parallelism=2)],
          ["job/train"]),
        S(P + "template-and-er", "one mapped class through a template and its extendedResourceName: summed", w,
          GPU_Q, [template("vgpu", request("vgpu.example.com", 2)),
                  job("train", pod_spec({"g": "vgpu"}, containers=[
                      container(requests={"example.com/vgpu": "1"}, limits={"example.com/vgpu": "1"},
                                claims=["g"])]))], ["job/train"]),
        S(P + "er-unmapped", "extended resource of an unmapped class: its own name", w,
          {**BASE_QUOTA, "example.com/npu": "100"},
          [job("train", pod_spec(containers=[container(requests={"example.com/npu": "1"},
                                                       limits={"example.com/npu": "1"})]), parallelism=3)],
          ["job/train"]),
        S(P + "er-init-containers", "extended resource: max(init 3, containers 1+1) x 2 pods", w,
          {**BASE_QUOTA, "example.com/npu": "100"},
          [job("train", pod_spec(
              containers=[container("a", {"example.com/npu": "1"}, {"example.com/npu": "1"}),
                          container("b", {"example.com/npu": "1"}, {"example.com/npu": "1"})],
              init=[container("setup", {"example.com/npu": "3"}, {"example.com/npu": "3"})]), parallelism=2)],
          ["job/train"]),
        S(P + "er-sidecar", "extended resource in a sidecar init container (not sidecar-aware)", w,
          {**BASE_QUOTA, "example.com/npu": "100"},
          [job("train", pod_spec(
              containers=[container("a", {"example.com/npu": "1"}, {"example.com/npu": "1"})],
              init=[container("proxy", {"example.com/npu": "1"}, {"example.com/npu": "1"}, restart_always=True)]))],
          ["job/train"]),
        S(P + "er-same-name", "two classes with one extendedResourceName: the newest wins", w,
          {**BASE_QUOTA, "example.com/tpu": "100", "example.com/tpu-quota": "100"},
          [job("train", pod_spec(containers=[container(requests={"example.com/tpu": "1"},
                                                       limits={"example.com/tpu": "1"})]))], ["job/train"]),
        S(P + "er-same-name-tie", "two classes with one extendedResourceName created together: smallest name",
          w, {**BASE_QUOTA, "example.com/tie": "100", "example.com/tie-b-quota": "100"},
          [job("train", pod_spec(containers=[container(requests={"example.com/tie": "2"},
                                                       limits={"example.com/tie": "2"})]))], ["job/train"]),
        S(P + "er-limits-only", "extended resource only in limits: not routed to DRA (kueue#14393)", w,
          {**BASE_QUOTA, "example.com/gpu": "100", "example.com/vgpu": "100"},
          [job("train", pod_spec(containers=[container(limits={"example.com/vgpu": "1"})]))], ["job/train"]),
        S(P + "er-fraction", "extended resource 1500m (a Workload; a Job would be refused)", w,
          {**BASE_QUOTA, "example.com/npu": "100"},
          [workload("frac", [("main", 1, pod_spec(containers=[container(requests={"example.com/npu": "1500m"})]))])],
          ["workload/frac"], expect="inadmissible"),
        S(P + "unmapped-class", "ResourceClaimTemplate of a class in no mapping", w, GPU_Q,
          [template("other", request("unmapped.example.com")), job("train", pod_spec({"gpu": "other"}))],
          ["job/train"], expect="inadmissible"),
        S(P + "first-available", "prioritized list (firstAvailable)", w, GPU_Q,
          [{**template("fa"), "spec": {"spec": {"devices": {"requests": [{"name": "dev", "firstAvailable": [
              {"name": "big", "deviceClassName": "gpu.example.com", "count": 2},
              {"name": "small", "deviceClassName": "gpu.example.com", "count": 1}]}]}}}},
           job("train", pod_spec({"gpu": "fa"}))], ["job/train"], expect="inadmissible"),
        S(P + "allocation-all", "allocationMode: All", w, GPU_Q,
          [template("all", request("gpu.example.com", mode="All")), job("train", pod_spec({"gpu": "all"}))],
          ["job/train"], expect="inadmissible"),
        S(P + "admin-access", "adminAccess: true", w, GPU_Q,
          [template("admin", request("gpu.example.com", admin=True)), job("train", pod_spec({"gpu": "admin"}))],
          ["job/train"], expect="inadmissible", namespace_labels={"resource.kubernetes.io/admin-access": "true"}),
        S(P + "direct-claim", "a ResourceClaim named directly (resourceClaimName)", w, GPU_Q,
          [job("train", pod_spec(direct={"gpu": "shared-gpu"}))], ["job/train"], expect="inadmissible"),
        S(P + "missing-template", "a claim names a ResourceClaimTemplate that does not exist", w, GPU_Q,
          [job("train", pod_spec({"gpu": "nope"}))], ["job/train"], expect="inadmissible"),
        S(P + "missing-device-class", "a CEL request for a DeviceClass that does not exist", w, GPU_Q,
          [template("ghost", request("ghost.example.com", selector="device.driver == 'gpu.example.com'")),
           job("train", pod_spec({"gpu": "ghost"}))], ["job/train"], expect="inadmissible"),
        S(P + "not-covered", "the ClusterQueue does not cover the mapping's resource", w, dict(BASE_QUOTA),
          [gpu1, job("train", pod_spec({"gpu": "gpu-1"}))], ["job/train"], expect="pending"),
        S(P + "over-quota", "needs 4 GPUs, the ClusterQueue has 2", w, {**BASE_QUOTA, "example.com/gpu": "2"},
          [gpu2, job("train", pod_spec({"gpu": "gpu-2"}), parallelism=2)], ["job/train"], expect="pending"),
        S(P + "quota-used", "two jobs of 3 GPUs, quota 4: one waits", w, {**BASE_QUOTA, "example.com/gpu": "4"},
          [template("gpu-3", request("gpu.example.com", 3)),
           job("first", pod_spec({"gpu": "gpu-3"})), job("second", pod_spec({"gpu": "gpu-3"}))],
          ["job/first", "job/second"], expect="one-pending"),
    ]


def _gate_scenarios(w_off: World, w_noreject: World, w_er_off: World) -> list[Scenario]:
    gpu1 = template("gpu-1", request("gpu.example.com"))
    return [
        Scenario("unmapped-class-observability", "UnadmittedWorkloadsObservability on: reason Misconfigured",
                 w_er_off, GPU_Q, [template("other", request("unmapped.example.com")),
                                   job("train", pod_spec({"gpu": "other"}))], ["job/train"], expect="inadmissible"),
        Scenario("dra-gate-off", "KueueDRAIntegration off: DRA workloads are rejected", w_off, GPU_Q,
                 [gpu1, job("train", pod_spec({"gpu": "gpu-1"}))], ["job/train"], expect="inadmissible"),
        Scenario("dra-gate-off-no-reject", "KueueDRAIntegration and the reject gate off: claims ignored",
                 w_noreject, GPU_Q, [gpu1, job("train", pod_spec({"gpu": "gpu-1"}))], ["job/train"]),
        Scenario("er-gate-off", "KueueDRAIntegrationExtendedResource off: the raw name is charged", w_er_off,
                 {**BASE_QUOTA, "example.com/vgpu": "100"},
                 [job("train", pod_spec(containers=[container(requests={"example.com/vgpu": "2"},
                                                              limits={"example.com/vgpu": "2"})]))], ["job/train"]),
    ]


# ------------------------------------------------------------------------ CEL runtime errors
def _cel_error_scenarios(w: World, prefix: str = "") -> list[Scenario]:
    P, S = prefix, Scenario
    return [
        S(P + "cel-error-request", "request selector reads an attribute no device has: Kueue's CEL error text",
          w, GPU_Q, [template("bad", request("gpu.example.com", selector=f"device.attributes['{GPU}'].nosuch == 'x'")),
                     job("train", pod_spec({"gpu": "bad"}))], ["job/train"], expect="inadmissible"),
        S(P + "cel-error-class", "the DeviceClass's own selector fails at run time", w,
          GPU_Q,
          [template("bad", request("badsel.example.com", selector=f"device.driver == '{GPU}'")),
           job("train", pod_spec({"gpu": "bad"}))], ["job/train"], expect="inadmissible"),
        S(P + "cel-allow-multiple", "device.allowMultipleAllocations == false: declared for Kueue too, and false", w,
          GPU_Q, [template("ama", request("gpu.example.com", selector="device.allowMultipleAllocations == false")),
                  job("train", pod_spec({"gpu": "ama"}))], ["job/train"]),
        S(P + "cel-not-bool", "request selector yields a string: cel-go's conversion error", w, GPU_Q,
          [template("str", request("gpu.example.com", selector=f"device.attributes['{GPU}'].model")),
           job("train", pod_spec({"gpu": "str"}))], ["job/train"], expect="inadmissible"),
    ]
