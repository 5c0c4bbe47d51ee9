"""Table rendering of ``verify``: the checklist, then the fix for each problem."""

from typing import Any

from .output import table
from .printers.emit import Listing

#: custom-columns and --sort-by: one item per check (checks are no objects: no -o name)
VERIFY_LISTING = Listing("checks")


def _summary(doc: dict[str, Any]) -> str:
    s = doc["summary"]
    parts = [f"{s['pass']} passed", f"{s['warn']} warning{'s' if s['warn'] != 1 else ''}",
             f"{s['fail']} failed", f"{s['skip']} skipped"] + ([f"{s['info']} info"] if s.get("info") else [])
    paths = ", ".join(doc["paths"]) or "none configured"
    return f"{', '.join(parts)} (paths: {paths}; {doc['source']})"


def verify_text(doc: dict[str, Any], opts: Any) -> str:
    style = opts.style
    wide = opts.output == "wide"
    headers = ["status", "check", "message"] + (["fix"] if wide else [])
    rows = []
    for c in doc["checks"]:
        row = [style.status(c["status"]), c["id"], c["message"]]
        if wide:
            row.append(c.get("fix") or "")
        rows.append(row)
    parts = [table(headers, rows, opts.no_headers)] if rows else ["No checks apply."]
    problems = [c for c in doc["checks"] if c["status"] in ("fail", "warn") and c.get("fix")]
    if problems and not wide:
        parts.append("")
        parts.append("To fix:")
        for c in problems:
            parts.append(f"  {c['id']}: {c['fix']}")
    parts.append("")
    parts.append(_summary(doc))
    for note in doc.get("notes") or []:
        parts.append(f"{style.severity(note['severity'])}: {note['message']}")
    return "\n".join(parts)
