"""The findings every read command shares: what the view could not read or removed (the answer is
then partial), and Kueue's configuration missing, invalid or unreadable."""

from __future__ import annotations

from typing import Any

from . import setup as F


def unreadable_findings(view: Any) -> list[dict[str, Any]]:
    """One finding per list or get of ``view`` that was forbidden, and one per field of the wrong
    type the view removed; the answer is then partial."""
    return [F.Unreadable.make(f"{e.message}; the answer below is partial", variant="" if e.hint else "no-hint",
                              hint=e.hint)
            for e in view.unreadable] + [
        F.MalformedObject.make(f"{m.message()}; the answer below is partial", field=m.path, object=m.object_ref,
                               extra={"object": m.object_ref, "field": m.path, "value": m.value})
        for m in view.malformed]


def is_partial(view: Any) -> bool:
    """Whether something the answer depends on could not be read, was malformed, or is not in the
    snapshot (each said by a finding of its own)."""
    return bool(view.unreadable or view.malformed or view.absent)


def config_findings(config: Any, view: Any) -> list[dict[str, Any]]:
    """What a read command says when Kueue's configuration is missing or invalid."""
    if config.found and not config.problem:
        return []
    if getattr(config, "unreadable", None):
        return [config_unknown_finding(config.unreadable)]
    if config.problem and config.found:
        return [F.KueueConfigInvalid.make(config.problem)]
    where = "in the snapshot" if not view.live else "in the cluster"
    return [F.KueueConfigNotFound.make(f"no Kueue configuration found {where} ({config.problem}); "
                                       "deviceClassMappings are unknown")]


def config_unknown_finding(why: str) -> dict[str, Any]:
    """Kueue's configuration may exist but could not be read: its mappings are unknown, not absent."""
    return F.KueueConfigUnknown.make(
        f"Kueue's configuration could not be read ({why}): its deviceClassMappings are unknown, and so "
        "is what DRA devices charge")
