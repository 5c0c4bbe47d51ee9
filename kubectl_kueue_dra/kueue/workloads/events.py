"""The recent events of a Workload, its Job and its pods, as ``kubectl describe`` shows them.

Pure. Events of one namespace (one list per explain) are kept when their ``involvedObject`` is one
of the objects asked for (its kind and name; its uid too when both sides have one), merged when the
same object repeats the same type, reason and message (counts added, the latest time kept), and
sorted oldest first so the newest is last.
"""

from datetime import datetime, timezone
from typing import Any

_EPOCH = datetime.min.replace(tzinfo=timezone.utc)


def _instant(text: str) -> datetime:
    """An RFC 3339 time (with or without microseconds); unreadable or missing sorts first."""
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return _EPOCH


def _time(e: dict[str, Any]) -> str:
    """The event's latest time as the API writes it (RFC 3339)."""
    series = (e.get("series") or {}).get("lastObservedTime")
    return str(series or e.get("lastTimestamp") or e.get("eventTime") or e.get("firstTimestamp")
               or (e.get("metadata") or {}).get("creationTimestamp") or "")


def _count(e: dict[str, Any]) -> int:
    series = (e.get("series") or {}).get("count")
    for v in (series, e.get("count")):
        if isinstance(v, int) and v > 0:
            return v
    return 1


def related_events(events: list[dict[str, Any]], objects: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
    """The events about ``objects`` ((kind, object) pairs), de-duplicated, newest last:
    ``{object, type, reason, message, count, lastSeen}``."""
    by_ref = {(kind, (o.get("metadata") or {}).get("name")): (o.get("metadata") or {}).get("uid")
              for kind, o in objects}
    merged: dict[tuple[Any, ...], dict[str, Any]] = {}
    for e in events:
        inv = e.get("involvedObject") or e.get("regarding") or {}
        pair = (inv.get("kind"), inv.get("name"))
        if pair not in by_ref:
            continue
        if inv.get("uid") and by_ref[pair] and inv["uid"] != by_ref[pair]:
            continue  # about an earlier object of the same name
        ref = f"{inv.get('kind')}/{inv.get('name')}"
        key = (ref, e.get("type"), e.get("reason"), e.get("message") or e.get("note"))
        seen = merged.get(key)
        if seen is None:
            merged[key] = {"object": ref, "type": e.get("type"), "reason": e.get("reason"),
                           "message": e.get("message") or e.get("note"), "count": _count(e), "lastSeen": _time(e)}
        else:
            seen["count"] += _count(e)
            seen["lastSeen"] = max(seen["lastSeen"], _time(e), key=_instant)
    return sorted(merged.values(), key=lambda x: (_instant(x["lastSeen"]), x["object"], x["reason"] or ""))
