"""The charge engine: what Kueue charges a workload's pod sets, re-derived line by line.

Follows Kueue's workload reconciler (v0.19 semantics, with the v0.18 differences from
``Semantics``), one module per path: ``templates`` (ResourceClaimTemplates and the CEL
availability check), ``extended`` (extended resources backed by a DeviceClass), ``counters``
(partitionable devices) and ``capacity`` (consumable capacity), over shared ``inputs``,
``common`` request helpers and ``matching``; ``engine`` runs them in Kueue's order and adds the
pod requests; ``results`` the typed lines; Kueue's int64 arithmetic and status formatting are
``kueue/units`` (re-exported here). ``unaccounted`` is the other side: devices allocated to pods
Kueue charges nothing for. Pure: every object comes in through ``ChargeInputs`` (``unaccounted``
reads through the view it is given); nothing here does I/O of its own.

The names below are loaded on first use: ``classes`` and ``verify`` need only ``unaccounted``,
and importing a module of this package runs this file first.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..units import INT64_MAX, format_usage, kueue_int
    from .engine import (
                          MSG_CLAIMS,
                          MSG_CLAIMS_REQUEUED,
                          MSG_DRA_DISABLED,
                          ChargeEngine,
                          has_dra,
                          needs_dra_reconcile,
    )
    from .inputs import ChargeInputs
    from .results import (
                          CapacityLine,
                          ChargeLine,
                          ChargeResult,
                          ClaimTemplateLine,
                          CounterLine,
                          ExtendedResourceLine,
                          Note,
                          PodRequestsLine,
                          PodSetCharge,
                          RequestRef,
                          Unknowable,
    )

#: where each name is defined (relative to this package)
_HOMES = {
    **dict.fromkeys(("INT64_MAX", "format_usage", "kueue_int"), "..units"),
    **dict.fromkeys(("MSG_CLAIMS", "MSG_CLAIMS_REQUEUED", "MSG_DRA_DISABLED", "ChargeEngine", "has_dra",
                     "needs_dra_reconcile"), ".engine"),
    "ChargeInputs": ".inputs",
    **dict.fromkeys(("CapacityLine", "ChargeLine", "ChargeResult", "ClaimTemplateLine", "CounterLine",
                     "ExtendedResourceLine", "Note", "PodRequestsLine", "PodSetCharge", "RequestRef",
                     "Unknowable"), ".results"),
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(home, __name__), name)
    globals()[name] = value
    return value

__all__ = [
                      "INT64_MAX",
                      "MSG_CLAIMS",
                      "MSG_CLAIMS_REQUEUED",
                      "MSG_DRA_DISABLED",
                      "CapacityLine",
                      "ChargeEngine",
                      "ChargeInputs",
                      "ChargeLine",
                      "ChargeResult",
                      "ClaimTemplateLine",
                      "CounterLine",
                      "ExtendedResourceLine",
                      "Note",
                      "PodRequestsLine",
                      "PodSetCharge",
                      "RequestRef",
                      "Unknowable",
                      "format_usage",
                      "has_dra",
                      "kueue_int",
                      "needs_dra_reconcile",
]
