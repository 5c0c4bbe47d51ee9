"""Does a ResourceFlavor suit a pod set at all, before quota (``checkFlavorForPodSets``)?

For each pod set, first failure wins:

1. the ResourceFlavor does not exist: ``flavor F not found``;
2. a flavor bound to a Topology (``spec.topologyName``) serves only pod sets that request
   topology-aware scheduling: ``Flavor "F" supports only TopologyAwareScheduling``;
3. taints: the first of the flavor's ``nodeTaints`` with effect NoSchedule or NoExecute that no
   toleration of the pod (nor of the flavor's own ``spec.tolerations``) tolerates:
   ``untolerated taint {KEY VALUE EFFECT <nil>} in flavor F`` (the taint as Go prints the struct);
4. the pod's ``nodeSelector`` and required node affinity against the flavor's ``nodeLabels``,
   keeping only the keys this flavor labels (``flavorSelector``): ``flavor F doesn't match node
   affinity``. A nodeSelector entry of another key is dropped; an affinity expression of another
   key is dropped, and a term left without expressions drops the whole required affinity (terms
   are ORed). A selector Kubernetes cannot parse makes the whole pod set fail with an error.

Toleration semantics are Kubernetes' (``Toleration.ToleratesTaint`` with comparison operators on):
an empty effect matches every effect, an empty key with Exists every key, Equal (or no operator)
compares values, Exists any value, Gt/Lt compare integers.

Pure.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ...findings import codes as F
from .world import parse_time

Obj = dict[str, Any]
TAINT_EFFECTS = ("NoSchedule", "NoExecute")
_INT = re.compile(r"^[+-]?\d+$")
_CANONICAL_INT = re.compile(r"^(0|-?[1-9]\d*)$")
INT64 = 2**63

#: the codes of the reasons a flavor does not suit a pod set (``flavorsTried[].reasons[].code``)
FLAVOR_NOT_FOUND, TOPOLOGY_ONLY, UNTOLERATED_TAINT, NODE_AFFINITY, SELECTOR_ERROR = (
    F.FlavorNotFound.name, F.TopologyMismatch.name, F.UntoleratedTaint.name, F.NodeAffinityMismatch.name,
    F.SelectorError.name)


@dataclass(frozen=True)
class Mismatch:
    """Why a flavor does not suit a pod set: Kueue's reason text (None for a selector error,
    whose text this model does not reproduce)."""

    code: str
    message: str | None
    pod_set: str
    taint: Obj | None = None

    @property
    def error(self) -> bool:
        return self.code == SELECTOR_ERROR


def go_taint(taint: Obj) -> str:
    """A corev1.Taint printed with ``%s``: ``{key value effect <nil>}``, a set timeAdded as Go's
    time (Kueue runs in UTC)."""
    added = parse_time(taint.get("timeAdded"))
    when = "<nil>" if added is None else added.strftime("%Y-%m-%d %H:%M:%S +0000 UTC")
    return f"{{{taint.get('key') or ''} {taint.get('value') or ''} {taint.get('effect') or ''} {when}}}"


def _int64(text: str, canonical: bool) -> int | None:
    if not (_CANONICAL_INT if canonical else _INT).match(text):
        return None
    value = int(text)
    return value if -INT64 <= value < INT64 else None


def tolerates(toleration: Obj, taint: Obj) -> bool:
    effect, key = toleration.get("effect") or "", toleration.get("key") or ""
    if effect and effect != (taint.get("effect") or ""):
        return False
    if key and key != (taint.get("key") or ""):
        return False
    operator = toleration.get("operator") or ""
    if operator in ("", "Equal"):
        return (toleration.get("value") or "") == (taint.get("value") or "")
    if operator == "Exists":
        return True
    if operator in ("Lt", "Gt"):
        mine = _int64(str(toleration.get("value") or ""), True)
        theirs = _int64(str(taint.get("value") or ""), True)
        if mine is None or theirs is None:
            return False
        return theirs < mine if operator == "Lt" else theirs > mine
    return False


def untolerated_taint(taints: Sequence[Obj], tolerations: Sequence[Obj]) -> Obj | None:
    """``FindMatchingUntoleratedTaint`` over the NoSchedule and NoExecute taints."""
    for taint in taints:
        if not isinstance(taint, dict) or taint.get("effect") not in TAINT_EFFECTS:
            continue
        if not any(isinstance(t, dict) and tolerates(t, taint) for t in tolerations):
            return taint
    return None


class SelectorError(Exception):
    """A required node affinity Kubernetes cannot parse."""


def _requirement(expr: Obj) -> tuple[str, str, list[str]]:
    key, op, values = str(expr.get("key") or ""), expr.get("operator"), [str(v) for v in expr.get("values") or []]
    if op in ("In", "NotIn") and not values:
        raise SelectorError(f"{key}: for 'in', 'notin' operators, values set can't be empty")
    if op in ("Exists", "DoesNotExist") and values:
        raise SelectorError(f"{key}: values set must be empty for exists and does not exist")
    if op in ("Gt", "Lt"):
        if len(values) != 1 or _int64(values[0], False) is None:
            raise SelectorError(f"{key}: for 'Gt', 'Lt' operators, exactly one integer value is required")
    elif op not in ("In", "NotIn", "Exists", "DoesNotExist"):
        raise SelectorError(f"{key}: operator {op!r} is not supported")
    return key, str(op), values


def expression_matches(expr: Obj, labels: Mapping[str, str]) -> bool:
    """One ``matchExpressions`` entry against a node's labels (``labels.Requirement.Matches``)."""
    key, op, values = _requirement(expr)
    if op == "In":
        return key in labels and labels[key] in values
    if op == "NotIn":
        return key not in labels or labels[key] not in values
    if op == "Exists":
        return key in labels
    if op == "DoesNotExist":
        return key not in labels
    if key not in labels:
        return False
    have = _int64(labels[key], False)
    want = _int64(values[0], False)
    if have is None or want is None:
        return False
    return have > want if op == "Gt" else have < want


