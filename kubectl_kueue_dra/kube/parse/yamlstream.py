"""Read a YAML snapshot document by document, and a big ``List`` item by item.

``kubectl get -o yaml`` of a large cluster prints one ``List``. PyYAML builds the node tree of a
whole document before its objects, about 50 times the text (a 20 MB List of 100 GPU nodes took
1 GB), and two outputs appended with ``>>`` are one document whose top-level keys repeat, where
YAML keeps the last value: the first output's objects were lost without a word. Here the text is
cut where the block layout that kubectl and PyYAML print makes a cut safe:

* a new document at a ``---`` line, and where a top-level key repeats (an appended output, when
  what follows has an ``apiVersion`` and a ``kind``: else a key written twice in one object);
* in a document whose ``items:`` is a block sequence of ``- `` entries at column 0, each entry is
  parsed alone (its ``-`` made a space: the item is then the document's root, indented), and
  handed to a callback (a ResourceSlice is made small before the next one is read).

A text in another layout (flow style, directives, an ``items`` sequence indented) is parsed as it
is, per document. Whatever does not parse when cut (an alias to an anchor in another item) gives
None: the caller then parses the whole text as one stream, which also gives the precise error.
"""

from __future__ import annotations

import re
from typing import Any
from collections.abc import Callable, Iterator

#: a plain key at column 0 (``apiVersion:``, ``items:``); a line that starts otherwise at column 0
#: is a sequence entry, a comment, a marker, or a layout left to the parser
_LINES = re.compile(r"[^\n]*\n|[^\n]+")
_KEY = re.compile(r"([A-Za-z_][\w./-]*):(?:[ \t\r]|$)")


class _Unsafe(Exception):
    """The text is not in the layout the cuts assume."""


def _bare(rest: str) -> bool:
    """Nothing after a document marker but a comment (``--- # Source: chart/templates/a.yaml``)."""
    rest = rest.strip()
    return not rest or rest.startswith("#")


def _documents(lines: list[str]) -> Iterator[list[str]]:
    """The lines of each document: cut at ``---`` and where a top-level key repeats, unless what
    follows the repeated key brings no ``apiVersion`` and ``kind`` of its own: then it is not an
    appended output but a key written twice in one object, which stays one document (where YAML,
    as kubectl reads it, keeps the last value)."""
    kept: list[str] | None = None
    for doc, keys, by_key in _pieces(lines):
        if by_key and kept is not None and not {"apiVersion", "kind"} <= keys:
            kept.extend(doc)
            continue
        if kept is not None:
            yield kept
        kept = doc
    if kept is not None:
        yield kept


def _pieces(lines: list[str]) -> Iterator[tuple[list[str], set[str], bool]]:
    """The lines cut at ``---`` and at a repeated top-level key: each piece with its top-level keys
    and whether a repeated key cut it."""
    doc: list[str] = []
    keys: set[str] = set()
    by_key = False
    for line in lines:
        first = line[:1]
        if first in ("", " ", "\n", "\r", "\t", "#"):
            doc.append(line)
            continue
        if line.startswith("---") and line[3:4] in ("", " ", "\n", "\r", "\t"):
            if not _bare(line[3:]):  # content after the marker on its line (a tag, a value)
                raise _Unsafe()
            yield doc, keys, by_key
            doc, keys, by_key = [], set(), False
            continue
        if line.startswith("...") and _bare(line[3:]):
            yield doc, keys, by_key
            doc, keys, by_key = [], set(), False
            continue
        if line.startswith("-") and line[1:2] in ("", " ", "\n", "\r"):
            doc.append(line)
            continue
        m = _KEY.match(line)
        if m is None:  # flow style, a quoted key, a directive, a tag: not the layout cut here
            raise _Unsafe()
        if m.group(1) in keys:  # an appended output: its own document
            yield doc, keys, by_key
            doc, keys, by_key = [], set(), True
        keys.add(m.group(1))
        doc.append(line)
    yield doc, keys, by_key


