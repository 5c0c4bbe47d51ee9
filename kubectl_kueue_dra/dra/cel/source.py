"""The text of a selector before it is parsed: string and bytes literals and comments blanked out,
so that the rewrites before parsing (``bind``, ``optional``) and the check for optional syntax
see only the expression's own tokens. Depends on nothing else of the CEL environment, so every
module may use it."""

from __future__ import annotations

import re

__all__ = ["OPTIONAL_SYNTAX", "blank_literals"]

OPTIONAL_SYNTAX = re.compile(r"\.\s*\?|\[\s*\?")


def blank_literals(expr: str) -> str:
    """The expression with string/bytes literal bodies and comments replaced by spaces."""
    out = list(expr)
    i, n = 0, len(expr)
    while i < n:
        c = expr[i]
        if c == "/" and expr.startswith("//", i):
            j = expr.find("\n", i)
            j = n if j < 0 else j
            out[i:j] = " " * (j - i)
            i = j
            continue
        if c in "'\"":
            raw = (i > 0 and expr[i - 1] in "rR") or (i > 1 and expr[i - 1] in "bB" and expr[i - 2] in "rR")
            quote = expr[i : i + 3] if expr[i : i + 3] in ("'''", '"""') else c
            j = i + len(quote)
            while j < n and not expr.startswith(quote, j):
                j += 2 if expr[j] == "\\" and not raw else 1
            j = min(n, j + len(quote))
            out[i:j] = " " * (j - i)
            i = j
            continue
        i += 1
    return "".join(out)
