"""kubectl's printers, unit by unit: the JSONPath engine against the outputs kubectl gives for the
same document (tests/fixtures/jsonpath: kubectl's bytes for each template, checked again against the
kubectl binary by tests/cluster/test_printers_live.py), Go's value formatting, custom-columns with
kubectl's tabwriter, --sort-by, and the -o spellings."""

import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kubectl_kueue_dra.render.printers import columns, gotext, sorting, spec
from kubectl_kueue_dra.render.printers.jsonpath_eval import JSONPath, JSONPathError
from kubectl_kueue_dra.render.printers.jsonpath_parse import JSONPathSyntaxError

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "jsonpath"
DOCUMENT = json.loads((FIXTURES / "document.json").read_text())
CASES = json.loads((FIXTURES / "cases.json").read_text())


def ours(case):
    path = JSONPath(case["template"], case.get("allowMissingKeys", True),
                    as_json=case.get("format") == "jsonpath-as-json")
    return path.execute(DOCUMENT)


def test_the_table_is_large_and_covers_the_dialect():
    templates = " ".join(c["template"] for c in CASES)
    assert len(CASES) >= 30
    for part in ("{range", "{end}", "[?(@.", "..", "[*]", "[0:2]", '{"\\n"}', "\\.", "[0,2]", "['name']"):
        assert part in templates, part
    assert sum("error" in c for c in CASES) >= 5 and sum("parseError" in c for c in CASES) >= 5
    assert any(c.get("allowMissingKeys") is False for c in CASES)


@pytest.mark.parametrize("case", [c for c in CASES if "output" in c], ids=lambda c: c["template"])
def test_output_is_kubectls(case):
    assert ours(case) == case["output"]


@pytest.mark.parametrize("case", [c for c in CASES if "error" in c], ids=lambda c: c["template"])
def test_execution_error_is_kubectls(case):
    with pytest.raises(JSONPathError) as e:
        ours(case)
    assert str(e.value) == case["error"]


@pytest.mark.parametrize("case", [c for c in CASES if "parseError" in c], ids=lambda c: c["template"])
def test_parse_error_is_kubectls(case):
    with pytest.raises(spec.OutputError) as e:
        spec.checked(spec.OutputSpec("jsonpath", case["template"]))
    assert str(e.value) == case["parseError"]
    with pytest.raises(JSONPathSyntaxError):
        JSONPath(case["template"])


@pytest.mark.parametrize("value,sprint,marshal", [
    (2.5, "2.5", "2.5"), (1.0, "1", "1"), (123456789.5, "1.234567895e+08", "123456789.5"),
    (1e21, "1e+21", "1e+21"), (0.00001, "1e-05", "0.00001"), (1e-7, "1e-07", "1e-7"), (-0.5, "-0.5", "-0.5"),
    (100000.0, "100000", "100000"), (1000000.0, "1e+06", "1000000"), (True, "true", "true"), (None, "<nil>", "null"),
    ({"b": [1, "x"], "a": {"c": None}}, "map[a:map[c:<nil>] b:[1 x]]", '{"a":{"c":null},"b":[1,"x"]}'),
    ("<&>\u2028\t\x01\x7f", "<&>\u2028\t\x01\x7f", '"\\u003c\\u0026\\u003e\\u2028\\t\\u0001\x7f"'),
])
def test_go_formatting(value, sprint, marshal):
    assert gotext.sprint(value) == sprint
    assert gotext.marshal(value) == marshal


def test_marshal_indent_is_gos():
    assert gotext.marshal({"a": [1, {"b": "c"}], "e": {}}, indent="    ") == \
        '{\n    "a": [\n        1,\n        {\n            "b": "c"\n        }\n    ],\n    "e": {}\n}'


def test_custom_columns_lay_out_as_kubectl():
    cols = columns.from_spec("NAME:.name,DEV:devices,TAGS:{.tags},QUOTA:.quota")
    out = columns.render(cols, DOCUMENT["spec"]["classes"], no_headers=False)
    assert out == ("NAME   DEV   TAGS    QUOTA\n"
                   "gpu    16    [a b]   gpu.memory\n"
                   "mig    224   [c]     <none>\n"
                   "cpu    0     []      <nil>\n")
    assert columns.render(cols, [], no_headers=True) == ""


def test_custom_columns_file_and_errors():
    cols = columns.from_file_text("NAME   DEVICES\n.name  .devices\n")
    assert [(c.header, c.template) for c in cols] == [("NAME", "{.name}"), ("DEVICES", "{.devices}")]
    with pytest.raises(columns.ColumnsError, match="expected <header>:<json-path-expr>"):
        columns.from_spec("NAME")
    with pytest.raises(columns.ColumnsError, match=r"number of headers \(2\) and field specifications \(1\)"):
        columns.from_file_text("A B\n.a\n")
    with pytest.raises(columns.ColumnsError, match="unexpected path string"):
        columns.relaxed("{.a}{.b}")


