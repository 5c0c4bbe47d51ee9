"""Print a command's result: tables for people, JSON/YAML for scripts.

A command builds one plain-dict document (the JSON contract in the design) and, for tables, a
function that turns that document into text. JSON and YAML print the document unchanged, so the
human and machine outputs can never disagree.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import IO, TYPE_CHECKING, Any

import click

from .terminal import coloured, marked, measurable, safe

if TYPE_CHECKING:
    from .printers.emit import Listing
    from .printers.spec import OutputSpec


_SEVERITY_STYLE = {"error": "red", "warning": "yellow", "info": "cyan"}
_STATUS_STYLE = {"pass": "green", "warn": "yellow", "fail": "red", "skip": "bright_black", "info": "cyan"}


class Style:
    """Colour on or off, decided once from ``--color``, the run's ``NO_COLOR`` and whether the
    run's stdout (``stream``) is a terminal."""

    def __init__(self, mode: str = "auto", stream: Any = None, no_color: bool = False):
        if mode == "always":
            self.enabled = True
        elif mode == "never" or no_color:
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

    # widths are measured on what the terminal shows: escapes as written, colour codes as nothing
    cells = [[measurable("<none>" if c is None else str(c)) for c in row] for row in rows]
    if not cells:
        return ""
    text = tabulate(cells, headers=[] if no_headers else [measurable(h.upper()) for h in headers],
                    tablefmt="plain", disable_numparse=True, stralign="left")
    return marked("\n".join(line.rstrip() for line in text.splitlines()))


def findings_text(findings: list[dict[str, Any]], style: Style, indent: str = "") -> str:
    lines = []
    for f in findings:
        lines.append(f"{indent}{style.severity(f['severity'])}: {f['message']} [{f['code']}]")
        if f.get("fix"):
            lines.append(f"{indent}  fix: {f['fix']}")
    return "\n".join(lines)


def emit(document: dict[str, Any], spec: OutputSpec, text: Callable[[dict[str, Any]], str],
         listing: Listing | None = None, quantity: Callable[[str], Any] | None = None, *, out: IO[str]) -> None:
    """Print ``document`` on ``out`` (the run's stdout) as ``spec`` says (``printers.emit``): sorted by
    ``--sort-by``, then as data (JSON, YAML, JSONPath: exact) or as text for a terminal (escaped)."""
    from .printers.emit import Listing, formatted, sorted_document

    listing = listing or Listing()
    document = sorted_document(document, listing, spec.sort_by, quantity)
    text_out, for_terminal = formatted(document, spec, text, listing)
    if text_out:  # colour only when Style made it
        click.echo(safe(text_out) if for_terminal else text_out, nl=False, color=True, file=out)
