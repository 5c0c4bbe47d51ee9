"""Findings: what a command noticed, how bad it is, and what to do about it."""

from typing import Any

SEVERITIES = ("error", "warning", "info")


def finding(severity: str, code: str, message: str, fix: str | None = None, **extra: Any) -> dict[str, Any]:
    assert severity in SEVERITIES, severity
    out: dict[str, Any] = {"severity": severity, "code": code, "message": message, "fix": fix}
    out.update(extra)
    return out


def unreadable_findings(view: Any) -> list[dict[str, Any]]:
    """One finding per list or get of ``view`` that was forbidden, and one per field of the wrong
    type the view removed; the answer is then partial."""
    return [finding("warning", "Unreadable", f"{e.message}; the answer below is partial", e.hint)
            for e in view.unreadable] + [
        finding("warning", "MalformedObject", f"{m.message()}; the answer below is partial",
                f"fix the field {m.path} of {m.object_ref}", object=m.object_ref, field=m.path, value=m.value)
        for m in view.malformed]


def is_partial(view: Any) -> bool:
    """Whether something the answer depends on could not be read, or was malformed."""
    return bool(view.unreadable or view.malformed)


def config_findings(config: Any, view: Any) -> list[dict[str, Any]]:
    """What a read command says when Kueue's configuration is missing or invalid."""
    if config.found and not config.problem:
        return []
    if getattr(config, "unreadable", None):
        return [config_unknown_finding(config.unreadable)]
    if config.problem and config.found:
        return [finding("error", "KueueConfigInvalid", config.problem,
                        "fix the Kueue configuration; Kueue will not start with it")]
    where = "in the snapshot" if not view.live else "in the cluster"
    return [finding("warning", "KueueConfigNotFound",
                    f"no Kueue configuration found {where} ({config.problem}); "
                    "deviceClassMappings are unknown",
                    "pass --kueue-namespace if Kueue runs elsewhere")]


def config_unknown_finding(why: str) -> dict[str, Any]:
    """Kueue's configuration may exist but could not be read: its mappings are unknown, not absent."""
    return finding("warning", "KueueConfigUnknown",
                   f"Kueue's configuration could not be read ({why}): its deviceClassMappings are unknown, and so "
                   "is what DRA devices charge", "grant get on it (deploy/rbac/reader-clusterrole.yaml)")
