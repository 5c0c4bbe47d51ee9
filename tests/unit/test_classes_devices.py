"""``classes --devices [CLASS]``: the devices each class matches, grouped by shape, on the examples
and on modified copies; the same counts as the classes report; the table and the JSON."""

import copy
import json
from pathlib import Path

import yaml

from kubectl_kueue_dra.dra.cel import SelectorEvaluator
from kubectl_kueue_dra.dra.device_shapes import consumed_counters, device_shapes, read_parts
from kubectl_kueue_dra.dra.devices import group_pools
from kubectl_kueue_dra.kube.snapshot import load_objects
from testenv.clirun import run  # in process (tests/clirun.py)

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def as_json(*args):
    proc = run("classes", *args, "-o", "json")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_every_example_counts_what_the_classes_report_counts():
    for setup in ("resourceclaimtemplate", "extended-resource", "mig-partitionable"):
        snap = str(EXAMPLES / setup)
        report = {c["name"]: c["matchingDevices"] for c in as_json("--from", snap)["deviceClasses"]}
        devices = as_json("--devices", "--from", snap)["devices"]
        assert {d["deviceClass"]: d["matchingDevices"] for d in devices} == report, setup
        for d in devices:
            assert sum(s["devices"] for s in d["shapes"]) == d["matchingDevices"]


def test_mig_shapes_counters_and_counter_selectors():
    doc = as_json("--devices", "mig.nvidia.com", "--from", str(EXAMPLES / "mig-partitionable"))
    [mig] = doc["devices"]
    assert mig["deviceClass"] == "mig.nvidia.com"
    assert [s["mapping"] + "/" + s["name"] for s in mig["counterSources"]] == ["gpu.memory/memory"]
    # 2 nodes x 8 GPUs: 7 placements of 1g.5gb, 3 of 2g.10gb, 2 of 3g.20gb, 1 of 4g.20gb, 1 of 7g.40gb;
    # the MIG profile (the driver's `profile` attribute) tells 3g.20gb from 4g.20gb, which charge alike
    assert [(s["profile"], s["devices"], s["consumesCounters"]["memory"]) for s in mig["shapes"]] == [
        ("1g.5gb", 112, "4864Mi"), ("2g.10gb", 48, "9856Mi"), ("3g.20gb", 32, "19968Mi"), ("4g.20gb", 16, "19968Mi"),
        ("7g.40gb", 16, "40192Mi")]
    for s in mig["shapes"]:
        assert s["driver"] == "gpu.nvidia.com" and s["pools"] == 2
        assert s["poolNames"] == s["nodes"] == ["a100-node-1", "a100-node-2"]
        assert s["selectorsRead"] == {"type": "mig"}  # what the class and counter selectors read
        assert s["counterSelectors"] == {"gpu.memory/memory": True}
        assert "multiprocessors" in s["otherCounters"] and "memory" not in s["otherCounters"]
    assert mig["findings"] == []


def test_table_and_wide():
    proc = run("classes", "--devices", "--from", str(EXAMPLES / "mig-partitionable"))
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].split() == ["CLASS", "DRIVER", "PROFILE", "DEVICES", "POOLS", "SELECTORS", "READ", "CONSUMES",
                                "COUNTERS", "COUNTER", "SELECTOR", "NODES"]
    assert lines[1].split() == ["gpu.nvidia.com", "gpu.nvidia.com", "NVIDIA", "A100-SXM4-40GB", "16", "2", "type=gpu",
                                "memory=40192Mi", "gpu.memory/memory:", "yes", "a100-node-1,", "a100-node-2"]
    assert [line.split()[2] for line in lines[2:]] == ["1g.5gb", "2g.10gb", "3g.20gb", "4g.20gb", "7g.40gb"]
    wide = run("classes", "--devices", "gpu.nvidia.com", "-o", "wide", "--from", str(EXAMPLES / "mig-partitionable"))
    assert "OTHER COUNTERS" in wide.stdout and "memory-slice-7" in wide.stdout


def test_unknown_class_is_one_error():
    proc = run("classes", "--devices", "nope", "--from", str(EXAMPLES / "mig-partitionable"))
    assert proc.returncode == 1
    assert proc.stderr.strip() == ('error: DeviceClass "nope" not found (snapshot '
                                   f'{EXAMPLES / "mig-partitionable"}); list them with: kubectl kueue-dra classes')


