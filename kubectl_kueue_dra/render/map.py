"""Text rendering of ``map`` (the mappings) and of ``map set``/``map remove`` (a change)."""

from __future__ import annotations

from typing import Any

from .output import Style, findings_text, table
from .printers.emit import Listing

#: custom-columns and --sort-by: one item per mapping (not an object of its own: no -o name)
MAP_LISTING = Listing("mappings")


def target_text(target: dict[str, Any] | None) -> str:
    if not target or not target.get("kind"):
        return "no Kueue configuration"
    if target["kind"] == "Kueue":
        return f"Kueue CR {target['name']} (kueue.openshift.io)"
    return f"{target['kind']} {target.get('namespace')}/{target['name']}"


def _source(s: dict[str, Any], wide: bool) -> str:
    text = f"{s['type']} {s['name']} @ {s['driver']}"
    return f"{text}: {s['selector']}" if wide and s.get("selector") else text


def _classes(m: dict[str, Any], style: Style) -> str:
    out = []
    for c in m["deviceClasses"]:
        out.append(c["name"] if c["exists"] is not False else style(f"{c['name']} (missing)", "red"))
    return ",".join(out)


def map_text(doc: dict[str, Any], opts: Any) -> str:
    style, wide = opts.style, opts.output == "wide"
    # the banner says where the mappings live; --no-headers prints the rows alone, as kubectl does
    parts = [] if opts.no_headers else [f"{target_text(doc['target'])}" + (
        f", Kueue {doc['kueueVersion']}" if doc.get("kueueVersion") else "")]
    rows = []
    for m in doc["mappings"]:
        covered = "?" if m["coveredBy"] is None else ",".join(m["coveredBy"]) or style("-", "yellow")
        rows.append([m["name"], _classes(m, style),
                     "; ".join(_source(s, wide) for s in m["sources"]) or "-", covered])
    if rows:
        parts.append(table(["name", "device classes", "sources", "covered by"], rows, opts.no_headers))
    else:
        parts.append("No deviceClassMappings.")
    if doc["findings"]:
        parts += ["", findings_text(doc["findings"], style)]
    return "\n".join(parts)


# ---- changes --------------------------------------------------------------------------------

def _coloured_diff(diff: str, style: Style) -> str:
    out = []
    for line in diff.splitlines():
        if line.startswith(("+++", "---")):
            out.append(style(line, bold=True))
        elif line.startswith("+"):
            out.append(style(line, "green"))
        elif line.startswith("-"):
            out.append(style(line, "red"))
        elif line.startswith("@@"):
            out.append(style(line, "cyan"))
        else:
            out.append(line)
    return "\n".join(out)


def change_text(doc: dict[str, Any], opts: Any) -> str:
    style = opts.style
    parts = [doc["summary"]]
    if doc.get("diff"):
        parts.append(_coloured_diff(doc["diff"].rstrip("\n"), style))
    if doc["findings"]:
        parts.append(findings_text(doc["findings"], style))
    return "\n".join(parts)
