"""The charge engine's CEL steps as Kueue runs them: its error wording, its device model, and a
request with a CEL selector but no ``deviceClassName`` (possible in objects that bypass
validation and in ``-f`` what-if input), for which Kueue skips the class lookup
(``resolveAndCompileDeviceClass`` returns no selectors for an empty name)."""

from kubectl_kueue_dra.kueue.charge import ChargeEngine, ChargeInputs
from kubectl_kueue_dra.kueue.config.mappings import parse_mappings
from kubectl_kueue_dra.kueue.install.semantics import DRAGates, Semantics
from kubectl_kueue_dra.kueue.workloads.podsets import PodSet

D = "gpu.example.com"
CP = "spec.podSets[0].template.spec.resourceClaims[0]"
MAPPING = {"name": "example.com/gpu", "deviceClassNames": ["gpu.example.com"]}


def run(request, devices, *, classes=None, mappings=(MAPPING,)):
    classes = classes if classes is not None else [
        {"metadata": {"name": D}, "spec": {"selectors": [{"cel": {"expression": f"device.driver == '{D}'"}}]}}]
    slices = [{"metadata": {"name": "s"}, "spec": {"driver": D, "pool": {"name": "p", "generation": 1,
                                                                         "resourceSliceCount": 1},
                                                  "devices": devices}}]
    tpl = {"metadata": {"name": "t"}, "spec": {"spec": {"devices": {"requests": [request]}}}}
    pod = {"spec": {"containers": [{"name": "main", "resources": {"requests": {"cpu": "1"}}}],
                    "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "t"}]}}
    inputs = ChargeInputs(namespace="ns", semantics=Semantics.for_version("0.19.2"), gates=DRAGates(),
                          mappings=parse_mappings(list(mappings)), device_classes=classes,
                          claim_templates={"t": tpl}, slices=slices)
    return ChargeEngine(inputs).compute([PodSet("main", 1, pod)])


def gpu(name, **attrs):
    return {"name": name, "attributes": {k: {"string": v} for k, v in attrs.items()}}


def req(selector, klass=D, count=1):
    return {"name": "r", "exactly": {"deviceClassName": klass, "allocationMode": "ExactCount", "count": count,
                                     "selectors": [{"cel": {"expression": selector}}]}}


def test_runtime_error_is_worded_as_kueue_wraps_it():
    res = run(req(f"device.attributes['{D}'].nosuch == 'x'"), [gpu("g0", model="a100")])
    assert res.message == (f"{CP}.devices.requests[0].exactly.selectors: Invalid value: null: ResourceClaimTemplate t: "
                           f"CEL evaluation failed for DeviceClass {D}: no such key: nosuch")


def test_kueues_device_never_allows_multiple_allocations():
    # Kueue does not copy allowMultipleAllocations into its CEL device: false whatever the slice says
    shared = dict(gpu("g0", model="a100"), allowMultipleAllocations=True)
    res = run(req("device.allowMultipleAllocations == false"), [shared])
    assert not res.rejected and res.podsets[0].total["example.com/gpu"] == 1
    res = run(req("device.allowMultipleAllocations"), [shared])
    assert res.message.endswith("insufficient matching devices for CEL selector in DeviceClass gpu.example.com: "
                                "0 device(s) match in the cluster but 1 requested")


def test_empty_device_class_name_skips_the_class_lookup():
    # no DeviceClass "" exists: Kueue does not look one up, it matches the request's selectors on
    # every device; countDevicesPerClass then skips the empty class, so nothing is charged for it
    res = run(req(f"device.attributes['{D}'].model == 'a100'", klass=""), [gpu("g0", model="a100")])
    assert not res.rejected
    assert res.podsets[0].total == {"cpu": 1000}


def test_empty_device_class_name_counts_devices_of_every_class():
    res = run(req(f"device.attributes['{D}'].model == 'h100'", klass="", count=2), [gpu("g0", model="h100")])
    assert res.message == (f"{CP}.devices.requests[0].exactly.selectors: Internal error: ResourceClaimTemplate t: "
                           "insufficient matching devices for CEL selector in DeviceClass : 1 device(s) match in "
                           "the cluster but 2 requested")
