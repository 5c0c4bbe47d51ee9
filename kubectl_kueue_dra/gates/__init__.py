"""Kubernetes and Kueue feature gates: which are on, and how we know. Pure (no I/O; the reading
of ``/metrics`` and the dry-run creates are in ``kube/probes.py``, put together in
``commands/probes.py``).

Kubernetes gates cannot be read from the API, so each gate's state is resolved from evidence,
strongest first (``METHODS``):

  featuregate-status  OpenShift FeatureGate ``cluster`` status entry for the current
                      ClusterVersion (what the platform renders into the kube-apiserver config)
  metrics             the serving kube-apiserver's ``kubernetes_feature_enabled`` series
  probe               a server-side dry-run create of an object with a gated field; a disabled
                      gate makes the API server drop the field (nothing is persisted)
  featuregate-spec    FeatureGate ``spec.customNoUpgrade`` (when there is no status)
  objects             stored objects that carry a gated field (it was on when they were written),
                      or were written with one the server dropped (it was off: ``commands/dropped``)
  default             the upstream default for the server's Kubernetes version
  discovery           whether the API is served (DynamicResourceAllocation only)

Kueue gates come from the Deployment's ``--feature-gates`` flag, else the Configuration's
``featureGates`` map, else the defaults of the Kueue version. On OpenShift the operator writes
that map itself, from FeatureGate ``spec`` only (``kueue/install/operator_render.py``), which is why a gate
turned on another way is not seen (``operator_detection_gaps``).

Modules: ``model`` (evidence, states, precedence), ``kubernetes`` (defaults per version,
``/metrics``, probes, stored objects), ``openshift`` (FeatureGate, ClusterVersion, the operator),
``kueue`` (Kueue's own gates).
"""

from .kubernetes import *  # noqa: F403
from .kueue import *  # noqa: F403
from .model import *  # noqa: F403
from .openshift import *  # noqa: F403
from .versions import *  # noqa: F403
