"""What several charge paths read the same way: claims of a pod set, the requests of a claim
template with API defaulting, CEL selectors and their compile errors, Kueue's NotFound text, and
the per-pod-set tallies the paths add to."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from ...dra.cel import KUEUE_DRA_V036, CelCompileError, CelDialect, CelError, compile_selector
from ..fielderrors import INTERNAL, INVALID, FieldError, FieldPath
from ..units import sat_add
from ..workloads.podsets import PodSet
from .inputs import ChargeInputs
from .results import PodSetCharge, RequestRef, Stop, Unknowable


def claims(pod_spec: dict[str, Any]) -> list[dict[str, Any]]:
    return pod_spec.get("resourceClaims") or []


def not_found(kind: str, name: str) -> str:
    """The NotFound text of Kueue's informer-cache client: controller-runtime's cache reader puts
    the Kind where the API server puts the plural resource (``ResourceClaimTemplate.resource.k8s.io``,
    not ``resourceclaimtemplates.resource.k8s.io``)."""
    return f'{kind}.resource.k8s.io "{name}" not found'


def claim_path(i: int, j: int) -> FieldPath:
    return FieldPath("spec", "podSets").index(i).child("template", "spec", "resourceClaims").index(j)


def request_defaults(exactly: dict[str, Any]) -> tuple[str, int]:
    """API-server defaulting a raw manifest may lack: ExactCount, count 1."""
    mode = exactly.get("allocationMode")
    if mode is None:
        mode = "ExactCount"
    count = exactly.get("count")
    if count in (None, 0) and mode == "ExactCount":
        count = 1
    return str(mode), int(count or 0)


def cel_selectors(selectors: list[Any] | None) -> list[str]:
    return [s["cel"]["expression"] for s in selectors or []
            if isinstance(s, dict) and isinstance(s.get("cel"), dict) and "expression" in s["cel"]]


@dataclass(frozen=True)
class CelRequest:
    index: int
    count: int
    device_class: str
    selectors: list[str]


def cel_requests(spec: dict[str, Any]) -> list[CelRequest]:
    """The requests of a claim spec that have CEL selectors."""
    out = []
    for k, req in enumerate(((spec.get("devices") or {}).get("requests")) or []):
        exactly = req.get("exactly") or {}
        selectors = cel_selectors(exactly.get("selectors"))
        if selectors:
            out.append(CelRequest(k, request_defaults(exactly)[1], exactly.get("deviceClassName") or "", selectors))
    return out


def compile_errors(expressions: list[str], path: FieldPath, context: str,
                   dialect: CelDialect = KUEUE_DRA_V036) -> list[FieldError]:
    errors = []
    for i, expr in enumerate(expressions):
        try:
            compile_selector(expr, dialect)
        except CelCompileError as e:
            if e.unsupported:  # valid in Kubernetes: what Kueue makes of it is unknown, not a rejection
                raise Unknowable("cel", str(e)) from None
            errors.append(FieldError(INVALID, str(path.index(i).child("cel", "expression")),
                                     f"{context}: {e}", expr))
        except CelError as e:
            errors.append(FieldError(INVALID, str(path.index(i).child("cel", "expression")),
                                     f"{context}: {e}", expr))
    return errors


def template_spec(inputs: ChargeInputs, step: str, ps_index: int, ps: PodSet, j: int, claim: dict[str, Any],
                  message_fmt: str) -> dict[str, Any]:
    """The claim spec of the template a claim names, or Kueue's error for a missing one."""
    name = claim["resourceClaimTemplateName"]
    template = inputs.claim_templates.get(name)
    if template is None:
        inputs.require("ResourceClaimTemplate", step)
        reason = not_found("ResourceClaimTemplate", name)
        raise Stop(step, [FieldError(INTERNAL, str(claim_path(ps_index, j)),
                                     message_fmt.format(name=name, ps=ps.name, err=reason))])
    spec: dict[str, Any] = ((template.get("spec") or {}).get("spec")) or {}
    return spec


@dataclass
class Request:
    """One ``exactly`` request of a claim template, located in the Workload."""

    i: int  # pod set index
    j: int  # claim index in the pod spec
    k: int  # request index in the template
    claim: str | None
    template: str
    request: str | None
    exactly: dict[str, Any]

    @property
    def device_class(self) -> str:
        return str(self.exactly.get("deviceClassName") or "")

    @property
    def count(self) -> int:
        return request_defaults(self.exactly)[1]

    @property
    def claim_path(self) -> FieldPath:
        return claim_path(self.i, self.j)

    @property
    def path(self) -> str:
        return str(self.claim_path.child("devices", "requests").index(self.k))

    def ref(self) -> RequestRef:
        return RequestRef(self.claim, self.template, self.request, self.device_class, self.count)


def exact_requests(inputs: ChargeInputs, podsets: list[PodSet]) -> Iterator[Request]:
    """Every ``exactly`` request of every claim template, in Kueue's order, for the counter
    and capacity paths (which read the template again, with their own error text)."""
    for i, ps in enumerate(podsets):
        for j, claim in enumerate(claims(ps.spec)):
            tname = claim.get("resourceClaimTemplateName")
            if not tname:
                continue
            spec = template_spec(inputs, "claim-templates", i, ps, j, claim,
                                 "failed to get claim spec for ResourceClaimTemplate {name}: {err}")
            for k, req in enumerate(((spec.get("devices") or {}).get("requests")) or []):
                if req.get("exactly") is not None:
                    yield Request(i, j, k, claim.get("name"), tname, req.get("name"), req["exactly"])


@dataclass
class Tally:
    """What the DRA paths found for one pod set: quota amounts per pod, the extended resources
    they replaced, and (through ``charge``) the lines."""

    charge: PodSetCharge
    dra: dict[str, int] = field(default_factory=dict)
    replaced: set[str] = field(default_factory=set)

    def add(self, resource: str, amount: int) -> None:
        self.dra[resource] = sat_add(self.dra.get(resource, 0), amount)
