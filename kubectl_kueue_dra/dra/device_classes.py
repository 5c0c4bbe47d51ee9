"""DeviceClass facts every command reads the same way: a class's CEL selectors, and the class the
scheduler (and Kueue) resolve an ``extendedResourceName`` to when several classes name it."""

from typing import Any


def class_selectors(device_class: dict[str, Any]) -> list[str]:
    return [s["cel"]["expression"] for s in (device_class.get("spec") or {}).get("selectors") or []
            if isinstance(s, dict) and (s.get("cel") or {}).get("expression")]


def extended_resource_winners(device_classes: list[dict[str, Any]]) -> dict[str, str]:
    """extendedResourceName -> the class the scheduler and Kueue pick for it: the newest
    (creationTimestamp), ties broken by the lexicographically smallest name."""
    by_name: dict[str, list[dict[str, Any]]] = {}
    for dc in device_classes:
        ern = (dc.get("spec") or {}).get("extendedResourceName")
        if ern:
            by_name.setdefault(ern, []).append(dc)
    winners = {}
    for ern, classes in by_name.items():
        newest = max(c["metadata"].get("creationTimestamp") or "" for c in classes)
        winners[ern] = min(c["metadata"]["name"] for c in classes
                           if (c["metadata"].get("creationTimestamp") or "") == newest)
    return winners
