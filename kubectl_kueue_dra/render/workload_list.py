"""The table of ``explain`` with no TYPE/NAME: one line per Workload."""

from typing import Any

from .output import findings_text, table
from .printers.emit import Listing, object_name


def explained_name(doc: dict[str, Any]) -> str:
    """``-o name`` of an explained workload: its Workload, or the what-if's object."""
    if doc.get("workload"):
        return object_name("Workload", "kueue.x-k8s.io/v1beta2", doc["workload"]["name"])
    manifest = doc.get("manifest") or {}
    return object_name(str(manifest.get("kind")), str(manifest.get("apiVersion") or ""), manifest.get("name"))


def explain_listing(doc: dict[str, Any]) -> Listing:
    """A list (no TYPE/NAME, or a file with several workloads): its items; else the one document."""
    return Listing("items" if isinstance(doc.get("items"), list) else None, explained_name)


def _charge_cell(charge: dict[str, str]) -> str | None:
    return ",".join(f"{name}={value}" for name, value in charge.items()) or None


def workload_list_text(doc: dict[str, Any], opts: Any) -> str:
    all_namespaces = bool(opts.all_namespaces)
    head = (["namespace"] if all_namespaces else []) + ["name", "owner", "local queue", "cluster queue",
                                                         "state", "dra charge", "reason"]
    rows = []
    for item in doc["items"]:
        s = item["summary"]
        rows.append(([s["namespace"]] if all_namespaces else []) +
                    [s["name"], s["owner"], s["localQueue"], s["clusterQueue"], opts.style(s["state"]),
                     "unknown" if (item.get("dra") or {}).get("unknown") else _charge_cell(s["draCharge"]),
                     s["reason"] or "-"])
    parts = [table(head, rows, opts.no_headers)] if rows else ["No workloads found."]
    if doc["findings"]:
        parts += ["", findings_text(doc["findings"], opts.style)]
    return "\n".join(parts)
