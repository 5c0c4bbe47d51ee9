"""What the API server and Kueue reject in ``deviceClassMappings``, checked before anything is
written.

Two readers can refuse a list: the OpenShift operator's CRD (at write time: the API server
answers 422) and Kueue itself (at startup: ``Unable to validate the configuration`` and exit 1,
so a value the CRD accepts can still crash-loop Kueue). ``Rules`` says which reader, which Kueue
version and which gates apply; ``validate`` returns every violation of either, each naming its
rule. Sources: the operator CRD (``kueues.kueue.openshift.io``), ``pkg/config/validation.go`` of
Kueue 0.18.6 and 0.19.2, the Kueue 0.20 release notes (``pods`` is reserved), and the DRA API limits
(a driver name is at most 63 characters, a counter name is a DNS label).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...findings import Code, Severity
from ...findings import codes as F
from ...gates.kueue import SOURCE_GATES, default_on, source_refusal
from ...gates.versions import DEFAULT_KUEUE_MINOR
from ...k8s.names import capacity_name_error, dns_label_error, dns_subdomain_error, qualified_name_error
from .mappings import OPERATOR, UPSTREAM

MAX_MAPPINGS = 16
MAX_CLASSES = 8
MAX_NAME = 253
MAX_DRIVER = 63
MAX_OPERATOR_SOURCES = 1
MAX_OPERATOR_EXPRESSION = 1024
RESERVED_NAMES = ("pods",)


_UPSTREAM_KEYS = {
    "mapping": {"name", "deviceClassNames", "sources"},
    "source": {"counter", "capacity"},
    "body": {"name", "driver", "deviceSelector"},
    "selector": {"cel"},
}


def _default_gate(kind: str) -> bool:
    """Whether the gate of ``kind`` sources is on by default in the default Kueue version."""
    return bool(default_on(SOURCE_GATES[kind], DEFAULT_KUEUE_MINOR))


@dataclass(frozen=True, kw_only=True)
class Rules:
    """Who reads the mappings, and what that reader accepts.

    ``kueue_minor`` is the Kueue minor version (18, 19, 20, …) or None when unknown; rules that
    depend on it are then reported as warnings (they might not apply). ``counter_gate`` and
    ``capacity_gate`` say whether Kueue accepts counter / capacity sources (None: unknown; by
    default, whether their gates are on by default in the default Kueue version: gates/kueue).
    """

    dialect: str = UPSTREAM
    kueue_minor: int | None = None
    counter_gate: bool | None = _default_gate("counter")
    capacity_gate: bool | None = _default_gate("capacity")
    counter_gate_hint: str = f"enable the Kueue feature gate {SOURCE_GATES['counter']}"
    capacity_gate_hint: str = f"enable the Kueue feature gate {SOURCE_GATES['capacity']}"
    #: DeviceClasses that have spec.extendedResourceName (they must not get counter sources)
    extended_resource_classes: frozenset[str] = field(default_factory=frozenset)

    @property
    def operator(self) -> bool:
        return self.dialect == OPERATOR

    def describe(self) -> str:
        who = "the Kueue operator CRD and Kueue" if self.operator else "Kueue"
        version = f" 0.{self.kueue_minor}" if self.kueue_minor is not None else ""
        return who + version


@dataclass(frozen=True)
class Violation:
    rule: Code  # the finding code, e.g. F.TooManyDeviceClasses
    where: str  # "mapping gpu.memory" / "deviceClassMappings"
    message: str
    severity: Severity = "error"  # "error": the write is refused; "warning": it may not apply
    #: the variant of the rule's fix, and what it is filled with
    variant: str = ""
    fix_args: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    def __str__(self) -> str:
        return f"{self.text} [{self.rule.name}]"

    @property
    def text(self) -> str:
        return f"{self.where}: {self.message}"

    @property
    def fix(self) -> str | None:
        return self.rule.fix_text(self.variant, **self.fix_args)

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.rule.name, self.where, self.message)

    def finding(self, severity: Severity, text: str | None = None) -> dict[str, Any]:
        """The violation as a finding of ``severity`` (map refuses a change with errors, and warns
        of what may not apply or was already so); ``text`` in place of its own."""
        return self.rule.make(text or self.text, severity=severity, variant=self.variant, **self.fix_args)


def cel_error(expression: str) -> str | None:
    """Why the DRA CEL environment does not compile ``expression`` (None: it compiles)."""
    from ...dra import cel

    try:
        cel.compile_selector(expression)
    except cel.CelCompileError as e:
        if getattr(e, "unsupported", False):
            return None  # valid for Kubernetes, only this tool cannot evaluate it
        return getattr(e, "detail", None) or str(e)
    return None


# ---- the checks -----------------------------------------------------------------------------

class _Checker:
    def __init__(self, rules: Rules):
        self.rules = rules
        self.out: list[Violation] = []

    def add(self, rule: Code, where: str, message: str, *, severity: Severity = "error", variant: str = "",
            **fix_args: Any) -> None:
        self.out.append(Violation(rule, where, message, severity, variant, fix_args))

    def version_rule(self, applies: bool | None, rule: Code, where: str, message: str, *, variant: str = "",
                     **fix_args: Any) -> None:
        """A rule that holds only for some Kueue versions/gates: an error when it applies, a
        warning when it is not known whether it does (the fix then says how to know)."""
        if applies is None:
            self.add(rule, where, message + " (if the running Kueue is affected; its version or "
                     "gates are unknown)", severity="warning", variant="version-unknown", **fix_args)
        elif applies:
            self.add(rule, where, message, variant=variant, **fix_args)


def _is18(rules: Rules) -> bool | None:
    return None if rules.kueue_minor is None else rules.kueue_minor <= 18


def _no_capacity_sources(rules: Rules) -> bool | None:
    """The Kueue version has no capacity sources (their gate does not exist in it)."""
    if rules.kueue_minor is None:
        return None
    return default_on(SOURCE_GATES["capacity"], (0, rules.kueue_minor)) is None


def _unknown_keys(entry: dict[str, Any], allowed: set[str]) -> list[str]:
    return sorted(k for k in entry if k not in allowed)


def _check_source(c: _Checker, where: str, raw: Any) -> tuple[str | None, str | None]:
    """Check one ``sources[]`` entry; returns (kind, counter name)."""
    rules = c.rules
    if not isinstance(raw, dict):
        c.add(F.InvalidSource, where, "a source must be an object")
        return None, None
    kinds = [k for k in ("counter", "capacity") if isinstance(raw.get(k), dict)]
    if rules.operator:
        if "capacity" in raw:
            c.add(F.CapacityNotSupported, where, "the Kueue operator does not support capacity "
                  "sources", variant="operator")
            return None, None
        if raw.get("type") != "Counter" or "counter" not in kinds:
            c.add(F.InvalidSource, where, "the operator accepts only sources of type Counter with "
                  "a counter (counter is required when type is Counter, and forbidden otherwise)")
    elif "type" in raw:
        c.add(F.UnknownField, where, "'type' is an OpenShift operator field; Kueue decodes its "
              "configuration strictly and would not start", variant="type")
    if len(kinds) != 1:
        c.add(F.InvalidSource, where, "exactly one source type must be set per entry")
        return None, None
    kind = kinds[0]
    body = raw[kind]
    if not rules.operator:
        extra = _unknown_keys(raw, _UPSTREAM_KEYS["source"] | {"type"}) + \
            _unknown_keys(body, _UPSTREAM_KEYS["body"])
        if extra:
            c.add(F.UnknownField, where, f"unknown field(s) {', '.join(extra)}; Kueue decodes its "
                  "configuration strictly and would not start")
    if kind == "counter":
        if rules.counter_gate is not True:
            c.version_rule(None if rules.counter_gate is None else True,
                           F.CounterSourcesDisabled, where,
                           f"{source_refusal('counter')}; Kueue would not start", how=rules.counter_gate_hint)
    else:
        if rules.operator:
            return kind, None
        c.version_rule(_no_capacity_sources(rules), F.CapacityNotSupported, where,
                       "Kueue 0.18 has no capacity sources; it would not start")
        if rules.capacity_gate is not True and _no_capacity_sources(rules) is not True:
            c.version_rule(None if rules.capacity_gate is None else True,
                           F.CapacitySourcesDisabled, where,
                           f"{source_refusal('capacity')}; Kueue would not start", how=rules.capacity_gate_hint)

    name = body.get("name")
    if not isinstance(name, str) or not name:
        c.add(F.MissingSourceName, where, f"{kind}.name is required")
        name = None
    elif kind == "counter":
        problem = dns_label_error(name)
        if problem:
            c.add(F.InvalidCounterName, where, f"counter name {name!r} {problem} (the counter key "
                  "a driver publishes in ResourceSlice consumesCounters)")
    else:
        problem = capacity_name_error(name)
        if problem:
            c.add(F.InvalidCapacityName, where, f"capacity name {name!r} {problem}")

    driver = body.get("driver")
    if not isinstance(driver, str) or not driver:
        c.add(F.MissingDriver, where, f"{kind}.driver is required")
    elif len(driver) > MAX_DRIVER:
        c.add(F.DriverTooLong, where, f"driver {driver[:20]}… has {len(driver)} characters; Kueue "
              f"and the DRA API allow at most {MAX_DRIVER} (the operator CRD accepts 253, then "
              "Kueue would not start)")
    else:
        problem = dns_subdomain_error(driver)
        if problem:
            c.add(F.InvalidDriver, where, f"driver {driver!r} {problem}")

    selector = body.get("deviceSelector")
    cel = selector.get("cel") if isinstance(selector, dict) else None
    expression = cel.get("expression") if isinstance(cel, dict) else None
    if rules.operator and isinstance(selector, dict) and selector.get("type") != "CEL":
        c.add(F.InvalidSelector, where, "deviceSelector.type must be CEL (cel is required when "
              "type is CEL, and forbidden otherwise)")
    if not rules.operator and isinstance(selector, dict):
        extra = _unknown_keys(selector, _UPSTREAM_KEYS["selector"])
        if extra:
            c.add(F.UnknownField, where, f"unknown field(s) deviceSelector.{', '.join(extra)}; "
                  "Kueue decodes its configuration strictly and would not start")
    if not isinstance(expression, str) or not expression:
        c.add(F.MissingSelector, where, f"{kind}.deviceSelector.cel.expression is required")
    else:
        if rules.operator and len(expression) > MAX_OPERATOR_EXPRESSION:
            c.add(F.SelectorTooLong, where, f"the CEL expression has {len(expression)} "
                  f"characters; the operator CRD allows {MAX_OPERATOR_EXPRESSION}")
        problem = cel_error(expression)
        if problem:
            c.add(F.SelectorDoesNotCompile, where, f"CEL compilation failed: {problem}; Kueue "
                  "compiles it at startup and would not start")
    return kind, name if kind == "counter" else None


def _check_mapping(c: _Checker, index: int, raw: Any, seen_names: set[str]) -> \
        tuple[str, list[str], str | None, list[str | None]]:
    """Check one mapping; returns (name, classes, first counter name, source kinds)."""
    rules = c.rules
    if not isinstance(raw, dict):
        c.add(F.InvalidMapping, f"deviceClassMappings[{index}]", "a mapping must be an object")
        return "", [], None, []
    name = raw.get("name")
    where = f"mapping {name}" if isinstance(name, str) and name else f"deviceClassMappings[{index}]"
    if not isinstance(name, str) or not name:
        c.add(F.MissingName, where, "name is required")
        name = ""
    else:
        problem = qualified_name_error(name)
        if len(name) > MAX_NAME:
            problem = f"must not exceed {MAX_NAME} characters"
        if problem:
            c.add(F.InvalidName, where, f"name {name!r} {problem}")
        if name in RESERVED_NAMES:
            c.add(F.ReservedName, where, f"{name!r} is reserved for Kueue's pod count; Kueue 0.20+ "
                  "does not start with a mapping of that name")
        if name in seen_names:
            c.add(F.DuplicateName, where, f"the name {name!r} is used by two mappings")
        seen_names.add(name)
    if not rules.operator:
        extra = _unknown_keys(raw, _UPSTREAM_KEYS["mapping"])
        if extra:
            c.add(F.UnknownField, where, f"unknown field(s) {', '.join(extra)}; Kueue decodes its "
                  "configuration strictly and would not start")

    classes = raw.get("deviceClassNames")
    classes = [x for x in classes if isinstance(x, str)] if isinstance(classes, list) else []
    if not classes:
        c.add(F.NoDeviceClasses, where, "at least one device class name is required")
    if len(classes) > MAX_CLASSES:
        c.add(F.TooManyDeviceClasses, where, f"{len(classes)} device classes; at most "
              f"{MAX_CLASSES} are allowed per mapping")
    for dc in classes:
        problem = qualified_name_error(dc) if len(dc) <= MAX_NAME else \
            f"must not exceed {MAX_NAME} characters"
        if problem:
            c.add(F.InvalidDeviceClassName, where, f"device class {dc!r} {problem}")
    for dc in sorted({dc for dc in classes if classes.count(dc) > 1}):
        c.add(F.DuplicateDeviceClass, where, f"device class {dc} is listed twice")

    sources = raw.get("sources")
    kinds: list[str | None] = []
    first_counter: str | None = None
    if sources is not None:
        if not isinstance(sources, list) or not sources:
            c.add(F.InvalidSources, where, "sources must be a non-empty list when present")
            sources = []
        limit = MAX_OPERATOR_SOURCES if rules.operator else None
        if limit is None and _is18(rules) is not False and len(sources) > 1:
            c.version_rule(_is18(rules), F.TooManySources, where,
                           f"{len(sources)} sources; Kueue 0.18 accepts at most 1")
        elif limit is not None and len(sources) > limit:
            c.add(F.TooManySources, where, f"{len(sources)} sources; the operator CRD allows at "
                  f"most {limit}")
        for i, source in enumerate(sources):
            kind, counter = _check_source(c, f"{where}, sources[{i}]", source)
            kinds.append(kind)
            if i == 0:
                first_counter = counter
        if "counter" in kinds and "capacity" in kinds:
            c.add(F.MixedSources, where, "cannot mix counter and capacity sources in the same "
                  "mapping")
        if "counter" in kinds:
            with_ern = sorted(set(classes) & rules.extended_resource_classes)
            if with_ern:
                c.add(F.ExtendedResourceWithCounters, where,
                      f"DeviceClass {', '.join(with_ern)} has spec.extendedResourceName: Kueue "
                      "marks pods requesting that extended resource inadmissible when the class "
                      "has counter sources", variant="map", device_class=with_ern[0])
    return name, classes, first_counter, kinds


def validate(raw: Any, rules: Rules) -> list[Violation]:
    """Every rule the list breaks, for the reader described by ``rules``."""
    c = _Checker(rules)
    if raw is None:
        return []
    if not isinstance(raw, list):
        return [Violation(F.InvalidMappings, "deviceClassMappings", "must be a list")]
    if len(raw) > MAX_MAPPINGS:
        c.add(F.TooManyMappings, "deviceClassMappings", f"{len(raw)} mappings; at most "
              f"{MAX_MAPPINGS} are allowed")
    seen_names: set[str] = set()
    # class -> (first mapping listing it, counter names of the mappings sharing it)
    owners: dict[str, tuple[str, set[str]]] = {}
    for index, entry in enumerate(raw):
        name, classes, counter, _ = _check_mapping(c, index, entry, seen_names)
        where = f"mapping {name}" if name else f"deviceClassMappings[{index}]"
        for dc in dict.fromkeys(classes):
            if dc not in owners:
                owners[dc] = (name, {counter} if counter else set())
                continue
            first, counters = owners[dc]
            if first == name:
                continue
            _shared_class(c, where, dc, first, counters, counter)
    return c.out


def _shared_class(c: _Checker, where: str, dc: str, first: str, counters: set[str],
                  counter: str | None) -> None:
    """A DeviceClass listed by a second mapping: Kueue 0.19+ allows it only when both mappings'
    first sources are counters with different names; the operator CRD and Kueue 0.18 never."""
    plain = f"device class {dc} already mapped to resource {first}"
    if c.rules.operator:
        c.add(F.DeviceClassInTwoMappings, where, f"{plain}; each DeviceClass name can only appear "
              "in one mapping", device_class=dc)
        return
    if not counter or not counters:
        c.add(F.DeviceClassInTwoMappings, where, plain, device_class=dc)
    elif counter in counters:
        c.add(F.DeviceClassInTwoMappings, where,
              f"device class {dc} already has a counter source for counter {counter!r}", variant="same-counter")
    else:
        c.version_rule(_is18(c.rules), F.DeviceClassInTwoMappings, where,
                       f"{plain}; Kueue 0.18 allows a DeviceClass in one mapping only (0.19+ "
                       "allows it with different counter names)", variant="kueue-0.18")
        counters.add(counter)


def new_violations(before: list[Violation], after: list[Violation]) -> tuple[list[Violation],
                                                                                list[Violation]]:
    """Split ``after`` into violations the change introduces and ones already there."""
    old = {v.key for v in before}
    return [v for v in after if v.key not in old], [v for v in after if v.key in old]
