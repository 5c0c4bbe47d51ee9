"""deviceClassMappings: one model for both dialects.

Upstream Kueue (``config.kueue.x-k8s.io/v1beta2``) writes a source as ``{counter: {name, driver,
deviceSelector: {cel: {expression}}}}`` or ``{capacity: {…}}``; the OpenShift ``Kueue`` CR adds
discriminators (``{type: Counter, counter: {…, deviceSelector: {type: CEL, cel: …}}}``) which the
operator drops when it writes Kueue's ConfigMap. Both parse to the same ``Mapping``.
"""

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Source:
    type: str  # "counter" | "capacity"
    name: str
    driver: str
    selector: str | None

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "name": self.name, "driver": self.driver, "selector": self.selector}


@dataclass(frozen=True)
class Mapping:
    name: str
    device_class_names: tuple[str, ...]
    sources: tuple[Source, ...] = field(default=())

    @property
    def counter_sources(self) -> tuple[Source, ...]:
        return tuple(s for s in self.sources if s.type == "counter")

    @property
    def capacity_sources(self) -> tuple[Source, ...]:
        return tuple(s for s in self.sources if s.type == "capacity")

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "deviceClassNames": list(self.device_class_names),
                "sources": [s.to_json() for s in self.sources]}


def _parse_source(raw: Any) -> Source | None:
    if not isinstance(raw, dict):
        return None
    for kind in ("counter", "capacity"):
        body = raw.get(kind)
        if isinstance(body, dict):
            selector = body.get("deviceSelector")
            cel = selector.get("cel") if isinstance(selector, dict) else None
            expression = cel.get("expression") if isinstance(cel, dict) else None
            return Source(kind, str(body.get("name") or ""), str(body.get("driver") or ""),
                          expression if isinstance(expression, str) else None)
    return None


def _items(value: Any) -> list[Any]:
    """A list field as written; anything else (a number, a map, a string) lists nothing here: the
    rules (``mapping_rules``) say what is wrong with it."""
    return value if isinstance(value, list) else []


def parse_mappings(raw: Any) -> list[Mapping]:
    """Parse a ``deviceClassMappings`` list; entries that are not mappings are skipped."""
    mappings = []
    for entry in _items(raw):
        if not isinstance(entry, dict) or not entry.get("name"):
            continue
        sources = tuple(s for s in map(_parse_source, _items(entry.get("sources"))) if s is not None)
        classes = tuple(str(c) for c in _items(entry.get("deviceClassNames")))
        mappings.append(Mapping(str(entry["name"]), classes, sources))
    return mappings


def lookup(mappings: list[Mapping], device_class: str, *, last_wins: bool = False) -> Mapping | None:
    """The mapping Kueue uses for a class: the first listing it (v0.19; v0.18 used the last)."""
    found = [m for m in mappings if device_class in m.device_class_names]
    if not found:
        return None
    return found[-1] if last_wins else found[0]


def mappings_for(mappings: list[Mapping], device_class: str) -> list[Mapping]:
    """Every mapping listing the class (several only with distinct counter sources)."""
    return [m for m in mappings if device_class in m.device_class_names]


# ---- dialects: the raw entries each target stores -------------------------------------------

OPERATOR = "operator"  # OpenShift Kueue CR: CRD with type discriminators
UPSTREAM = "upstream"  # Kueue's own Configuration (config.kueue.x-k8s.io/v1beta2)


def source_entry(source: Source, dialect: str) -> dict[str, Any]:
    """One ``sources[]`` entry as the target stores it."""
    selector: dict[str, Any] = {"cel": {"expression": source.selector}}
    if dialect == OPERATOR:
        selector = {"type": "CEL", **selector}
    body = {"name": source.name, "driver": source.driver, "deviceSelector": selector}
    if dialect == OPERATOR:
        return {"type": source.type.capitalize(), source.type: body}
    return {source.type: body}


def mapping_entry(name: str, device_classes: list[str], sources: list[Source], dialect: str,
                  base: dict[str, Any] | None = None) -> dict[str, Any]:
    """A ``deviceClassMappings[]`` entry; fields of ``base`` the plugin does not manage are kept."""
    entry = dict(base or {})
    entry["name"] = name
    entry["deviceClassNames"] = list(device_classes)
    if sources:
        entry["sources"] = [source_entry(s, dialect) for s in sources]
    else:
        entry.pop("sources", None)
    return entry
