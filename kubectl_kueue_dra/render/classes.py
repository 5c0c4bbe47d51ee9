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


def _listed(items: list[str], limit: int = 2) -> str:
    return ", ".join(items[:limit]) + (f" +{len(items) - limit}" if len(items) > limit else "") or "-"


def _where(s: dict[str, Any]) -> str:
    """The nodes of a shape's devices, and its pools where they are not named after the node."""
    nodes, pools = s["nodes"], s["poolNames"]
    if not nodes or pools == nodes:
        return _listed(nodes or pools)
    return f"{_listed(nodes)} (pools {_listed(pools)})"


def devices_text(doc: dict[str, Any], opts: Any) -> str:
    """``classes --devices``: one row per device shape of each class."""
    style = opts.style
    wide = opts.output == "wide"
    headers = ["class", "driver", "profile", "devices", "pools", "selectors read", "consumes counters",
               "counter selector", "nodes"]
    if wide:
        headers += ["other counters", "device names"]
    rows = []
    for c in doc["devices"]:
        if not c["shapes"]:
            rows.append([c["deviceClass"], "-", "-", _count(c["matchingDevices"]), "-", "-", "-", "-", "-"]
                        + (["-", "-"] if wide else []))
        for s in c["shapes"]:
            tests = ", ".join(f"{label}: " + ("yes" if ok is True else "no" if ok is False else f"error ({ok})")
                              for label, ok in s["counterSelectors"].items())
            row = [c["deviceClass"], s["driver"], s["profile"] or _listed(s["deviceNames"], 1), str(s["devices"]),
                   str(s["pools"]),
                   ", ".join(f"{k}={_value(v)}" for k, v in s["selectorsRead"].items()) or "-",
                   ", ".join(f"{k}={v}" for k, v in s["consumesCounters"].items()) or "-",
                   tests or "-", _where(s)]
            if wide:
                row += [",".join(s["otherCounters"]) or "-", ",".join(s["deviceNames"]) or "-"]
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
