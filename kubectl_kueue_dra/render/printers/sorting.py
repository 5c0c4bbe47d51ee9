"""``--sort-by=JSONPATH``: a list's items in the order kubectl's sorter puts them: by the first
value the (relaxed) path finds in each item; items without one first; numbers by value, strings
that are all quantities by amount (``512Mi`` < ``4Gi``), other strings as text. Equal keys keep
the command's order (kubectl's sort is not stable: its order for them is arbitrary)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from .columns import relaxed
from .jsonpath_eval import JSONPath, JSONPathError

#: a quantity's comparable amount, or None when the text is not a quantity (``dra.quantity``)
QuantityAmount = Callable[[str], Any]


class SortError(ValueError):
    """The items cannot be sorted by that path; the message is kubectl's."""


def _first(path: JSONPath, item: Any) -> tuple[bool, Any]:
    found = path.find(item)
    return (True, found[0][0]) if found and found[0] else (False, None)


def _less(a: Any, b: Any, quantity: QuantityAmount | None) -> bool:
    if a is None or b is None:
        return a is None and b is not None
    if isinstance(a, str) and isinstance(b, str):
        qa, qb = (quantity(a), quantity(b)) if quantity else (None, None)
        if qa is not None and qb is not None:
            return bool(qa < qb)
        return a < b
    if type(a) is type(b) and isinstance(a, (int, float)) and not isinstance(a, bool):
        return bool(a < b)
    if isinstance(a, list) and isinstance(b, list):
        for x, y in zip(a, b):
            if not _less(x, y, quantity):
                return False
        return True
    raise SortError(f"unsortable type: {type(a).__name__}")


def sort_items(items: list[Any], expression: str, quantity: QuantityAmount | None = None) -> list[Any]:
    if not items:
        return items
    template = relaxed(expression)
    path = JSONPath(template)
    try:
        keys = [_first(path, item) for item in items]
    except JSONPathError as e:  # kubectl's sorter stops with a fatal log line there
        raise SortError(f'couldn\'t sort by "{template}": {e}') from None
    if not any(found for found, _ in keys):
        raise SortError(f'couldn\'t find any field with path "{template}" in the list of objects')

    def compare(i: int, j: int) -> int:
        (fi, a), (fj, b) = keys[i], keys[j]
        if not fi:
            return 0 if not fj else -1
        if not fj:
            return 1
        if _less(a, b, quantity):
            return -1
        return 1 if _less(b, a, quantity) else 0

    order = sorted(range(len(items)), key=functools.cmp_to_key(compare))
    return [items[i] for i in order]
