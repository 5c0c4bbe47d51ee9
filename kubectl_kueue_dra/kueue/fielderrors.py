"""Field errors rendered exactly as Kueue renders them into Workload conditions.

Kueue builds ``k8s.io/apimachinery`` ``field.Error`` values and writes
``ErrorList.ToAggregate().Error()`` into the ``QuotaReserved``/``Requeued`` messages:
``<path>: <Type>[: <bad value>]: <detail>``, several errors joined as ``[e1, e2]``, duplicates
dropped. The bad value is printed with ``%q`` for a Go string, as JSON for anything else (so a
nil value prints ``null``), and not at all for Required/Forbidden/Internal errors.
"""

import json
from dataclasses import dataclass
from typing import Any

NOT_FOUND = "Not found"
INVALID = "Invalid value"
INTERNAL = "Internal error"

_NO_VALUE_TYPES = {INTERNAL, "Required value", "Forbidden", "Too long", "Too short"}


def go_quote(text: str) -> str:
    """Go's %q for the printable strings that appear here (JSON escaping is the same for them)."""
    return json.dumps(text, ensure_ascii=False)


@dataclass(frozen=True)
class FieldError:
    type: str
    field: str
    detail: str
    bad_value: Any = None

    @property
    def internal(self) -> bool:
        """Internal errors are retried by Kueue; the others wait for a config or spec change."""
        return self.type == INTERNAL

    def body(self) -> str:
        if self.type in _NO_VALUE_TYPES:
            text = self.type
        elif isinstance(self.bad_value, str):
            text = f"{self.type}: {go_quote(self.bad_value)}"
        elif isinstance(self.bad_value, bool) or self.bad_value is None:
            text = f"{self.type}: {json.dumps(self.bad_value)}"
        else:
            text = f"{self.type}: {self.bad_value}"
        return f"{text}: {self.detail}" if self.detail else text

    def __str__(self) -> str:
        return f"{self.field}: {self.body()}"


def aggregate(errors: list[FieldError]) -> str:
    """``ErrorList.ToAggregate().Error()``."""
    seen: list[str] = []
    for e in errors:
        text = str(e)
        if text not in seen:
            seen.append(text)
    if len(seen) == 1:
        return seen[0]
    return "[" + ", ".join(seen) + "]"


class FieldPath:
    """``field.NewPath(...)`` with ``Index`` and ``Child`` (rendered like apimachinery)."""

    def __init__(self, *parts: str):
        self._text = ".".join(parts)

    def child(self, *parts: str) -> "FieldPath":
        out = FieldPath()
        out._text = ".".join([self._text, *parts]) if self._text else ".".join(parts)
        return out

    def index(self, i: int) -> "FieldPath":
        out = FieldPath()
        out._text = f"{self._text}[{i}]"
        return out

    def __str__(self) -> str:
        return self._text
