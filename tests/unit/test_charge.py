"""The charge engine on fixtures: every path, every rejection with Kueue's exact message."""

import copy

import pytest

from kubectl_kueue_dra.kueue.charge import ChargeEngine, ChargeInputs, format_usage
from kubectl_kueue_dra.kueue.config.mappings import parse_mappings
from kubectl_kueue_dra.kueue.install.semantics import DRAGates, Semantics
from kubectl_kueue_dra.kueue.workloads.podsets import PodSet

DRIVER = "gpu.example.com"
CLASS_SEL = f"device.driver == '{DRIVER}'"


def dc(name, selector=CLASS_SEL, ern=None, created="2026-01-01T00:00:00Z"):
    spec = {"selectors": [{"cel": {"expression": selector}}] if selector else []}
    if ern:
        spec["extendedResourceName"] = ern
    return {"metadata": {"name": name, "creationTimestamp": created}, "spec": spec}


def device(name, profile=None, memory=None):
    d = {"name": name, "attributes": {"type": {"string": "mig" if profile else "gpu"}}}
    if profile:
        d["attributes"]["profile"] = {"string": profile}
    if memory:
        d["consumesCounters"] = [{"counterSet": "gpu-0-cs", "counters": {"memory": {"value": memory}}}]
    return d


def rslice(name, devices, pool="node-1", generation=1, count=1, driver=DRIVER):
    return {"metadata": {"name": name},
            "spec": {"driver": driver, "pool": {"name": pool, "generation": generation, "resourceSliceCount": count},
                     "devices": devices}}


def template(name, *requests):
    return {"metadata": {"name": name}, "spec": {"spec": {"devices": {"requests": list(requests)}}}}


def exact(dc_name, count=1, selector=None, **extra):
    e = {"deviceClassName": dc_name, "allocationMode": "ExactCount", "count": count}
    if selector:
        e["selectors"] = [{"cel": {"expression": selector}}]
    e.update(extra)
    return {"name": "req", "exactly": e}


def pod(containers=None, claims=None, init=None):
    spec = {"containers": containers or [{"name": "main", "resources": {"requests": {"cpu": "1"}}}]}
    if claims:
        spec["resourceClaims"] = claims
    if init:
        spec["initContainers"] = init
    return {"spec": spec}


def claim(name="gpu", tpl=None, direct=None):
    c = {"name": name}
    if tpl:
        c["resourceClaimTemplateName"] = tpl
    if direct:
        c["resourceClaimName"] = direct
    return c


def run(podsets, *, mappings=(), classes=(), templates=(), slices=(), gates=DRAGates(), version="0.19.2"):
    inputs = ChargeInputs(namespace="ns", semantics=Semantics.for_version(version), gates=gates,
                          mappings=parse_mappings(list(mappings)), device_classes=list(classes),
                          claim_templates={t["metadata"]["name"]: t for t in templates}, slices=list(slices))
    return ChargeEngine(inputs).compute(podsets), inputs


GPU_MAPPING = {"name": "example.com/gpu", "deviceClassNames": ["gpu.example.com"]}
CP = "spec.podSets[0].template.spec.resourceClaims[0]"


# ---- path A: ResourceClaimTemplates ---------------------------------------------------------------

def test_template_count_times_podset_count():
    res, _ = run([PodSet("main", 3, pod(claims=[claim(tpl="two")]))], mappings=[GPU_MAPPING],
                 classes=[dc("gpu.example.com")], templates=[template("two", exact("gpu.example.com", 2))])
    assert not res.rejected
    ps = res.podsets[0]
    assert ps.per_pod["example.com/gpu"] == 2
    assert ps.total == {"cpu": 3000, "example.com/gpu": 6}
    line = next(ln for ln in ps.lines if ln.kind == "claimTemplate")
    assert (line.template, line.device_class, line.mapping, line.per_pod) == \
        ("two", "gpu.example.com", "example.com/gpu", 2)


