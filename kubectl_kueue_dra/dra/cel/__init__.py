"""The DRA CEL environment: device selectors compiled, checked and evaluated the way kube-scheduler
(or Kueue) does it; on cel-python, loaded only for a selector that is not ``simple``.

One way down, no circle: ``source`` (the expression's text, literals blanked), ``errors`` (the
errors and the dialects) and ``semver`` (versions) depend on nothing; ``keys`` (what devices share
a result under, the attribute problems) on those; ``simple`` (string equalities, decided without
cel-python) on ``keys``; ``values`` (CEL values, cel-go semantics) on ``dra/quantity``; ``text``,
``format`` and ``optional`` (the Kubernetes string, format and optional libraries) on ``values``;
``lib`` (quantity, semver and the table of every function) on those; ``analysis`` (compile-time
checks, the footprint) and ``device`` (the ``device`` variable) on ``lib``; ``bind`` (``cel.bind``
rewritten) on ``source``; ``parser`` (cel-python's parser, its tables cached) on nothing;
``engine`` (compiled and evaluated with cel-python) on those; ``evaluator`` puts them together,
loading ``engine`` and ``device`` when first needed. The public names are here
(``device_activation`` and ``Selector`` load cel-python when asked for).
"""

from typing import Any

from .evaluator import (
    KUEUE_DRA_V036,
    MAX_EXPRESSION_LENGTH,
    SCHEDULER,
    CelCompileError,
    CelDialect,
    CelError,
    CelEvalError,
    SelectorEvaluator,
    SimpleSelector,
    compile_selector,
    device_shape_key,
    footprint_reads,
)

__all__ = [
    "KUEUE_DRA_V036",
    "MAX_EXPRESSION_LENGTH",
    "SCHEDULER",
    "CelCompileError",
    "CelDialect",
    "CelError",
    "CelEvalError",
    "Selector",
    "SelectorEvaluator",
    "SimpleSelector",
    "compile_selector",
    "device_activation",
    "device_shape_key",
    "footprint_reads",
]


def __getattr__(name: str) -> Any:
    if name == "device_activation":
        from .device import device_activation

        return device_activation
    if name == "Selector":
        from .engine import Selector

        return Selector
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
