"""Print a command's result: tables for people, JSON/YAML for scripts.

A command builds one plain-dict document (the JSON contract in the design) and, for tables, a
function that turns that document into text. JSON and YAML print the document unchanged, so the
human and machine outputs can never disagree.
"""

import json
import os
import sys
from typing import Any
from collections.abc import Callable

import click

from .terminal import coloured, safe

FORMATS = ("table", "wide", "json", "yaml")

_SEVERITY_STYLE = {"error": "red", "warning": "yellow", "info": "cyan"}
_STATUS_STYLE = {"pass": "green", "warn": "yellow", "fail": "red", "skip": "bright_black", "info": "cyan"}


class Style:
    """Colour on or off, decided once from ``--color`` and ``NO_COLOR``."""

    def __init__(self, mode: str = "auto", stream: Any = None):
        stream = stream or sys.stdout
        if mode == "always":
            self.enabled = True
        elif mode == "never" or os.environ.get("NO_COLOR"):
            self.enabled = False
        else:
            self.enabled = bool(getattr(stream, "isatty", lambda: False)())
        encoding = str(getattr(stream, "encoding", None) or "").lower().replace("-", "").replace("_", "")
        #: block characters (bars, tree lines) only where colour is on and the stream is UTF-8
        self.unicode = self.enabled and encoding == "utf8"

    def __call__(self, text: str, fg: str | None = None, bold: bool = False) -> str:
        if not self.enabled or (fg is None and not bold):
            return text
        return coloured(click.style(text, fg=fg, bold=bold))

    def severity(self, severity: str) -> str:
        return self(severity, _SEVERITY_STYLE.get(severity))

    def status(self, status: str) -> str:
        return self(status.upper(), _STATUS_STYLE.get(status), bold=status == "fail")


def table(headers: list[str], rows: list[list[Any]], no_headers: bool = False) -> str:
    """A kubectl-style table: upper-case headers, left-aligned; None prints as ``<none>``.

    Cells are made terminal-safe first (``safe``: the plugin's colour codes become ESC, every
    other control is escaped), so tabulate sees real colour sequences and measures the columns
    without them; the result marks the colours again for ``emit``."""
    from tabulate import tabulate

    cells = [["<none>" if c is None else safe(str(c)) for c in row] for row in rows]
    if not cells:
        return ""
    text = tabulate(cells, headers=[] if no_headers else [safe(h.upper()) for h in headers],
                    tablefmt="plain", disable_numparse=True, stralign="left")
    return coloured("\n".join(line.rstrip() for line in text.splitlines()))


def findings_text(findings: list[dict[str, Any]], style: Style, indent: str = "") -> str:
    lines = []
    for f in findings:
        lines.append(f"{indent}{style.severity(f['severity'])}: {f['message']} [{f['code']}]")
        if f.get("fix"):
            lines.append(f"{indent}  fix: {f['fix']}")
    return "\n".join(lines)


def emit(document: dict[str, Any], fmt: str, text: Callable[[dict[str, Any]], str]) -> None:
    if fmt == "json":
        click.echo(json.dumps(document, indent=2, sort_keys=False))
    elif fmt == "yaml":
        import yaml

        click.echo(yaml.safe_dump(document, sort_keys=False, default_flow_style=False).rstrip())
    else:
        out = text(document)
        if out:
            click.echo(safe(out), color=True)  # the text has colour codes only when Style enabled them