def test_same_template_twice_counts_twice_and_defaults_apply():
    raw = template("one", {"name": "r", "exactly": {"deviceClassName": "gpu.example.com"}})  # no mode, no count
    res, _ = run([PodSet("main", 1, pod(claims=[claim("a", "one"), claim("b", "one")]))],
                 mappings=[GPU_MAPPING], classes=[dc("gpu.example.com")], templates=[raw])
    assert res.podsets[0].per_pod["example.com/gpu"] == 2


def test_unmapped_class_exact_message():
    res, _ = run([PodSet("main", 1, pod(claims=[claim(tpl="t")]))], mappings=[GPU_MAPPING],
                 templates=[template("t", exact("unmapped.example.com"))])
    assert res.message == (f"{CP}.resourceClaimTemplateName: Not found: \"DeviceClass unmapped.example.com is "
                           "not mapped in DRA configuration for podset main\"")
    assert res.failed_step == "claim-templates" and not res.retried


def test_missing_template_exact_message():
    res, _ = run([PodSet("main", 1, pod(claims=[claim(tpl="missing-template")]))], mappings=[GPU_MAPPING])
    assert res.message == (f"{CP}: Internal error: failed to get claim spec for ResourceClaimTemplate "
                           "missing-template in podset main: ResourceClaimTemplate.resource.k8s.io "
                           "\"missing-template\" not found")  # the informer cache's NotFound text
    assert res.retried


@pytest.mark.parametrize("request_,expected", [
    ({"name": "r", "firstAvailable": [{"name": "a", "deviceClassName": "gpu.example.com"}]},
     f"{CP}.devices.requests[0]: Invalid value: null: ResourceClaimTemplate t: FirstAvailable device selection "
     "is not supported"),
    (exact("gpu.example.com", adminAccess=True),
     f"{CP}.devices.requests[0].exactly.adminAccess: Invalid value: null: ResourceClaimTemplate t: AdminAccess "
     "is not supported"),
    ({"name": "r", "exactly": {"deviceClassName": "gpu.example.com", "allocationMode": "All"}},
     f"{CP}.devices.requests[0].exactly.allocationMode: Invalid value: \"All\": ResourceClaimTemplate t: "
     "AllocationMode 'All' is not supported"),
])
def test_unsupported_requests_exact_messages(request_, expected):
    res, _ = run([PodSet("main", 1, pod(claims=[claim(tpl="t")]))], mappings=[GPU_MAPPING],
                 classes=[dc("gpu.example.com")], templates=[template("t", request_)])
    assert res.message == expected
    assert res.requeued_message == expected


def test_direct_resource_claim_rejected():
    res, _ = run([PodSet("main", 1, pod(claims=[claim(direct="my-claim")]))], mappings=[GPU_MAPPING])
    assert res.message == "KueueDRAIntegration feature does not support use of resource claims"
    assert res.requeued_message == "DRA resource claims not supported"


def test_dra_gate_off_rejects_or_ignores():
    ps = [PodSet("main", 1, pod(claims=[claim(tpl="t")]))]
    res, _ = run(ps, gates=DRAGates(dra=False))
    assert res.message == "Workload uses DRA resources but the KueueDRAIntegration feature gate is not enabled"
    res, _ = run(ps, gates=DRAGates(dra=False, reject_when_disabled=False),
                 templates=[template("t", exact("gpu.example.com"))], mappings=[GPU_MAPPING])
    assert not res.rejected and res.podsets[0].total == {"cpu": 1000}
    assert any(n.code.name == "DRAIgnored" for n in res.notes)


def test_cel_availability_check_insufficient_devices():
    slices = [rslice("s", [device("mig-0", "1g.5gb"), device("mig-1", "1g.5gb")])]
    sel = f"device.attributes['{DRIVER}'].profile == '3g.20gb'"
    res, _ = run([PodSet("main", 1, pod(claims=[claim(tpl="mig-nonexistent-obs")]))],
                 mappings=[{"name": "mig", "deviceClassNames": ["mig.example.com"]}],
                 classes=[dc("mig.example.com")], slices=slices,
                 templates=[template("mig-nonexistent-obs", exact("mig.example.com", 1, sel))])
    assert res.message == (f"{CP}.devices.requests[0].exactly.selectors: Internal error: ResourceClaimTemplate "
                           "mig-nonexistent-obs: insufficient matching devices for CEL selector in DeviceClass "
                           "mig.example.com: 0 device(s) match in the cluster but 1 requested")
    assert res.retried


