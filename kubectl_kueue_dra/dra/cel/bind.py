"""``cel.bind(x, init, body)`` (cel-go ``ext.Bindings``, in the DRA environment since Kubernetes
1.31), rewritten before parsing into the one-element ``map`` it is equivalent to:
``[init].map(x, body)[0]``. cel-go expands the macro into a comprehension that evaluates ``init``
once, binds it to ``x`` and returns ``body``; the map over a one-element list does the same, with
the same errors, and cel-python evaluates it.
"""

from __future__ import annotations

import re

from .source import blank_literals

__all__ = ["expand_bindings"]

_BIND = re.compile(r"(?<![\w.])cel\s*\.\s*bind\s*\(")
_OPEN, _CLOSE = "([{", ")]}"


def _arguments(blank: str, start: int) -> tuple[list[tuple[int, int]], int] | None:
    """The (start, end) of each top-level argument of the call whose '(' is at ``start - 1``, and
    the index of its ')'; None when the parentheses do not close."""
    depth, begin, spans = 0, start, []
    for i in range(start, len(blank)):
        c = blank[i]
        if c in _OPEN:
            depth += 1
        elif c in _CLOSE:
            if depth == 0:
                spans.append((begin, i))
                return spans, i
            depth -= 1
        elif c == "," and depth == 0:
            spans.append((begin, i))
            begin = i + 1
    return None


def expand_bindings(expr: str) -> str:
    """The expression with every ``cel.bind`` of three arguments and a simple variable name
    rewritten; anything else is left for the compile-time checks to name."""
    done_before = len(expr)
    while True:
        blank = blank_literals(expr)
        found = list(_BIND.finditer(blank, 0, done_before))
        if not found:
            return expr
        m = found[-1]  # the last one: nothing after its start is another binding's start
        parsed = _arguments(blank, m.end())
        done_before = m.start()
        if parsed is None:
            continue
        spans, close = parsed
        if len(spans) != 3 or not re.fullmatch(r"\s*[A-Za-z_]\w*\s*", expr[spans[0][0]:spans[0][1]]):
            continue
        var, init, body = (expr[a:b] for a, b in spans)
        expr = f"{expr[:m.start()]}[{init}].map({var.strip()}, {body})[0]{expr[close + 1:]}"
