"""``explain --watch`` lines: one row per change of a workload, the columns of the workload list
(``render.workload_list``), the header before the first."""

from __future__ import annotations

from typing import Any

from .output import table
from .terminal import safe
from .workload_list import HEAD, row


def change_row(summary: dict[str, Any], dra: dict[str, Any] | None, opts: Any, header: bool) -> str:
    head = (["namespace"] if opts.all_namespaces else []) + HEAD
    text = table(head, [row(summary, dra, opts)], opts.no_headers or not header)
    return safe(text)
