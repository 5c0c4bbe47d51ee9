"""Kueue's configuration text decoded as Kueue decodes it (kueue/config/decode, kueue/config/goyaml).

The verdicts here are the ones tests/cluster/test_kueue_config_oracle.py checks against the real
Kueue binaries; these tests pin the decoder's reasons and paths.
"""

import pytest

from kubectl_kueue_dra.gates.kueue_gate_table import gate_table
from kubectl_kueue_dra.kueue.config.decode import decode_text, kueue_minor
from kubectl_kueue_dra.kueue.config.goyaml import first_document_end, go_parse_int, read_first_document, resolve_plain
from kubectl_kueue_dra.kueue.config.schema import SCHEMAS

HEAD = "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"
MAPPING = ("resources:\n  deviceClassMappings:\n  - name: example.com/gpu\n"
           "    deviceClassNames: [gpu.example.com]\n")


def problems(text, version="0.19.2"):
    return [(p.path, p.stage) for p in decode_text(text, version).problems]


# ---- YAML as go-yaml v2 reads it ----------------------------------------------------------------

@pytest.mark.parametrize("text,value", [
    ("y", True), ("Yes", True), ("on", True), ("N", False), ("off", False), ("true", True),
    ("~", None), ("null", None), ("0x1f", 31), ("0o17", 15), ("017", 15), ("0b101", 5), ("1_000", 1000),
    ("+5", 5), ("-5", -5), ("1e3", 1000.0), ("1.5", 1.5), (".5", 0.5), ("08", 8.0),
    ("2024-01-01", "2024-01-01"), ("1:30", "1:30"), ("abc", "abc"), ("5Gi", "5Gi"),
])
def test_plain_scalars_resolve_as_go_yaml_v2(text, value):
    assert resolve_plain(text) == value
    assert type(resolve_plain(text)) is type(value)


def test_go_parse_int_range():
    assert go_parse_int(str(1 << 63)) == 1 << 63  # ParseUint takes over
    assert go_parse_int(str(1 << 64)) is None
    assert go_parse_int("09") is None  # not octal


def test_only_the_first_document_is_read_and_later_ones_never_parsed():
    read = read_first_document("a: 1\n---\nb: [unclosed\n")
    assert read.value == {"a": 1} and read.documents == 2 and read.error is None


def test_duplicate_keys_and_key_conversion():
    read = read_first_document("a: 1\nb:\n  c: 1\n  c: 2\n5: x\nyes: z\na: 3\n")
    assert read.duplicates == [("b", "c"), ("", "a")]
    assert read.value["5"] == "x" and read.value["true"] == "z"


def test_merge_keys_are_not_duplicates():
    read = read_first_document("base: &b {x: 1, z: 1}\nm:\n  <<: *b\n  x: 2\n")
    assert read.value["m"] == {"x": 2, "z": 1} and read.duplicates == []


@pytest.mark.parametrize("text,end", [
    ("a: 1\n", 5), ("a: 1\n---\nb: 2\n", 5), ("---\na: 1\n---\nb: 2\n", 9),
    ("# c\n---\na: 1\n--- # x\nb\n", 13), ("a: 1\n...\n", 5), ("a: '---'\n", 9),
])
def test_first_document_end(text, end):
    assert first_document_end(text) == end


# ---- strict decoding --------------------------------------------------------------------------

def test_a_valid_text_decodes_without_problems():
    decoded = decode_text(HEAD + MAPPING + "featureGates:\n  KueueDRAIntegration: true\n", "0.19.2")
    assert decoded.problems == [] and not decoded.refused
    assert decoded.api_version == "config.kueue.x-k8s.io/v1beta2"
    assert decoded.document["resources"]["deviceClassMappings"][0]["name"] == "example.com/gpu"


@pytest.mark.parametrize("body,path", [
    ("resources:\n  deviceClassMappings: 5\n", "resources.deviceClassMappings"),
    ('resources: "x"\n', "resources"),
    ("resources:\n  deviceClassMappings:\n  - name: a\n    deviceClassNames: [b]\n    sources:\n"
     "    - counter:\n        name: c\n        driver: d\n        deviceSelector:\n          cel: \"x\"\n",
     "resources.deviceClassMappings[0].sources[0].counter.deviceSelector.cel"),
    ("resources:\n  deviceClassMappings:\n  - name: 5\n    deviceClassNames: [b]\n",
     "resources.deviceClassMappings[0].name"),
    ("featureGates:\n  KueueDRAIntegration: maybe\n", "featureGates[KueueDRAIntegration]"),
    ("manageJobsWithoutQueueName: 1\n", "manageJobsWithoutQueueName"),
    ("clientConnection:\n  burst: 1.5\n", "clientConnection.burst"),
    ("clientConnection:\n  burst: 99999999999\n", "clientConnection.burst"),
    ("leaderElection:\n  leaseDuration: 15\n", "leaderElection.leaseDuration"),
    ("leaderElection:\n  leaseDuration: 15 seconds\n", "leaderElection.leaseDuration"),
    ("resources:\n  transformations:\n  - input: a\n    outputs:\n      b: 1x\n",
     "resources.transformations[0].outputs[b]"),
    ("namespace: [a]\n", "namespace"),
    ("integrations:\n  frameworks: batch/job\n", "integrations.frameworks"),
])
def test_wrong_types_at_every_depth_are_named_and_removed(body, path):
    decoded = decode_text(HEAD + body, "0.19.2")
    assert (path, "decode") in [(p.path, p.stage) for p in decoded.problems]
    assert decoded.refused
    assert path in [r[0] for r in decoded.removed]


