"""The counter path: the MIG world (partitionable devices consuming shared counter sets, stale and
incomplete pools, a mapping selector that fails on one device), the world of counters that do not
fit their counter sets, and their scenario sets."""

from __future__ import annotations

from testenv.builders import container, device, device_class, job, pod_spec, request, resource_slice, template
from testenv.oracle_scenarios.base import BASE_QUOTA, NV, V19, Scenario, World, _is


MIG = {"1g.5gb": ("4864Mi", "14"), "3g.20gb": ("19968Mi", "42"), "gpu": ("40192Mi", "98")}


def mig_slices() -> list[dict]:
    def mig(name, profile, cs="gpu-0-cs"):
        mem, sm = MIG[profile]
        return device(name, [(cs, {"memory": mem, "multiprocessors": sm})], type="mig", profile=profile)

    node_a_devices = [
        device("gpu-0", [("gpu-0-cs", {"memory": "40192Mi", "multiprocessors": "98"})], type="gpu", profile="gpu"),
        mig("gpu-0-mig-1g-0", "1g.5gb"), mig("gpu-0-mig-1g-1", "1g.5gb"), mig("gpu-0-mig-1g-2", "1g.5gb"),
        mig("gpu-0-mig-3g-0", "3g.20gb"),
        # a device that consumes from two counter sets: Kueue 0.19 takes the MAX over every entry
        device("gpu-0-mig-2g-0", [("gpu-0-cs", {"memory": "9856Mi", "multiprocessors": "28"}),
                                  ("gpu-0-aux-cs", {"memory": "12Gi"})], type="mig", profile="2g.10gb"),
    ]
    return [
        resource_slice("node-a-counters", NV, "node-a", slice_count=2, node="fake-node-a",
                       counter_sets={"gpu-0-cs": {"memory": "40192Mi", "multiprocessors": "98"},
                                     "gpu-0-aux-cs": {"memory": "16Gi"}}),
        resource_slice("node-a-devices", NV, "node-a", slice_count=2, node="fake-node-a", devices=node_a_devices),
        # node-b: incomplete (its counter slice is missing)
        resource_slice("node-b-devices", NV, "node-b", slice_count=2, node="fake-node-b", devices=[
            device("gpu-0-mig-4g-0", [("gpu-0-cs", {"memory": "20096Mi", "multiprocessors": "56"})],
                   type="mig", profile="4g.20gb")]),
        # node-c: generation 1 is stale; generation 2 has only a 1g.5gb
        resource_slice("node-c-counters-g1", NV, "node-c", generation=1, slice_count=2, node="fake-node-c",
                       counter_sets={"gpu-0-cs-g1": {"memory": "40192Mi", "multiprocessors": "98"}}),
        resource_slice("node-c-devices-g1", NV, "node-c", generation=1, slice_count=2, node="fake-node-c", devices=[
            device("gpu-0-mig-7g-0", [("gpu-0-cs-g1", {"memory": "40192Mi", "multiprocessors": "98"})],
                   type="mig", profile="7g.40gb")]),
        resource_slice("node-c-counters-g2", NV, "node-c", generation=2, slice_count=2, node="fake-node-c",
                       counter_sets={"gpu-0-cs-g2": {"memory": "40192Mi", "multiprocessors": "98"}}),
        resource_slice("node-c-devices-g2", NV, "node-c", generation=2, slice_count=2, node="fake-node-c", devices=[
            device("gpu-0-mig-1g-0", [("gpu-0-cs-g2", {"memory": "4864Mi", "multiprocessors": "14"})],
                   type="mig", profile="1g.5gb")]),
    ]


def mig_classes() -> list[list[dict]]:
    return [[device_class("mig.nvidia.com", _is(NV, "mig")),
             device_class("gpu.nvidia.com", _is(NV, "gpu")),
             device_class("mig-cores.nvidia.com", _is(NV, "mig")),
             device_class("mig-er.nvidia.com", _is(NV, "mig"), er="nvidia.com/mig"),
             device_class("mig-bad.nvidia.com", f"device.driver == '{NV}'")]]


