"""What Kueue does to a pod's requests before the DRA charge: LimitRange defaults, RuntimeClass
overhead and pod-level resources (the adjust world), partial admission, and the configured resource
transformations (the transformations world)."""

from __future__ import annotations

import copy

from testenv.builders import (
    container, job, limit_range, partial_job, pod_spec, request, runtime_class, template, workload,
)
from testenv.oracle_scenarios.base import BASE_QUOTA, GPU_Q, V19, Scenario, World
from testenv.oracle_scenarios.devices import devices_world


# ----------------------------------------- before the DRA charge: adjustment, transformations, partial
def adjust_world(name: str, version: str = V19, gates: dict | None = None) -> World:
    """The devices world (same Kueue configuration: no restart) with RuntimeClasses."""
    w = devices_world(name, version, gates)
    w.cluster_objects = [runtime_class("kata", {"cpu": "250m", "memory": "160Mi"}),
                         runtime_class("runc-plain", None)]
    return w


CONTAINER_DEFAULTS = {"type": "Container", "default": {"cpu": "1", "memory": "1Gi"},
                      "defaultRequest": {"cpu": "300m", "memory": "256Mi"}}


def _adjust_scenarios(w: World, prefix: str = "") -> list[Scenario]:
    P, S = prefix, Scenario
    gpu1 = template("gpu-1", request("gpu.example.com"))
    bare = container("main", claims=["gpu"])  # no requests, no limits
    return [
        S(P + "lr-container-defaults", "LimitRange defaultRequest for a container without requests (x2 pods)",
          w, GPU_Q, [limit_range("defaults", CONTAINER_DEFAULTS), gpu1,
                     job("train", pod_spec({"gpu": "gpu-1"}, containers=[bare]), parallelism=2)], ["job/train"]),
        S(P + "lr-partly-set", "LimitRange defaults only what a container lacks (cpu set, memory defaulted)", w,
          GPU_Q, [limit_range("defaults", CONTAINER_DEFAULTS), gpu1,
                  job("train", pod_spec({"gpu": "gpu-1"}, containers=[
                      container("main", requests={"cpu": "800m"}, claims=["gpu"]), container("side")]))],
          ["job/train"]),
        S(P + "lr-default-limit-below-request", "a LimitRange default limit below the container's request: Kueue's "
          "resource validation keeps it waiting", w, GPU_Q,
          [limit_range("defaults", CONTAINER_DEFAULTS), gpu1,
           job("train", pod_spec({"gpu": "gpu-1"}, containers=[container("main", requests={"cpu": "2"},
                                                                         claims=["gpu"])]))],
          ["job/train"], expect="pending"),
        S(P + "lr-above-max", "a request above the LimitRange max (container and pod)", w, GPU_Q,
          [limit_range("bounds", {"type": "Container", "max": {"memory": "1Gi"}}, {"type": "Pod", "max": {"cpu": "1"}}),
           gpu1, job("train", pod_spec({"gpu": "gpu-1"}, containers=[
               container("main", requests={"cpu": "800m", "memory": "2Gi"}, limits={"memory": "2Gi"}, claims=["gpu"]),
               container("side", requests={"cpu": "800m"})]))], ["job/train"], expect="pending"),
        S(P + "lr-default-limit-only", "LimitRange with only a default limit: the API server makes it the "
          "default request", w, GPU_Q,
          [limit_range("limits", {"type": "Container", "default": {"cpu": "700m", "memory": "512Mi"}}), gpu1,
           job("train", pod_spec({"gpu": "gpu-1"}, containers=[bare]))], ["job/train"]),
        S(P + "lr-max-only", "LimitRange with only a max: default limit and request = max", w, GPU_Q,
          [limit_range("max", {"type": "Container", "max": {"memory": "768Mi"}}), gpu1,
           job("train", pod_spec({"gpu": "gpu-1"}, containers=[container("main", requests={"cpu": "1"},
                                                                         claims=["gpu"])]))], ["job/train"]),
        S(P + "lr-request-before-limit", "init container with a limit only: the LimitRange default request "
          "wins over the limit", w, GPU_Q,
          [limit_range("defaults", CONTAINER_DEFAULTS), gpu1,
           job("train", pod_spec({"gpu": "gpu-1"}, containers=[bare],
                                 init=[container("setup", limits={"cpu": "4", "memory": "4Gi"})]))],
          ["job/train"]),
        S(P + "lr-two-ranges", "two LimitRanges: one defaults cpu, the other memory (and a Pod max)", w, GPU_Q,
          [limit_range("a-cpu", {"type": "Container", "defaultRequest": {"cpu": "150m"}}),
           limit_range("b-mem", {"type": "Container", "defaultRequest": {"memory": "300Mi"}},
                       {"type": "Pod", "max": {"cpu": "50"}}),
           gpu1, job("train", pod_spec({"gpu": "gpu-1"}, containers=[bare]))], ["job/train"]),
        S(P + "lr-extended-resource", "LimitRange defaults example.com/vgpu (a mapped class's extendedResourceName): "
          "with a claim in the pod Kueue's DRA step routes it to the mapping, summed with the claim", w,
          {**GPU_Q, "example.com/vgpu": "100"},
          [limit_range("vgpu", {"type": "Container", "default": {"example.com/vgpu": "1"},
                                "defaultRequest": {"example.com/vgpu": "1"}}), gpu1,
           job("train", pod_spec({"gpu": "gpu-1"}, containers=[container("main", requests={"cpu": "1"},
                                                                         claims=["gpu"])]), parallelism=2)],
          ["job/train"]),
        S(P + "lr-extended-resource-no-claim", "the same LimitRange default without a claim: Kueue decides on DRA "
          "before the defaults, so example.com/vgpu is charged under its own name", w,
          {**GPU_Q, "example.com/vgpu": "100"},
          [limit_range("vgpu", {"type": "Container", "default": {"example.com/vgpu": "1"},
                                "defaultRequest": {"example.com/vgpu": "1"}}),
           job("train", pod_spec(containers=[container("main", requests={"cpu": "1"})]), parallelism=2)],
          ["job/train"]),
        S(P + "runtime-class-overhead", "RuntimeClass overhead.podFixed added per pod (x3 pods)", w, GPU_Q,
          [gpu1, job("train", dict(pod_spec({"gpu": "gpu-1"}), runtimeClassName="kata"), parallelism=3)],
          ["job/train"]),
        S(P + "runtime-class-no-overhead", "a RuntimeClass without overhead, and one that does not exist", w,
          GPU_Q, [gpu1, job("plain", dict(pod_spec({"gpu": "gpu-1"}), runtimeClassName="runc-plain")),
                  job("ghost", dict(pod_spec({"gpu": "gpu-1"}), runtimeClassName="no-such-class"))],
          ["job/plain", "job/ghost"]),
        S(P + "runtime-class-and-lr", "RuntimeClass overhead and LimitRange defaults together", w, GPU_Q,
          [limit_range("defaults", CONTAINER_DEFAULTS), gpu1,
           job("train", dict(pod_spec({"gpu": "gpu-1"}, containers=[bare]), runtimeClassName="kata"),
               parallelism=2)], ["job/train"]),
        S(P + "pod-level-limits", "pod-level resources with limits only: used as the pod's requests", w, GPU_Q,
          [limit_range("defaults", CONTAINER_DEFAULTS), gpu1,
           job("train", dict(pod_spec({"gpu": "gpu-1"}, containers=[bare]),
                             resources={"limits": {"cpu": "3", "memory": "3Gi"}}))], ["job/train"]),
    ]


