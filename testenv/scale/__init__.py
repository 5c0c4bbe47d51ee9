"""A synthetic GPU cluster at scale, for the benchmark (scripts/bench) and the perf guard.

N nodes × 8 GPUs with dynamic MIG, as the NVIDIA DRA driver publishes them on Kubernetes ≥ 1.35:
per GPU one counters-only ResourceSlice and one devices slice (the whole GPU + every MIG
placement), all in the node's pool; and per node one slice of 8 RDMA NICs from a second driver. Even nodes are H100-80GB (19 devices per GPU), odd nodes
A100-40GB (15 devices per GPU); the device and counter shapes come from scripts/make-examples.
Around them: DeviceClasses (whole GPU, MIG, one per MIG profile with an extendedResourceName),
upstream Kueue's config (ConfigMap + Deployment) with a counter mapping ``gpu.memory``, one
ClusterQueue + LocalQueue + ResourceClaimTemplates per team namespace, and W Jobs with their
admitted Workloads (the recorded usage is what Kueue charges for them).

Objects are generated lazily (a 1,000-node cluster is ~16,000 slices) and created with raw POSTs
from a bounded pool of keep-alive connections (``Loader``). ``write_snapshot`` reads everything
back, page by page, into one JSON ``List`` file, without managedFields as ``kubectl get -o json``
prints it.

The package: ``objects`` (the generated objects, ``Size``), ``loading`` (into an API server) and
``snapshot`` (read back, and the JSON List writers). Every name is re-exported here: callers
write ``from testenv import scale`` and ``scale.X``.
"""

from testenv.scale.objects import (  # noqa: F401
    DRIVER, GPUS_PER_NODE, IDENTITY_ATTRIBUTES, KUEUE_NS, NIC_DRIVER, NICS_PER_NODE, PROFILE_MEMORY_MI, QUOTA,
    Obj, Size, _gpu_memory_mi, _load_examples_module, device_classes, distinct_shapes, ex, explain_target,
    generated_objects, kueue_config, namespaces, nic_slice, node_slices, profiles, queues, templates,
    workload_jobs,
)
from testenv.scale.loading import Loader, LoadError, _api_path, _for_create, lambda_each, load  # noqa: F401
from testenv.scale.snapshot import (  # noqa: F401
    SNAPSHOT_KINDS, STYLES, _list_path, iter_objects, kubectl_style, write_kubectl_list, write_kubectl_yaml, write_list,
    write_snapshot,
)
