"""``verify`` as a request and a service call: which paths to check, then gather the facts once,
run the checks and build the document."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...errors import UsageError, UserError
from ...kube.view import ClusterView
from ...kueue.install import flags

PATH_CHOICES = ("claims", "extended", "partitionable")


def parse_paths(values: tuple[str, ...] | list[str]) -> list[str]:
    paths = [p.strip() for v in values for p in v.split(",") if p.strip()]
    bad = [p for p in paths if p not in PATH_CHOICES]
    if bad:
        raise UsageError(f'invalid --path "{bad[0]}"', f"use one of {', '.join(PATH_CHOICES)}")
    return list(dict.fromkeys(paths))


@dataclass
class VerifyRequest:
    paths: list[str] = field(default_factory=list)
    probe: bool = True
    kueue_namespace: str | None = None

    def validate(self) -> VerifyRequest:
        self.paths = parse_paths(self.paths)
        flags.kueue_namespace(self.kueue_namespace)
        return self


def verify(view: ClusterView, req: VerifyRequest) -> tuple[dict[str, Any], bool, UserError | None]:
    """The document, whether a check failed, and the error to exit with when nothing at all
    could be read (every list forbidden)."""
    from .facts import LISTED, gather
    from ...kueue.install.fix_rights import with_rights
    from .run import document, failed, run_checks

    facts = gather(view, req.kueue_namespace, probe=req.probe)
    checks = run_checks(facts, req.paths or None)
    doc = with_rights(document(facts, checks), view, facts.config)
    forbidden = [facts.unreadable[k] for k in LISTED if k in facts.unreadable and view.live]
    error = None
    if len(forbidden) == len(LISTED):
        denied = next(e for e in facts.forbidden)
        error = UserError(f"{denied.message}, and the same for every other object verify reads: nothing could "
                          "be checked", denied.hint)
    return doc, failed(checks), error