def _partial_scenarios(w: World, prefix: str = "") -> list[Scenario]:
    P, S = prefix, Scenario
    gpu1 = template("gpu-1", request("gpu.example.com"))
    one_cpu = container("main", requests={"cpu": "1"}, claims=["gpu"])
    return [
        S(P + "partial-admitted", "4 pods, minCount 2, quota for 3 GPUs: admitted with 3", w,
          {**BASE_QUOTA, "example.com/gpu": "3"},
          [gpu1, partial_job("train", pod_spec({"gpu": "gpu-1"}, containers=[one_cpu]), 4, 2)], ["job/train"]),
        S(P + "partial-pending", "4 pods, minCount 3, quota for 2 GPUs: even the minimum does not fit", w,
          {**BASE_QUOTA, "example.com/gpu": "2"},
          [gpu1, partial_job("train", pod_spec({"gpu": "gpu-1"}, containers=[one_cpu]), 4, 3)], ["job/train"],
          expect="pending"),
        S(P + "partial-podsets", "a Workload: driver 1 pod + workers 6 pods (minCount 2), quota for 5 GPUs", w,
          {**BASE_QUOTA, "example.com/gpu": "5"},
          [gpu1, _partial_workload("train", pod_spec({"gpu": "gpu-1"}, containers=[one_cpu]))],
          ["workload/train"]),
    ]


