"""How checks are declared: ``@check(id, category, paths)`` on a function of ``Facts`` that returns
a ``Result``. ``paths`` None means the check belongs to every path; ``applies`` narrows a check to
setups where it means something (e.g. OpenShift only)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .facts import Facts
from .model import SKIP

CATEGORIES = {
    "platform": "Platform version",
    "gates": "Kubernetes feature gates",
    "kueue": "Kueue",
    "devices": "DRA driver and devices",
    "quota": "Quota",
    "namespaces": "Queues and namespaces",
}


@dataclass
class Result:
    status: str
    message: str
    fix: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class CheckSpec:
    id: str
    category: str
    paths: frozenset[str] | None
    fn: Callable[[Facts], Result]
    applies: Callable[[Facts], bool] | None = None


REGISTRY: list[CheckSpec] = []


def check(id: str, category: str, paths: tuple[str, ...] | None = None,
          applies: Callable[[Facts], bool] | None = None
          ) -> Callable[[Callable[[Facts], Result]], Callable[[Facts], Result]]:
    assert category in CATEGORIES, category

    def register(fn: Callable[[Facts], Result]) -> Callable[[Facts], Result]:
        REGISTRY.append(CheckSpec(id, category, frozenset(paths) if paths else None, fn, applies))
        return fn
    return register


def needs(f: Facts, *kinds: str) -> Result | None:
    """A skip naming what could not be read, when any of ``kinds`` is unavailable."""
    missing = [f.unreadable[k] for k in kinds if k in f.unreadable]
    if missing:
        return Result(SKIP, "; ".join(dict.fromkeys(missing)))
    return None


def plural(n: int, word: str, plural_form: str | None = None) -> str:
    return f"{n} {word if n == 1 else (plural_form or word + 's')}"


def names(items: list[str], limit: int = 5) -> str:
    items = list(dict.fromkeys(items))
    shown = ", ".join(items[:limit])
    return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")
