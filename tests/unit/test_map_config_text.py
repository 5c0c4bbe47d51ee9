"""The ConfigMap text edit: only resources.deviceClassMappings changes, byte for byte elsewhere."""

import yaml

from kubectl_kueue_dra.kueue.config.splice import replace_mappings

CONFIG = """\
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
# Kueue's namespace
namespace: kueue-system
health:
  healthProbeBindAddress: :8081   # probes
resources:
  excludeResourcePrefixes: ["example.com/"]
  deviceClassMappings:
  # whole GPUs
  - name: gpu
    deviceClassNames: [gpu.example.com]   # flow style, kept
  - name: gpu.memory
    deviceClassNames:
    - mig.example.com
    sources:
    - counter:
        name: memory
        driver: gpu.example.com
        deviceSelector:
          cel:
            expression: "device.driver == 'gpu.example.com' && true"
  # end of mappings
integrations:
  frameworks:
  - batch/job
featureGates:
  KueueDRAIntegrationPartitionableDevices: true
"""

GPU = {"name": "gpu", "deviceClassNames": ["gpu.example.com"]}
MEM = yaml.safe_load(CONFIG)["resources"]["deviceClassMappings"][1]
NEW = {"name": "nvidia.com/gpu", "deviceClassNames": ["a.example.com", "b.example.com"]}


def test_append_keeps_every_other_byte():
    edit = replace_mappings(CONFIG, [GPU, MEM, NEW])
    assert edit.preserved
    assert edit.text.startswith(CONFIG.split("  # end of mappings")[0])
    assert edit.text.endswith("  # end of mappings\n" + CONFIG.split("  # end of mappings\n")[1])
    assert "  - name: nvidia.com/gpu\n    deviceClassNames:\n    - a.example.com\n" in edit.text
    doc = yaml.safe_load(edit.text)
    assert doc["resources"]["deviceClassMappings"] == [GPU, MEM, NEW]
    assert doc["resources"]["excludeResourcePrefixes"] == ["example.com/"]


def test_replace_in_place_keeps_neighbours():
    changed = dict(MEM, deviceClassNames=["mig.example.com", "mig2.example.com"])
    edit = replace_mappings(CONFIG, [GPU, changed])
    assert edit.preserved
    assert "deviceClassNames: [gpu.example.com]   # flow style, kept" in edit.text
    assert "  # whole GPUs\n" in edit.text and "  # end of mappings\n" in edit.text
    assert yaml.safe_load(edit.text)["resources"]["deviceClassMappings"] == [GPU, changed]
    # the order is kept: the replaced mapping stays second
    assert edit.text.index("name: gpu\n") < edit.text.index("name: gpu.memory")


def test_remove_one_and_all():
    edit = replace_mappings(CONFIG, [MEM])
    assert edit.preserved and "flow style, kept" not in edit.text
    assert yaml.safe_load(edit.text)["resources"]["deviceClassMappings"] == [MEM]
    edit = replace_mappings(CONFIG, [])
    doc = yaml.safe_load(edit.text)
    assert edit.preserved and doc["resources"] == {"excludeResourcePrefixes": ["example.com/"]}
    assert "featureGates:\n  KueueDRAIntegrationPartitionableDevices: true\n" in edit.text


def test_removing_last_mapping_drops_resources():
    text = "kind: Configuration\nresources:\n  deviceClassMappings:\n  - name: a\n    deviceClassNames: [c]\nintegrations:\n  frameworks: [batch/job]\n"
    edit = replace_mappings(text, [])
    assert edit.preserved
    assert edit.text == "kind: Configuration\nintegrations:\n  frameworks: [batch/job]\n"


def test_insert_into_existing_resources_and_create_resources():
    text = "kind: Configuration\nresources:\n    excludeResourcePrefixes: [x]\nwaitForPodsReady: {}\n"
    edit = replace_mappings(text, [NEW])
    assert edit.preserved
    assert edit.text.startswith("kind: Configuration\nresources:\n    excludeResourcePrefixes: [x]\n"
                                "    deviceClassMappings:\n    - name: nvidia.com/gpu\n")
    assert edit.text.endswith("waitForPodsReady: {}\n")
    edit = replace_mappings("kind: Configuration\n# tail comment", [NEW])
    assert edit.preserved and edit.text.startswith("kind: Configuration\n# tail comment\nresources:\n")
    assert yaml.safe_load(edit.text)["resources"]["deviceClassMappings"] == [NEW]


def test_indented_sequence_style_is_followed():
    text = "resources:\n  deviceClassMappings:\n    - name: a\n      deviceClassNames:\n        - c\n"
    edit = replace_mappings(text, [{"name": "a", "deviceClassNames": ["c"]}, NEW])
    assert edit.preserved
    assert edit.text.startswith(text)
    assert "    - name: nvidia.com/gpu\n" in edit.text


def test_unchanged_is_identity():
    assert replace_mappings(CONFIG, [GPU, MEM]).text == CONFIG


def test_fallbacks_reserialise_but_keep_content():
    flow = "{kind: Configuration, resources: {deviceClassMappings: [{name: a, deviceClassNames: [c]}]}}\n"
    edit = replace_mappings(flow, [NEW])
    assert not edit.preserved
    assert yaml.safe_load(edit.text) == {"kind": "Configuration",
                                         "resources": {"deviceClassMappings": [NEW]}}
    anchors = "base: &b {x: 1}\nother: *b\nresources:\n  deviceClassMappings:\n  - name: a\n    deviceClassNames: [c]\n"
    edit = replace_mappings(anchors, [NEW])
    assert not edit.preserved and yaml.safe_load(edit.text)["other"] == {"x": 1}
    json_text = '{"kind": "Configuration"}'
    edit = replace_mappings(json_text, [NEW])
    assert not edit.preserved and edit.text.lstrip().startswith("{")
    assert yaml.safe_load(edit.text)["resources"]["deviceClassMappings"] == [NEW]


def test_quoting_of_cel_survives():
    tricky = {"name": "g", "deviceClassNames": ["c"], "sources": [{"counter": {
        "name": "memory", "driver": "d.io",
        "deviceSelector": {"cel": {"expression": "device.attributes[\"d.io\"].model == 'A100: 80GB' # no comment"}}}}]}
    edit = replace_mappings(CONFIG, [GPU, MEM, tricky])
    assert edit.preserved
    assert yaml.safe_load(edit.text)["resources"]["deviceClassMappings"][2] == tricky


def test_a_text_whose_last_line_has_no_newline_is_spliced_in_place():
    """The items went onto the last line (a text that did not read back): it was written out again
    whole, its comments lost."""
    text = ("apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nnamespace: kueue-system # kept\n"
            "resources:\n  deviceClassMappings:\n  - name: gpus\n    deviceClassNames:\n    - gpu.nvidia.com")
    added = [{"name": "gpus", "deviceClassNames": ["gpu.nvidia.com"]}, {"name": "x", "deviceClassNames": ["z.io"]}]
    edit = replace_mappings(text, added)
    assert edit.preserved and edit.text == text + "\n  - name: x\n    deviceClassNames:\n    - z.io"
    removed = replace_mappings(text, [])
    assert removed.preserved and removed.text == text[:text.index("\nresources:")]