def test_cel_availability_passes_and_counts_distinct_devices():
    slices = [rslice("s", [device("mig-0", "1g.5gb"), device("mig-1", "1g.5gb")])]
    sel = f"device.attributes['{DRIVER}'].profile == '1g.5gb'"
    t = template("t", exact("mig.example.com", 2, sel))
    mapping = [{"name": "mig", "deviceClassNames": ["mig.example.com"]}]
    res, _ = run([PodSet("main", 1, pod(claims=[claim(tpl="t")]))], mappings=mapping,
                 classes=[dc("mig.example.com")], slices=slices, templates=[t])
    assert not res.rejected and res.podsets[0].per_pod["mig"] == 2
    t3 = template("t", exact("mig.example.com", 3, sel))
    res, _ = run([PodSet("main", 1, pod(claims=[claim(tpl="t")]))], mappings=mapping,
                 classes=[dc("mig.example.com")], slices=slices, templates=[t3])
    assert "2 device(s) match in the cluster but 3 requested" in res.message


def test_request_selector_that_does_not_compile():
    res, _ = run([PodSet("main", 1, pod(claims=[claim(tpl="t")]))], mappings=[GPU_MAPPING],
                 classes=[dc("gpu.example.com")], templates=[template("t", exact("gpu.example.com", 1, "device.("))])
    assert res.message.startswith(f"{CP}.devices.requests[0].exactly.selectors: Invalid value: null: "
                                  "ResourceClaimTemplate t: devices.requests[0].exactly.selectors[0].cel.expression: "
                                  "Invalid value: \"device.(\": CEL compilation failed")


def test_class_missing_for_cel_request():
    res, _ = run([PodSet("main", 1, pod(claims=[claim(tpl="t")]))], mappings=[GPU_MAPPING],
                 templates=[template("t", exact("gpu.example.com", 1, "true"))])
    assert res.message == (f"{CP}.devices.requests[0]: Internal error: ResourceClaimTemplate t: failed to get "
                           "DeviceClass gpu.example.com: DeviceClass.resource.k8s.io \"gpu.example.com\" not found")


# ---- path B: extended resources ----------------------------------------------------------------

def er_pod(init=None, containers=None):
    return pod(containers=containers, init=init)


def test_extended_resource_init_max_vs_sum_and_raw_name_removed():
    containers = [{"name": "a", "resources": {"requests": {"example.com/gpu": "1", "cpu": "1"}}},
                  {"name": "b", "resources": {"requests": {"example.com/gpu": "1"}}}]
    init = [{"name": "i", "resources": {"requests": {"example.com/gpu": "3"}}}]
    res, _ = run([PodSet("main", 2, er_pod(init, containers))], classes=[dc("gpu.example.com", ern="example.com/gpu")])
    ps = res.podsets[0]
    assert ps.total == {"cpu": 2000, "example.com/gpu": 6}
    mapped, _ = run([PodSet("main", 2, er_pod(init, containers))],
                    classes=[dc("gpu.example.com", ern="example.com/gpu")],
                    mappings=[{"name": "gpus", "deviceClassNames": ["gpu.example.com"]}])
    assert mapped.podsets[0].total == {"cpu": 2000, "gpus": 6}  # the raw name is gone
    assert mapped.podsets[0].replaced == ["example.com/gpu"]


def test_extended_resource_not_integer():
    containers = [{"name": "a", "resources": {"requests": {"example.com/gpu": "1500m"}}}]
    res, _ = run([PodSet("main", 1, er_pod(containers=containers))],
                 classes=[dc("gpu.example.com", ern="example.com/gpu")])
    assert res.message == ("spec.podSets[0].template.spec.containers[0].resources.requests.example.com/gpu: "
                           "Invalid value: \"1500m\": extended resource quantity must be an integer")


