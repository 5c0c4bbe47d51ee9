"""Kueue option values checked the same way by every command that takes them: one rule and one
message per option. Pure: each takes the text given on the command line and returns it, or raises
a ``UsageError`` (exit 2) naming the flag. (Durations: ``k8s/duration``.)"""

from __future__ import annotations

from ...errors import UsageError
from ...k8s.duration import duration
from ...k8s.names import dns_label_error
from ...gates.versions import parse_version

__all__ = ["duration", "kueue_namespace", "kueue_version"]


def kueue_version(value: str | None) -> str | None:
    """``--kueue-version``: a Kueue version such as 0.19.2 or v0.18 (None: detect it)."""
    if value is not None and parse_version(value) is None:
        raise UsageError(f'invalid --kueue-version "{value}"', "use e.g. 0.19.2")
    return value


def kueue_namespace(value: str | None) -> str | None:
    """``--kueue-namespace``: a namespace name (a DNS label)."""
    problem = dns_label_error(value) if value is not None else None
    if problem:
        raise UsageError(f'invalid --kueue-namespace "{value}": {problem}')
    return value
