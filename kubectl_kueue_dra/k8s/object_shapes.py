"""The fields the plugin reads, per kind, with the type each must have (see ``shape``)."""

from __future__ import annotations

from typing import Any

from .shape import ANY, BOOL, INT, QTY, STR, MapOf

QUANTITIES = MapOf(QTY)
LABELS = MapOf(STR)
SELECTOR = {"matchLabels": LABELS, "matchExpressions": [{"key": STR, "operator": STR, "values": [STR]}]}
RESOURCES = {"requests": QUANTITIES, "limits": QUANTITIES, "claims": [{"name": STR, "request": STR}]}
CONTAINER = {"name": STR, "image": STR, "args": [STR], "command": [STR], "resources": RESOURCES}
POD_SPEC = {
    "containers": [CONTAINER], "initContainers": [CONTAINER], "overhead": QUANTITIES,
    "resourceClaims": [{"name": STR, "resourceClaimName": STR, "resourceClaimTemplateName": STR}],
    "runtimeClassName": STR, "nodeSelector": LABELS, "nodeName": STR, "resources": RESOURCES,
    "tolerations": [{"key": STR, "operator": STR, "value": STR, "effect": STR}], "priorityClassName": STR,
    "volumes": [{"name": STR, "configMap": {"name": STR}}],
}
POD_TEMPLATE = {"metadata": {"labels": LABELS, "annotations": LABELS}, "spec": POD_SPEC}
CONDITIONS = [{"type": STR, "status": STR, "reason": STR, "message": STR}]
CEL_SELECTORS = [{"cel": {"expression": STR}}]
DEVICE_REQUEST = {
    "name": STR, "deviceClassName": STR, "allocationMode": STR, "count": INT, "adminAccess": BOOL,
    "selectors": CEL_SELECTORS, "capacity": {"requests": QUANTITIES},
}
EXACTLY = {**DEVICE_REQUEST, "name": STR}
CLAIM_SPEC = {"devices": {"requests": [{"name": STR, "exactly": EXACTLY, "firstAvailable": [DEVICE_REQUEST],
                                        **{k: v for k, v in DEVICE_REQUEST.items() if k != "name"}}]}}
COUNTERS = MapOf({"value": QTY})
DEVICE = {
    "name": STR, "attributes": MapOf(ANY), "capacity": MapOf({"value": QTY, "requestPolicy": ANY}),
    "consumesCounters": [{"counterSet": STR, "counters": COUNTERS}], "allowMultipleAllocations": BOOL,
    "nodeName": STR, "allNodes": BOOL,
}
QUOTA_RESOURCE = {"name": STR, "nominalQuota": QTY, "borrowingLimit": QTY, "lendingLimit": QTY}
RESOURCE_GROUPS = [{"coveredResources": [STR], "flavors": [{"name": STR, "resources": [QUOTA_RESOURCE]}]}]
USAGE = [{"name": STR, "resources": [{"name": STR, "total": QTY, "borrowed": QTY}]}]
POD_SET = {"name": STR, "count": INT, "minCount": INT, "template": POD_TEMPLATE}
MAPPINGS = [{
    "name": STR, "deviceClassNames": [STR],
    "sources": [{"type": STR,
                 "counter": {"name": STR, "driver": STR, "deviceSelector": {"type": STR, "cel": {"expression": STR}}},
                 "capacity": {"name": STR, "driver": STR,
                              "deviceSelector": {"type": STR, "cel": {"expression": STR}}}}],
}]
#: the OpenShift Kueue CR's ``spec.config`` (the ConfigMap text is decoded by ``kueue/config/decode``)
CONFIGURATION = {
    "namespace": STR, "featureGates": MapOf(BOOL), "managedJobsNamespaceSelector": SELECTOR,
    "manageJobsWithoutQueueName": BOOL,
    "integrations": {"frameworks": [ANY]},
    "resources": {"deviceClassMappings": MAPPINGS, "excludeResourcePrefixes": [STR],
                  "transformations": [{"input": STR, "strategy": STR, "outputs": QUANTITIES, "multiplyBy": ANY}]},
}

#: what every object has (for kinds with no shape of their own)
GENERIC: dict[str, Any] = {"spec": {}, "status": {}}

