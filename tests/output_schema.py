"""The documented shape of every ``-o json`` document (README, each command's "-o json prints"),
written once as JSON Schema, so a test can check any output against it."""

from __future__ import annotations

from typing import Any

from jsonschema import Draft202012Validator

_STR = {"type": "string"}
_NSTR = {"type": ["string", "null"]}
_BOOL = {"type": "boolean"}
_NBOOL = {"type": ["boolean", "null"]}
_STRS = {"type": "array", "items": _STR}

FINDING = {
    "type": "object",
    "required": ["severity", "code", "message"],
    "properties": {"severity": {"enum": ["error", "warning", "info"]}, "code": _STR, "message": _STR,
                   "fix": _NSTR},
}
FINDINGS = {"type": "array", "items": FINDING}
OBJECT_REF = {"type": ["object", "null"], "required": ["kind", "name"],
              "properties": {"kind": _STR, "name": _STR, "namespace": _NSTR}}
GATES = {"type": ["object", "null"], "additionalProperties": _NBOOL}
INSTALLATION = {
    "type": "object",
    "required": ["version", "versionFrom", "operatorVersion", "config", "effectiveConfig", "deployment", "gates"],
    "properties": {"version": _NSTR, "versionFrom": _NSTR, "operatorVersion": _NSTR, "config": OBJECT_REF,
                   "effectiveConfig": OBJECT_REF, "deployment": _NSTR, "gates": GATES},
}


def _obj(required: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"type": "object", "required": list(required), "properties": required, **extra}


#: a gated field written for an object and dropped by the API server (commands/dropped.py)
DROPPED = _obj({"kind": _STR, "name": _STR, "gate": _STR, "field": _STR, "writtenBy": _STRS,
                "values": {"type": "array"}})
CLASS = _obj({"name": _STR, "extendedResourceName": _NSTR, "quotaResource": _NSTR, "quotaSource": _NSTR,
              "mappings": {"type": ["array", "null"]},
              "matchingDevices": {"type": ["integer", "null"], "minimum": 0},
              "matchingPools": {"type": ["integer", "null"], "minimum": 0},
              "coveredBy": {"type": ["array", "null"], "items": _STR},
              "selectors": {"type": ["array", "null"], "items": _STR}, "findings": FINDINGS,
              "droppedFields": {"type": "array", "items": DROPPED}})
CLASSES = _obj({"deviceClasses": {"type": "array", "items": CLASS}, "findings": FINDINGS, "partial": _BOOL,
                "kueueConfig": OBJECT_REF, "source": _STR, "kueueInstallation": INSTALLATION})

MAPPING = _obj({"name": _STR, "deviceClassNames": _STRS, "sources": {"type": "array"},
                "deviceClasses": {"type": "array"}, "coveredBy": {"type": ["array", "null"]}})
MAP = _obj({"target": OBJECT_REF, "mappings": {"type": "array", "items": MAPPING}, "findings": FINDINGS,
            "kueueVersion": _NSTR, "partial": _BOOL, "source": _STR})

FLAVOR_TRIED = _obj({"resourceGroup": {"type": "integer"}, "flavor": _STR,
                     "outcome": {"enum": ["fit", "borrow", "preempt", "noFit", "notTried"]},
                     "reasons": {"type": "array", "items": _obj({"code": _STR, "resource": _NSTR, "message": _STR})},
                     "chosen": _BOOL, "predicted": _BOOL})
POD_SET = _obj({"name": _STR, "count": {"type": ["integer", "null"]},
                "charge": {"type": ["object", "null"], "additionalProperties": _STR},
                "lines": {"type": "array"},
                "flavors": {"type": ["object", "null"], "additionalProperties": _STR},
                "flavorsSource": {"enum": ["recorded", "predicted", None]},
                "flavorsTried": {"type": ["array", "null"], "items": FLAVOR_TRIED},
                "flavorsAgree": _NBOOL})
_NOBJ = {"type": ["object", "null"]}
ADMISSION_CHECK = _obj({"name": _STR, "state": _NSTR, "message": _NSTR, "controllerName": _NSTR, "active": _NBOOL,
                        "exists": _NBOOL, "onFlavors": _STRS})
EVICTION = {"type": ["object", "null"], "required": ["reason", "message", "since", "active", "requeued",
                                                      "requeueReason", "requeueAt", "requeueCount", "cause"],
            "properties": {"reason": _NSTR, "message": _NSTR, "active": _BOOL, "requeued": _NBOOL, "cause": _NSTR}}
TARGET = _obj({"namespace": _STR, "name": _STR, "priority": {"type": "integer"}, "clusterQueue": _NSTR,
               "reason": {"enum": ["InClusterQueue", "InCohortReclamation", "InCohortReclaimWhileBorrowing"]}})
PREEMPTION = {"type": ["object", "null"], "required": ["role"],
              "properties": {"role": {"enum": ["victim", "preemptor"]}, "possible": _NBOOL,
                             "targets": {"type": "array", "items": TARGET}, "waitingFor": {"type": "array"},
                             "why": _NSTR}}
POSITION = {"type": ["object", "null"], "required": ["source"],
            "properties": {"clusterQueue": {"type": ["integer", "null"], "minimum": 0},
                           "localQueue": {"type": ["integer", "null"], "minimum": 0},
                           "source": {"enum": ["visibility", "derived", None]}}}
