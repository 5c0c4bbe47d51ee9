"""``-l/--selector`` and ``--field-selector`` strings as the API server reads them
(apimachinery's ``labels.Parse`` and ``fields.ParseSelector``), for lists read from a snapshot or
a file; a live list hands the strings to the server. A string the server would refuse is refused
here with the reason."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import UsageError

_KEY = re.compile(r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
                  r"[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$")
_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9])?$")
_TERM = re.compile(r"^\s*(?P<not>!)?\s*(?P<key>[^\s!=<>(),]+)\s*(?:(?P<op>==|=|!=|<|>|\s+in\s*|\s+notin\s*)\s*"
                   r"(?P<value>\([^)]*\)|[^\s,()]*))?\s*$")


@dataclass(frozen=True)
class Requirement:
    key: str
    op: str  # exists, !, =, !=, in, notin, <, >
    values: tuple[str, ...] = ()

    def matches(self, labels: Mapping[str, str]) -> bool:
        present = self.key in labels
        value = labels.get(self.key)
        if self.op == "exists":
            return present
        if self.op == "!":
            return not present
        if self.op in ("=", "in"):
            return present and value in self.values
        if self.op in ("!=", "notin"):
            return not present or value not in self.values
        if not present or not re.fullmatch(r"-?\d+", str(value)):
            return False
        number, bound = int(str(value)), int(self.values[0])
        return number < bound if self.op == "<" else number > bound


def _split_terms(text: str) -> list[str]:
    """Split at the commas outside ``( … )``."""
    terms, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += ch == "("
        depth -= ch == ")"
        if ch == "," and depth == 0:
            terms.append(text[start:i])
            start = i + 1
    terms.append(text[start:])
    return terms


def parse_labels(text: str) -> list[Requirement]:
    """A label selector (``a=b,c!=d,e in (f,g),!h,i``); an empty one selects everything."""
    if not text.strip():
        return []
    out = []
    for term in _split_terms(text):
        m = _TERM.match(term)
        if m is None or (m.group("not") and m.group("op")):
            raise UsageError(f'unable to parse label selector "{text}": "{term.strip()}" is not a requirement',
                             "e.g. -l 'team=a,tier!=dev,env in (prod,staging),!legacy'")
        key, op = m.group("key"), (m.group("op") or "").strip()
        if not _KEY.match(key):
            raise UsageError(f'label selector "{text}": "{key}" is not a valid label key')
        if not op:
            out.append(Requirement(key, "!" if m.group("not") else "exists"))
            continue
        raw = m.group("value") or ""
        if op in ("in", "notin"):
            if not (raw.startswith("(") and raw.endswith(")")):
                raise UsageError(f'label selector "{text}": {op} needs a list in parentheses, e.g. {key} {op} (a,b)')
            values = tuple(v.strip() for v in raw[1:-1].split(","))
        else:
            values = (raw,)
        for v in values:
            if (op in ("<", ">") and not re.fullmatch(r"-?\d+", v)) or not _VALUE.match(v):
                what = "an integer" if op in ("<", ">") else "a valid label value"
                raise UsageError(f'label selector "{text}": "{v}" is not {what}')
        out.append(Requirement(key, "=" if op == "==" else op, values))
    return out


def labels_match(requirements: list[Requirement], obj: Mapping[str, Any]) -> bool:
    labels = (obj.get("metadata") or {}).get("labels") or {}
    return all(r.matches(labels) for r in requirements)


@dataclass(frozen=True)
class FieldTerm:
    field: str
    value: str
    equal: bool


def _unescape_split(text: str, separators: str) -> list[tuple[str, str]]:
    """``text`` split at unescaped characters of ``separators``: (piece, the separator after it)."""
    pieces, current, i = [], [], 0
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text):
            current.append(text[i + 1])
            i += 2
            continue
        if ch in separators:
            pieces.append(("".join(current), ch))
            current = []
        else:
            current.append(ch)
        i += 1
    pieces.append(("".join(current), ""))
    return pieces


def parse_fields(text: str, supported: tuple[str, ...] | None = None) -> list[FieldTerm]:
    """A field selector (``metadata.name=x,metadata.namespace!=y``) over the fields the API server
    selects for the kind (``supported``; None: any); another field is refused as the server refuses it."""
    out = []
    for term, _ in _unescape_split(text, ","):
        if not term:
            continue
        m = re.match(r"^([^=!]+)(==|=|!=)(.*)$", term)
        if m is None:
            raise UsageError(f'invalid field selector "{text}": "{term}" is not FIELD=VALUE or FIELD!=VALUE')
        name, op, value = m.group(1).strip(), m.group(2), m.group(3)
        if supported is not None and name not in supported:
            raise UsageError(f'field selector "{text}": "{name}" is not a known field selector',
                             f"only {', '.join(repr(s) for s in supported)}")
        out.append(FieldTerm(name, value, op != "!="))
    return out


def _field_value(obj: Mapping[str, Any], dotted: str) -> str:
    value: Any = obj
    for part in dotted.split("."):
        value = value.get(part) if isinstance(value, Mapping) else None
    return "" if value is None else str(value)


def fields_match(terms: list[FieldTerm], obj: Mapping[str, Any]) -> bool:
    return all((_field_value(obj, t.field) == t.value) == t.equal for t in terms)
