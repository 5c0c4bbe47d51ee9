"""kubectl's JSONPath templates run over a JSON document, with client-go's semantics: a missing
field is an error unless missing keys are allowed (``--allow-missing-template-keys``, true by
default as in kubectl), an index out of range is always one, comparisons in filters follow Go's
template rules (an int and a float do not compare), ``range … end`` repeats what is between them
for each value, and each action's values print separated by a space — strings as they are,
scalars as Go prints them, maps and lists as compact JSON (``gotext``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from . import gotext
from .jsonpath_parse import Node, parse


class JSONPathError(ValueError):
    """The template failed on this document; the message is client-go's."""


#: the value a ``range`` over nothing runs its body on (Go's invalid reflect.Value): not nil
_NOTHING = object()


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "string"
    return "invalid"


def _compare(op: str, left: Any, right: Any) -> bool:
    """Go text/template's eq/ne/lt/le/gt/ge on two decoded JSON values."""
    k1, k2 = _kind(left), _kind(right)
    if "invalid" in (k1, k2):
        raise JSONPathError("invalid type for comparison")
    if k1 != k2:
        raise JSONPathError("incompatible types for comparison")
    if op in ("==", "!="):
        return (left == right) == (op == "==")
    if k1 == "bool":
        raise JSONPathError("invalid type for comparison")
    if op == "<":
        return bool(left < right)
    if op == ">":
        return bool(left > right)
    if op == "<=":
        return bool(left <= right)
    if op == ">=":
        return bool(left >= right)
    raise JSONPathError(f"unrecognized filter operator {op}")


def _children(value: Any) -> list[Any]:
    """What ``[*]`` and ``..`` descend into: map values (by key), list items, a string's bytes."""
    if isinstance(value, dict):
        return [value[k] for k in sorted(value)]
    if isinstance(value, list):
        return list(value)
    if isinstance(value, str):
        return list(value.encode("utf-8"))
    return []


@dataclass
class JSONPath:
    """One parsed template. ``find`` gives each node's values, ``execute`` the printed text."""

    template: str
    allow_missing_keys: bool = True
    as_json: bool = False  # -o jsonpath-as-json: each action's values as one indented JSON array

    def __post_init__(self) -> None:
        self.root = parse(self.template)
        self._begin = self._in = self._end = 0
        self._last_end: int | None = None

    # ---- the template -------------------------------------------------------------------------
    def find(self, data: Any) -> list[list[Any]]:
        self._begin = self._in = self._end = 0
        self._last_end = None
        return self._find(data, 0)

    def _find(self, data: Any, start: int) -> list[list[Any]]:
        nodes = self.root.nodes
        full: list[list[Any]] = []
        i = start
        while i < len(nodes):
            results = self._walk([data], nodes[i])
            if self._end > 0 and self._end <= self._in:
                self._end -= 1
                self._last_end = i
                break
            if self._begin > 0:
                self._begin -= 1
                self._in += 1
                if results:
                    for value in results:
                        full.extend(self._find(value, i + 1))
                else:  # the body still runs once, to find its end
                    self._find(_NOTHING, i + 1)
                self._in -= 1
                if self._last_end is not None and self._last_end > i:
                    i = self._last_end
                i += 1
                continue
            full.append(results)
            i += 1
        return full

    def execute(self, data: Any) -> str:
        return "".join(self.print_results(r) for r in self.find(data))

    def print_results(self, results: list[Any]) -> str:
        if self.as_json:
            return gotext.marshal(list(results), indent="    ") + "\n"
        texts = [gotext.marshal(r) if isinstance(r, (dict, list)) else gotext.text(r) for r in results]
        return " ".join(texts)

    # ---- one node -----------------------------------------------------------------------------
    def _walk(self, values: list[Any], node: Node) -> list[Any]:
        kind = node.kind
        if kind == "list":
            for child in node.nodes:
                values = self._walk(values, child)
            return values
        if kind == "text":
            return [node.value]
        if kind in ("int", "float", "bool"):
            return [node.value for _ in values]
        if kind == "identifier":
            return self._identifier(values, node.value)
        return getattr(self, f"_{kind}")(values, node)

    def _identifier(self, values: list[Any], name: str) -> list[Any]:
        if name == "range":
            self._begin += 1
            return values
        if name == "end":
            if self._in > 0:
                self._end += 1
                return []
            raise JSONPathError("not in range, nothing to end")
        raise JSONPathError(f"unrecognized identifier {name}")

    def _field(self, values: list[Any], node: Node) -> list[Any]:
        if not values:
            return []
        results = [v[node.value] for v in values if isinstance(v, dict) and node.value in v]
        if not results and not self.allow_missing_keys:
            raise JSONPathError(f"{node.value} is not found")
        return results

    def _array(self, values: list[Any], node: Node) -> list[Any]:
        results: list[Any] = []
        for value in values:
            if value is None or value is _NOTHING:
                continue
            if not isinstance(value, list):
                raise JSONPathError(f"{gotext.go_type(value)} is not array or slice")
            first, last, step = node.value
            length = len(value)
            start = first.value if first.known else 0
            if start < 0:
                start += length
            stop = last.value if last.known else length
            if stop < 0 or (stop == 0 and last.derived):
                stop += length
            if stop == start:
                return results
            if start >= length or start < 0:
                raise JSONPathError(f"array index out of bounds: index {start}, length {length}")
            if stop > length or stop < 0:
                raise JSONPathError(f"array index out of bounds: index {stop - 1}, length {length}")
            if start > stop:
                raise JSONPathError(f"starting index {start} is greater than ending index {stop}")
            if step.known and step.value <= 0:
                raise JSONPathError("step must be > 0")
            results.extend(value[start:stop:step.value if step.known else 1])
        return results

    def _union(self, values: list[Any], node: Node) -> list[Any]:
        return [r for member in node.nodes for r in self._walk(values, member)]

    def _wildcard(self, values: list[Any], node: Node) -> list[Any]:
        return [c for v in values if v is not None for c in _children(v)]

    def _recursive(self, values: list[Any], node: Node) -> list[Any]:
        out: list[Any] = []
        for value in values:
            if value is None:
                continue
            children = _children(value)
            if children:
                out.append(value)
                out.extend(self._recursive(children, node))
        return out

    def _filter(self, values: list[Any], node: Node) -> list[Any]:
        results: list[Any] = []
        assert node.left is not None and node.right is not None
        for value in values:
            if not isinstance(value, list):
                raise JSONPathError(f"{gotext.sprint(value)} is not array or slice and cannot be filtered")
            for item in value:
                if node.op == "exists":
                    try:
                        if self._walk([item], node.left):
                            results.append(item)
                    except JSONPathError:
                        pass
                    continue
                lefts = self._walk([item], node.left)
                if not lefts:
                    continue
                if len(lefts) > 1:
                    raise JSONPathError("can only compare one element at a time")
                rights = self._walk([item], node.right)
                if not rights:
                    continue
                if len(rights) > 1:
                    raise JSONPathError("can only compare one element at a time")
                if _compare(node.op, lefts[0], rights[0]):
                    results.append(item)
        return results
