"""Option values checked the same way by every command: one rule and one message per option.

Pure: each function takes the text given on the command line and returns the value, or raises a
``UsageError`` (exit 2) that names the flag.
"""

from __future__ import annotations

import re

from .errors import UsageError

DEFAULT_REQUEST_TIMEOUT = 30.0


def duration(value: str, flag: str = "--request-timeout", default: float = DEFAULT_REQUEST_TIMEOUT) -> float:
    """kubectl's durations: a bare number is seconds; units ms, s, m, h; 0 = ``default``."""
    text = value.strip()
    if re.fullmatch(r"\d+(\.\d+)?", text):
        seconds = float(text)
    else:
        parts = re.findall(r"(\d+(?:\.\d+)?)(ms|s|m|h)", text)
        if not parts or "".join(a + b for a, b in parts) != text:
            raise UsageError(f'invalid {flag} "{value}"', 'use e.g. "10s", "1m" or "500ms"')
        scale = {"ms": 0.001, "s": 1, "m": 60, "h": 3600}
        seconds = sum(float(a) * scale[b] for a, b in parts)
    return seconds if seconds > 0 else default


def kueue_version(value: str | None) -> str | None:
    """``--kueue-version``: a Kueue version such as 0.19.2 or v0.18 (None: detect it)."""
    from .kueue.semantics import parse_version

    if value is not None and parse_version(value) is None:
        raise UsageError(f'invalid --kueue-version "{value}"', "use e.g. 0.19.2")
    return value


def kueue_namespace(value: str | None) -> str | None:
    """``--kueue-namespace``: a namespace name (a DNS label)."""
    from .kueue.mapping_rules import dns_label_error

    problem = dns_label_error(value) if value is not None else None
    if problem:
        raise UsageError(f'invalid --kueue-namespace "{value}": {problem}')
    return value