def flavor_selector(pod_spec: Obj, keys: set[str]) -> tuple[dict[str, str], list[list[Obj]] | None]:
    """``flavorSelector``: the nodeSelector and the required terms restricted to ``keys``; the
    terms are None when there is no required affinity left."""
    selector = {k: str(v) for k, v in (pod_spec.get("nodeSelector") or {}).items() if k in keys}
    affinity = ((pod_spec.get("affinity") or {}).get("nodeAffinity") or {}) \
        .get("requiredDuringSchedulingIgnoredDuringExecution")
    if not isinstance(affinity, dict):
        return selector, None
    terms: list[list[Obj]] = []
    for term in affinity.get("nodeSelectorTerms") or []:
        kept = [e for e in (term or {}).get("matchExpressions") or [] if isinstance(e, dict) and e.get("key") in keys]
        if not kept:
            return selector, None
        terms.append(kept)
    return selector, terms or None


def selector_matches(pod_spec: Obj, labels: Mapping[str, str]) -> bool:
    """The pod's node selection against a flavor's labels, as Kueue restricts it. Raises
    SelectorError when no term matches and some term cannot be parsed."""
    selector, terms = flavor_selector(pod_spec, set(labels))
    if any(labels.get(k) != v for k, v in selector.items()):
        return False
    if terms is None:
        return True
    errors = []
    for term in terms:
        try:
            if all(expression_matches(e, labels) for e in term):
                return True
        except SelectorError as e:
            errors.append(str(e))
    if errors:
        raise SelectorError("; ".join(errors))
    return False


def check_flavor(name: str, flavor: Obj | None, pod_sets: Sequence[tuple[str, Obj]]) -> Mismatch | None:
    """The first reason ``flavor`` (None: no such ResourceFlavor) does not suit the pod sets
    ``(name, pod spec)`` of one group, or None."""
    if flavor is None:
        return Mismatch(FLAVOR_NOT_FOUND, f"flavor {name} not found", pod_sets[0][0] if pod_sets else "")
    fspec = flavor.get("spec") or {}
    labels = {str(k): str(v) for k, v in (fspec.get("nodeLabels") or {}).items()}
    for ps_name, pod_spec in pod_sets:
        if fspec.get("topologyName"):
            return Mismatch(TOPOLOGY_ONLY, f'Flavor "{name}" supports only TopologyAwareScheduling', ps_name)
        tolerations = list(pod_spec.get("tolerations") or []) + list(fspec.get("tolerations") or [])
        taint = untolerated_taint(fspec.get("nodeTaints") or [], tolerations)
        if taint is not None:
            return Mismatch(UNTOLERATED_TAINT, f"untolerated taint {go_taint(taint)} in flavor {name}", ps_name, taint)
        try:
            if not selector_matches(pod_spec, labels):
                return Mismatch(NODE_AFFINITY, f"flavor {name} doesn't match node affinity", ps_name)
        except SelectorError as e:
            return Mismatch(SELECTOR_ERROR, None, ps_name, {"error": str(e)})
    return None
