"""A check's result, and the paths (ways of requesting GPUs) a check belongs to."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

PASS, WARN, FAIL, SKIP, INFO = "pass", "warn", "fail", "skip", "info"
#: ``info`` states a fact that asks nothing of anyone (a gate of a path not in use, for example)
STATUSES = (PASS, WARN, FAIL, SKIP, INFO)

CLAIMS, EXTENDED, PARTITIONABLE = "claims", "extended", "partitionable"
PATHS = (CLAIMS, EXTENDED, PARTITIONABLE)


@dataclass
class Check:
    id: str
    status: str
    message: str
    fix: str | None = None
    category: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        assert self.status in STATUSES, self.status

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "status": self.status, "message": self.message,
                               "fix": self.fix, "category": self.category}
        out.update(self.extra)
        return out