def test_extended_resource_on_counter_class_rejected():
    containers = [{"name": "a", "resources": {"requests": {"nvidia.com/mig-1g.5gb": "1"}}}]
    mapping = {"name": "gpu.memory", "deviceClassNames": ["mig.example.com"],
               "sources": [{"counter": {"name": "memory", "driver": DRIVER,
                                        "deviceSelector": {"cel": {"expression": "true"}}}}]}
    res, _ = run([PodSet("main", 1, er_pod(containers=containers))], mappings=[mapping],
                 classes=[dc("mig.example.com", ern="nvidia.com/mig-1g.5gb")])
    assert res.message == ("spec.podSets[0].template.spec.containers[0]: Invalid value: \"nvidia.com/mig-1g.5gb\": "
                           "extended resource nvidia.com/mig-1g.5gb resolves to DeviceClass mig.example.com with "
                           "counters configured; use ResourceClaimTemplates with CEL selectors for counter-based quota")


def test_extended_resource_picks_newest_class():
    containers = [{"name": "a", "resources": {"requests": {"example.com/gpu": "1"}}}]
    classes = [dc("old.example.com", ern="example.com/gpu", created="2026-01-01T00:00:00Z"),
               dc("new.example.com", ern="example.com/gpu", created="2026-06-01T00:00:00Z")]
    mappings = [{"name": "old-gpus", "deviceClassNames": ["old.example.com"]},
                {"name": "new-gpus", "deviceClassNames": ["new.example.com"]}]
    res, _ = run([PodSet("main", 1, er_pod(containers=containers))], classes=classes, mappings=mappings)
    assert res.podsets[0].total.get("new-gpus") == 1 and "old-gpus" not in res.podsets[0].total


@pytest.mark.parametrize("version,charged", [("0.19.2", "example.com/tpu"), ("0.18.5", "example.com/tpu"),
                                             ("0.18.4", "tpu-quota"), ("0.19.0", "tpu-quota")])
def test_extended_resource_class_choice_by_version(version, charged):
    """Seen on the real Kueue (oracle 0.18/er-same-name): before 0.18.5 (and in 0.19.0) the first
    mapped class wins over the newest unmapped one."""
    containers = [{"name": "a", "resources": {"requests": {"example.com/tpu": "1"}}}]
    classes = [dc("tpu-old.example.com", ern="example.com/tpu", created="2026-01-01T00:00:00Z"),
               dc("tpu-new.example.com", ern="example.com/tpu", created="2026-06-01T00:00:00Z")]
    mappings = [{"name": "tpu-quota", "deviceClassNames": ["tpu-old.example.com"]}]
    res, _ = run([PodSet("main", 1, er_pod(containers=containers))], classes=classes, mappings=mappings,
                 version=version)
    assert res.podsets[0].total == {charged: 1}


def test_limits_only_extended_resource_charged_under_raw_name():
    containers = [{"name": "a", "resources": {"limits": {"example.com/gpu": "2"}}}]
    res, _ = run([PodSet("main", 1, er_pod(containers=containers))],
                 classes=[dc("gpu.example.com", ern="example.com/gpu")],
                 mappings=[{"name": "gpus", "deviceClassNames": ["gpu.example.com"]}])
    assert res.podsets[0].total == {"example.com/gpu": 2}
    assert any(n.code.name == "LimitsOnlyExtendedResource" for n in res.notes)


def test_extended_resource_gate_off_charges_raw_name():
    containers = [{"name": "a", "resources": {"requests": {"example.com/gpu": "2"}}}]
    res, _ = run([PodSet("main", 1, er_pod(containers=containers))],
                 classes=[dc("gpu.example.com", ern="example.com/gpu")],
                 mappings=[{"name": "gpus", "deviceClassNames": ["gpu.example.com"]}],
                 gates=DRAGates(extended_resource=False))
    assert res.podsets[0].total == {"example.com/gpu": 2}