def _items(doc: list[str]) -> tuple[list[str], list[list[str]]] | None:
    """The document without its ``items`` entries (``items: []`` in their place), and each entry's
    lines, when ``items:`` is followed by ``- `` entries at column 0; else None."""
    rest: list[str] = []
    entries: list[list[str]] = []
    inside = False
    for line in doc:
        if inside:
            first = line[:1]
            if first == "-":
                entries.append([" " + line[1:]])
                continue
            if not line.strip() or first == "#":  # blank (in a block scalar, too) or a comment
                if entries:
                    entries[-1].append(line)
                continue
            if first in (" ", "\t"):
                if not entries:  # an indented sequence: not the layout cut here
                    raise _Unsafe()
                entries[-1].append(line)
                continue
            inside = False
        if line.startswith("items:") and not line[6:].strip():
            inside = True
            rest.append("items: []\n")
            continue
        rest.append(line)
    return (rest, entries) if entries else None


def load_documents(text: str, load: Callable[[str], Any],
                   on_item: Callable[[Any, dict[str, Any]], Any]) -> list[Any] | None:
    """The documents of a YAML text (``load`` parses one document's text), each ``List``-like
    document's items through ``on_item(item, the document without its items)``; None when the
    text is not in the layout the cuts assume or a piece does not parse alone (the caller parses
    the whole text instead)."""
    try:
        lines = _LINES.findall(text)  # at "\n" only: str.splitlines also cuts at characters YAML keeps
        docs: list[Any] = []
        for doc in _documents(lines):
            if not any(line.strip() and not line.startswith("#") for line in doc):
                continue
            cut = _items(doc)
            if cut is None:
                docs.append(load("".join(doc)))
                continue
            rest, entries = cut
            head = load("".join(rest))
            if not isinstance(head, dict) or head.get("items") != []:
                raise _Unsafe()
            head["items"] = [on_item(load("".join(entry)), head) for entry in entries]
            docs.append(head)
        return docs
    except _Unsafe:
        return None
    except Exception as e:  # a YAMLError of a piece: the whole text is parsed instead
        if type(e).__module__.startswith("yaml"):
            return None
        raise


class _Slow(Exception):
    """A node the direct build leaves to PyYAML's constructor (a merge key, a tagged collection)."""


_STR, _MAP, _SEQ, _MERGE = (f"tag:yaml.org,2002:{t}" for t in ("str", "map", "seq", "merge"))


def fast_loader() -> Callable[[str], Any]:
    """``yaml.load(text, CSafeLoader)`` for one document, its objects built straight from the node
    tree: strings, maps and lists directly, other scalars (numbers, booleans, null, timestamps)
    by PyYAML's safe constructor, so the result is the same; a merge key, a tagged collection or
    an alias cycle goes through the constructor whole. About twice as fast on Kubernetes objects
    (PyYAML's constructor is per node Python with generators)."""
    import yaml
    from yaml.nodes import MappingNode, ScalarNode, SequenceNode

    loader_class = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

    def build(node: Any, construct: Callable[[Any], Any]) -> Any:
        kind = type(node)
        if kind is ScalarNode:
            return node.value if node.tag == _STR else construct(node)
        if kind is MappingNode and node.tag == _MAP:
            out: dict[Any, Any] = {}
            for key_node, value_node in node.value:
                if type(key_node) is ScalarNode and key_node.tag == _STR:
                    key = key_node.value
                else:
                    if key_node.tag == _MERGE:
                        raise _Slow()
                    key = build(key_node, construct)
                    if isinstance(key, (dict, list)):  # unhashable: PyYAML's error
                        raise _Slow()
                out[key] = build(value_node, construct)
            return out
        if kind is SequenceNode and node.tag == _SEQ:
            return [build(item, construct) for item in node.value]
        raise _Slow()

    def load(text: str) -> Any:
        loader = loader_class(text)
        try:
            node = loader.get_single_node()
            if node is None:
                return None
            try:
                return build(node, loader.construct_object)
            except (_Slow, RecursionError):
                return loader.construct_document(node)
        finally:
            loader.dispose()
    return load
