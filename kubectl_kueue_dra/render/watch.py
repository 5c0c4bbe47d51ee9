"""``explain --watch`` lines: one row per change of a workload, in the columns of the workload list
(``render.workload_list``), aligned with the table printed first and with each other as kubectl's
``get -w`` keeps them (a column only widens); the header before the first row when no table came
first."""

from __future__ import annotations

import re
from typing import Any

from .terminal import marked, measurable, safe
from .workload_list import HEAD, row

_COLOUR = re.compile("\x1b\\[[0-9;]*m")
GAP = 2  # the table's space between columns


def _cells(cells: list[Any]) -> list[str]:
    return [measurable("<none>" if c is None else str(c)) for c in cells]


def _width(cell: str) -> int:
    return len(_COLOUR.sub("", cell))


class ChangeRows:
    """The rows of one watch; ``seed`` with the first table's rows so that changes line up with it."""

    def __init__(self, opts: Any):
        self.opts = opts
        self.head = (["namespace"] if opts.all_namespaces else []) + HEAD
        # as the table's layout (tabulate) does: a header widens its column by 2
        self.widths = [0 if opts.no_headers else len(h) + 2 for h in self.head]
        self.header_due = not opts.no_headers

    def seed(self, items: list[dict[str, Any]]) -> None:
        for item in items:
            self._widen(_cells(row(item["summary"], item.get("dra"), self.opts)))
        self.header_due = False if items else self.header_due

    def _widen(self, cells: list[str]) -> None:
        self.widths = [max(w, _width(c)) for w, c in zip(self.widths, cells)]

    def _line(self, cells: list[str]) -> str:
        padded = [c + " " * (w - _width(c) + GAP) for c, w in zip(cells[:-1], self.widths)]
        return safe(marked("".join(padded) + cells[-1]))

    def line(self, summary: dict[str, Any], dra: dict[str, Any] | None) -> str:
        cells = _cells(row(summary, dra, self.opts))
        self._widen(cells)
        lines = []
        if self.header_due:
            lines.append(self._line([h.upper() for h in self.head]))
            self.header_due = False
        lines.append(self._line(cells))
        return "\n".join(lines)
