"""Load an offline snapshot given with ``--from PATH``.

Accepted: one YAML or JSON file, or a directory searched recursively for ``*.yaml``, ``*.yml``,
``*.json``, ``*.jsonl`` and ``*.ndjson``, each of them also gzip-compressed (``snap.json.gz``: a
file that begins with gzip's magic bytes is inflated as it is read, whatever its name). A file may
hold several YAML documents, a ``kind: List`` (what ``kubectl get -o yaml`` prints) or a typed list
such as ``PodList``; the ``oc adm must-gather`` tree
(``cluster-scoped-resources/<group>/<plural>/<name>.yaml``, ``namespaces/<ns>/<group>/<plural>/…``)
is just such a directory. A JSON file may hold several documents one after another (``kubectl get
-o json >> file``, JSON Lines) or an array of objects; a file beginning with a UTF-16 byte-order
mark is read as UTF-16 (as kubectl reads ``-f``). Documents without ``apiVersion``/``kind`` are
ignored, so the rest of a must-gather (logs, events as text) does no harm; an empty file (any name)
and a List whose ``items`` are null or absent hold no object, as kubectl reads them; malformed YAML
or JSON, or a damaged gzip file, is an error naming the file (and line), because a silently skipped
file would give a wrong answer.
"""

from __future__ import annotations

import gzip
import json
import os
import zlib
from typing import Any
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from ..errors import SnapshotError
from ..k8s.envelope import describe, envelope_problem, type_name
from ..k8s.shape import Malformed, SharedParts
from ..k8s.utf8 import NotUtf8, manifest_text
from .compact import SliceCompactor
from .convert import to_v1
from .kinds import KINDS, Kind
from .parse.jsonstream import load_all, values
from .parse.yamlstream import fast_loader, load_documents
from .view import ClusterView, Obj

JSON_SUFFIXES = (".json", ".jsonl", ".ndjson")  # JSON Lines, one object per line, is JSON documents in turn
SUFFIXES = (".yaml", ".yml", *JSON_SUFFIXES)
_GZIP_MAGIC = b"\x1f\x8b"
#: what reading a damaged gzip file raises (a truncated one: EOFError)
_GZIP_ERRORS = (gzip.BadGzipFile, EOFError, zlib.error)


def _files(path: str, shown: str) -> list[str]:
    if not os.path.exists(path):
        raise SnapshotError(f"--from {shown}: no such file or directory")
    if os.path.isfile(path):
        return [path]
    found: list[str] = []
    for root, dirs, names in os.walk(path):
        dirs.sort()
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        found.extend(os.path.join(root, n) for n in sorted(names) if n.removesuffix(".gz").endswith(SUFFIXES))
    if not found:
        raise SnapshotError(f"--from {shown}: no YAML or JSON files in this directory")
    return found


def _item_handler(compact: Any) -> Callable[[Any, dict[str, Any]], Any]:
    """What is done to each item of a List as soon as it is read: an item of a typed list (the
    API server's ``ResourceSliceList``) gets the list's kind, and a ResourceSlice is made small."""
    compacting = isinstance(compact, SliceCompactor)

    def on_item(item: Any, container: dict[str, Any]) -> Any:
        if not isinstance(item, dict):
            return item
        if "kind" not in item:
            _typed(item, container)
        if compacting and item.get("kind") == "ResourceSlice" and isinstance(item.get("apiVersion"), str) \
                and envelope_problem(item) is None:
            return compact(to_v1(item))
        return item
    return on_item


def _typed(item: dict[str, Any], container: Any) -> None:
    """An item of a typed list (``PodList``) without its own kind: the list's (its apiVersion too)."""
    kind = container.get("kind") if isinstance(container, dict) else None
    if isinstance(kind, str) and kind.endswith("List") and kind != "List":
        item["kind"] = kind[:-4]
        item.setdefault("apiVersion", container.get("apiVersion"))


@contextmanager
def _opened(path: str) -> Iterator[Any]:
    """The file, its bytes inflated as they are read when it is gzip-compressed."""
    with open(path, "rb") as f:
        gzipped = f.read(2) == _GZIP_MAGIC
        f.seek(0)
        if not gzipped:
            yield f
            return
        with gzip.GzipFile(fileobj=f, mode="rb") as inflated:
            yield inflated


