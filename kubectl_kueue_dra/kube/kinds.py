"""The API kinds the plugin reads, with where they live in the API.

``versions`` lists the group versions we understand, preferred first; discovery picks the first
one the server serves. Objects of older DRA versions are normalised to the v1 shape (see
``kube/convert.py``) so the engine only ever sees one shape.
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class Kind:
    kind: str
    group: str  # "" for the core group
    plural: str
    namespaced: bool
    versions: tuple[str, ...]

    @property
    def resource(self) -> str:
        """``resourceslices.resource.k8s.io`` — the name RBAC and kubectl use."""
        return f"{self.plural}.{self.group}" if self.group else self.plural


DRA_VERSIONS = ("v1", "v1beta2", "v1beta1")
KUEUE_VERSIONS = ("v1beta2", "v1beta1")

_ALL = [
    Kind("DeviceClass", "resource.k8s.io", "deviceclasses", False, DRA_VERSIONS),
    Kind("ResourceSlice", "resource.k8s.io", "resourceslices", False, DRA_VERSIONS),
    Kind("ResourceClaimTemplate", "resource.k8s.io", "resourceclaimtemplates", True, DRA_VERSIONS),
    Kind("ResourceClaim", "resource.k8s.io", "resourceclaims", True, DRA_VERSIONS),
    Kind("ClusterQueue", "kueue.x-k8s.io", "clusterqueues", False, KUEUE_VERSIONS),
    Kind("LocalQueue", "kueue.x-k8s.io", "localqueues", True, KUEUE_VERSIONS),
    Kind("ResourceFlavor", "kueue.x-k8s.io", "resourceflavors", False, KUEUE_VERSIONS),
    Kind("Cohort", "kueue.x-k8s.io", "cohorts", False, KUEUE_VERSIONS),
    Kind("Workload", "kueue.x-k8s.io", "workloads", True, KUEUE_VERSIONS),
    # the priority a what-if workload would get (a submitted Workload carries spec.priority)
    Kind("WorkloadPriorityClass", "kueue.x-k8s.io", "workloadpriorityclasses", False, KUEUE_VERSIONS),
    Kind("PriorityClass", "scheduling.k8s.io", "priorityclasses", False, ("v1",)),
    Kind("Kueue", "kueue.openshift.io", "kueues", False, ("v1", "v1alpha1")),
    Kind("FeatureGate", "config.openshift.io", "featuregates", False, ("v1",)),
    Kind("ClusterVersion", "config.openshift.io", "clusterversions", False, ("v1",)),
    Kind("ClusterServiceVersion", "operators.coreos.com", "clusterserviceversions", True, ("v1alpha1",)),
    Kind("Namespace", "", "namespaces", False, ("v1",)),
    Kind("ConfigMap", "", "configmaps", True, ("v1",)),
    Kind("Pod", "", "pods", True, ("v1",)),
    # explain's recent events of the Workload, its Job and pods (one list per namespace)
    Kind("Event", "", "events", True, ("v1",)),
    Kind("Deployment", "apps", "deployments", True, ("v1",)),
    # which Kueue the API server calls, when two Deployments kueue-controller-manager exist
    Kind("MutatingWebhookConfiguration", "admissionregistration.k8s.io", "mutatingwebhookconfigurations", False,
         ("v1",)),
    Kind("Job", "batch", "jobs", True, ("v1",)),
    # what Kueue's AdjustResources reads: LimitRange defaults, RuntimeClass pod overhead
    Kind("LimitRange", "", "limitranges", True, ("v1",)),
    Kind("RuntimeClass", "node.k8s.io", "runtimeclasses", False, ("v1",)),
]

KINDS: dict[str, Kind] = {k.kind: k for k in _ALL}