SHAPES: dict[str, Any] = {
    "DeviceClass": {"spec": {"selectors": CEL_SELECTORS, "extendedResourceName": STR}},
    "ResourceSlice": {"spec": {"driver": STR, "nodeName": STR, "allNodes": BOOL,
                               "pool": {"name": STR, "generation": INT, "resourceSliceCount": INT},
                               "devices": [DEVICE],
                               "sharedCounters": [{"name": STR, "counters": COUNTERS}]}},
    "ResourceClaimTemplate": {"spec": {"spec": CLAIM_SPEC}},
    "ResourceClaim": {"spec": CLAIM_SPEC, "status": {"allocation": {"devices": {"results": [
        {"request": STR, "driver": STR, "pool": STR, "device": STR}]}},
        "reservedFor": [{"resource": STR, "name": STR, "uid": STR}]}},
    "ClusterQueue": {"spec": {"cohort": STR, "cohortName": STR, "namespaceSelector": SELECTOR,
                              "resourceGroups": RESOURCE_GROUPS, "stopPolicy": STR, "queueingStrategy": STR,
                              "preemption": {"withinClusterQueue": STR, "reclaimWithinCohort": STR,
                                             "borrowWithinCohort": {"policy": STR, "maxPriorityThreshold": INT}},
                              "flavorFungibility": {"whenCanBorrow": STR, "whenCanPreempt": STR, "preference": STR}},
                     "status": {"flavorsReservation": USAGE, "flavorsUsage": USAGE, "conditions": CONDITIONS,
                                "pendingWorkloads": INT, "reservingWorkloads": INT, "admittedWorkloads": INT}},
    "Cohort": {"spec": {"parent": STR, "parentName": STR, "resourceGroups": RESOURCE_GROUPS}},
    "LocalQueue": {"spec": {"clusterQueue": STR, "stopPolicy": STR}},
    "ResourceFlavor": {"spec": {"nodeLabels": LABELS, "topologyName": STR,
                                "nodeTaints": [{"key": STR, "value": STR, "effect": STR, "timeAdded": STR}],
                                "tolerations": [{"key": STR, "operator": STR, "value": STR, "effect": STR}]}},
    "Workload": {"spec": {"queueName": STR, "podSets": [POD_SET], "priority": INT, "priorityClassName": STR,
                          "priorityClassRef": {"kind": STR, "name": STR}, "active": BOOL},
                 "status": {"conditions": CONDITIONS,
                            "admission": {"clusterQueue": STR, "podSetAssignments": [
                                {"name": STR, "count": INT, "resourceUsage": QUANTITIES, "flavors": LABELS}]},
                            "resourceRequests": [{"name": STR, "resources": QUANTITIES}]}},
    "Kueue": {"spec": {"config": CONFIGURATION}, "status": {"conditions": CONDITIONS}},
    "FeatureGate": {"spec": {"featureSet": STR, "customNoUpgrade": {"enabled": [STR], "disabled": [STR]}},
                    "status": {"featureGates": [{"version": STR, "enabled": [{"name": STR}],
                                                 "disabled": [{"name": STR}]}]}},
    "ClusterVersion": {"status": {"desired": {"version": STR}, "history": [{"version": STR}]}},
    "ConfigMap": {"data": MapOf(STR)},
    "Pod": {"spec": POD_SPEC, "status": {"phase": STR, "conditions": CONDITIONS,
                                         "resourceClaimStatuses": [{"name": STR, "resourceClaimName": STR}],
                                         "extendedResourceClaimStatus": {"resourceClaimName": STR}}},
    "Event": {"involvedObject": {"kind": STR, "name": STR, "uid": STR}, "type": STR, "reason": STR,
              "message": STR, "count": INT, "lastTimestamp": STR, "firstTimestamp": STR, "eventTime": STR,
              "series": {"count": INT, "lastObservedTime": STR}},
    "Deployment": {"spec": {"replicas": INT, "selector": SELECTOR, "template": POD_TEMPLATE}},
    "Job": {"spec": {"parallelism": INT, "completions": INT, "suspend": BOOL, "template": POD_TEMPLATE}},
    "LimitRange": {"spec": {"limits": [{"type": STR, "default": QUANTITIES, "defaultRequest": QUANTITIES,
                                        "max": QUANTITIES, "min": QUANTITIES}]}},
    "RuntimeClass": {"handler": STR, "overhead": {"podFixed": QUANTITIES}},
    "Namespace": {"spec": {}, "status": {"phase": STR}},
    "ClusterServiceVersion": {"spec": {"version": STR, "relatedImages": [{"name": STR, "image": STR}]},
                              "status": {"phase": STR}},
    "MutatingWebhookConfiguration": {"webhooks": [{"name": STR, "clientConfig": {
        "service": {"name": STR, "namespace": STR}}, "namespaceSelector": SELECTOR}]},
}
