"""The DRA CEL environment on cel-python: device selectors compiled, checked and evaluated the way
kube-scheduler (or Kueue) does it.

One way down, no circle: ``source`` (the expression's text, literals blanked) and ``errors`` (the
errors and the dialects) depend on nothing; ``values`` (CEL values, cel-go semantics) on
``dra/quantity``; ``text``, ``format`` and ``optional`` (the Kubernetes string, format and
optional libraries) on ``values``; ``lib`` (quantity, semver and the table of every function) on
those; ``analysis`` (compile-time checks, the footprint) and ``device`` (the ``device`` variable)
on ``lib``; ``bind`` (``cel.bind`` rewritten) on ``source``; ``parser`` (cel-python's parser, its
tables cached) on nothing; ``evaluator`` puts them together. The public names are here.
"""

from .evaluator import (
    KUEUE_DRA_V036,
    MAX_EXPRESSION_LENGTH,
    SCHEDULER,
    CelCompileError,
    CelDialect,
    CelError,
    CelEvalError,
    Selector,
    SelectorEvaluator,
    compile_selector,
    device_activation,
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
    "compile_selector",
    "device_activation",
    "device_shape_key",
    "footprint_reads",
]