def test_sort_by_orders_like_kubectls_sorter():
    items = [{"n": "b", "q": "4Gi", "d": 2}, {"n": "a", "q": "512Mi", "d": 10}, {"n": "c", "d": 1}]
    assert [i["n"] for i in sorting.sort_items(items, ".d")] == ["c", "b", "a"]
    assert [i["n"] for i in sorting.sort_items(items, "{.n}")] == ["a", "b", "c"]

    def amount(text):
        return {"4Gi": 4 * 2**30, "512Mi": 512 * 2**20}.get(text)

    # quantities by amount; the item without the field first
    assert [i["n"] for i in sorting.sort_items(items, ".q", amount)] == ["c", "a", "b"]
    assert [i["n"] for i in sorting.sort_items(items, ".q")] == ["c", "b", "a"]  # as text: "4Gi" < "512Mi"
    with pytest.raises(sorting.SortError, match=re.escape('couldn\'t find any field with path "{.x}"')):
        sorting.sort_items(items, ".x")


@pytest.mark.parametrize("path,message", [
    ("{.x", "unexpected path string, expected a 'name1.name2' or '.name1.name2' or '{name1.name2}' or "
            "'{.name1.name2}'"),
    ("{.a}{.b}", "unexpected path string"),
    (".items[", "unterminated array"),
    (".a[?(@.x==1", "unterminated filter"),
])
def test_a_sort_by_path_that_does_not_parse_is_refused_before_anything_is_read(path, message):
    """As kubectl's sorter reads --sort-by: relaxed, then parsed; its message as it is (a usage
    error from ``checked``, not a failure after the cluster was read)."""
    with pytest.raises(spec.OutputError) as e:
        spec.checked(spec.OutputSpec(sort_by=path))
    assert str(e.value).startswith(message)
    for good in (".metadata.name", "{.a.b}", "a.b", "{a[0].b}"):
        assert spec.checked(spec.OutputSpec(sort_by=good)).sort_by == good


@pytest.mark.parametrize("value,fmt,template", [
    ("json", "json", ""), ("=json", "json", ""), ("jsonpath={.a}", "jsonpath", "{.a}"),
    ("=jsonpath={.a}", "jsonpath", "{.a}"), ("custom-columns=A:.a", "custom-columns", "A:.a"),
    ("jsonpath-as-json={.a}", "jsonpath-as-json", "{.a}"),
])
def test_output_values(value, fmt, template):
    parsed = spec.parse_output(value)
    assert (parsed.format, parsed.template) == (fmt, template)


def test_output_errors():
    with pytest.raises(spec.OutputError, match=re.escape('output format "go-template={{.a}}", allowed formats are: ')):
        spec.parse_output("go-template={{.a}}")
    with pytest.raises(spec.OutputError, match="template format specified but no template given"):
        spec.parse_output("jsonpath")
    assert spec.parse_output("jsonpath", template_flag="{.a}").template == "{.a}"


_JSON_LEAVES = st.one_of(st.none(), st.booleans(), st.integers(-2**70, 2**70), st.text(),
                         st.text(alphabet=st.characters(min_codepoint=0x7e, max_codepoint=0x10ffff)))
_DOCUMENTS = st.recursive(_JSON_LEAVES, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.one_of(st.text(), st.integers()), inner, max_size=4)), max_leaves=25)


@settings(max_examples=500, deadline=None)
@given(_DOCUMENTS)
def test_json_output_is_what_json_dumps_writes(document):
    """-o json is ``json.dumps(indent=2)`` character for character (non-ASCII escaped, DEL too), built in C."""
    from kubectl_kueue_dra.render.printers.emit import json_text

    assert json_text(document) == json.dumps(document, indent=2)


def test_json_output_of_what_msgspec_refuses_and_of_floats():
    from kubectl_kueue_dra.render.printers.emit import json_text

    assert json_text({"s": "\ud800"}) == json.dumps({"s": "\ud800"}, indent=2)  # a lone surrogate: json.dumps
    floats = {"a": 1e-05, "b": 0.1, "c": 1e20, "d": -2.5}
    assert json.loads(json_text(floats)) == floats


@pytest.mark.parametrize("fmt,sort_by,message", [
    ("custom-columns=A:.items[5]", None, "array index out of bounds: index 5, length 2"),
    ("custom-columns=A:.name[0]", None, "string is not array or slice"),
    ("custom-columns=A:.n[?(@.x==1)]", None, "1 is not array or slice and cannot be filtered"),
    ("json", ".name[?(@.x==1)]", "couldn't sort by \"{.name[?(@.x==1)]}\": a is not array or slice and cannot be "
                                 "filtered"),
])
def test_a_path_that_fails_on_the_items_is_a_print_error(fmt, sort_by, message):
    """A custom-columns or --sort-by path that parses but fails on an item (an index out of range,
    a filter on a scalar) is one error line, as -o jsonpath's is; never an internal error."""
    from kubectl_kueue_dra.render.printers.emit import Listing, PrintError, formatted, sorted_document

    document = {"rows": [{"name": "a", "n": 1, "items": [1, 2]}, {"name": "b", "n": 2, "items": [3, 4]}]}
    chosen = spec.checked(spec.OutputSpec(format=fmt.split("=")[0], template=fmt.partition("=")[2],
                                          sort_by=sort_by))
    listing = Listing(items="rows")
    with pytest.raises(PrintError) as e:
        formatted(sorted_document(document, listing, chosen.sort_by), chosen, lambda d: "", listing)
    assert str(e.value) == message