def test_a_counter_selector_that_matches_nothing_is_a_finding(tmp_path):
    objects = load_objects(str(EXAMPLES / "mig-partitionable"))
    cr = next(o for o in objects if o["kind"] == "Kueue")
    source = cr["spec"]["config"]["resources"]["deviceClassMappings"][0]["sources"][0]["counter"]
    source["deviceSelector"]["cel"]["expression"] = "device.attributes['gpu.nvidia.com'].type == 'gpu'"
    (tmp_path / "snap.yaml").write_text(yaml.safe_dump_all(objects))
    doc = as_json("--devices", "mig.nvidia.com", "--from", str(tmp_path))
    [mig] = doc["devices"]
    assert {s["counterSelectors"]["gpu.memory/memory"] for s in mig["shapes"]} == {False}
    assert [f["code"] for f in mig["findings"]] == ["CounterSelectorMatchesNone"]
    gpu = as_json("--devices", "gpu.nvidia.com", "--from", str(tmp_path))["devices"][0]
    assert [s["counterSelectors"] for s in gpu["shapes"]] == [{"gpu.memory/memory": True}]
    text = run("classes", "--devices", "mig.nvidia.com", "--from", str(tmp_path)).stdout
    assert "gpu.memory/memory: no" in text and "CounterSelectorMatchesNone" in text


def test_reading_parts_and_counters_of_one_device():
    device = {"name": "d", "attributes": {"type": {"string": "mig"}, "profile": {"string": "1g.5gb"},
                                          "other.io/x": {"int": 3}},
              "capacity": {"memory": {"value": "5Gi"}},
              "consumesCounters": [{"counterSet": "a", "counters": {"memory": {"value": "5Gi"},
                                                                    "slices": {"value": "1"}}},
                                   {"counterSet": "b", "counters": {"memory": {"value": "1Gi"}}}]}
    fp = frozenset({("driver",), ("attributes", "gpu.nvidia.com", "profile"), ("attributes", "other.io"),
                    ("capacity", "gpu.nvidia.com", "memory")})
    assert read_parts(fp, "gpu.nvidia.com", device) == {"profile": "1g.5gb", "other.io/x": 3, "capacity memory": "5Gi"}
    assert read_parts(None, "gpu.nvidia.com", device)["type"] == "mig"
    assert consumed_counters(device, {"memory"}) == ({"memory": "5Gi, 1Gi"}, ["slices"])
    assert consumed_counters(device, None) == ({"memory": "5Gi, 1Gi", "slices": "1"}, [])
    # Devices of an incomplete pool are counted apart, never listed; a failing selector is an error.
    pools = group_pools([{"spec": {"driver": "gpu.nvidia.com", "pool": {"name": "p", "generation": 1,
                                                                        "resourceSliceCount": 2},
                                   "devices": [copy.deepcopy(device)]}}])
    report = device_shapes(pools, ["device.attributes['gpu.nvidia.com'].type == 'mig'"], SelectorEvaluator())
    assert (report.shapes, report.incomplete_pool_devices) == ([], 1)
    pools[0].expected_slices = 1
    report = device_shapes(pools, ["device.attributes['gpu.nvidia.com'].missing == 'x'"], SelectorEvaluator())
    assert report.shapes == [] and len(report.errors) == 1


def test_unreadable_slices_are_unknown_not_zero():
    from kubectl_kueue_dra.kube import errors
    from kubectl_kueue_dra.kube.snapshot import SnapshotView
    from kubectl_kueue_dra.commands.classes.request import ClassesRequest, classes_document

    class ForbiddenSlices(SnapshotView):
        def _list(self, kind, namespace, field_selector, label_selector):
            if kind.kind == "ResourceSlice":
                raise errors.Forbidden("list", kind.resource, None, None, "reader")
            return super()._list(kind, namespace, field_selector, label_selector)

    view = ForbiddenSlices(load_objects(str(EXAMPLES / "mig-partitionable")), "test")
    doc = classes_document(view, ClassesRequest(devices=""))
    assert doc["partial"] is True and [f["code"] for f in doc["findings"]][:1] == ["Unreadable"]
    assert [(d["deviceClass"], d["matchingDevices"], d["shapes"]) for d in doc["devices"]] == [
        ("gpu.nvidia.com", None, []), ("mig.nvidia.com", None, [])]


def test_a_shape_without_a_profile_names_its_devices_and_nodes_apart_from_pools():
    from kubectl_kueue_dra.dra.cel import SelectorEvaluator
    from kubectl_kueue_dra.dra.devices import group_pools

    slices = [{"spec": {"driver": "tpu.example.com", "nodeName": f"node-{i}", "pool": {"name": f"rack-{i}"},
                        "devices": [{"name": f"tpu-{i}-{j}", "attributes": {}} for j in range(4)]}} for i in (1, 2)]
    [shape] = device_shapes(group_pools(slices), [], SelectorEvaluator()).shapes
    doc = shape.to_json([])
    assert doc["profile"] is None and doc["devices"] == 8 and doc["deviceNames"] == ["tpu-1-0", "tpu-1-1", "tpu-1-2"]
    assert (doc["nodes"], doc["poolNames"]) == (["node-1", "node-2"], ["rack-1", "rack-2"])
