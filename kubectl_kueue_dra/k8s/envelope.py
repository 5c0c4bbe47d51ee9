"""The envelope every Kubernetes object has — ``apiVersion``, ``kind`` and ``metadata`` with a
string ``name`` (and ``namespace``, ``generateName``, ``uid``, ``resourceVersion``,
``creationTimestamp``), string-to-string ``labels`` and ``annotations``, ``ownerReferences`` of
mappings with string names — as the API server guarantees it. Pure.

A live server never serves an object without it; a snapshot file can hold one (edited by hand,
truncated, corrupted). Such an object cannot even be named in a finding, so the file is refused
with an error naming it and the field, as malformed YAML is.
"""

from __future__ import annotations

from typing import Any


def type_name(value: Any) -> str:
    """How a value is called in a message: a mapping, a list, a string, a number, null."""
    return {dict: "a mapping", list: "a list", str: "a string", bool: "a boolean", int: "a number",
            float: "a number", type(None): "null"}.get(type(value), type(value).__name__)


def _string_map(meta: dict[str, Any], key: str) -> str | None:
    value = meta.get(key)
    if value is None:
        return None
    if not isinstance(value, dict):
        return f"metadata.{key}: expected a mapping, got {type_name(value)}"
    bad = next((k for k, v in value.items() if not isinstance(k, str) or not isinstance(v, str)), None)
    return None if bad is None else f"metadata.{key}[{bad!r}]: expected a string, got {type_name(value[bad])}"


def envelope_problem(obj: dict[str, Any]) -> str | None:
    """What is wrong with the object's envelope (``field: expected …, got …``), or None."""
    meta = obj.get("metadata")
    if not isinstance(meta, dict):
        return f"metadata: expected a mapping, got {type_name(meta)}"
    name = meta.get("name")
    if not isinstance(name, str) or not name:
        return f"metadata.name: expected a non-empty string, got {type_name(name) if name != '' else 'an empty one'}"
    for key in _STRINGS:
        value = meta.get(key)
        if value is not None and not isinstance(value, str):
            return f"metadata.{key}: expected a string, got {type_name(value)}"
    return _string_map(meta, "labels") or _string_map(meta, "annotations") or _owner_problem(meta)


#: the string fields of ``metadata`` the plugin reads (names, identities, times)
_STRINGS = ("namespace", "generateName", "uid", "resourceVersion", "creationTimestamp")


def _owner_problem(meta: dict[str, Any]) -> str | None:
    refs = meta.get("ownerReferences")
    if refs is None:
        return None
    if not isinstance(refs, list):
        return f"metadata.ownerReferences: expected a list, got {type_name(refs)}"
    for i, ref in enumerate(refs):
        if not isinstance(ref, dict):
            return f"metadata.ownerReferences[{i}]: expected a mapping, got {type_name(ref)}"
        bad = next((k for k in ("apiVersion", "kind", "name", "uid")
                    if ref.get(k) is not None and not isinstance(ref[k], str)), None)
        if bad is not None:
            return f"metadata.ownerReferences[{i}].{bad}: expected a string, got {type_name(ref[bad])}"
    return None


def describe(obj: dict[str, Any]) -> str:
    """``Kind ns/name`` as far as it can be told (``Kind #index`` is the caller's fallback)."""
    raw = obj.get("metadata")
    meta: dict[str, Any] = raw if isinstance(raw, dict) else {}
    name, namespace = meta.get("name"), meta.get("namespace")
    if isinstance(name, str) and name:
        return f"{obj.get('kind')} {namespace}/{name}" if isinstance(namespace, str) else f"{obj.get('kind')} {name}"
    return str(obj.get("kind"))


def owner_references(obj: dict[str, Any]) -> list[dict[str, Any]]:
    """``metadata.ownerReferences`` as far as they are mappings (a malformed list yields none)."""
    meta = obj.get("metadata")
    refs = meta.get("ownerReferences") if isinstance(meta, dict) else None
    return [r for r in refs if isinstance(r, dict)] if isinstance(refs, list) else []