MIG_BAD_SELECTOR = f"device.attributes['{NV}'].profile != 'gpu' || device.attributes['{NV}'].nosuch == 'x'"


def _counter(name: str, selector: str = f"device.driver == '{NV}'") -> dict:
    return {"counter": {"name": name, "driver": NV, "deviceSelector": {"cel": {"expression": selector}}}}


def mig_world(name: str, version: str = V19, gates: dict | None = None) -> World:
    mappings = [
        {"name": "gpu.memory", "deviceClassNames": ["mig.nvidia.com", "gpu.nvidia.com", "mig-er.nvidia.com",
                                                    "ghost-mig.nvidia.com"],  # no such DeviceClass
         "sources": [_counter("memory")]},
        {"name": "gpu.cores", "deviceClassNames": ["mig-cores.nvidia.com"], "sources": [_counter("cores")]},
        # a mapping selector that fails at run time on one device only (gpu-0, the whole GPU of node-a)
        {"name": "gpu.bad", "deviceClassNames": ["mig-bad.nvidia.com"], "sources": [_counter("memory", MIG_BAD_SELECTOR)]},
    ]
    if version >= "v0.19":  # one class under two counters: 0.19 only
        mappings.insert(1, {"name": "gpu.sm", "deviceClassNames": ["mig.nvidia.com"],
                            "sources": [_counter("multiprocessors")]})
    return World(name, version, mappings, gates or {}, mig_classes(), mig_slices())


def bad_counters_world(name: str) -> World:
    """Devices whose counters do not fit their pool's counter sets (issue 16 class 5), each of its
    own profile: consuming more than the set holds, a set no slice of the pool defines, a counter
    its set lacks. Kueue takes the MAX over every consumesCounters entry regardless."""
    def dev(name: str, profile: str, counter_set: str, counters: dict) -> dict:
        return device(name, [(counter_set, counters)], type="bad", profile=profile)

    slices = [
        resource_slice("node-d-counters", NV, "node-d", slice_count=2, node="fake-node-d",
                       counter_sets={"gpu-0-cs": {"memory": "40192Mi"}}),
        resource_slice("node-d-devices", NV, "node-d", slice_count=2, node="fake-node-d", devices=[
            dev("gpu-0-small", "small", "gpu-0-cs", {"memory": "4864Mi"}),
            dev("gpu-0-oversize", "oversize", "gpu-0-cs", {"memory": "200Gi"}),
            dev("gpu-0-ghost-set", "ghost-set", "no-such-cs", {"memory": "30Gi"}),
            dev("gpu-0-extra-counter", "extra-counter", "gpu-0-cs", {"memory": "9856Mi", "bogus": "1"}),
        ]),
    ]
    classes = [[device_class("bad.nvidia.com", _is(NV, "bad"))]]
    return World(name, V19, [{"name": "gpu.memory", "deviceClassNames": ["bad.nvidia.com"],
                              "sources": [_counter("memory")]}], {}, classes, slices)


def _bad_counter_scenarios(w: World) -> list[Scenario]:
    quota = {**BASE_QUOTA, "gpu.memory": "1Ti"}
    prof = lambda *p: " || ".join(f"device.attributes['{NV}'].profile == '{x}'" for x in p)  # noqa: E731
    return [
        Scenario(f"counters-{profiles[0]}", title, w, quota,
                 [template("bad", request("bad.nvidia.com", selector=prof(*profiles))),
                  job("train", pod_spec({"bad": "bad"}))], ["job/train"])
        for profiles, title in [
            (("oversize", "small"), "a device consuming more than its counter set holds sets the MAX"),
            (("ghost-set", "small"), "a device consuming a counter set no slice defines"),
            (("extra-counter", "small"), "a device consuming a counter its set does not define"),
        ]]


