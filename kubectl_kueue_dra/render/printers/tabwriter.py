"""Columns laid out as kubectl's tabwriter lays them out (Go's text/tabwriter with kubectl's
settings: minimum width 6, padding 3, spaces): every cell but a line's last is padded to its
column's widest cell plus 3, widths counted in characters. Used by ``-o custom-columns`` so that its
bytes are kubectl's."""

from __future__ import annotations

MIN_WIDTH = 6
PADDING = 3


def layout(rows: list[list[str]]) -> str:
    """The rows as lines; each line ends with a newline, as kubectl's output does."""
    if not rows:
        return ""
    columns = max(len(r) for r in rows)
    widths = [MIN_WIDTH] * columns
    for row in rows:
        for i, cell in enumerate(row[:-1]):
            widths[i] = max(widths[i], len(cell) + PADDING)
    out = []
    for row in rows:
        cells = [cell.ljust(widths[i]) for i, cell in enumerate(row[:-1])] + row[-1:]
        out.append("".join(cells) + "\n")
    return "".join(out)