# ---- path C: counters --------------------------------------------------------------------------

MIG_MAPPING = {"name": "gpu.memory", "deviceClassNames": ["mig.example.com"],
               "sources": [{"counter": {"name": "memory", "driver": DRIVER,
                                        "deviceSelector": {"cel": {"expression": CLASS_SEL}}}}]}
MIG_DEVICES = [device("gpu-0-mig-1g-0", "1g.5gb", "4864Mi"), device("gpu-0-mig-1g-1", "1g.5gb", "4864Mi"),
               device("gpu-0-mig-3g-0", "3g.20gb", "20Gi")]


def mig_run(selector, count=1, podset_count=1, slices=None, mappings=(MIG_MAPPING,), version="0.19.2"):
    t = template("t", exact("mig.example.com", count, selector))
    return run([PodSet("main", podset_count, pod(claims=[claim(tpl="t")]))], mappings=list(mappings),
               classes=[dc("mig.example.com", f"{CLASS_SEL} && device.attributes['{DRIVER}'].type == 'mig'")],
               templates=[t], slices=slices if slices is not None else [rslice("s", MIG_DEVICES)], version=version)


P1G = f"device.attributes['{DRIVER}'].profile == '1g.5gb'"


def test_counter_charge_single_device():
    res, inputs = mig_run(P1G)
    assert res.podsets[0].per_pod == {"cpu": 1000, "gpu.memory": 4864 * 2**20}
    assert format_usage("gpu.memory", res.podsets[0].total["gpu.memory"], inputs.binary_resources()) == "4864Mi"
    line = next(ln for ln in res.podsets[0].lines if ln.kind == "counter")
    assert line.matched_devices == 2 and line.counter_value == "4864Mi"
    tpl_line = next(ln for ln in res.podsets[0].lines if ln.kind == "claimTemplate")
    assert tpl_line.resource is None  # counter-sourced: not also charged as a device count


def test_counter_charge_count_two_and_podset_count():
    res, inputs = mig_run(P1G, count=2, podset_count=3)
    total = res.podsets[0].total["gpu.memory"]
    assert total == 3 * 2 * 4864 * 2**20
    assert format_usage("gpu.memory", 2 * 4864 * 2**20, inputs.binary_resources()) == "9728Mi"


def test_counter_charge_is_max_over_matches():
    res, inputs = mig_run(f"{P1G} || device.attributes['{DRIVER}'].profile == '3g.20gb'")
    assert format_usage("gpu.memory", res.podsets[0].total["gpu.memory"], inputs.binary_resources()) == "20Gi"


def test_counter_incomplete_and_stale_pools_are_skipped():
    slices = [rslice("a", [device("big", "1g.5gb", "40Gi")], pool="incomplete", count=2),
              rslice("b", [device("old", "1g.5gb", "30Gi")], pool="p", generation=1),
              rslice("c", [device("new", "1g.5gb", "4864Mi")], pool="p", generation=2)]
    res, inputs = mig_run(P1G, slices=slices)
    assert format_usage("gpu.memory", res.podsets[0].total["gpu.memory"], inputs.binary_resources()) == "4864Mi"


def test_counter_insufficient_devices_message():
    # the CEL availability check passes (it ignores pools), the counter path does not
    slices = [rslice("a", [device("m", "1g.5gb", "4864Mi")], pool="incomplete", count=2)]
    res, _ = mig_run(P1G, slices=slices)
    assert res.message == (f"{CP}.devices.requests[0]: Internal error: insufficient matching devices for counter "
                           "driver: 0 device(s) match but 1 requested")


def test_counter_not_published_message():
    slices = [rslice("s", [device("m", "1g.5gb")])]  # no consumesCounters
    res, _ = mig_run(P1G, slices=slices)
    assert res.message == (f"{CP}.devices.requests[0]: Internal error: matched devices have no consumesCounters "
                           "entry for counter \"memory\"")