def test_wrong_types_leave_a_document_that_fits_the_types():
    decoded = decode_text(HEAD + "resources:\n  deviceClassMappings: 5\n  excludeResourcePrefixes: [a]\n")
    assert decoded.document["resources"] == {"excludeResourcePrefixes": ["a"]}


@pytest.mark.parametrize("body,path", [
    ("resource:\n  deviceClassMappings: []\n", "resource"),
    ("Resources: {}\n", "Resources"),
    ("resources:\n  deviceClassMapping: []\n", "resources.deviceClassMapping"),
    ("resources:\n  deviceClassMappings:\n  - name: a\n    deviceClassNames: [b]\n    extra: 1\n",
     "resources.deviceClassMappings[0].extra"),
])
def test_unknown_fields_are_refused(body, path):
    assert (path, "decode") in problems(HEAD + body)


def test_duplicate_keys_are_refused():
    assert ("resources", "decode") in problems(HEAD + "resources: {}\nresources: {}\n")


def test_yes_is_a_boolean_so_a_string_field_refuses_it():
    assert ("namespace", "decode") in problems(HEAD + "namespace: yes\n")
    assert problems(HEAD + "manageJobsWithoutQueueName: yes\n") == []


def test_numbers_written_as_floats_fit_integer_fields_when_whole():
    assert problems(HEAD + "clientConnection:\n  burst: 1e2\n  qps: 5\n") == []


@pytest.mark.parametrize("text,ok", [
    ("", True), ("kind: Configuration\n", True), ("apiVersion: config.kueue.x-k8s.io/v1beta1\n", True),
    ("apiVersion: config.kueue.x-k8s.io/v1\n", False), ("apiVersion: v1\nkind: ConfigMap\n", False),
    ("apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Other\n", False), ("apiVersion: 5\n", False),
    ("- a\n", False), ("just text\n", False), ("a: [\n", False),
])
def test_api_version_kind_and_the_top_level(text, ok):
    assert decode_text(text, "0.19.2").refused is not ok


def test_multi_document_text_uses_the_first_document():
    decoded = decode_text(HEAD + MAPPING + "---\nthis: is: not: yaml\n", "0.19.2")
    assert not decoded.refused and decoded.documents == 2
    assert decoded.document["resources"]["deviceClassMappings"][0]["name"] == "example.com/gpu"


def test_v1beta1_has_no_sources_in_0_19():
    text = ("apiVersion: config.kueue.x-k8s.io/v1beta1\nresources:\n  deviceClassMappings:\n  - name: a\n"
            "    deviceClassNames: [b]\n    sources: []\n")
    assert ("resources.deviceClassMappings[0].sources", "decode") in problems(text)


# ---- feature gates and validation ---------------------------------------------------------------

def test_unknown_gate_names_are_refused():
    assert ("featureGates[NoSuchGate]", "feature-gates") in problems(HEAD + "featureGates:\n  NoSuchGate: true\n")


def test_kubernetes_gate_names_are_known_to_the_binary():
    assert "DynamicResourceAllocation" in gate_table("0.19")
    assert problems(HEAD + "featureGates:\n  DynamicResourceAllocation: true\n") == []


def test_a_locked_gate_cannot_be_flipped():
    assert gate_table("0.19")["DynamicResourceAllocation"].locked
    assert ("featureGates[DynamicResourceAllocation]", "feature-gates") in problems(
        HEAD + "featureGates:\n  DynamicResourceAllocation: false\n")


def test_gate_dependencies():
    text = HEAD + "featureGates:\n  KueueDRAIntegration: false\n  KueueDRAIntegrationPartitionableDevices: true\n"
    assert ("featureGates", "feature-gates") in problems(text)


def test_counter_sources_need_the_partitionable_gate():
    text = HEAD + ("featureGates:\n  KueueDRAIntegrationPartitionableDevices: false\n"
                   "resources:\n  deviceClassMappings:\n  - name: a\n    deviceClassNames: [b]\n    sources:\n"
                   "    - counter:\n        name: mem\n        driver: d.example.com\n"
                   "        deviceSelector:\n          cel:\n            expression: 'true'\n")
    assert [s for _, s in problems(text)] == ["validation"]
    assert problems(text.replace("Devices: false", "Devices: true")) == []


@pytest.mark.parametrize("body,refused", [
    (MAPPING, False),
    (MAPPING.replace("example.com/gpu", "pods"), False),  # reserved only from Kueue 0.20
    (MAPPING.replace("example.com/gpu", "Bad Name!"), True),
    (MAPPING.replace("[gpu.example.com]", "[]"), True),
    (MAPPING + "  - name: example.com/gpu\n    deviceClassNames: [other]\n", True),
    (MAPPING + "  - name: b.com/x\n    deviceClassNames: [gpu.example.com]\n", True),
    ("resources:\n  transformations:\n  - input: a\n    strategy: Keep\n", True),
    ("resources:\n  transformations:\n  - input: a\n  - input: a\n", True),
    ("managedJobsNamespaceSelector: {}\n", True),
    ("managedJobsNamespaceSelector:\n  matchLabels:\n    team: a\n", False),
    ("managedJobsNamespaceSelector:\n  matchExpressions:\n  - key: a\n    operator: Has\n", True),
])
def test_validation_rules(body, refused):
    decoded = decode_text(HEAD + body, "0.19.2")
    assert decoded.refused is refused, decoded.problems
    assert all(p.stage == "validation" for p in decoded.problems)


def test_versions_and_their_schemas():
    assert kueue_minor("v0.18.4") == ("0.18", False)
    assert kueue_minor(None) == ("0.19", True)
    assert kueue_minor("0.25.0") == ("0.19", True)
    assert set(SCHEMAS) == {"0.18", "0.19"}
    assert all(set(v) == {"v1beta1", "v1beta2"} for v in SCHEMAS.values())
