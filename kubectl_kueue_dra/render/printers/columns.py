"""``-o custom-columns=HEADER:PATH,…`` and ``-o custom-columns-file=FILE`` as kubectl reads and
prints them: each PATH relaxed to a JSONPath template (``.a.b``, ``a.b``, ``{.a.b}`` are the same),
run with missing keys allowed over each item; a cell with no value is ``<none>``, several values are
joined by commas, each written as Go's ``fmt.Sprint`` writes it; the header line as given."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from . import gotext
from .jsonpath_eval import JSONPath
from .jsonpath_parse import JSONPathSyntaxError
from .tabwriter import layout

_RELAXED = re.compile(r"^\{\.?([^{}]+)\}$|^\.?([^{}]+)$")


class ColumnsError(ValueError):
    """The column spec is not one kubectl accepts; the message is kubectl's."""


def relaxed(expression: str) -> str:
    """kubectl's ``RelaxedJSONPathExpression``: ``.a.b``, ``a.b``, ``{a.b}`` → ``{.a.b}``."""
    if not expression:
        return expression
    m = _RELAXED.match(expression)
    if m is None:
        raise ColumnsError("unexpected path string, expected a 'name1.name2' or '.name1.name2' or "
                           "'{name1.name2}' or '{.name1.name2}'")
    return "{." + (m.group(1) or m.group(2)) + "}"


@dataclass(frozen=True)
class Column:
    header: str
    template: str  # the relaxed JSONPath template


def from_spec(spec: str) -> list[Column]:
    if not spec:
        raise ColumnsError("custom-columns format specified but no custom columns given")
    columns = []
    for part in spec.split(","):
        header, sep, path = part.partition(":")
        if not sep:
            raise ColumnsError(f"unexpected custom-columns spec: {part}, expected <header>:<json-path-expr>")
        columns.append(Column(header, relaxed(path)))
    return columns


def from_file_text(text: str) -> list[Column]:
    """A custom-columns file: one line of headers, one line of paths, separated by white space."""
    lines = text.splitlines()
    if not lines:
        raise ColumnsError("invalid template, missing header line. Expected format is one line of space separated "
                           "headers, one line of space separated column specs.")
    if len(lines) < 2:
        raise ColumnsError("invalid template, missing spec line. Expected format is one line of space separated "
                           "headers, one line of space separated column specs.")
    headers, specs = lines[0].split(), lines[1].split()
    if len(headers) != len(specs):
        raise ColumnsError(f"number of headers ({len(headers)}) and field specifications ({len(specs)}) don't match")
    return [Column(h, relaxed(s)) for h, s in zip(headers, specs)]


def compile_columns(columns: list[Column]) -> list[JSONPath]:
    try:
        return [JSONPath(c.template) for c in columns]
    except JSONPathSyntaxError as e:
        raise ColumnsError(str(e)) from None


def cell(path: JSONPath, item: Any) -> str:
    found = path.find(item)
    texts = ["<none>"] if not found or not found[0] else []
    texts += [gotext.sprint(v) for result in found for v in result]
    return ",".join(texts)


def render(columns: list[Column], items: list[Any], no_headers: bool) -> str:
    paths = compile_columns(columns)
    rows = [] if no_headers else [[c.header for c in columns]]
    rows += [[cell(p, item) for p in paths] for item in items]
    return layout(rows)
