"""DRA device selectors (CEL) evaluated the way kube-scheduler - or Kueue - evaluates them.

Built on cel-python (``engine``: ``celpy`` plus ``lib``, the Kubernetes CEL libraries), which is
loaded only for a selector that is not ``simple`` (string equalities on the driver and on
attributes, decided on the device itself where certain). Mirrors
``k8s.io/dynamic-resource-allocation/cel`` and the allocator's ``selectorsMatch``. The pieces:
``parser`` (the parser, its tables cached), ``analysis`` (compile-time checks and the
footprint), ``device`` (the ``device`` variable), ``keys`` (what devices share a result under,
and the attribute problems), ``errors`` (errors and the dialects: what differs between the
scheduler and Kueue); this module compiles (cached) and evaluates.

* An unknown *domain* is an empty map (``has(device.attributes['x.com'].a)`` is false,
  ``'x.com' in device.attributes`` is false); an unknown *id* is the runtime error
  ``no such key: <id>`` (followed, in the scheduler dialect, by the 1.37 hint about ``has()``/``.?``).
* A runtime error is not "false": the scheduler aborts the allocation attempt, Kueue rejects the
  workload. Only ``&&``/``||`` absorb errors (``false && <error>`` is false).
* Selectors are evaluated in order and stop at the first false one; an attribute that cannot be
  converted (bad version string; a list without list attributes) is an error for every selector.
* Expressions over 10240 bytes are rejected without compiling, as the API server does.

Not reproduced: static type checking (a non-bool result is only found when evaluated), the CEL
cost limit, and cel-go's compile error text (``ERROR: <input>:1:7: ...`` with a caret line).

Checked against the Kubernetes sources (dynamic-resource-allocation v0.36 and the 1.37
development branch, apiserver v0.36, cel-go v0.26/v0.27) and cel-python 0.5.0 (what ``engine``
does about cel-python's own ways is said there):

* ``has(m['k'])`` is a compile error in cel-go (``has()`` needs a field selection).
* Real drivers publish per-device attributes (``uuid``, ``pciBusID``), so whole device shapes
  rarely repeat; the evaluator keys its cache on what the expressions can read instead.
* An A100-40GB publishes ``memory: 40192Mi``, which is *less* than ``40Gi``.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import TYPE_CHECKING, Any

from .errors import (
    KUEUE_DRA_V036,
    MAX_EXPRESSION_LENGTH,
    SCHEDULER,
    CelCompileError,
    CelDialect,
    CelError,
    CelEvalError,
    Footprint,
)
from .keys import attribute_problem, device_shape_key, footprint_reads, grouping_keyer, projected_key
from .simple import SimpleSelector, parse

if TYPE_CHECKING:
    from .engine import Selector

__all__ = [
    "KUEUE_DRA_V036",
    "MAX_EXPRESSION_LENGTH",
    "SCHEDULER",
    "CelCompileError",
    "CelDialect",
    "CelError",
    "CelEvalError",
    "SelectorEvaluator",
    "SimpleSelector",
    "compile_selector",
    "device_shape_key",
    "footprint_reads",
]

_COMPILED: dict[tuple[CelDialect, str], Any] = {}


def compile_selector(expr: str, dialect: CelDialect = SCHEDULER) -> Selector | SimpleSelector:
    """Compile (cached by dialect and text): a ``SimpleSelector`` where the text is one, else with
    cel-python; raises CelCompileError, the same error for the same text."""
    hit = _COMPILED.get((dialect, expr))
    if hit is None:
        terms = parse(expr)
        if terms is not None:
            hit = SimpleSelector(expr, terms, dialect)
        else:
            from .engine import compile_full

            try:
                hit = compile_full(expr, dialect)
            except CelCompileError as e:
                hit = e
        _COMPILED[(dialect, expr)] = hit
    if isinstance(hit, CelCompileError):
        raise hit
    return hit


# -- the evaluator ------------------------------------------------------------------------------

_MISS = object()


class SelectorEvaluator:
    """Evaluates selector lists on devices, once per distinct device shape.

    ``matches`` raises CelCompileError / CelEvalError; errors are cached like results.
    When every expression reads only named parts of ``device`` (the usual
    ``device.attributes['d'].x`` / ``device.capacity['d'].y`` / ``device.driver``
    forms) the cache key holds just those parts, so devices that differ only in,
    say, ``uuid`` share one evaluation; otherwise it is :func:`device_shape_key`.

    ``evaluations`` counts the expressions evaluated (one each: decided by ``simple``, or run by cel-python),
    ``cache_hits`` the ``matches`` calls answered from the cache.
    """

    def __init__(self, dialect: CelDialect = SCHEDULER) -> None:
        #: how ``device`` is built and errors are worded (kube-scheduler's, or Kueue's)
        self.dialect = dialect
        self.evaluations = 0
        self.cache_hits = 0
        from ... import stats

        stats.track_evaluator(self)
        self._results: dict[tuple[tuple[str, ...], Hashable], Any] = {}
        self._footprints: dict[tuple[str, ...], Footprint | None] = {}
        #: each device's attribute problem in this dialect, found once for every grouping (``projected_key``);
        #: kept from the second grouping on: a run that groups the devices once (classes, verify) would
        #: only pay for it (an entry per device: ~120 MiB at 5,000 nodes)
        self._problems: dict[int, tuple[Any, str | None]] = {}
        self._groupings = 0

    def compile(self, expression: str) -> Selector | SimpleSelector:
        """``compile_selector`` in this evaluator's dialect."""
        return compile_selector(expression, self.dialect)

    def _footprint(self, exprs: tuple[str, ...]) -> Footprint | None:
        if exprs not in self._footprints:
            fp: set[tuple[Any, ...]] = set()
            anything = False
            for e in exprs:
                try:
                    sel_fp = compile_selector(e, self.dialect).footprint
                except CelCompileError:
                    sel_fp = None
                if sel_fp is None:
                    anything = True
                    break
                fp |= sel_fp
            self._footprints[exprs] = None if anything else frozenset(fp)
        return self._footprints[exprs]

    def group_keyer(self, selector_lists: Sequence[Sequence[str]]) -> Callable[[str, dict[str, Any]], Hashable]:
        """A function (driver, device) -> key such that devices with equal keys get equal results
        from every one of these selector lists: the projection on the union of what they read,
        or the full :func:`device_shape_key` when one of them may read anything. Lets callers
        group many devices and evaluate once per group (see ``dra/devices.ShapeIndex``)."""
        union = self.union_footprint(selector_lists)
        if union is None:
            return device_shape_key
        self._groupings += 1
        dialect, problems = self.dialect, (self._problems if self._groupings > 1 else None)
        return grouping_keyer(union, dialect, problems)

    def attribute_problem(self, driver: str, device: dict[str, Any]) -> str | None:
        """Why this dialect could not convert the device's attributes, or None."""
        return attribute_problem(driver, device, self.dialect)

    def union_footprint(self, selector_lists: Sequence[Sequence[str]]) -> Footprint | None:
        """Every part of a device these selector lists can read together, or None when one of
        them may read anything: devices alike in it get equal results from each list."""
        union: set[tuple[Any, ...]] = set()
        for exprs in selector_lists:
            fp = self._footprint(tuple(exprs))
            if fp is None:
                return None
            union |= fp
        return frozenset(union)

    def shape_key(self, expressions: Sequence[str], driver: str, device: dict[str, Any]) -> Hashable:
        """The cache key used for these expressions and this device."""
        exprs = tuple(expressions)
        fp = self._footprint(exprs)
        return device_shape_key(driver, device) if fp is None else projected_key(fp, driver, device, self.dialect)

    def matches(self, expressions: Sequence[str], driver: str, device: dict[str, Any]) -> bool:
        """True when all expressions are true for the device (evaluated in order)."""
        exprs = tuple(expressions)
        key = (exprs, self.shape_key(exprs, driver, device))
        hit = self._results.get(key, _MISS)
        if hit is not _MISS:
            self.cache_hits += 1
            if isinstance(hit, CelError):
                raise hit
            return bool(hit)
        try:
            result = self._evaluate(exprs, driver, device)
        except CelError as e:
            self._results[key] = e
            raise
        self._results[key] = result
        return result

    def _evaluate(self, exprs: tuple[str, ...], driver: str, device: dict[str, Any]) -> bool:
        activation = None
        for expr in exprs:
            selector: Any = compile_selector(expr, self.dialect)
            if isinstance(selector, SimpleSelector):
                decided = selector.decide(driver, device)
                if decided is not None:
                    self.evaluations += 1
                    if not decided:
                        return False
                    continue
                selector = selector.full()
            if activation is None:
                from .device import device_activation

                try:
                    activation = device_activation(driver, device, self.dialect)
                except CelEvalError as e:
                    raise CelEvalError(expr, e.detail) from None
            self.evaluations += 1
            if not selector.evaluate(activation):
                return False
        return True
