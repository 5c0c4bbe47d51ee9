"""Kubernetes objects as text: the YAML kubectl prints (without the fields every write changes),
and a unified diff of two such texts. Pure."""

from __future__ import annotations

import difflib
from typing import Any

import yaml

_NOISY_METADATA = ("managedFields", "resourceVersion", "generation", "uid", "creationTimestamp",
                   "selfLink")


def clean_object(obj: dict[str, Any]) -> dict[str, Any]:
    """The object without the fields every write changes (for a readable diff)."""
    out = {k: v for k, v in obj.items() if k != "status"}
    meta = {k: v for k, v in (obj.get("metadata") or {}).items() if k not in _NOISY_METADATA}
    out["metadata"] = meta
    return out


def object_text(obj: dict[str, Any]) -> str:
    """Keys sorted as kubectl prints them, so a server's answer and a computed object compare."""
    return yaml.safe_dump(clean_object(obj), default_flow_style=False, sort_keys=True,
                          width=1 << 16, allow_unicode=True)


def unified_diff(before: str, after: str, label: str) -> str:
    lines = difflib.unified_diff(before.splitlines(True), after.splitlines(True),
                                 fromfile=f"{label} (before)", tofile=f"{label} (after)")
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)
