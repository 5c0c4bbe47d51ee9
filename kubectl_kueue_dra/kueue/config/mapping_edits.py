"""Edits of ``deviceClassMappings`` and of the object that holds them. Pure: objects in, objects out.

An edit touches one mapping; the other entries are passed through as the same dicts, so they
are written back exactly as read. The OpenShift ``Kueue`` CR keeps the list in
``spec.config.resources``; upstream Kueue in the YAML text of its ConfigMap, which is spliced
(``splice``) so the rest of the document keeps its bytes. Removing the last mapping removes
``resources`` as well: the operator CRD rejects both an empty list and an empty ``resources``.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from ...errors import UserError
from .decode import decode_text
from .load import CONFIG_KEY
from .mappings import Source, mapping_entry
from .splice import replace_mappings, with_mappings


class EditError(UserError):
    """The edit asked for does not make sense on the current list."""


def _names(raw: list[Any]) -> list[str]:
    return [str(e.get("name")) for e in raw if isinstance(e, dict)]


def _index(raw: list[Any], name: str) -> int | None:
    return next((i for i, e in enumerate(raw) if isinstance(e, dict) and e.get("name") == name), None)


def set_mapping(raw: list[Any], name: str, device_classes: list[str], sources: list[Source],
                dialect: str) -> list[Any]:
    """Add the mapping at the end, or replace the one of that name in place (its position
    matters: Kueue 0.19 charges a class to the first mapping listing it)."""
    out = list(raw)
    i = _index(out, name)
    if i is None:
        out.append(mapping_entry(name, device_classes, sources, dialect))
    else:
        entry = mapping_entry(name, device_classes, sources, dialect, base=out[i])
        out[i] = out[i] if entry == out[i] else entry
    return out


def remove_mapping(raw: list[Any], name: str, device_classes: list[str] | None = None) -> list[Any]:
    """Remove the mapping, or only some of its DeviceClasses."""
    i = _index(raw, name)
    if i is None:
        known = ", ".join(_names(raw)) or "none"
        raise EditError(f"no mapping named {name} (mappings: {known})")
    out = list(raw)
    if not device_classes:
        del out[i]
        return out
    entry = out[i]
    current = list(entry.get("deviceClassNames") or [])
    missing = [c for c in device_classes if c not in current]
    if missing:
        raise EditError(f"mapping {name} does not list {', '.join(missing)} "
                        f"(it lists {', '.join(current) or 'nothing'})")
    left = [c for c in current if c not in device_classes]
    if not left:
        raise EditError(f"removing {', '.join(device_classes)} would leave mapping {name} without "
                        "DeviceClasses, which Kueue rejects",
                        f"remove the whole mapping: kubectl kueue-dra map remove {name}")
    out[i] = dict(entry, deviceClassNames=left)
    return out


# ---- the objects ----------------------------------------------------------------------------

#: problems no mapping edit can change: Kueue does not start before or after the write
_BLOCKING_STAGES = ("yaml", "decode", "feature-gates")


def config_document(obj: dict[str, Any], kind: str, kueue_version: str | None = None) -> dict[str, Any]:
    """The Kueue configuration inside the object: the CR's ``spec.config``, or the first document
    of the ConfigMap text, decoded as Kueue decodes it. A text Kueue refuses for a reason no
    mapping edit changes (YAML, types, unknown fields, feature gates) is refused here."""
    if kind == "Kueue":
        return ((obj.get("spec") or {}).get("config")) or {}
    ref = f"ConfigMap {obj['metadata'].get('namespace')}/{obj['metadata']['name']}"
    text = (obj.get("data") or {}).get(CONFIG_KEY)
    if text is None:
        raise UserError(f"{ref} has no key {CONFIG_KEY}", "is this Kueue's configuration?")
    if not isinstance(text, str):
        raise UserError(f"{ref} key {CONFIG_KEY} is not text", "fix it by hand first")
    decoded = decode_text(text, kueue_version)
    blocking = [p for p in decoded.problems if p.stage in _BLOCKING_STAGES]
    if blocking:
        shown = "; ".join(str(p) for p in blocking[:3]) + (f" (and {len(blocking) - 3} more)"
                                                            if len(blocking) > 3 else "")
        raise UserError(f"{ref} key {CONFIG_KEY}: Kueue {decoded.minor} does not start with it ({shown}); "
                        "nothing was written", "fix it by hand first")
    return decoded.document


def current_mappings(obj: dict[str, Any], kind: str, kueue_version: str | None = None) -> list[Any]:
    raw = (config_document(obj, kind, kueue_version).get("resources") or {}).get("deviceClassMappings")
    return list(raw) if isinstance(raw, list) else []


@dataclass
class ObjectEdit:
    obj: dict[str, Any]
    preserved: bool = True  # False: the ConfigMap text had to be re-serialised


def with_object_mappings(obj: dict[str, Any], kind: str, raw: list[Any]) -> ObjectEdit:
    """A copy of the object holding ``raw`` as its mappings; nothing else changes."""
    new = copy.deepcopy(obj)
    if kind == "Kueue":
        spec = new.setdefault("spec", {})
        spec["config"] = with_mappings(spec.get("config") or {}, raw)
        return ObjectEdit(new)
    try:
        edit = replace_mappings(new["data"][CONFIG_KEY], raw)
    except ValueError as e:
        raise UserError(f"ConfigMap key {CONFIG_KEY}: {e}; nothing was written", "fix it by hand first") from None
    new["data"][CONFIG_KEY] = edit.text
    return ObjectEdit(new, edit.preserved)
