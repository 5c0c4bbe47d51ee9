"""Fields a writer sent that the stored object does not have. Pure.

An API server drops the fields of a disabled feature gate from what it stores, and says nothing
(the create or update succeeds). What was sent is still on record in two places:

* ``metadata.managedFields``: the API server records the fields each writer (``manager``) set,
  from the object as it was sent, before the field was dropped; a field a manager owns that the
  object does not have was dropped. A list of ``listType=atomic`` (a ResourceSlice's ``devices``)
  is owned whole, so a field inside its items is not on record there;
* the ``kubectl.kubernetes.io/last-applied-configuration`` annotation of ``kubectl apply``
  (client-side): the whole object as sent, values included.

A path is a tuple of keys; ``*`` stands for every item of a list or every value of a map.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
ANY = "*"
Path = tuple[str, ...]


@dataclass(frozen=True, kw_only=True)
class Written:
    """A field sent for the object that the object does not have."""

    path: Path
    managers: tuple[str, ...]  # who sent it (managedFields), with when: "kubectl-create at 2026-…"
    values: tuple[Any, ...]  # what was sent, where the last-applied configuration says it

    @property
    def field(self) -> str:
        return ".".join("[*]" if p == ANY else p for p in self.path).replace(".[*]", "[*]")

    def by(self) -> str:
        """Who wrote it, said for a message (empty when only the annotation tells)."""
        return ", ".join(self.managers)

    def to_json(self) -> dict[str, Any]:
        return {"field": self.field, "writtenBy": list(self.managers), "values": list(self.values)}


def _values(node: Any, path: Path) -> Iterator[Any]:
    """Every value at ``path`` under ``node`` (``*``: each list item or map value)."""
    if not path:
        yield node
        return
    key, rest = path[0], path[1:]
    if key == ANY:
        children = node if isinstance(node, list) else list(node.values()) if isinstance(node, dict) else []
        for child in children:
            yield from _values(child, rest)
    elif isinstance(node, dict) and key in node:
        yield from _values(node[key], rest)


def _present(value: Any) -> bool:
    return value is not None and value != [] and value != {} and value != ""


def has_field(obj: dict[str, Any], path: Path) -> bool:
    return any(_present(v) for v in _values(obj, path))


def _owns(fields: Any, path: Path) -> bool:
    """Whether a managedFields ``fieldsV1`` tree owns ``path`` (``f:name`` keys; list items are
    ``k:``/``v:``/``i:`` keys)."""
    if not path:
        return True
    if not isinstance(fields, dict):
        return False
    key, rest = path[0], path[1:]
    if key == ANY:
        return any(_owns(child, rest) for k, child in fields.items() if k[:2] in ("k:", "v:", "i:", "f:"))
    return f"f:{key}" in fields and _owns(fields[f"f:{key}"], rest)


def _last_applied(obj: dict[str, Any]) -> Any:
    text = ((obj.get("metadata") or {}).get("annotations") or {}).get(LAST_APPLIED)
    if not isinstance(text, str):
        return None
    try:
        return json.loads(text)
    except ValueError:
        return None


def written_but_absent(obj: dict[str, Any], path: Path) -> Written | None:
    """``path`` as a writer sent it when the object does not have it, else None."""
    managers = []
    for entry in (obj.get("metadata") or {}).get("managedFields") or []:
        if isinstance(entry, dict) and _owns(entry.get("fieldsV1"), path):
            when = f" at {entry['time']}" if entry.get("time") else ""
            managers.append(f"{entry.get('manager') or 'a writer'} ({entry.get('operation') or 'Update'}{when})")
    applied = _last_applied(obj)
    values = tuple(v for v in _values(applied, path) if _present(v)) if applied is not None else ()
    # what is on record first: the object's own fields (every device of a slice) are walked only
    # for a field someone is on record as having sent
    if (not managers and not values) or has_field(obj, path):
        return None
    return Written(path=path, managers=tuple(managers), values=values)


class OnRecord:
    """Which of ``paths`` an object has on record as sent, asked of many objects: every path when
    it has a ``kubectl apply`` annotation, else those its writers' ``fieldsV1`` trees own; a path
    not among them has no field written (``written_but_absent`` is None). A tree shared between
    objects' entries (the compactor shares equal ones) is walked once."""

    def __init__(self, paths: tuple[Path, ...]) -> None:
        self.paths = paths
        self._owned: dict[int, tuple[Any, tuple[Path, ...]]] = {}  # id → (the tree, held: its id stays its own; paths)

    def __call__(self, obj: dict[str, Any]) -> tuple[Path, ...]:
        meta = obj.get("metadata") or {}
        if LAST_APPLIED in (meta.get("annotations") or {}):
            return self.paths
        found: tuple[Path, ...] = ()
        for entry in meta.get("managedFields") or []:
            fields = entry.get("fieldsV1") if isinstance(entry, dict) else None
            known = self._owned.get(id(fields))
            if known is None or known[0] is not fields:
                known = self._owned[id(fields)] = (fields, tuple(p for p in self.paths if _owns(fields, p)))
            found += tuple(p for p in known[1] if p not in found)
        return found


def keep_top_fields(entry: dict[str, Any], under: str = "spec") -> dict[str, Any]:
    """A managedFields entry with its ``fieldsV1`` cut down to the top-level fields of ``under``
    it owns (``{"f:spec": {"f:sharedCounters": {}}}``): what ``written_but_absent`` needs of a
    field there, at a fraction of the tree's size."""
    fields = entry.get("fieldsV1")
    kept = {k: v for k, v in entry.items() if k != "fieldsV1"}
    top = fields.get(f"f:{under}") if isinstance(fields, dict) else None
    if isinstance(top, dict):
        kept["fieldsV1"] = {f"f:{under}": {k: {} for k in top if k.startswith("f:")}}
    return kept
