"""The Go types Kueue decodes its configuration text into, per Kueue minor and apiVersion.

Read from the ``Configuration`` types of ``sigs.k8s.io/kueue`` v0.18.4 and v0.19.2
(``apis/config/v1beta1`` and ``v1beta2``, with the component-base and apimachinery types they
embed) by reflection over their JSON field names. Each leaf is a path: ``.`` a struct field,
``[]`` a slice's items, ``{}`` a map's values (string keys); its type is ``string``, ``bool``,
``int32``, ``int64`` (``time.Duration`` fields are int64 nanoseconds), ``float``, ``duration``
(``metav1.Duration``: a Go duration string) or ``quantity`` (``resource.Quantity``).
``SCHEMAS[minor][apiVersion]`` is the tree ``decode`` checks a text against: a ``dict`` is a
struct, ``[t]`` a slice, ``{"$map": t}`` a map.
"""

from __future__ import annotations

import re
from typing import Any

from ...gates.versions import KUEUE_MINORS, minor_text

#: every leaf the four types share
_COMMON: dict[str, str] = {
    'admissionFairSharing.resourceWeights{}': 'float',
    'admissionFairSharing.usageHalfLifeTime': 'duration',
    'admissionFairSharing.usageSamplingInterval': 'duration',
    'apiVersion': 'string',
    'clientConnection.burst': 'int32',
    'clientConnection.qps': 'float',
    'controller.cacheSyncTimeout': 'int64',
    'controller.groupKindConcurrency{}': 'int64',
    'fairSharing.preemptionStrategies[]': 'string',
    'featureGates{}': 'bool',
    'health.healthProbeBindAddress': 'string',
    'health.livenessEndpointName': 'string',
    'health.readinessEndpointName': 'string',
    'integrations.externalFrameworks[]': 'string',
    'integrations.frameworks[]': 'string',
    'integrations.labelKeysToCopy[]': 'string',
    'internalCertManagement.enable': 'bool',
    'internalCertManagement.webhookSecretName': 'string',
    'internalCertManagement.webhookServiceName': 'string',
    'kind': 'string',
    'leaderElection.leaderElect': 'bool',
    'leaderElection.leaseDuration': 'duration',
    'leaderElection.renewDeadline': 'duration',
    'leaderElection.resourceLock': 'string',
    'leaderElection.resourceName': 'string',
    'leaderElection.resourceNamespace': 'string',
    'leaderElection.retryPeriod': 'duration',
    'manageJobsWithoutQueueName': 'bool',
    'managedJobsNamespaceSelector.matchExpressions[].key': 'string',
    'managedJobsNamespaceSelector.matchExpressions[].operator': 'string',
    'managedJobsNamespaceSelector.matchExpressions[].values[]': 'string',
    'managedJobsNamespaceSelector.matchLabels{}': 'string',
    'metrics.bindAddress': 'string',
    'metrics.customLabels[].name': 'string',
    'metrics.customLabels[].sourceAnnotationKey': 'string',
    'metrics.customLabels[].sourceLabelKey': 'string',
    'metrics.enableClusterQueueResources': 'bool',
    'metrics.localQueueMetrics.enable': 'bool',
    'metrics.localQueueMetrics.localQueueSelector.matchExpressions[].key': 'string',
    'metrics.localQueueMetrics.localQueueSelector.matchExpressions[].operator': 'string',
    'metrics.localQueueMetrics.localQueueSelector.matchExpressions[].values[]': 'string',
    'metrics.localQueueMetrics.localQueueSelector.matchLabels{}': 'string',
    'multiKueue.dispatcherName': 'string',
    'multiKueue.externalFrameworks[].name': 'string',
    'multiKueue.gcInterval': 'duration',
    'multiKueue.origin': 'string',
    'multiKueue.workerLostTimeout': 'duration',
    'namespace': 'string',
    'objectRetentionPolicies.workloads.afterDeactivatedByKueue': 'duration',
    'objectRetentionPolicies.workloads.afterFinished': 'duration',
    'pprofBindAddress': 'string',
    'resources.deviceClassMappings[].deviceClassNames[]': 'string',
    'resources.deviceClassMappings[].name': 'string',
    'resources.excludeResourcePrefixes[]': 'string',
    'resources.transformations[].input': 'string',
    'resources.transformations[].multiplyBy': 'string',
    'resources.transformations[].outputs{}': 'quantity',
    'resources.transformations[].strategy': 'string',
    'tls.cipherSuites[]': 'string',
    'tls.minVersion': 'string',
    'waitForPodsReady.blockAdmission': 'bool',
    'waitForPodsReady.recoveryTimeout': 'duration',
    'waitForPodsReady.requeuingStrategy.backoffBaseSeconds': 'int32',
    'waitForPodsReady.requeuingStrategy.backoffLimitCount': 'int32',
    'waitForPodsReady.requeuingStrategy.backoffMaxSeconds': 'int32',
    'waitForPodsReady.requeuingStrategy.timestamp': 'string',
    'waitForPodsReady.timeout': 'duration',
    'webhook.certDir': 'string',
    'webhook.host': 'string',
    'webhook.port': 'int64',
}

