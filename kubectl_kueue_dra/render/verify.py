"""Table rendering of ``verify``: the verdict first, then what needs attention (failures and
warnings, each with its fix), the passes in one line; every check with ``--all`` or ``-o wide``."""

from typing import Any

from .output import table
from .printers.emit import Listing

#: custom-columns and --sort-by: one item per check (checks are no objects: no -o name)
VERIFY_LISTING = Listing("checks")

_ATTENTION = ("fail", "warn")


def _counts(doc: dict[str, Any]) -> str:
    s = doc["summary"]
    parts = [f"{s['pass']} passed", f"{s['warn']} warning{'s' if s['warn'] != 1 else ''}",
             f"{s['fail']} failed", f"{s['skip']} skipped"] + ([f"{s['info']} info"] if s.get("info") else [])
    return ", ".join(parts)


def _where(doc: dict[str, Any]) -> str:
    return f"paths: {', '.join(doc['paths']) or 'none configured'}; {doc['source']}"


def _verdict(doc: dict[str, Any], style: Any) -> list[str]:
    v = doc.get("verdict")
    if not v:
        return []
    colour = {"enforced": "green", "partial": "yellow", "not-enforced": "red"}.get(v["state"])
    lines = [style(v["text"], colour, bold=True)]
    for c in v["deviceClasses"] or []:
        if c["enforced"] is not True:
            what = "not enforced" if c["enforced"] is False else "unknown"
            lines.append(f"  {what}: {c['name']} — {c['reason']}")
    return lines


def _checks_table(checks: list[dict[str, Any]], opts: Any, wide: bool) -> str:
    headers = ["status", "check", "message"] + (["fix"] if wide else [])
    rows = [[opts.style.status(c["status"]), c["id"], c["message"]] + ([c.get("fix") or ""] if wide else [])
            for c in checks]
    return table(headers, rows, opts.no_headers)


def _rest(doc: dict[str, Any]) -> str:
    """The checks not shown, in one line: how many passed, which were skipped, how many info."""
    s = doc["summary"]
    skipped = [c["id"] for c in doc["checks"] if c["status"] == "skip"]
    parts = [f"{s['pass']} check{'s' if s['pass'] != 1 else ''} passed"]
    if skipped:
        shown = ", ".join(skipped[:6]) + (f" and {len(skipped) - 6} more" if len(skipped) > 6 else "")
        parts.append(f"{len(skipped)} skipped ({shown})")
    if s.get("info"):
        parts.append(f"{s['info']} info")
    return f"{', '.join(parts)}; -o wide or --all lists every check ({_where(doc)})"


def verify_text(doc: dict[str, Any], opts: Any, *, show_all: bool = False) -> str:
    style = opts.style
    wide = opts.output == "wide"
    every = wide or show_all
    parts = _verdict(doc, style)
    shown = doc["checks"] if every else [c for c in doc["checks"] if c["status"] in _ATTENTION]
    if parts:
        parts.append("")
    if shown:
        parts.append(_checks_table(shown, opts, wide))
    elif not doc["checks"]:
        parts.append("No checks apply.")
    problems = [c for c in doc["checks"] if c["status"] in _ATTENTION and c.get("fix")]
    if problems and not wide:
        parts += ["", "To fix:"] + [f"  {c['id']}: {c['fix']}" for c in problems]
    if shown or problems:
        parts.append("")
    parts.append(f"{_counts(doc)} ({_where(doc)})" if every else _rest(doc))
    for note in doc.get("notes") or []:
        parts.append(f"{style.severity(note['severity'])}: {note['message']}")
    return "\n".join(parts)
