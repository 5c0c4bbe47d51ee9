"""Findings: what a command noticed, how bad it is, and what to do about it.

Every finding code is declared once, in the catalogue of this package (``codes``: the codes by
name; ``catalogue``: in order, by subject). A call site builds a finding from its code:
``F.QuotaExhausted.make(message, **fix_args)``. docs/findings.md is generated from the catalogue
(``scripts/findings-doc``).
"""

from .code import SEVERITIES, Code, Severity
from .partial import config_findings, config_unknown_finding, is_partial, unreadable_findings

__all__ = ["SEVERITIES", "Code", "Severity", "config_findings", "config_unknown_finding", "is_partial",
           "unreadable_findings"]
