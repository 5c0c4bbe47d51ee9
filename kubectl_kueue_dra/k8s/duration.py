"""kubectl's durations (``--request-timeout 10s``, ``--timeout 5m``). Pure."""

from __future__ import annotations

import re

from ..errors import UsageError


def duration(value: str, flag: str, default: float) -> float:
    """A bare number is seconds; units ms, s, m, h; 0 means ``default``. A usage error names ``flag``."""
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
