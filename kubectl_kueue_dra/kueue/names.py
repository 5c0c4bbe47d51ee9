"""Names Kueue and the OpenShift Kueue operator use, that more than one module needs (those of
Kueue's configuration are in ``config``, the feature gates' in ``gates``)."""

#: where upstream Kueue runs by default (its manifests and chart), and what its configuration's
#: ``namespace`` defaults to
DEFAULT_NAMESPACE = "kueue-system"
#: where the OpenShift operator (and, by default, the Kueue it manages) runs
OPERATOR_NAMESPACE = "openshift-kueue-operator"
#: the namespace label the OpenShift operator's Kueue selects the namespaces it manages by
OPENSHIFT_MANAGED_LABEL = "kueue.openshift.io/managed"
#: the label that submits a job to a LocalQueue
QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