def _streamed_json(path: str, on_item: Callable[[Any, dict[str, Any]], Any],
                   decode: Callable[[str], list[Any]] | None) -> list[Any] | None:
    """The JSON documents of a file (one, or a stream of them), parsed item by item, each item
    through ``on_item`` as soon as it is read (``kube/parse/jsonstream.py``); None when the file is not
    that, or not well-formed (the caller then reads it whole, and reports the error)."""
    try:
        with _opened(path) as f:
            head = f.read(4096).lstrip()
            if not head.startswith((b"{", b"[")):
                return None
            f.seek(0)
            return load_all(f, on_item, decode=decode)
    except (OSError, ValueError, RecursionError, *_GZIP_ERRORS):
        return None


def _slice_batches(compact: SliceCompactor) -> Callable[[str], list[Any]]:
    """The batch parser that shares the ResourceSlices' repeated parts (``kube/parse/slices.py``),
    made on the first batch: msgspec is imported then, not by a file without one."""
    made: list[Callable[[str], list[Any]]] = []

    def decode(text: str) -> list[Any]:
        if not made:
            from .parse.slices import SliceBatches

            made.append(SliceBatches(compact))
        return made[0](text)
    return decode


def _documents(path: str, compact: Any = None) -> Iterator[Any]:
    on_item = _item_handler(compact)
    streamed = _streamed_json(path, on_item, _slice_batches(compact) if isinstance(compact, SliceCompactor) else None)
    if streamed is not None:
        yield from streamed
        return
    try:
        with _opened(path) as f:
            data = f.read()
    except _GZIP_ERRORS as e:
        raise SnapshotError(f"{path}: not a whole gzip file: {e}") from None
    except OSError as e:
        raise SnapshotError(f"{path}: {e.strerror}") from None
    try:
        text = manifest_text(data)
    except NotUtf8 as e:
        raise SnapshotError(f"{path}: {e}") from None
    if not text or text.isspace():  # an empty file holds no object, whatever its name (as kubectl reads it)
        return
    json_named = path.removesuffix(".gz").endswith(JSON_SUFFIXES)
    json_error = None
    if json_named or text.lstrip()[:1] in ("{", "["):
        try:
            yield from values(text)
            return
        except json.JSONDecodeError as e:
            json_error = SnapshotError(f"{path}:{e.lineno}: malformed JSON: {e.msg}")
            if json_named:
                raise json_error from None
    import yaml  # only for YAML: a JSON List (the big snapshots) never loads it

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    cut = load_documents(text, fast_loader(), on_item)
    if cut is not None:  # documents apart, a List item by item (kube/parse/yamlstream.py)
        yield from cut
        return
    try:
        yield from yaml.load_all(text, Loader=loader)
    except yaml.YAMLError as e:
        if json_error is not None:  # it began as JSON and is not YAML either: JSON's error says where
            raise json_error from None
        mark = getattr(e, "problem_mark", None) or getattr(e, "context_mark", None)
        where = f":{mark.line + 1}" if mark else ""
        problem = getattr(e, "problem", None) or str(e).splitlines()[0]
        raise SnapshotError(f"{path}{where}: malformed YAML: {problem}") from None


def _objects(doc: Any) -> Iterator[dict[str, Any]]:
    if isinstance(doc, list):  # a JSON array of objects (e.g. jq's `[.items[]]`)
        for element in doc:
            yield from _objects(element)
        return
    if not isinstance(doc, dict):
        return
    kind = doc.get("kind")
    items = doc.get("items")
    if isinstance(kind, str) and kind.endswith("List") and items is None and isinstance(doc.get("apiVersion"), str):
        return  # an empty list as some tools write it (``items: null``, or no items at all)
    if isinstance(kind, str) and kind.endswith("List") and isinstance(items, list):
        for item in items:
            if isinstance(item, dict):
                if "kind" not in item:  # not read item by item (the whole text parsed at once)
                    _typed(item, doc)
                yield from _objects(item)
        return
    if isinstance(kind, str) and isinstance(doc.get("apiVersion"), str):
        yield doc


