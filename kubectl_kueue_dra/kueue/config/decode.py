"""Kueue's configuration text decoded and validated as Kueue does at start, per Kueue version.

Kueue (``pkg/config`` of 0.18 and 0.19) reads ``--config`` with apimachinery's strict codec, then
checks its feature gates, then validates; any error stops it (exit 1, the pod crash-loops):

  1. YAML → JSON (``goyaml``): the first document only, YAML 1.1 scalars, duplicate keys
  2. ``apiVersion``/``kind``: empty means ``config.kueue.x-k8s.io/v1beta2`` ``Configuration``; v1beta1
     and v1beta2 are both registered (v1beta1 is converted); anything else is refused
  3. strict decoding into the Go type of that apiVersion (``schema``): every field typed,
     field names case-sensitive, an unknown field refused
  4. ``featureGates``: every name must be a gate the binary knows, a locked gate keeps its value,
     and the dependencies ``validation.go`` lists must be on
  5. validation: ``resources.deviceClassMappings`` (``mapping_rules``, the rules Kueue checks at
     start), ``resources.transformations``, ``managedJobsNamespaceSelector``

Each problem names its field path and value. ``document`` is the first document with every value
of the wrong type removed, so commands that only read it (``explain``, ``classes``, ``map``) go on.
Not modelled (Kueue checks them, this module does not): ``integrations``, ``waitForPodsReady``,
``fairSharing``, ``admissionFairSharing``, ``multiKueue``, ``internalCertManagement``, ``tls``,
``metrics.customLabels``, ``objectRetentionPolicies``, ``visibilityServer``, ``quotaCheckStrategy``.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

from ...findings import codes as F
from ...gates.kueue import KUEUE_DRA, KUEUE_NEEDS_K8S, SOURCE_GATES
from ...gates.kueue_gate_table import gate_table
from ...gates.versions import DEFAULT_KUEUE_MINOR, KUEUE_MINORS, minor_text
from ...gates.versions import kueue_minor as version_minor
from ...k8s.labels import selector_matches
from ...k8s.shape import QUANTITY
from . import mapping_rules
from .goyaml import read_first_document
from .mappings import UPSTREAM
from ..names import DEFAULT_NAMESPACE
from .schema import SCHEMAS

GROUP = "config.kueue.x-k8s.io"
KIND = "Configuration"
DEFAULT_API_VERSION = f"{GROUP}/v1beta2"
#: the minor whose types apply when the version is unknown
ASSUMED_MINOR = minor_text(DEFAULT_KUEUE_MINOR)

_DURATION = re.compile(r"^[-+]?(0|((\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h))+)$")
_INT_RANGES = {"int32": (-(1 << 31), 1 << 31), "int64": (-(1 << 63), 1 << 63)}
#: mapping_rules rules that are not Kueue 0.18/0.19 start-up checks (write-time advice)
_NOT_AT_START = {F.ReservedName, F.ExtendedResourceWithCounters, F.InvalidSources, F.UnknownField,
                 F.InvalidMapping, F.InvalidMappings}
#: ``validateFeatureGateDependency`` and the DRA dependencies of ``LoadAndValidateFeatureGates``
_DEPENDENCIES: dict[str, tuple[str, ...]] = {
    "TASFailedNodeReplacement": ("TopologyAwareScheduling",),
    "TASFailedNodeReplacementFailFast": ("TopologyAwareScheduling", "TASFailedNodeReplacement"),
    "TASReplaceNodeOnPodTermination": ("TopologyAwareScheduling", "TASFailedNodeReplacement"),
    "TASReplaceNodeDueToNotReadyOverFixedTime": ("TopologyAwareScheduling", "TASFailedNodeReplacement"),
    "TASBalancedPlacement": ("TopologyAwareScheduling",),
    "TASReplaceNodeOnNodeTaints": ("TopologyAwareScheduling",),
    "TASMultiLayerTopology": ("TopologyAwareScheduling",),
    "TASRespectNodeAffinityPreferred": ("TopologyAwareScheduling",),
    "TASRecomputeAssignmentWithinSchedulingCycle": ("TopologyAwareScheduling",),
    "TASHandleOverlappingFlavors": ("TopologyAwareScheduling",),
    "UnadmittedWorkloadsExplicitStatus": ("UnadmittedWorkloadsObservability",),
    "ElasticJobsViaWorkloadSlicesWithTAS": ("ElasticJobsViaWorkloadSlices", "TopologyAwareScheduling"),
    # each DRA sub-gate needs KueueDRAIntegration (gates/kueue)
    **dict.fromkeys(KUEUE_NEEDS_K8S, (KUEUE_DRA,)),
}


@dataclass(frozen=True)
class ConfigProblem:
    """One reason Kueue refuses to start with the configuration."""

    path: str  # the field path in the Configuration ("" for the whole text)
    message: str
    stage: str  # "yaml" | "decode" | "feature-gates" | "validation"

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message


@dataclass
class DecodedConfig:
    document: dict[str, Any]  # the first document, values of the wrong type removed
    problems: list[ConfigProblem] = field(default_factory=list)
    removed: list[tuple[str, str, str]] = field(default_factory=list)  # (path, expected, value)
    documents: int = 1
    api_version: str | None = None
    minor: str = ASSUMED_MINOR  # the Kueue minor ("0.19") whose types and rules were applied
    minor_assumed: bool = False

    @property
    def refused(self) -> bool:
        """Kueue does not start with this text."""
        return bool(self.problems)

    def summary(self, limit: int = 3) -> str:
        shown = "; ".join(str(p) for p in self.problems[:limit])
        more = f" (and {len(self.problems) - limit} more)" if len(self.problems) > limit else ""
        return shown + more


def kueue_minor(version: str | None) -> tuple[str, bool]:
    """The minor whose types apply to a Kueue version, and whether it was assumed (an older
    version: the first known minor's; a newer or unknown one: the default's)."""
    minor = version_minor(version)
    if minor in KUEUE_MINORS:
        return minor_text(minor), False
    if minor is not None and minor < KUEUE_MINORS[0]:
        return minor_text(KUEUE_MINORS[0]), True
    return ASSUMED_MINOR, True


def show(value: Any) -> str:
    """A value as the problem text shows it (Go's %q for strings, JSON-ish otherwise)."""
    if isinstance(value, str):
        text = '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    elif isinstance(value, bool) or value is None:
        text = {True: "true", False: "false", None: "null"}[value]
    elif isinstance(value, dict):
        text = "an object"
    elif isinstance(value, list):
        text = "a list"
    else:
        text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


_EXPECTED = {"string": "a string", "bool": "true or false", "int32": "an integer", "int64": "an integer",
             "float": "a number", "duration": "a duration such as 30s or 5m",
             "quantity": "a Kubernetes quantity"}


def _expected(kind: Any) -> str:
    if isinstance(kind, list):
        return "a list"
    if isinstance(kind, dict):
        return "a map" if "$map" in kind else "an object"
    return _EXPECTED[kind]


def _scalar_ok(value: Any, kind: str) -> tuple[bool, Any]:
    """Whether ``value`` decodes into a Go field of ``kind``, and the value Kueue then holds."""
    if kind == "string":
        return isinstance(value, str), value
    if kind == "bool":
        return isinstance(value, bool), value
    if kind in _INT_RANGES:
        if isinstance(value, float) and value.is_integer() and abs(value) < 1e21:
            value = int(value)
        low, high = _INT_RANGES[kind]
        return isinstance(value, int) and not isinstance(value, bool) and low <= value < high, value
    if kind == "float":
        return isinstance(value, (int, float)) and not isinstance(value, bool), value
    if kind == "duration":
        return isinstance(value, str) and _DURATION.match(value) is not None, value
    if kind == "quantity":
        if isinstance(value, bool):
            return False, value
        if isinstance(value, (int, float)):
            return True, value
        return isinstance(value, str) and QUANTITY.match(value) is not None, value
    raise ValueError(f"unknown schema type {kind!r}")


class _Decoder:
    def __init__(self) -> None:
        self.problems: list[ConfigProblem] = []
        self.removed: list[tuple[str, str, str]] = []

    def wrong(self, path: str, value: Any, kind: Any) -> None:
        expected = _expected(kind)
        self.problems.append(ConfigProblem(path, f"is {show(value)}, not {expected}", "decode"))
        self.removed.append((path, expected, show(value)))

    def value(self, value: Any, kind: Any, path: str) -> tuple[bool, Any]:
        if value is None:  # JSON null leaves the Go field at its zero value
            return True, None
        if isinstance(kind, list):
            if not isinstance(value, list):
                self.wrong(path, value, kind)
                return False, None
            out = []
            for i, item in enumerate(value):
                ok, got = self.value(item, kind[0], f"{path}[{i}]")
                if ok:
                    out.append(got)
            return True, out
        if isinstance(kind, dict):
            if not isinstance(value, dict):
                self.wrong(path, value, kind)
                return False, None
            if "$map" in kind:
                kept: dict[str, Any] = {}
                for key, item in value.items():
                    ok, got = self.value(item, kind["$map"], f"{path}[{key}]")
                    if ok:
                        kept[key] = got
                return True, kept
            return True, self.struct(value, kind, path)
        ok, got = _scalar_ok(value, kind)
        if not ok:
            self.wrong(path, value, kind)
        return ok, got

    def struct(self, value: dict[str, Any], kind: dict[str, Any], path: str) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, item in value.items():
            child = f"{path}.{key}" if path else key
            if key not in kind:
                self.problems.append(ConfigProblem(child, "unknown field (Kueue decodes its configuration "
                                                          "strictly)", "decode"))
                continue
            ok, got = self.value(item, kind[key], child)
            if ok and got is not None:
                out[key] = got
        return out


def _api_version(document: dict[str, Any], minor: str) -> tuple[str | None, ConfigProblem | None]:
    """The schema version the text names, as apimachinery's codec resolves it."""
    raw_version, raw_kind = document.get("apiVersion"), document.get("kind")
    for name, raw in (("apiVersion", raw_version), ("kind", raw_kind)):
        if raw is not None and not isinstance(raw, str):
            return None, ConfigProblem(name, f"is {show(raw)}, not a string", "decode")
    api_version = raw_version or DEFAULT_API_VERSION
    kind = raw_kind or KIND
    group, _, version = api_version.rpartition("/")
    if api_version.count("/") > 1:
        return None, ConfigProblem("apiVersion", f"{show(api_version)} is not GROUP/VERSION", "decode")
    if not group and not raw_version:
        group = GROUP
    if group != GROUP or version not in SCHEMAS[minor] or kind != KIND:
        known = ", ".join(f"{GROUP}/{v}" for v in sorted(SCHEMAS[minor]))
        return None, ConfigProblem("apiVersion" if kind == KIND else "kind",
                                   f"no kind {kind!r} is registered for version {api_version!r} in Kueue "
                                   f"{minor} (it reads {KIND} of {known})", "decode")
    return version, None


def decode_text(text: str, kueue_version: str | None = None) -> DecodedConfig:
    """Decode and validate Kueue's configuration text as the Kueue of ``kueue_version`` does."""
    minor, assumed = kueue_minor(kueue_version)
    read = read_first_document(text)
    out = DecodedConfig({}, documents=read.documents, minor=minor, minor_assumed=assumed)
    if read.error:
        out.problems.append(ConfigProblem("", f"malformed YAML: {read.error}", "yaml"))
        return out
    for path, key in read.duplicates:
        out.problems.append(ConfigProblem(f"{path}.{key}" if path else key, "is written twice (Kueue's "
                                          "strict decoder refuses duplicate keys)", "decode"))
    for path, key in read.bad_keys:
        out.problems.append(ConfigProblem(path, f"has the key {key}, which JSON cannot hold", "decode"))
    document = read.value
    if document is None:
        document = {}
    if not isinstance(document, dict):
        out.problems.append(ConfigProblem("", f"the first document is {show(document)}, not a "
                                              f"{KIND} object", "decode"))
        return out
    version, problem = _api_version(document, minor)
    if problem:
        out.problems.append(problem)
        return out
    assert version is not None
    out.api_version = f"{GROUP}/{version}"
    if any(isinstance(v, float) and not math.isfinite(v) for v in _leaves(document)):
        out.problems.append(ConfigProblem("", "holds .inf or .nan, which JSON cannot hold", "decode"))
    decoder = _Decoder()
    out.document = decoder.struct(document, SCHEMAS[minor][version], "")
    out.problems += decoder.problems
    out.removed = decoder.removed
    if out.problems:
        return out  # Kueue stops at the decode error; it validates nothing
    gate_problems, gates = _feature_gates(out.document.get("featureGates") or {}, minor)
    out.problems += gate_problems
    if gate_problems:
        return out
    out.problems += _validate(out.document, gates, minor)
    return out


def _leaves(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [leaf for v in value.values() for leaf in _leaves(v)]
    if isinstance(value, list):
        return [leaf for v in value for leaf in _leaves(v)]
    return [value]


def _feature_gates(settings: dict[str, bool], minor: str) -> tuple[list[ConfigProblem], dict[str, bool]]:
    """component-base's ``SetFromMap`` (unknown and locked gates), then the dependencies."""
    table = gate_table(minor)
    problems = []
    for name, value in settings.items():
        if name in ("AllAlpha", "AllBeta"):
            continue
        if name not in table:
            problems.append(ConfigProblem(f"featureGates[{name}]", f"unrecognized feature gate: {name} "
                                          f"(Kueue {minor} does not know it)", "feature-gates"))
        elif table[name].locked and value != table[name].default:
            problems.append(ConfigProblem(f"featureGates[{name}]", f"cannot set feature gate {name} to "
                                          f"{str(value).lower()}, feature is locked to "
                                          f"{str(table[name].default).lower()}", "feature-gates"))
    if problems:
        return problems, {}
    bulk = {stage: settings[key] for key, stage in (("AllAlpha", "ALPHA"), ("AllBeta", "BETA")) if key in settings}
    gates = {}
    for name, spec in table.items():
        if name in settings:
            gates[name] = settings[name]
        elif spec.stage in bulk and not spec.locked:
            gates[name] = bulk[spec.stage]
        else:
            gates[name] = spec.default
    for gate, needs in _DEPENDENCIES.items():
        if gates.get(gate):
            for dep in needs:
                if dep in gates and not gates[dep]:
                    problems.append(ConfigProblem("featureGates", f"{gate} requires {dep} to be enabled",
                                                  "feature-gates"))
    return problems, gates


def _validate(document: dict[str, Any], gates: dict[str, bool], minor: str) -> list[ConfigProblem]:
    problems: list[ConfigProblem] = []
    resources = document.get("resources") or {}
    mappings = resources.get("deviceClassMappings")
    if mappings:
        rules = mapping_rules.Rules(dialect=UPSTREAM, kueue_minor=int(minor.split(".")[1]),
                                    counter_gate=gates.get(SOURCE_GATES["counter"], False),
                                    capacity_gate=gates.get(SOURCE_GATES["capacity"], False))
        for v in mapping_rules.validate(mappings, rules):
            if v.severity == "error" and v.rule not in _NOT_AT_START:
                problems.append(ConfigProblem(f"resources.deviceClassMappings ({v.where})", v.message,
                                              "validation"))
    seen: set[str] = set()
    for i, t in enumerate(resources.get("transformations") or []):
        path = f"resources.transformations[{i}]"
        strategy = t.get("strategy") or "Retain"
        if strategy not in ("Retain", "Replace"):
            problems.append(ConfigProblem(f"{path}.strategy", f"Unsupported value: {show(strategy)}: supported "
                                          'values: "Retain", "Replace"', "validation"))
        if t.get("input", "") in seen:
            problems.append(ConfigProblem(f"{path}.input", f"Duplicate value: {show(t.get('input', ''))}",
                                          "validation"))
        seen.add(t.get("input", ""))
    problems += _namespace_selector(document)
    return problems


def _namespace_selector(document: dict[str, Any]) -> list[ConfigProblem]:
    """``managedJobsNamespaceSelector`` must exempt kube-system and Kueue's own namespace."""
    namespace = document.get("namespace") or DEFAULT_NAMESPACE
    selector = document.get("managedJobsNamespaceSelector")
    if selector is None:
        return []  # Kueue's default excludes both
    path = "managedJobsNamespaceSelector"
    problems = []
    for i, expr in enumerate(selector.get("matchExpressions") or []):
        op = expr.get("operator")
        values = expr.get("values") or []
        if op in ("In", "NotIn") and not values:
            problems.append(ConfigProblem(f"{path}.matchExpressions[{i}].values", "Required value: must be "
                                          "specified when `operator` is 'In' or 'NotIn'", "validation"))
        elif op in ("Exists", "DoesNotExist") and values:
            problems.append(ConfigProblem(f"{path}.matchExpressions[{i}].values", "Forbidden: may not be "
                                          "specified when `operator` is 'Exists' or 'DoesNotExist'", "validation"))
        elif op not in ("In", "NotIn", "Exists", "DoesNotExist"):
            problems.append(ConfigProblem(f"{path}.matchExpressions[{i}].operator",
                                          f"Invalid value: {show(op)}: not a valid selector operator",
                                          "validation"))
    if problems:
        return problems
    for ns in dict.fromkeys(("kube-system", namespace)):
        if selector_matches(selector, {"kubernetes.io/metadata.name": ns}):
            problems.append(ConfigProblem(path, f"should not match the {show(ns)} namespace", "validation"))
    return problems