EXPLAIN = _obj({"workload": {"type": ["object", "null"]}, "manifest": {"type": ["string", "null"]},
                "kueueVersion": _NSTR, "kueueVersionSource": _NSTR, "kueueGates": GATES,
                "admitted": _NBOOL, "state": {"enum": ["Finished", "Inactive", "Evicted", "Preempted", "Requeuing",
                                                       "WaitingForChecks", "QuotaReserved", "Admitted", "Pending",
                                                       "Unknown", "WhatIf"]},
                "reason": _NSTR, "eviction": EVICTION, "preemption": PREEMPTION,
                "admissionChecks": {"type": "array", "items": ADMISSION_CHECK}, "lifecycle": _NOBJ,
                "position": POSITION,
                "dra": _obj({"processed": _NBOOL, "failedStep": _NSTR, "message": _NSTR}),
                "podSets": {"type": "array", "items": POD_SET}, "queue": {"type": ["object", "null"]},
                "partial": _BOOL, "findings": FINDINGS, "kueueInstallation": INSTALLATION})

CHECK = _obj({"id": _STR, "status": {"enum": ["pass", "warn", "fail", "skip", "info"]}, "message": _STR,
              "fix": _NSTR, "category": _STR})
VERDICT = _obj({"state": {"enum": ["enforced", "partial", "not-enforced", "unknown"]}, "text": _STR,
                "enforced": {"type": ["integer", "null"]}, "total": {"type": ["integer", "null"]},
                "deviceClasses": {"type": ["array", "null"], "items": _obj(
                    {"name": _STR, "quotaResource": _NSTR, "path": _NSTR, "enforced": _NBOOL, "reason": _STR})}})
VERIFY = _obj({"verdict": VERDICT, "checks": {"type": "array", "items": CHECK}, "summary": {"type": ["object", "string"]},
               "kubernetesGates": {"type": "array", "items": _obj({"name": _STR, "state": _NSTR})},
               "kueue": _obj({"version": _NSTR, "config": {}, "gates": {}, "problems": {}}),
               "source": _STR})

_AMOUNT = _NSTR
DRA = {"type": ["object", "null"], "required": ["via", "mapping", "deviceClasses", "counters", "capacities"],
       "properties": {"via": {"enum": ["mapping", "extendedResourceName"]}, "mapping": _NSTR,
                      "deviceClasses": _STRS, "counters": {"type": "array"}, "capacities": {"type": "array"}}}
QUOTA_ROW = {"flavor": _STR, "resource": _STR, "nominalQuota": _AMOUNT, "borrowingLimit": _AMOUNT,
             "lendingLimit": _AMOUNT, "reserved": _AMOUNT, "reservedBorrowed": _AMOUNT, "admitted": _AMOUNT,
             "admittedBorrowed": _AMOUNT, "dra": DRA}
WORKLOAD_REF = {"namespace": _STR, "name": _STR, "state": _STR, "localQueue": _NSTR,
                "priority": {"type": ["integer", "null"]}, "priorityClassName": _NSTR}
_NINT = {"type": ["integer", "null"], "minimum": 0}
CLUSTER_QUEUE = _obj({
    "name": _STR, "cohort": _NSTR, "active": _NBOOL, "stopPolicy": _NSTR, "pendingWorkloads": _NINT,
    "reservingWorkloads": _NINT, "admittedWorkloads": _NINT,
    "resources": {"type": "array", "items": _obj({**QUOTA_ROW, "usedPercent": _NINT, "maximumCapacity": _AMOUNT,
                                                  "available": _AMOUNT})},
    "workloads": {"type": ["array", "null"], "items": _obj({**WORKLOAD_REF, "usage": {"type": "array", "items": _obj(
        {"flavor": _STR, "resource": _STR, "amount": _AMOUNT})}})},
    "pending": {"type": ["object", "null"], "required": ["workloads", "count", "withoutRequests", "requests"],
                "properties": {"workloads": {"type": "array", "items": _obj(
                    {**WORKLOAD_REF, "requests": {"type": ["object", "null"], "additionalProperties": _AMOUNT}})},
                    "count": _NINT, "withoutRequests": _NINT,
                    "requests": {"type": "object", "additionalProperties": _AMOUNT}}}})
COHORT = _obj({"name": _STR, "parent": _NSTR, "cohortObject": _NBOOL, "cohorts": _STRS, "clusterQueues": _STRS,
               "resources": {"type": "array", "items": _obj({**QUOTA_ROW, "subtreeQuota": _AMOUNT})}})
QUEUES = _obj({"clusterQueues": {"type": "array", "items": CLUSTER_QUEUE},
               "cohorts": {"type": "array", "items": COHORT}, "findings": FINDINGS, "partial": _BOOL,
               "source": _STR, "kueueConfig": OBJECT_REF, "kueueInstallation": INSTALLATION})

CLIENT_VERSION = _obj({"kueueDra": _STR, "python": _STR})
VERSION = {"oneOf": [
    _obj({"clientVersion": CLIENT_VERSION, "serverVersion": {"type": ["object", "null"]},
          "kueue": _obj({"version": _NSTR, "versionSource": _NSTR, "config": {}, "problem": {}}),
          "kueueInstallation": INSTALLATION, "source": _STR}),
    # the cluster or snapshot could not be read: the plugin's own version, then the error (README)
    _obj({"clientVersion": CLIENT_VERSION, "serverVersion": {"type": "null"}, "kueue": {"type": "null"}},
         additionalProperties=False),
]}

SCHEMAS: dict[str, dict[str, Any]] = {"classes": CLASSES, "map": MAP, "explain": EXPLAIN, "verify": VERIFY,
                                      "version": VERSION, "queues": QUEUES}
VALIDATORS = {name: Draft202012Validator(schema) for name, schema in SCHEMAS.items()}


def problems(command: str, document: Any) -> list[str]:
    """Each way ``document`` departs from ``command``'s documented shape, as ``path: message``."""
    return [f"/{'/'.join(map(str, e.absolute_path))}: {e.message}"
            for e in VALIDATORS[command].iter_errors(document)]