def _items_problem(obj: dict[str, Any]) -> str | None:
    """A ``List`` whose ``items`` is no list (its objects cannot be told apart)."""
    kind, items = obj.get("kind"), obj.get("items")
    if isinstance(kind, str) and kind.endswith("List") and items is not None and not isinstance(items, list):
        return f"items: expected a list, got {type_name(items)}"
    return None


def _namespace_problem(obj: dict[str, Any]) -> str | None:
    """A namespaced object of a kind the plugin reads without ``metadata.namespace`` (a manifest
    meant for ``kubectl apply -n``, not what a server serves): which namespace it is in is unknown."""
    k = KINDS.get(str(obj.get("kind")))
    if k is None or not k.namespaced or str(obj.get("apiVersion") or "").rpartition("/")[0] != k.group:
        return None
    if obj["metadata"].get("namespace"):
        return None
    return f"metadata.namespace: a {k.kind} is namespaced, this one names none"


def load_objects(path: str, compact: Any = None, opened_at: str | None = None) -> list[dict[str, Any]]:
    """The objects of the files at ``path`` (read at ``opened_at`` when the path is relative to
    another directory than the process's)."""
    compact = compact or SliceCompactor()  # ResourceSlices of big Lists are made small while reading
    objects: list[dict[str, Any]] = []
    for file in _files(opened_at or path, path):
        for doc in _documents(file, compact):
            for n, obj in enumerate(_objects(doc), 1):
                problem = _items_problem(obj) or envelope_problem(obj) or _namespace_problem(obj)
                if problem:
                    raise SnapshotError(f"{file}: {describe(obj)} (object {n} of its document): {problem}",
                                        "fix or remove the object: the API server never serves one like it")
                objects.append(obj)
    return objects


def load_snapshot(path: str, default_namespace: str | None = None, *, opened_at: str | None = None) -> SnapshotView:
    compact = SliceCompactor()
    return SnapshotView(load_objects(path, compact, opened_at), path, default_namespace or "default", compact.parts)


class SnapshotView(ClusterView):
    """Objects loaded from files (the layouts above)."""

    def __init__(self, objects: list[Obj], source: str, default_namespace: str = "default",
                 shared: SharedParts | None = None):
        super().__init__()
        self._shared = shared
        self.source = f"snapshot {source}"
        self.default_namespace = default_namespace
        self._by_kind: dict[str, list[Obj]] = {}
        seen: dict[tuple, int] = {}
        for obj in objects:
            kind = str(obj.get("kind"))
            k = KINDS.get(kind)
            group, _, version = str(obj.get("apiVersion") or "").rpartition("/")
            if k is None or group != k.group:
                continue
            meta = obj.get("metadata") or {}
            if version not in k.versions:  # another shape (an older DRA alpha, a newer API): not guessed at
                self.note_malformed([Malformed(kind, meta.get("namespace"), meta.get("name"), "apiVersion",
                                               "one this tool reads (" + ", ".join(k.versions) + ")",
                                               repr(obj.get("apiVersion")), "the object is not read")])
                continue
            obj = to_v1(obj)
            bucket = self._by_kind.setdefault(kind, [])
            ident = (kind, meta.get("namespace") if k.namespaced else None, meta.get("name"))
            if ident in seen:  # the same object twice (e.g. must-gather): the last one wins
                bucket[seen[ident]] = obj
            else:
                seen[ident] = len(bucket)
                bucket.append(obj)

    def serves(self, kind: str) -> bool:
        return kind in self._by_kind

    def _list(self, kind: Kind, namespace: str | None, field_selector: dict[str, str],
              label_selector: str | None) -> list[Obj]:
        return [o for o in self._by_kind.get(kind.kind, [])
                if self._matches(o, namespace, field_selector, label_selector)]

    def _get(self, kind: Kind, name: str, namespace: str | None) -> Obj | None:
        found = self._list(kind, namespace, {"metadata.name": name}, None)
        return found[0] if found else None
