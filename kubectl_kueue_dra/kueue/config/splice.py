"""Edit ``resources.deviceClassMappings`` inside the text of upstream Kueue's configuration
(ConfigMap ``kueue-manager-config``, key ``controller_manager_config.yaml``) and leave every other
byte alone: comments, key order, quoting and the mappings that did not change.

The edit is a text splice guided by the positions PyYAML's composer records for each node. Every
result is parsed back and compared with the intended document; when the splice cannot be done
(flow style, JSON text, anchors, an unusual layout) or does not round-trip, the whole document is
serialised again instead, and ``TextEdit.preserved`` says so.

Kueue reads only the first YAML document of the text; the edit changes that one and keeps every
later document byte for byte. Values are read as Kueue reads them (``goyaml``: YAML 1.1,
``yes`` is true), so the round-trip check compares what Kueue would see.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

import yaml

from .goyaml import first_document_end, read_first_document

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@dataclass
class TextEdit:
    text: str
    preserved: bool  # False: the document was re-serialised (comments and layout lost)


class _Unsupported(Exception):
    """The layout is not one the splicer handles; fall back to re-serialising."""


def dump_block(value: Any, indent: int) -> str:
    """``value`` as block YAML, every line indented by ``indent`` spaces, ending in a newline."""
    text = yaml.safe_dump(value, default_flow_style=False, sort_keys=False, width=1 << 16,
                          allow_unicode=True)
    pad = " " * indent
    return "".join(pad + line if line.strip() else line for line in text.splitlines(True))


def _line_start(text: str, pos: int) -> int:
    return text.rfind("\n", 0, pos) + 1


def _after_line(text: str, pos: int) -> int:
    """Position just after the newline that ends the line containing ``pos - 1``."""
    if pos > 0 and text[pos - 1] == "\n":
        return pos
    nl = text.find("\n", pos)
    return len(text) if nl < 0 else nl + 1


def _content_end(node: yaml.Node) -> int:
    """End offset of the last scalar in the subtree (block collections' end marks point at the
    next token, past trailing comments that belong to what follows)."""
    if isinstance(node, yaml.ScalarNode):
        return node.end_mark.index
    children: list[yaml.Node] = []
    if isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            children += [k, v]
    elif isinstance(node, yaml.SequenceNode):
        children = list(node.value)
    if not children:
        return node.end_mark.index
    return max(_content_end(c) for c in children)


def _key(mapping: yaml.MappingNode, name: str) -> tuple[yaml.Node, yaml.Node] | None:
    for k, v in mapping.value:
        if isinstance(k, yaml.ScalarNode) and k.value == name:
            return k, v
    return None


def _block_mapping(node: yaml.Node) -> yaml.MappingNode:
    if not isinstance(node, yaml.MappingNode) or node.flow_style or not node.value:
        raise _Unsupported("not a non-empty block mapping")
    return node


def _item_span(text: str, item: yaml.Node) -> tuple[int, int, int]:
    """(start of the item's line, end of its last line, column of its dash)."""
    start = _line_start(text, item.start_mark.index)
    prefix = text[start:item.start_mark.index]
    if not re.fullmatch(r" *- +", prefix):
        raise _Unsupported("sequence item does not start on its dash line")
    return start, _after_line(text, _content_end(item)), prefix.index("-")


def _splice(text: str, root: yaml.MappingNode, old: list[Any], new: list[Any]) -> str:
    resources = _key(root, "resources")
    if resources is None:
        if not new:
            return text
        body = text if text.endswith("\n") or not text else text + "\n"
        return body + "resources:\n" + dump_block({"deviceClassMappings": new}, 2)
    res_key, res_value = resources
    if isinstance(res_value, yaml.ScalarNode) and res_value.value in ("", "~", "null"):
        raise _Unsupported("empty resources")
    res_map = _block_mapping(res_value)
    found = _key(res_map, "deviceClassMappings")
    key_col = res_map.value[0][0].start_mark.column

    if found is None:
        if not new:
            return text
        at = _after_line(text, _content_end(res_map))
        return text[:at] + dump_block({"deviceClassMappings": new}, key_col) + text[at:]

    dcm_key, seq = found
    if not new:  # drop the key; and ``resources`` with it when nothing else is in there
        if len(res_map.value) == 1:
            start = _line_start(text, res_key.start_mark.index)
            if text[start:res_key.start_mark.index].strip():
                raise _Unsupported("resources key shares its line")
            return text[:start] + text[_after_line(text, _content_end(res_map)):]
        start = _line_start(text, dcm_key.start_mark.index)
        if text[start:dcm_key.start_mark.index].strip():
            raise _Unsupported("deviceClassMappings key shares its line")
        return text[:start] + text[_after_line(text, _content_end(seq)):]

    if not isinstance(seq, yaml.SequenceNode) or seq.flow_style or not seq.value or \
            len(seq.value) != len(old):
        raise _Unsupported("deviceClassMappings is not a non-empty block sequence")
    spans = [_item_span(text, item) for item in seq.value]
    dash_col = spans[0][2]
    return _splice_items(text, spans, dash_col, old, new)


def _name(entry: Any) -> Any:
    return entry.get("name") if isinstance(entry, dict) else None


def _splice_items(text: str, spans: list[tuple[int, int, int]], dash_col: int,
                  old: list[Any], new: list[Any]) -> str:
    """Rewrite only the items that changed: kept items keep their bytes, new ones are appended
    after the last kept item, removed ones disappear with their lines."""
    new_by_name = {_name(e): e for e in new}
    if len(new_by_name) != len(new) or len({_name(e) for e in old}) != len(old):
        raise _Unsupported("mapping names are not unique")
    old_names = [_name(e) for e in old]
    kept = [n for n in old_names if n in new_by_name]
    if [_name(e) for e in new][:len(kept)] != kept:
        raise _Unsupported("mappings were reordered")
    out: list[str] = []
    pos = 0
    last_end = spans[-1][1]
    for (start, end, _), entry in zip(spans, old):
        out.append(text[pos:start])
        replacement = new_by_name.get(_name(entry))
        if replacement is None:
            pass  # removed
        elif replacement == entry:
            out.append(text[start:end])
        else:
            out.append(dump_block([replacement], dash_col))
        pos = end
    added = [e for e in new if _name(e) not in set(old_names)]
    if added:
        out.append(text[pos:last_end])
        out.append(dump_block(added, dash_col))
        pos = last_end
    out.append(text[pos:])
    return "".join(out)


def _has_anchors(text: str) -> bool:
    return any(isinstance(e, yaml.AliasEvent) or getattr(e, "anchor", None)
               for e in yaml.parse(text, Loader=_Loader))


def _serialise(document: dict[str, Any], original: str) -> str:
    if original.lstrip().startswith("{"):
        return json.dumps(document, indent=2) + "\n"
    return yaml.safe_dump(document, default_flow_style=False, sort_keys=False, width=1 << 16,
                          allow_unicode=True)


def with_mappings(document: dict[str, Any], mappings: list[Any]) -> dict[str, Any]:
    """A copy of the Configuration with ``resources.deviceClassMappings`` set to ``mappings``;
    an empty list removes the key, and ``resources`` too when nothing else is left in it."""
    out = dict(document)
    resources = dict(out.get("resources") or {})
    if mappings:
        resources["deviceClassMappings"] = mappings
    else:
        resources.pop("deviceClassMappings", None)
    if resources:
        out["resources"] = resources
    else:
        out.pop("resources", None)
    return out


def _as_kueue_reads(text: str) -> Any:
    read = read_first_document(text)
    if read.error:
        raise yaml.YAMLError(read.error)
    return read.value


def replace_mappings(text: str, mappings: list[Any]) -> TextEdit:
    """The configuration text with ``resources.deviceClassMappings`` of its first document
    replaced by ``mappings``; later documents are kept as they are."""
    end = first_document_end(text)
    head, rest = text[:end], text[end:]
    document = _as_kueue_reads(head) or {}
    if not isinstance(document, dict):
        raise ValueError("the Kueue configuration is not a YAML mapping")
    old = (document.get("resources") or {}).get("deviceClassMappings") or []
    want = with_mappings(document, mappings)
    if old == mappings:
        return TextEdit(text, True)
    try:
        if _has_anchors(head):
            raise _Unsupported("anchors or aliases")
        unended = bool(head) and not head.endswith("\n")  # a last line without its newline: items go after it
        lines = head + "\n" if unended else head
        root = yaml.compose(lines, Loader=yaml.SafeLoader)  # pure-Python marks carry offsets
        if root is None:
            new_text = _splice(lines, yaml.MappingNode("tag:yaml.org,2002:map", []), old, mappings)
        else:
            new_text = _splice(lines, _block_mapping(root), old if isinstance(old, list) else [],
                               mappings)
        if unended and new_text.endswith("\n"):
            new_text = new_text[:-1]
        if _as_kueue_reads(new_text) == want:
            return TextEdit(new_text + rest, True)
    except (_Unsupported, yaml.YAMLError):
        pass
    new_text = _serialise(want, head)
    if _as_kueue_reads(new_text) != want:
        raise ValueError("the Kueue configuration cannot be written out again so that Kueue reads the same "
                         "values (edit it by hand)")
    return TextEdit(new_text + rest, False)
