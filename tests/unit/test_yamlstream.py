"""kube/parse/yamlstream.py: YAML snapshots cut into documents and List items give what PyYAML gives
for the whole text, in every layout; appended `kubectl get -o yaml` outputs are all read."""

import datetime

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from kubectl_kueue_dra.kube.snapshot import load_objects
from kubectl_kueue_dra.kube.parse.yamlstream import fast_loader, load_documents

LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

# text that YAML resolves to other types when plain (numbers, booleans, null, dates), and text
# that needs quoting or a block (newlines, a leading dash, a colon, '#', '---')
TRICKY = st.sampled_from(["1", "0x1F", "1e3", "1.5", ".inf", "yes", "No", "on", "~", "null", "", " ",
                          "2026-12-04", "2026-12-04T10:00:00Z", "- x", "a: b", "#c", "---", "...", "a\nb\n",
                          "line\n  indented\n", "'q'", '"d"', "é€😀", "\t", "%YAML"])
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-2**70, 2**70),
                    st.floats(allow_nan=False), st.text(max_size=12), TRICKY)
KEYS = st.one_of(st.text(min_size=1, max_size=8), TRICKY, st.integers(0, 9))
TREES = st.recursive(SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                      st.dictionaries(KEYS, inner, max_size=4)), max_leaves=25)
ITEMS = st.lists(st.dictionaries(st.sampled_from(["apiVersion", "kind", "metadata", "spec", "status", "data"]),
                                 TREES, min_size=1), max_size=5)


def whole(text):
    return list(yaml.load_all(text, Loader=LOADER))


def cut(text):
    seen = []
    docs = load_documents(text, fast_loader(), lambda item, _: seen.append(item) or item)
    return docs, seen


@settings(max_examples=300, deadline=None)
@given(TREES)
def test_the_direct_build_equals_pyyaml(tree):
    text = yaml.safe_dump(tree, allow_unicode=True)
    assert fast_loader()(text) == yaml.load(text, Loader=LOADER)


@settings(max_examples=200, deadline=None)
@given(ITEMS, st.sampled_from([{}, {"default_flow_style": None}, {"indent": 4}, {"width": 20}]),
       st.booleans())
def test_a_list_cut_into_items_equals_the_whole(items, style, crlf):
    """kubectl's layout (block style, entries at column 0) is cut; every other layout falls back to
    the whole text (None), never to a different answer."""
    text = yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": items, "metadata": {"resourceVersion": ""}},
                          allow_unicode=True, **style)
    if crlf:
        text = text.replace("\n", "\r\n")
    docs, seen = cut(text)
    if docs is not None:
        assert docs == whole(text)
        if not style and not crlf and items:
            assert seen == docs[0]["items"] and len(seen) == len(items)  # each item handed over as read


def test_appended_outputs_are_each_read(tmp_path):
    """`kubectl get … -o yaml > f; kubectl get … -o yaml >> f` has no `---` between the two Lists:
    as one YAML document its keys repeat and the last List wins; cut, both are read."""
    first = {"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}, "items": [
        {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu"}}]}
    second = {"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}, "items": [
        {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {"name": "cq"}}]}
    text = yaml.safe_dump(first) + yaml.safe_dump(second) + "# the end\n"
    assert whole(text)[0]["items"] == second["items"]  # what PyYAML alone makes of it
    assert cut(text)[0] == [first, second]
    path = tmp_path / "snap.yaml"
    path.write_text(text)
    assert [(o["kind"], o["metadata"]["name"]) for o in load_objects(str(path))] == \
        [("DeviceClass", "gpu"), ("ClusterQueue", "cq")]


@pytest.mark.parametrize("order", [("metadata", "spec", "spec"), ("spec", "metadata", "spec")])
def test_a_key_written_twice_in_one_object_keeps_the_last_value_as_kubectl_does(order):
    """A repeated top-level key is an appended output only when what follows brings its own
    apiVersion and kind; else it is one object with a key twice, and the last value wins (PyYAML
    and kubectl): the second spec was dropped as a document without apiVersion."""
    parts = {"metadata": "metadata:\n  name: cq\n"}
    specs = iter(["spec:\n  x: 1\n", "spec:\n  x: 2\n"])
    text = "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\n" + "".join(
        parts[k] if k == "metadata" else next(specs) for k in order)
    assert cut(text)[0] == whole(text) == [{"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue",
                                            "metadata": {"name": "cq"}, "spec": {"x": 2}}]


def test_documents_as_helm_writes_them():
    text = ("---\n# Source: chart/templates/class.yaml\napiVersion: resource.k8s.io/v1\nkind: DeviceClass\n"
            "metadata:\n  name: gpu\n--- # Source: chart/templates/cq.yaml\napiVersion: kueue.x-k8s.io/v1beta2\n"
            "kind: ClusterQueue\nmetadata: {name: cq}\n...\n")
    docs, _ = cut(text)
    assert docs == [d for d in whole(text) if d] and len(docs) == 2


@pytest.mark.parametrize("text", [
    "%YAML 1.1\n---\na: 1\n",                                   # a directive
    "{apiVersion: v1, kind: List, items: [{a: 1}]}\n",          # flow style
    "apiVersion: v1\nitems:\n  - a: 1\n  - b: 2\nkind: List\n",  # an indented sequence
    "items:\n- &x {a: 1}\n- *x\nkind: List\n",                  # an alias to another item
    "--- !!map\na: 1\n",                                        # a tag on the marker line
    '"apiVersion": v1\nkind: X\n',                              # a quoted key
])
def test_other_layouts_are_left_to_the_whole_text(text):
    docs, _ = cut(text)
    assert docs is None or docs == whole(text)


def test_scalars_keep_pyyaml_types():
    text = ("items:\n- a: 2026-12-04\n  b: 1e3\n  c: 0o17\n  d: ~\n  e: !!binary aGk=\n"
            "- m: &m {x: 1}\n  n: {<<: *m, y: 2}\nkind: List\n")
    docs, _ = cut(text)
    assert docs == whole(text)
    assert docs[0]["items"][0]["a"] == datetime.date(2026, 12, 4) and docs[0]["items"][1]["n"] == {"x": 1, "y": 2}


def test_a_broken_piece_gives_the_whole_texts_error(tmp_path):
    from kubectl_kueue_dra.errors import SnapshotError

    path = tmp_path / "bad.yaml"
    path.write_text("apiVersion: v1\nitems:\n- kind: A\n  metadata: {name: [x}\nkind: List\n")
    with pytest.raises(SnapshotError, match=rf"{path}:4: malformed YAML"):
        load_objects(str(path))
