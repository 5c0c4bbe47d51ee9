"""The table of ``explain`` with no TYPE/NAME: one line per Workload."""

from typing import Any

from .output import findings_text, table


def _charge_cell(charge: dict[str, str]) -> str | None:
    return ",".join(f"{name}={value}" for name, value in charge.items()) or None


def _flavor_cell(s: dict[str, Any]) -> str:
    """The flavors Kueue recorded, or the ones the model predicts, marked so."""
    names = ",".join(s.get("flavors") or [])
    if not names:
        return "-"
    return names if s.get("flavorsSource") == "recorded" else f"{names} (predicted)"


def workload_list_text(doc: dict[str, Any], opts: Any) -> str:
    all_namespaces = bool(opts.all_namespaces)
    head = (["namespace"] if all_namespaces else []) + ["name", "owner", "local queue", "cluster queue",
                                                         "flavor", "state", "dra charge", "reason"]
    rows = []
    for item in doc["items"]:
        s = item["summary"]
        rows.append(([s["namespace"]] if all_namespaces else []) +
                    [s["name"], s["owner"], s["localQueue"], s["clusterQueue"], _flavor_cell(s), opts.style(s["state"]),
                     "unknown" if (item.get("dra") or {}).get("unknown") else _charge_cell(s["draCharge"]),
                     s["reason"] or "-"])
    parts = [table(head, rows, opts.no_headers)] if rows else ["No workloads found."]
    if doc["findings"]:
        parts += ["", findings_text(doc["findings"], opts.style)]
    return "\n".join(parts)
