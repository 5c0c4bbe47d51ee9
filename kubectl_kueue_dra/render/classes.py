"""Table rendering of the ``classes`` report."""

from typing import Any

from .output import findings_text, table
from .printers.emit import Listing, object_name

#: -o name, custom-columns and --sort-by: one item per DeviceClass
CLASSES_LISTING = Listing("deviceClasses", lambda c: object_name("DeviceClass", "resource.k8s.io/v1", c["name"]))
DEVICES_LISTING = Listing("devices", lambda c: object_name("DeviceClass", "resource.k8s.io/v1", c["deviceClass"]))


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


def _value(value: object) -> str:
    return "<none>" if value is None else str(value)


def devices_text(doc: dict[str, Any], opts: Any) -> str:
    """``classes --devices``: one row per device shape of each class."""
    style = opts.style
    headers = ["class", "driver", "devices", "pools", "selectors read", "consumes counters", "counter selector"]
    if opts.output == "wide":
        headers.append("other counters")
    rows = []
    for c in doc["devices"]:
        if not c["shapes"]:
            rows.append([c["deviceClass"], "-", _count(c["matchingDevices"]), "-", "-", "-", "-"]
                        + (["-"] if opts.output == "wide" else []))
        for s in c["shapes"]:
            tests = ", ".join(f"{label}: " + ("yes" if ok is True else "no" if ok is False else f"error ({ok})")
                              for label, ok in s["counterSelectors"].items())
            row = [c["deviceClass"], s["driver"], str(s["devices"]), str(s["pools"]),
                   ", ".join(f"{k}={_value(v)}" for k, v in s["selectorsRead"].items()) or "-",
                   ", ".join(f"{k}={v}" for k, v in s["consumesCounters"].items()) or "-",
                   tests or "-"]
            if opts.output == "wide":
                row.append(",".join(s["otherCounters"]) or "-")
            rows.append(row)
    parts = [table(headers, rows, opts.no_headers)] if rows else [f"No DeviceClasses found ({doc['source']})."]
    notes = list(doc["findings"])
    for c in doc["devices"]:
        notes.extend(dict(f, message=f"{c['deviceClass']}: {f['message']}")
                     if not f["message"].startswith(c["deviceClass"]) else f for f in c["findings"])
    if notes:
        parts.append("")
        parts.append(findings_text(notes, style))
    return "\n".join(parts)
