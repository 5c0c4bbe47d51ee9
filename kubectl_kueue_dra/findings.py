"""Findings: what a command noticed, how bad it is, and what to do about it."""

from typing import Any

SEVERITIES = ("error", "warning", "info")


def finding(severity: str, code: str, message: str, fix: str | None = None, **extra: Any) -> dict[str, Any]:
    assert severity in SEVERITIES, severity
    out: dict[str, Any] = {"severity": severity, "code": code, "message": message, "fix": fix}
    out.update(extra)
    return out