#: leaves only some of them have: (type, the minor/apiVersion types that have it)
_ONLY: dict[str, tuple[str, tuple[str, ...]]] = {
    'fairSharing.enable': ('bool', ('0.18/v1beta1', '0.19/v1beta1')),
    'integrations.podOptions.namespaceSelector.matchExpressions[].key': ('string', ('0.18/v1beta1', '0.19/v1beta1')),
    'integrations.podOptions.namespaceSelector.matchExpressions[].operator':
        ('string', ('0.18/v1beta1', '0.19/v1beta1')),
    'integrations.podOptions.namespaceSelector.matchExpressions[].values[]':
        ('string', ('0.18/v1beta1', '0.19/v1beta1')),
    'integrations.podOptions.namespaceSelector.matchLabels{}': ('string', ('0.18/v1beta1', '0.19/v1beta1')),
    'integrations.podOptions.podSelector.matchExpressions[].key': ('string', ('0.18/v1beta1', '0.19/v1beta1')),
    'integrations.podOptions.podSelector.matchExpressions[].operator': ('string', ('0.18/v1beta1', '0.19/v1beta1')),
    'integrations.podOptions.podSelector.matchExpressions[].values[]': ('string', ('0.18/v1beta1', '0.19/v1beta1')),
    'integrations.podOptions.podSelector.matchLabels{}': ('string', ('0.18/v1beta1', '0.19/v1beta1')),
    'metrics.customLabels[].sourceKind': ('string', ('0.19/v1beta2',)),
    'metrics.customLabels[].trackedValues[]': ('string', ('0.19/v1beta2',)),
    'multiKueue.clusterProfile.accessProviders[].execConfig.apiVersion': ('string', ('0.19/v1beta2',)),
    'multiKueue.clusterProfile.accessProviders[].execConfig.args[]': ('string', ('0.19/v1beta2',)),
    'multiKueue.clusterProfile.accessProviders[].execConfig.command': ('string', ('0.19/v1beta2',)),
    'multiKueue.clusterProfile.accessProviders[].execConfig.env[].name': ('string', ('0.19/v1beta2',)),
    'multiKueue.clusterProfile.accessProviders[].execConfig.env[].value': ('string', ('0.19/v1beta2',)),
    'multiKueue.clusterProfile.accessProviders[].execConfig.installHint': ('string', ('0.19/v1beta2',)),
    'multiKueue.clusterProfile.accessProviders[].execConfig.interactiveMode': ('string', ('0.19/v1beta2',)),
    'multiKueue.clusterProfile.accessProviders[].execConfig.provideClusterInfo': ('bool', ('0.19/v1beta2',)),
    'multiKueue.clusterProfile.accessProviders[].name': ('string', ('0.19/v1beta2',)),
    'multiKueue.clusterProfile.credentialsProviders[].execConfig.apiVersion':
        ('string', ('0.18/v1beta2', '0.19/v1beta2')),
    'multiKueue.clusterProfile.credentialsProviders[].execConfig.args[]':
        ('string', ('0.18/v1beta2', '0.19/v1beta2')),
    'multiKueue.clusterProfile.credentialsProviders[].execConfig.command':
        ('string', ('0.18/v1beta2', '0.19/v1beta2')),
    'multiKueue.clusterProfile.credentialsProviders[].execConfig.env[].name':
        ('string', ('0.18/v1beta2', '0.19/v1beta2')),
    'multiKueue.clusterProfile.credentialsProviders[].execConfig.env[].value':
        ('string', ('0.18/v1beta2', '0.19/v1beta2')),
    'multiKueue.clusterProfile.credentialsProviders[].execConfig.installHint':
        ('string', ('0.18/v1beta2', '0.19/v1beta2')),
    'multiKueue.clusterProfile.credentialsProviders[].execConfig.interactiveMode':
        ('string', ('0.18/v1beta2', '0.19/v1beta2')),
    'multiKueue.clusterProfile.credentialsProviders[].execConfig.provideClusterInfo':
        ('bool', ('0.18/v1beta2', '0.19/v1beta2')),
    'multiKueue.clusterProfile.credentialsProviders[].name': ('string', ('0.18/v1beta2', '0.19/v1beta2')),
    'multiKueue.incrementalDispatcherConfig.stepSize': ('int32', ('0.19/v1beta2',)),
    'queueVisibility.clusterQueues.maxCount': ('int32', ('0.18/v1beta1', '0.19/v1beta1')),
    'queueVisibility.updateIntervalSeconds': ('int32', ('0.18/v1beta1', '0.19/v1beta1')),
    'resources.deviceClassMappings[].sources[].capacity.deviceSelector.cel.expression': ('string', ('0.19/v1beta2',)),
    'resources.deviceClassMappings[].sources[].capacity.driver': ('string', ('0.19/v1beta2',)),
    'resources.deviceClassMappings[].sources[].capacity.name': ('string', ('0.19/v1beta2',)),
    'resources.deviceClassMappings[].sources[].counter.deviceSelector.cel.expression':
        ('string', ('0.18/v1beta2', '0.19/v1beta2')),
    'resources.deviceClassMappings[].sources[].counter.driver': ('string', ('0.18/v1beta2', '0.19/v1beta2')),
    'resources.deviceClassMappings[].sources[].counter.name': ('string', ('0.18/v1beta2', '0.19/v1beta2')),
    'resources.quotaCheckStrategy': ('string', ('0.18/v1beta2', '0.19/v1beta2')),
    'tls.curvePreferences[]': ('int32', ('0.19/v1beta1', '0.19/v1beta2')),
    'visibilityServer.bindAddress': ('string', ('0.18/v1beta2', '0.19/v1beta2')),
    'visibilityServer.bindPort': ('int32', ('0.18/v1beta2', '0.19/v1beta2')),
    'waitForPodsReady.enable': ('bool', ('0.18/v1beta1', '0.19/v1beta1')),
}

