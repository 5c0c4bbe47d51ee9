"""``resources.excludeResourcePrefixes`` and ``resources.transformations`` of Kueue's
Configuration, applied to a pod's requests the way ``totalRequestsFromPodSets`` does: excluded
names dropped, then each transformed input turned into its outputs (``outputs`` per unit of
input, times the amount of ``multiplyBy`` when the pod requests it), the input kept
(``Retain``, the default) or dropped (``Replace``) — all before the DRA charge is added under the
same names.

Kueue 0.19.1+ and 0.18.5+ keep the generated amounts apart until the end (summed with what the pod
requests under the same name, negative totals floored at 0, the retained input not multiplied);
earlier versions write outputs and inputs into one map, so a retained input is the multiplied one
and an output that shares a name with a requested resource overwrites it or is overwritten in
Go's map order — that case is reported as ambiguous, not guessed.

Pure: the Configuration's ``resources`` section comes in as a dict.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from ...dra.quantity import Quantity, QuantityError, parse_quantity


@dataclass(frozen=True)
class Transformation:
    input: str
    strategy: str  # Retain | Replace
    multiply_by: str | None
    outputs: dict[str, Quantity]

    @classmethod
    def parse(cls, raw: dict[str, Any]) -> Transformation:
        outputs = {str(name): parse_quantity(value) for name, value in (raw.get("outputs") or {}).items()}
        return cls(str(raw.get("input") or ""), str(raw.get("strategy") or "Retain"),
                   str(raw["multiplyBy"]) if raw.get("multiplyBy") else None, outputs)


@dataclass(frozen=True)
class ResourceRules:
    """What Kueue's configuration says about pod requests before quota."""

    exclude_prefixes: tuple[str, ...] = ()
    transformations: dict[str, Transformation] = field(default_factory=dict)
    #: why the transformations could not be read, when they could not
    problem: str | None = None

    @classmethod
    def from_config(cls, resources: dict[str, Any] | None) -> ResourceRules:
        resources = resources or {}
        prefixes = tuple(str(p) for p in resources.get("excludeResourcePrefixes") or ())
        transforms: dict[str, Transformation] = {}
        try:
            for raw in resources.get("transformations") or []:
                t = Transformation.parse(raw)
                transforms.setdefault(t.input, t)
        except (QuantityError, AttributeError, TypeError) as e:
            return cls(prefixes, {}, f"resources.transformations is not valid: {e}")
        return cls(prefixes, transforms)


@dataclass(frozen=True)
class TransformLine:
    """One transformation applied to a pod's request."""

    input: str
    amount: str  # the requested amount of the input
    strategy: str
    multiply_by: str | None
    multiplier: str | None  # the requested amount of multiplyBy, when it multiplied
    outputs: dict[str, str]  # output name -> amount per pod it generated

    def doc(self) -> dict[str, Any]:
        return {"input": self.input, "amount": self.amount, "strategy": self.strategy,
                "multiplyBy": self.multiply_by, "multiplier": self.multiplier, "outputs": dict(self.outputs)}


@dataclass
class Transformed:
    requests: dict[str, Fraction]
    lines: list[TransformLine] = field(default_factory=list)
    excluded: list[str] = field(default_factory=list)
    #: resource -> why its amount depends on Go's map order
    ambiguous: dict[str, str] = field(default_factory=dict)


def _text(value: Fraction, fmt: str) -> str:
    if value.denominator == 1:
        return str(Quantity.from_int(int(value), fmt))
    return str(float(value))


def apply_rules(requests: dict[str, Quantity], rules: ResourceRules, separate_outputs: bool) -> Transformed:
    """The pod's requests after exclusion and transformations (exact values)."""
    kept = {n: q for n, q in requests.items() if not any(n.startswith(p) for p in rules.exclude_prefixes)}
    out = Transformed({}, excluded=sorted(set(requests) - set(kept)))
    if not any(n in rules.transformations for n in kept):
        out.requests = {n: q.value for n, q in kept.items()}
        return out
    retained: dict[str, Fraction] = {}
    generated: dict[str, Fraction] = {}
    for name, q in kept.items():
        t = rules.transformations.get(name)
        if t is None:
            retained[name] = q.value
            continue
        base = q.value
        multiplier = kept.get(t.multiply_by) if t.multiply_by else None
        if multiplier is not None:
            base = base * multiplier.value
        outputs = {o: base * f.value for o, f in t.outputs.items()}
        for o, v in outputs.items():
            generated[o] = generated.get(o, Fraction(0)) + v
        if t.strategy == "Retain":
            retained[name] = q.value if separate_outputs else base
        out.lines.append(TransformLine(name, str(q), t.strategy, t.multiply_by,
                                       str(multiplier) if multiplier is not None else None,
                                       {o: _text(v, t.outputs[o].format) for o, v in outputs.items()}))
    if separate_outputs:
        for o, v in generated.items():
            retained[o] = retained.get(o, Fraction(0)) + max(Fraction(0), v)
    else:
        for o, v in generated.items():
            if o in retained:
                out.ambiguous[o] = (f"{o} is both requested and generated by a transformation; before 0.18.5 "
                                    "and 0.19.1 which one counts depends on Go's map order")
            retained[o] = v
    out.requests = retained
    return out
