"""DeviceClass facts every command reads the same way: a class's CEL selectors, and the class the
scheduler (and Kueue) resolve an ``extendedResourceName`` to when several classes name it."""

from typing import Any


def class_selectors(device_class: dict[str, Any]) -> list[str]:
    return [s["cel"]["expression"] for s in (device_class.get("spec") or {}).get("selectors") or []
            if isinstance(s, dict) and (s.get("cel") or {}).get("expression")]


def scheduler_choice(candidates: list[dict[str, Any]]) -> dict[str, Any]:
    """Of the DeviceClasses with the same extendedResourceName, the one the scheduler (and Kueue
    from 0.18.5 / 0.19.1) picks: the newest (creationTimestamp), ties broken by the
    lexicographically smallest name."""
    newest = max(dc["metadata"].get("creationTimestamp") or "" for dc in candidates)
    return min((dc for dc in candidates if (dc["metadata"].get("creationTimestamp") or "") == newest),
               key=lambda dc: dc["metadata"]["name"])


def extended_resource_winners(device_classes: list[dict[str, Any]]) -> dict[str, str]:
    """extendedResourceName -> the class the scheduler and Kueue pick for it (``scheduler_choice``)."""
    by_name: dict[str, list[dict[str, Any]]] = {}
    for dc in device_classes:
        ern = (dc.get("spec") or {}).get("extendedResourceName")
        if ern:
            by_name.setdefault(ern, []).append(dc)
    return {ern: str(scheduler_choice(classes)["metadata"]["name"]) for ern, classes in by_name.items()}