def test_multi_counter_sources_charge_each_mapping():
    compute = copy.deepcopy(MIG_MAPPING)
    compute.update(name="gpu.compute")
    compute["sources"][0]["counter"]["name"] = "multiprocessors"
    devices = [device("m", "1g.5gb", "4864Mi")]
    devices[0]["consumesCounters"][0]["counters"]["multiprocessors"] = {"value": "14"}
    res, _ = mig_run(P1G, slices=[rslice("s", devices)], mappings=(MIG_MAPPING, compute))
    assert res.podsets[0].per_pod["gpu.memory"] == 4864 * 2**20
    assert res.podsets[0].per_pod["gpu.compute"] == 14


def test_v018_last_mapping_wins():
    first = {"name": "first", "deviceClassNames": ["gpu.example.com"]}
    last = {"name": "last", "deviceClassNames": ["gpu.example.com"]}
    args = {"mappings": [first, last], "classes": [dc("gpu.example.com")], "templates": [template("t", exact("gpu.example.com"))]}
    ps = [PodSet("main", 1, pod(claims=[claim(tpl="t")]))]
    assert "first" in run(ps, **args)[0].podsets[0].per_pod
    assert "last" in run(ps, version="0.18.6", **args)[0].podsets[0].per_pod


# ---- path D: capacity --------------------------------------------------------------------------

def test_capacity_rounding_to_valid_range():
    d = {"name": "shared", "attributes": {"type": {"string": "gpu"}},
         "capacity": {"memory": {"value": "80Gi", "requestPolicy": {
             "default": "1Gi", "validRange": {"min": "1Gi", "step": "1Gi", "max": "80Gi"}}}}}
    mapping = {"name": "gpu.mem", "deviceClassNames": ["gpu.example.com"],
               "sources": [{"capacity": {"name": "memory", "driver": DRIVER,
                                         "deviceSelector": {"cel": {"expression": "true"}}}}]}
    t = template("t", exact("gpu.example.com", 1, capacity={"requests": {"memory": "4.5Gi"}}))
    res, inputs = run([PodSet("main", 1, pod(claims=[claim(tpl="t")]))], mappings=[mapping],
                      classes=[dc("gpu.example.com")], templates=[t], slices=[rslice("s", [d])],
                      gates=DRAGates(consumable_capacity=True))
    assert format_usage("gpu.mem", res.podsets[0].per_pod["gpu.mem"], inputs.binary_resources()) == "5Gi"


# ---- rendering ---------------------------------------------------------------------------------

@pytest.mark.parametrize("name,value,binary,expected", [
    ("cpu", 8000, set(), "8"), ("cpu", 1500, set(), "1500m"), ("memory", 32 * 2**30, set(), "32Gi"),
    ("gpu.memory", 19 * 2**30, {"gpu.memory"}, "19Gi"), ("gpu.memory", 80384 * 2**20, {"gpu.memory"}, "80384Mi"),
    ("gpu.memory", 5100273664, set(), "5100273664"), ("whole-gpus", 4, set(), "4"),
    ("nvidia.com/gpu", 1000, set(), "1k"), ("memory", 1000, set(), "1k"),
])
def test_format_usage_like_kueue(name, value, binary, expected):
    assert format_usage(name, value, binary) == expected


def test_the_packages_names_load_on_first_use():
    """Every name the package exports resolves to its home module's object, and importing only
    ``unaccounted`` (what ``classes`` and ``verify`` need) does not load the engine."""
    import subprocess
    import sys

    from kubectl_kueue_dra.kueue import charge

    assert set(charge.__all__) == set(charge._HOMES)
    for name in charge.__all__:
        assert getattr(charge, name) is not None
    with pytest.raises(AttributeError):
        _ = charge.no_such_name
    code = ("import sys, kubectl_kueue_dra.kueue.charge.unaccounted; "
            "print(sorted(m for m in sys.modules if m.startswith('kubectl_kueue_dra.kueue.charge')))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert loaded.strip() == "['kubectl_kueue_dra.kueue.charge', 'kubectl_kueue_dra.kueue.charge.unaccounted']"