_STEP = re.compile(r"([^.\[{]+)((?:\[\]|\{\})*)")


def _insert(tree: dict[str, Any], path: str, leaf: str) -> None:
    parts = [(m.group(1), re.findall(r"\[\]|\{\}", m.group(2))) for m in _STEP.finditer(path)]
    node = tree
    for i, (name, wrappers) in enumerate(parts):
        last = i == len(parts) - 1
        inner: Any = leaf if last else node.get(name)
        if not last:
            inner = _unwrap(inner, wrappers) if inner is not None else {}
        built = inner
        for w in reversed(wrappers):
            built = [built] if w == "[]" else {"$map": built}
        if last or name not in node:
            node[name] = built
        node = inner if not last else node


def _unwrap(value: Any, wrappers: list[str]) -> Any:
    for w in wrappers:
        value = value[0] if w == "[]" else value["$map"]
    return value


def _schema(which: str) -> dict[str, Any]:
    tree: dict[str, Any] = {}
    leaves = {**_COMMON, **{p: t for p, (t, where) in _ONLY.items() if which in where}}
    for path in sorted(leaves):
        _insert(tree, path, leaves[path])
    return tree


SCHEMAS: dict[str, dict[str, dict[str, Any]]] = {
    minor: {version: _schema(f"{minor}/{version}") for version in ("v1beta1", "v1beta2")}
    for minor in map(minor_text, KUEUE_MINORS)
}
