"""A finding code as the catalogue declares it: its name, the severities it is said with, what it
means, and its fix, a template the call site fills with the real names.

A finding is the dict every document carries: ``{"severity", "code", "message", "fix"}`` and, for
some codes, more keys. Only ``Code.make`` builds one.
"""

from __future__ import annotations

import string
from collections.abc import Mapping
from typing import Any, Literal

Severity = Literal["error", "warning", "info"]
SEVERITIES: tuple[Severity, ...] = ("error", "warning", "info")
#: the name of the fix a code gives when the call site names no variant
DEFAULT = ""


def placeholders(template: str | None) -> set[str]:
    """The names a fix template is filled with (``{namespace}`` → namespace)."""
    if template is None:
        return set()
    return {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}


class Code:
    """One finding code.

    ``severity``: the one it is said with, or a tuple of those a call site may choose from (the
    first is the default). ``fix``: the template of its fix (``str.format`` placeholders, filled by
    keyword at the call site), None when it has none. ``variants``: the other fixes it is given,
    each named for the situation it fits (a name the call site passes as ``variant``).
    """

    __slots__ = ("fixes", "means", "name", "severities")

    def __init__(self, name: str, severity: Severity | tuple[Severity, ...], *, means: str,
                 fix: str | None = None, variants: Mapping[str, str | None] | None = None) -> None:
        self.name = name
        self.severities: tuple[Severity, ...] = severity if isinstance(severity, tuple) else (severity,)
        self.means = means
        self.fixes: dict[str, str | None] = {DEFAULT: fix, **(variants or {})}

    @property
    def severity(self) -> Severity:
        """The severity a call site gets when it names none."""
        return self.severities[0]

    def __repr__(self) -> str:
        return f"Code({self.name})"

    def fix_text(self, variant: str = DEFAULT, **fix_args: object) -> str | None:
        """The fix of ``variant`` with its placeholders filled: every placeholder it has must be
        given, and no name that none of the code's fixes has (so a call site may pass the same
        names whichever variant it picks)."""
        if variant not in self.fixes:
            raise KeyError(f"finding {self.name} has no fix {variant!r} (it has {sorted(self.fixes)})")
        template = self.fixes[variant]
        missing = placeholders(template) - set(fix_args)
        unknown = set(fix_args) - {name for t in self.fixes.values() for name in placeholders(t)}
        if missing or unknown:
            raise TypeError(f"the fix {variant or 'default'!r} of finding {self.name} lacks {sorted(missing)}, "
                            f"and no fix of it takes {sorted(unknown)}")
        return None if template is None else template.format(**fix_args)

    def make(self, message: str, *, severity: Severity | None = None, variant: str = DEFAULT,
             extra: Mapping[str, Any] | None = None, **fix_args: object) -> dict[str, Any]:
        """The finding: ``message`` written by the call site, the fix of ``variant`` filled with
        ``fix_args``, and ``extra`` keys after the four every finding has."""
        chosen = severity or self.severity
        if chosen not in self.severities:
            raise ValueError(f"finding {self.name} is said as {' or '.join(self.severities)}, not {chosen}")
        out: dict[str, Any] = {"severity": chosen, "code": self.name, "message": message,
                               "fix": self.fix_text(variant, **fix_args)}
        if extra:
            out.update(extra)
        return out
