"""Kueue's configuration text read the way Kueue reads it: ``sigs.k8s.io/yaml`` (go-yaml v2, YAML
1.1), the first document only, then the JSON its strict decoder sees.

What differs from PyYAML's safe loader, and is done here as go-yaml v2 does it:
  * plain scalars: ``y``/``Y``/``yes``/``on``/``n``/``no``/``off`` (and their capitalisations) are
    booleans; integers are Go's ``strconv.ParseInt(s, 0, 64)`` after removing ``_`` (``0x1f``,
    ``0o17``, ``017``, ``0b101``); ``1e3`` is a float; timestamps stay strings; ``1:30`` is a string
  * only the first document is read (``yaml.Unmarshal`` parses one); later ones are never parsed
  * keys become JSON object keys: ``true``, ``5``, ``1.5`` turn into the strings ``"true"``, ``"5"``
  * a key written twice in one mapping is a strict-decoding error (``YAMLToJSONStrict``)
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

import yaml

_BOOLS = {**dict.fromkeys(("y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"), True),
          **dict.fromkeys(("n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"), False)}
_NULLS = {"", "~", "null", "Null", "NULL"}
_SPECIAL_FLOATS = {".nan": math.nan, ".NaN": math.nan, ".NAN": math.nan,
                   **dict.fromkeys((".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"), math.inf),
                   **dict.fromkeys(("-.inf", "-.Inf", "-.INF"), -math.inf)}
_GO_FLOAT = re.compile(r"^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$")
_INT64 = 1 << 63
_DIGITS = {2: "01", 8: "01234567", 10: "0123456789", 16: "0123456789abcdefABCDEF"}


def go_parse_int(text: str) -> int | None:
    """``strconv.ParseInt(text, 0, 64)``, falling back to ``ParseUint`` as go-yaml does."""
    sign, body = (-1, text[1:]) if text[:1] == "-" else (1, text[1:] if text[:1] == "+" else text)
    base = 10
    if body[:2] in ("0x", "0X"):
        base, body = 16, body[2:]
    elif body[:2] in ("0o", "0O"):
        base, body = 8, body[2:]
    elif body[:2] in ("0b", "0B"):
        base, body = 2, body[2:]
    elif len(body) > 1 and body[0] == "0":
        base, body = 8, body[1:]
    if not body or any(c not in _DIGITS[base] for c in body):
        return None
    value = sign * int(body, base)
    if -_INT64 <= value < _INT64 or (sign > 0 and value < 2 * _INT64):
        return value
    return None


def resolve_plain(text: str) -> Any:
    """The value go-yaml v2 gives an untagged plain scalar."""
    if text in _BOOLS:
        return _BOOLS[text]
    if text in _NULLS:
        return None
    if text in _SPECIAL_FLOATS:
        return _SPECIAL_FLOATS[text]
    if text[:1] in "+-.0123456789":
        plain = text.replace("_", "")
        number = go_parse_int(plain)
        if number is not None:
            return number
        if _GO_FLOAT.match(plain):
            return float(plain)
    return text


def json_key(key: Any) -> str | None:
    """A YAML key as the JSON object key ``YAMLToJSON`` writes (None: not representable)."""
    if isinstance(key, str):
        return key
    if isinstance(key, bool):
        return "true" if key else "false"
    if isinstance(key, int):
        return str(key)
    if isinstance(key, float):
        if math.isinf(key):
            return ".inf" if key > 0 else "-.inf"
        return None if math.isnan(key) else _go_float_text(key)
    if key is None:
        return "null"
    return None


def _go_float_text(value: float) -> str:
    """``strconv.FormatFloat(f, 'g', -1, 64)`` for the values a key can hold."""
    text = repr(value)
    if text.endswith(".0"):
        text = text[:-2]
    return text.replace("e+", "e+0") if re.search(r"e\+\d$", text) else text


@dataclass
class YamlRead:
    value: Any  # the first document as JSON-like values (None: empty)
    documents: int  # how many documents the text holds (counted as far as they parse)
    duplicates: list[tuple[str, str]] = field(default_factory=list)  # (path, key) written twice
    bad_keys: list[tuple[str, str]] = field(default_factory=list)  # (path, key) JSON cannot hold
    error: str | None = None  # the first document does not parse


class _Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """Composes nodes only; every plain scalar keeps its text and is resolved by ``resolve_plain``."""


_PLAIN = "!kueue-dra/plain"
_Loader.yaml_implicit_resolvers = {}


def _resolve(self: Any, kind: Any, value: Any, implicit: Any) -> str:
    """The tag of an untagged node: plain scalars are resolved later, quoted ones are strings."""
    if kind is yaml.ScalarNode:
        return _PLAIN if implicit[0] else "tag:yaml.org,2002:str"
    return "tag:yaml.org,2002:seq" if kind is yaml.SequenceNode else "tag:yaml.org,2002:map"


_Loader.resolve = _resolve


class _Converter:
    def __init__(self) -> None:
        self.duplicates: list[tuple[str, str]] = []
        self.bad_keys: list[tuple[str, str]] = []

    def value(self, node: yaml.Node, path: str, depth: int = 0) -> Any:
        if depth > 200:
            raise yaml.YAMLError("the document nests deeper than 200 levels (or an alias refers to itself)")
        if isinstance(node, yaml.ScalarNode):
            return self.scalar(node)
        if isinstance(node, yaml.SequenceNode):
            return [self.value(item, f"{path}[{i}]", depth + 1) for i, item in enumerate(node.value)]
        if isinstance(node, yaml.MappingNode):
            return self.mapping(node, path, depth)
        raise yaml.YAMLError(f"unexpected node {node!r}")

    @staticmethod
    def scalar(node: yaml.ScalarNode) -> Any:
        tag, text = node.tag, node.value
        if tag == _PLAIN:
            return resolve_plain(text)
        if tag == "tag:yaml.org,2002:null":
            return None
        if tag == "tag:yaml.org,2002:bool":
            if text not in _BOOLS:
                raise yaml.YAMLError(f"cannot decode !!str `{text}` as a !!bool")
            return _BOOLS[text]
        if tag == "tag:yaml.org,2002:int":
            number = go_parse_int(text.replace("_", ""))
            if number is None:
                raise yaml.YAMLError(f"cannot decode !!str `{text}` as a !!int")
            return number
        if tag == "tag:yaml.org,2002:float":
            resolved = resolve_plain(text)
            if isinstance(resolved, bool) or not isinstance(resolved, (int, float)):
                raise yaml.YAMLError(f"cannot decode !!str `{text}` as a !!float")
            return float(resolved)
        return text  # !!str, quoted scalars, and tags go-yaml keeps as text

    def mapping(self, node: yaml.MappingNode, path: str, depth: int) -> dict[str, Any]:
        out: dict[str, Any] = {}
        merged: dict[str, Any] = {}
        for key_node, value_node in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge" or (
                    key_node.tag == _PLAIN and key_node.value == "<<"):
                for source in self._merge_sources(value_node, path, depth):
                    for k, v in source.items():
                        merged.setdefault(k, v)
                continue
            raw = self.value(key_node, path, depth + 1) if not isinstance(key_node, yaml.ScalarNode) \
                else self.scalar(key_node)
            key = json_key(raw)
            if key is None:
                self.bad_keys.append((path, repr(raw)))
                continue
            child = f"{path}.{key}" if path else key
            if key in out:
                self.duplicates.append((path, key))
            out[key] = self.value(value_node, child, depth + 1)
        for k, v in merged.items():
            out.setdefault(k, v)
        return out

    def _merge_sources(self, node: yaml.Node, path: str, depth: int) -> list[dict[str, Any]]:
        nodes = node.value if isinstance(node, yaml.SequenceNode) else [node]
        sources = []
        for n in nodes:
            value = self.value(n, path, depth + 1)
            if not isinstance(value, dict):
                raise yaml.YAMLError("map merge requires map or sequence of maps as the value")
            sources.append(value)
        return sources


def _where(e: yaml.YAMLError) -> str:
    mark = getattr(e, "problem_mark", None)
    problem = getattr(e, "problem", None) or str(e)
    return f"line {mark.line + 1}: {problem}" if mark is not None else problem


def read_first_document(text: str) -> YamlRead:
    """The first YAML document of ``text`` as Kueue's decoder sees it."""
    loader = _Loader(text)
    converter = _Converter()
    try:
        try:
            node = loader.get_node() if loader.check_node() else None
            value = converter.value(node, "") if node is not None else None
        except yaml.YAMLError as e:
            return YamlRead(None, 1, error=_where(e))
        documents = 1
        try:
            while loader.check_node():
                loader.get_node()
                documents += 1
        except yaml.YAMLError:
            documents += 1  # a later document that does not parse: Kueue never reads it
    finally:
        loader.dispose()
    return YamlRead(value, documents, converter.duplicates, converter.bad_keys)


def first_document_end(text: str) -> int:
    """The offset where the first document's text ends (the start of the next ``---`` line, or
    the end of the text): what ``map`` may rewrite, leaving the other documents byte for byte."""
    for match in re.finditer(r"^(---|\.\.\.)(?=[ \t\r\n]|$)", text, re.M):
        before = text[:match.start()]
        if match.group(1) == "..." or _has_content(before):
            return match.start()
    return len(text)


def _has_content(text: str) -> bool:
    return any(line.strip() and not line.lstrip().startswith("#") and not line.startswith("%")
               for line in text.splitlines())