def _partial_workload(name: str, spec: dict) -> dict:
    wl = workload(name, [("driver", 1, spec), ("workers", 6, spec)])
    wl["spec"]["podSets"][1]["minCount"] = 2
    return wl


TRANSFORMATIONS = {"resources": {
    "excludeResourcePrefixes": ["example.org/"],
    "transformations": [
        {"input": "example.com/legacy-gpu", "strategy": "Replace", "outputs": {"example.com/gpu": "1"}},
        {"input": "example.com/vslice", "strategy": "Retain", "multiplyBy": "example.com/slots",
         "outputs": {"example.com/credits": "3"}},
        {"input": "example.com/mem-unit", "strategy": "Replace",
         "outputs": {"memory": "512Mi", "cpu": "250m"}},
    ]}}


def transform_world(name: str, version: str = V19, gates: dict | None = None) -> World:
    w = devices_world(name, version, gates)
    w.config = copy.deepcopy(TRANSFORMATIONS)
    return w


def _transform_scenarios(w: World, prefix: str = "") -> list[Scenario]:
    P, S = prefix, Scenario
    gpu2 = template("gpu-2", request("gpu.example.com", 2))

    vslices = {"example.com/vslice": "2", "example.com/slots": "4"}

    credits = {**BASE_QUOTA, "example.com/credits": "1k", "example.com/vslice": "100", "example.com/slots": "100"}
    return [
        S(P + "tf-replace", "transformation Replace: legacy-gpu 2 → 2 example.com/gpu (x2 pods)", w, GPU_Q,
          [job("train", pod_spec(containers=[container(requests={"cpu": "1", "example.com/legacy-gpu": "2"},
                                                       limits={"example.com/legacy-gpu": "2"})]), parallelism=2)],
          ["job/train"]),
        S(P + "tf-replace-plus-dra", "transformation output and a DRA claim charge the same resource: summed",
          w, GPU_Q,
          [gpu2, job("train", pod_spec({"gpu": "gpu-2"}, containers=[
              container(requests={"cpu": "1", "example.com/legacy-gpu": "1"}, limits={"example.com/legacy-gpu": "1"},
                        claims=["gpu"])]))], ["job/train"]),
        S(P + "tf-retain-multiply", "Retain with multiplyBy: vslice 2 × slots 4 × 3 credits, vslice kept", w,
          credits,
          [job("train", pod_spec(containers=[container(requests={"cpu": "100m", **vslices}, limits=vslices)]))],
          ["job/train"]),
        S(P + "tf-output-adds-to-request", "outputs memory/cpu add to what the pod requests under those names", w,
          GPU_Q,
          [gpu2, job("train", pod_spec({"gpu": "gpu-2"}, containers=[
              container(requests={"cpu": "1", "memory": "1Gi", "example.com/mem-unit": "3"},
                        limits={"example.com/mem-unit": "3"}, claims=["gpu"])]), parallelism=2)], ["job/train"]),
        S(P + "tf-exclude-prefix", "excludeResourcePrefixes: example.org/ is not charged (not even covered)", w,
          GPU_Q,
          [gpu2, job("train", pod_spec({"gpu": "gpu-2"}, containers=[
              container(requests={"cpu": "500m", "example.org/licence": "2"}, limits={"example.org/licence": "2"},
                        claims=["gpu"])]))], ["job/train"]),
    ]