def _mig_scenarios(w: World, prefix: str = "") -> list[Scenario]:
    P = prefix
    mem = {**BASE_QUOTA, "gpu.memory": "1Ti", "gpu.sm": "10k"} if w.version >= "v0.19" else \
        {**BASE_QUOTA, "gpu.memory": "1Ti"}
    prof = lambda *p: " || ".join(f"device.attributes['{NV}'].profile == '{x}'" for x in p)  # noqa: E731
    S = Scenario
    return [
        S(P + "mig-one", "one 1g.5gb MIG slice (counter path)", w, mem,
          [template("mig-1g", request("mig.nvidia.com", selector=prof("1g.5gb"))),
           job("train", pod_spec({"mig": "mig-1g"}))], ["job/train"]),
        S(P + "mig-count", "count 2 of 1g.5gb, parallelism 2", w, mem,
          [template("mig-1g2", request("mig.nvidia.com", 2, selector=prof("1g.5gb"))),
           job("train", pod_spec({"mig": "mig-1g2"}), parallelism=2)], ["job/train"]),
        S(P + "mig-max", "selector matches 1g.5gb and 3g.20gb: the MAX is charged", w, mem,
          [template("mig-any", request("mig.nvidia.com", selector=prof("1g.5gb", "3g.20gb"))),
           job("train", pod_spec({"mig": "mig-any"}))], ["job/train"]),
        S(P + "mig-counter-sets", "a device consuming from two counter sets", w, mem,
          [template("mig-2g", request("mig.nvidia.com", selector=prof("2g.10gb"))),
           job("train", pod_spec({"mig": "mig-2g"}))], ["job/train"]),
        S(P + "mig-no-selector", "no request selector: every MIG device of the class", w, mem,
          [template("mig", request("mig.nvidia.com")), job("train", pod_spec({"mig": "mig"}))], ["job/train"]),
        S(P + "full-gpu", "a whole GPU of a counter-mapped class", w, mem,
          [template("gpu", request("gpu.nvidia.com")), job("train", pod_spec({"gpu": "gpu"}))], ["job/train"]),
        S(P + "mig-incomplete-pool", "the only matching device is in an incomplete pool", w, mem,
          [template("mig-4g", request("mig.nvidia.com", selector=prof("4g.20gb"))),
           job("train", pod_spec({"mig": "mig-4g"}))], ["job/train"], expect="inadmissible"),
        S(P + "mig-stale-pool", "the only matching device is in a stale pool generation", w, mem,
          [template("mig-7g", request("mig.nvidia.com", selector=prof("7g.40gb"))),
           job("train", pod_spec({"mig": "mig-7g"}))], ["job/train"], expect="inadmissible"),
        S(P + "counter-not-published", "the mapping's counter is not consumed by any device", w,
          {**mem, "gpu.cores": "100"},
          [template("cores", request("mig-cores.nvidia.com")), job("train", pod_spec({"c": "cores"}))],
          ["job/train"], expect="inadmissible"),
        S(P + "counter-class-missing", "a counter-mapped DeviceClass that does not exist", w, mem,
          [template("ghost", request("ghost-mig.nvidia.com")), job("train", pod_spec({"g": "ghost"}))],
          ["job/train"], expect="inadmissible"),
        S(P + "er-on-counter-class", "extended resource of a class with counter sources", w, mem,
          [job("train", pod_spec(containers=[container(requests={"nvidia.com/mig": "1"},
                                                       limits={"nvidia.com/mig": "1"})]))],
          ["job/train"], expect="inadmissible"),
        S(P + "mig-over-quota", "2 x 3g.20gb against 20Gi of gpu.memory", w, {**mem, "gpu.memory": "20Gi"},
          [template("mig-3g", request("mig.nvidia.com", selector=prof("3g.20gb"))),
           job("train", pod_spec({"mig": "mig-3g"}), parallelism=2)], ["job/train"], expect="pending"),
    ]


def _mig_cel_error_scenarios(w: World, prefix: str = "") -> list[Scenario]:
    return [Scenario(prefix + "cel-error-mapping-selector", "the mapping's counter deviceSelector fails on one "
                     "device (gpu-0)", w, {**BASE_QUOTA, "gpu.bad": "1Ti"},
                     [template("bad", request("mig-bad.nvidia.com")), job("train", pod_spec({"g": "bad"}))],
                     ["job/train"], expect="inadmissible")]
