"""Table rendering of the ``classes`` report."""

from typing import Any

from .output import findings_text, table


def _count(value: Any) -> str:
    return "?" if value is None else str(value)


def classes_text(doc: dict[str, Any], opts: Any) -> str:
    style = opts.style
    wide = opts.output == "wide"
    headers = ["name", "extended resource", "quota resource", "via", "devices", "covered by"]
    if wide:
        headers += ["pools", "selectors"]
    rows = []
    for c in doc["deviceClasses"]:
        row = [c["name"], c["extendedResourceName"], c["quotaResource"] or style("-", "red"),
               c["quotaSource"] or "-", _count(c["matchingDevices"]),
               "?" if c["coveredBy"] is None else ",".join(c["coveredBy"]) or style("-", "yellow")]
        if wide:
            row += [_count(c["matchingPools"]), " && ".join(c["selectors"])]
        rows.append(row)
    parts = []
    if rows:
        parts.append(table(headers, rows, opts.no_headers))
    else:
        parts.append(f"No DeviceClasses found ({doc['source']}).")
    notes = list(doc["findings"])
    for c in doc["deviceClasses"]:
        notes.extend(dict(f, message=f"{c['name']}: {f['message']}") if not f["message"].startswith(c["name"])
                     else f for f in c["findings"])
    if notes:
        parts.append("")
        parts.append(findings_text(notes, style))
    return "\n".join(parts)
