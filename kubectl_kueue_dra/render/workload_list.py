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


def _flavor_cell(s: dict[str, Any]) -> str:
    """The flavors Kueue recorded, or the ones the model predicts, marked so."""
    names = ",".join(s.get("flavors") or [])
    if not names:
        return "-"
    return names if s.get("flavorsSource") == "recorded" else f"{names} (predicted)"


HEAD = ["name", "owner", "local queue", "cluster queue", "flavor", "state", "dra charge", "reason"]


def row(s: dict[str, Any], dra: dict[str, Any] | None, opts: Any) -> list[Any]:
    """One workload's cells (its summary); the namespace first with -A."""
    return ([s["namespace"]] if opts.all_namespaces else []) + [
        s["name"], s["owner"], s["localQueue"], s["clusterQueue"], _flavor_cell(s), opts.style(s["state"]),
        "unknown" if (dra or {}).get("unknown") else _charge_cell(s.get("draCharge") or {}), s["reason"] or "-"]


def workload_list_text(doc: dict[str, Any], opts: Any) -> str:
    head = (["namespace"] if opts.all_namespaces else []) + HEAD
    rows = [row(item["summary"], item.get("dra"), opts) for item in doc["items"]]
    parts = [table(head, rows, opts.no_headers)] if rows else ["No workloads found."]
    if doc["findings"]:
        parts += ["", findings_text(doc["findings"], opts.style)]
    return "\n".join(parts)
