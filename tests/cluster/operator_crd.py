"""An equivalent of the OpenShift Kueue operator's ``kueues.kueue.openshift.io`` CRD, generated.

The operator's module (github.com/openshift/kueue-operator) is not served by the Go module proxy,
so its CRD cannot be read from the module cache like Kueue's and openshift/api's. This builds an
equivalent from its published API (group kueue.openshift.io, version v1, cluster-scoped singleton
``cluster``; ``spec.config`` with the ``resources.deviceClassMappings`` schema and the validation
rules the operator's types declare, as documented in the operator's API reference). Fields the
plugin does not use are kept open (``x-kubernetes-preserve-unknown-fields``) rather than guessed.
"""

from __future__ import annotations

FRAMEWORKS = ["BatchJob", "RayJob", "RayCluster", "RayService", "JobSet", "MPIJob", "PaddleJob", "PyTorchJob",
              "TFJob", "TrainJob", "XGBoostJob", "JaxJob", "AppWrapper", "Pod", "Deployment", "StatefulSet",
              "LeaderWorkerSet", "SparkApplication"]

_QUALIFIED = ("must be a qualified name consisting of alphanumeric characters, hyphens, underscores, dots, "
              "with an optional DNS subdomain prefix and forward slash (e.g., '{example}')")


def _open_object(description: str = "") -> dict:
    return {"type": "object", "x-kubernetes-preserve-unknown-fields": True, "description": description}


def _string(min_len: int = 1, max_len: int = 253, rule: str | None = None, message: str | None = None) -> dict:
    s: dict = {"type": "string", "minLength": min_len, "maxLength": max_len}
    if rule:
        s["x-kubernetes-validations"] = [{"rule": rule, "message": message}]
    return s


def _qualified_name(example: str) -> dict:
    return _string(rule="!format.qualifiedName().validate(self).hasValue()",
                   message=_QUALIFIED.format(example=example))


def _device_class_mapping() -> dict:
    counter = {
        "type": "object",
        "required": ["name", "driver", "deviceSelector"],
        "properties": {
            "name": _string(max_len=63, rule="!format.dns1123Label().validate(self).hasValue()",
                            message="must be a DNS-1123 label"),
            "driver": _string(rule="!format.dns1123Subdomain().validate(self).hasValue()",
                              message="must be a DNS-1123 subdomain"),
            "deviceSelector": {
                "type": "object",
                "required": ["type"],
                "properties": {
                    "type": {"type": "string", "enum": ["CEL"]},
                    "cel": {"type": "object", "required": ["expression"],
                            "properties": {"expression": _string(max_len=1024)}},
                },
                "x-kubernetes-validations": [{
                    "rule": "has(self.type) && self.type == 'CEL' ? has(self.cel) : !has(self.cel)",
                    "message": "cel is required when type is CEL, and forbidden otherwise"}],
            },
        },
    }
    source = {
        "type": "object",
        "required": ["type"],
        "properties": {"type": {"type": "string", "enum": ["Counter"]}, "counter": counter},
        "x-kubernetes-validations": [{
            "rule": "has(self.type) && self.type == 'Counter' ? has(self.counter) : !has(self.counter)",
            "message": "counter is required when type is Counter, and forbidden otherwise"}],
    }
    return {
        "type": "object",
        "required": ["name", "deviceClassNames"],
        "properties": {
            "name": _qualified_name("nvidia.com/gpu' or 'gpu"),
            "deviceClassNames": {"type": "array", "minItems": 1, "maxItems": 8, "x-kubernetes-list-type": "set",
                                 "items": _qualified_name("gpu.nvidia.com")},
            "sources": {"type": "array", "minItems": 1, "maxItems": 1, "x-kubernetes-list-type": "map",
                        "x-kubernetes-list-map-keys": ["type"], "items": source},
        },
    }


def kueue_operator_crd() -> dict:
    mappings = {
        "type": "array", "minItems": 1, "maxItems": 16,
        "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
        "items": _device_class_mapping(),
        "x-kubernetes-validations": [{
            "rule": "self.all(m1, m1.deviceClassNames.all(d, self.all(m2, m2 == m1 || "
                    "!m2.deviceClassNames.exists(e, e == d))))",
            "message": "each DeviceClass name can only appear in one mapping"}],
    }
    config = {
        "type": "object",
        "required": ["integrations"],
        "properties": {
            "integrations": {
                "type": "object", "required": ["frameworks"],
                "properties": {
                    "frameworks": {"type": "array", "minItems": 1, "maxItems": 18, "x-kubernetes-list-type": "set",
                                   "items": {"type": "string", "enum": FRAMEWORKS}},
                    "externalFrameworks": {"type": "array", "items": _open_object()},
                    "labelKeysToCopy": {"type": "array", "items": _open_object()},
                },
            },
            "workloadManagement": {"type": "object", "required": ["labelPolicy"],
                                   "properties": {"labelPolicy": {"type": "string",
                                                                  "enum": ["", "QueueName", "None"]}}},
            "gangScheduling": _open_object(),
            "preemption": _open_object(),
            "resources": {"type": "object", "minProperties": 1,
                          "properties": {"deviceClassMappings": mappings}},
            "multiKueue": _open_object(),
            "admissionFairSharing": _open_object(),
        },
    }
    spec = {
        "type": "object",
        "required": ["config"],
        "properties": {
            "managementState": {"type": "string", "pattern": "^(Managed|Unmanaged|Force|Removed)$"},
            "logLevel": {"type": "string"},
            "operatorLogLevel": {"type": "string", "enum": ["", "Normal", "Debug", "Trace", "TraceAll"]},
            "observedConfig": _open_object(),
            "unsupportedConfigOverrides": _open_object(),
            "config": config,
        },
    }
    schema = {
        "type": "object",
        "required": ["spec"],
        "properties": {"apiVersion": {"type": "string"}, "kind": {"type": "string"},
                       "metadata": {"type": "object"}, "spec": spec, "status": _open_object()},
        "x-kubernetes-validations": [{"rule": "self.metadata.name == 'cluster'",
                                      "message": "Kueue is a singleton, .metadata.name must be 'cluster'"}],
    }
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "kueues.kueue.openshift.io"},
        "spec": {
            "group": "kueue.openshift.io",
            "names": {"kind": "Kueue", "listKind": "KueueList", "plural": "kueues", "singular": "kueue"},
            "scope": "Cluster",
            "versions": [{"name": "v1", "served": True, "storage": True, "subresources": {"status": {}},
                          "schema": {"openAPIV3Schema": schema}}],
        },
    }
