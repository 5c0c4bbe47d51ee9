"""The text of docs/findings.md, built from the catalogue (``scripts/findings-doc`` writes it; a
unit test fails when the committed file differs)."""

from __future__ import annotations

import string

from .catalogue import SECTIONS, codes_of
from .code import DEFAULT, Code

HEADER = """\
# Finding codes

<!-- Generated from kubectl_kueue_dra/findings/ by scripts/findings-doc: do not edit by hand. -->

Every command's document carries `findings`: `{"severity", "code", "message", "fix"}` (some codes
add keys, such as `mapping` or `predicted`). The message is written for the case at hand; the
code, its severity and its fix are declared once, here.

A fix in braces names what the command fills in: `{namespace}` is the namespace of the case. A
command in a fix is written for `kubectl`; on OpenShift the plugin writes it for `oc`. A code with
several fixes says which situation each fits; a code with several severities lists them, the
usual one first.
"""


def shown(template: str | None) -> str:
    """A fix template as the reader sees it: literal braces single, placeholders in braces."""
    if template is None:
        return "none"
    parts = []
    for literal, name, spec, conversion in string.Formatter().parse(template):
        parts.append(literal)
        if name is not None:
            parts.append("{" + name + (f"!{conversion}" if conversion else "") + (f":{spec}" if spec else "") + "}")
    return f"`{''.join(parts)}`"


def code_text(code: Code) -> str:
    lines = [f"### {code.name}", "", f"{' or '.join(code.severities)}. {code.means}", ""]
    variants = {name: fix for name, fix in code.fixes.items() if name != DEFAULT}
    if not variants:
        lines.append(f"Fix: {shown(code.fixes[DEFAULT])}")
    else:
        lines.append("Fixes:")
        lines.append("")
        lines.append(f"- default: {shown(code.fixes[DEFAULT])}")
        lines += [f"- {name}: {shown(fix)}" for name, fix in variants.items()]
    return "\n".join(lines) + "\n"


def markdown() -> str:
    """docs/findings.md: the index, then each section's codes in the order they are declared."""
    out = [HEADER]
    out.append("| code | severity | section |\n|---|---|---|")
    rows = sorted((code.name, " or ".join(code.severities), title) for title, module in SECTIONS
                  for code in codes_of(module))
    out.append("\n".join(f"| [{name}](#{name.lower()}) | {severity} | {title} |" for name, severity, title in rows))
    out.append("")
    for title, module in SECTIONS:
        out.append(f"## {title}\n")
        out += [code_text(code) for code in codes_of(module)]
    return "\n".join(out).rstrip("\n") + "\n"
