"""The streaming reader's batches (kube/parse/jsonstream.py): any list layout whose items follow one
another the same way is parsed a batch at a time, and the result is ``json.loads``'s whatever
the batch parser accepts or refuses."""

import io
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kubectl_kueue_dra.kube.parse import jsonstream

SLICE = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
         "metadata": {"name": "n-gpu", "uid": "u"}, "spec": {"driver": "gpu.nvidia.com",
                                                            "devices": [{"name": f"gpu-{i}"} for i in range(8)]}}


def _counted(monkeypatch):
    calls = []
    real = jsonstream.decode_batch()
    monkeypatch.setattr(jsonstream, "_BATCH_DECODE", lambda text: calls.append(text) or real(text))
    return calls


@pytest.mark.parametrize("indent", [None, 2, 4, "\t"])
def test_a_list_as_kubectl_writes_it_is_read_in_batches(monkeypatch, indent):
    """kubectl's indented List (each item begins with apiVersion) is batched like the API server's
    compact one: most items come through the batch parser, few calls for many items."""
    items = [{**SLICE, "metadata": {"name": f"n{i}-gpu", "uid": str(i)}} for i in range(400)]
    raw = json.dumps({"apiVersion": "v1", "items": items, "kind": "List", "metadata": {"resourceVersion": ""}},
                     indent=indent)
    calls = _counted(monkeypatch)
    seen = []
    assert jsonstream.load(io.BytesIO(raw.encode()), lambda x: seen.append(x) or x) == json.loads(raw)
    assert seen == items
    batched = sum(len(json.loads(c)) for c in calls)
    assert batched >= 0.9 * len(items) and len(calls) < len(items) / 10, (batched, len(calls))


@pytest.mark.parametrize("odd", ["NaN", "-Infinity", "1e400", '"\\ud800"', "123456789012345678901234567890",
                                 "-9223372036854775809", "1.7976931348623157e308", "5e-324"])
def test_what_the_batch_parser_refuses_is_read_as_json_reads_it(odd):
    """msgspec refuses NaN, infinities, overflowing floats and lone surrogates, which ``json``
    reads: those items are read one by one with ``json``; huge integers stay exact."""
    text = '{"items":[' + ",".join(f'{{"metadata":{{"name":"s{i}"}},"v":{odd if i == 7 else i}}}'
                                   for i in range(20)) + "]}"
    for chunk in (7, 1 << 20):
        got = jsonstream.load(io.BytesIO(text.encode()), lambda x: x, chunk)
        assert json.dumps(got) == json.dumps(json.loads(text))  # NaN != NaN: compared as text
        assert type(got["items"][7]["v"]) is type(json.loads(text)["items"][7]["v"])


JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
                    | st.text(max_size=8),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
                    max_leaves=12)
ITEM = st.fixed_dictionaries({"apiVersion": st.sampled_from(["v1", "x/v1"])}, optional={"metadata": JSON, "spec": JSON})
LAYOUT = st.sampled_from([{"indent": None}, {"separators": (",", ":")}, {"indent": 1}, {"indent": 4}])


@settings(max_examples=200, deadline=None)
@given(items=st.lists(ITEM | JSON, max_size=30), layout=LAYOUT, chunk=st.sampled_from([3, 50, 1 << 20]),
       batch=st.sampled_from([40, 300, 1 << 16]))
def test_any_list_equals_json_loads_in_any_layout(items, layout, chunk, batch):
    """Items of any kind (objects whose first keys repeat, other values, items holding the mark
    themselves) in any layout: the same result and callbacks as ``json.loads``, in order."""
    raw = json.dumps({"kind": "List", "items": items}, **layout)
    seen = []
    saved = jsonstream.BATCH_BYTES
    jsonstream.BATCH_BYTES = batch
    try:
        got = jsonstream.load(io.BytesIO(raw.encode()), lambda x: seen.append(x) or x, chunk)
    finally:
        jsonstream.BATCH_BYTES = saved
    assert got == json.loads(raw) and seen == json.loads(raw)["items"]


def test_an_item_cut_at_a_chunks_end_is_read_on_and_batched(monkeypatch):
    """The item the chunk's end cuts is batched with the next chunk's items, not parsed on its own
    (where its cut would be parsed, and refused, first): only the first item (it tells the mark)
    and the list's last one are read alone, whatever the number of chunks."""
    items = [{**SLICE, "metadata": {"name": f"n{i}-gpu", "uid": str(i)}} for i in range(2000)]
    raw = json.dumps({"kind": "List", "items": items}, separators=(",", ":")).encode()
    calls = _counted(monkeypatch)
    alone = []
    real = jsonstream._learn_mark
    monkeypatch.setattr(jsonstream, "_learn_mark", lambda r: alone.append(r.pos) or real(r))
    assert jsonstream.load(io.BytesIO(raw), lambda x: x, chunk=1 << 14)["items"] == items
    assert len(raw) > 30 * (1 << 14) and len(alone) == 2
    assert sum(len(json.loads(c)) for c in calls) == len(items) - 2
