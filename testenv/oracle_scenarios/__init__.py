"""The oracle's scenario matrix: small sets of objects that Kueue and ``explain`` both judge.

A ``World`` is what is cluster-wide: DeviceClasses, ResourceSlices (fake nodes, Kubernetes 1.36
layout rules: counter sets in their own slices, at most 64 counter-consuming devices per slice)
and Kueue's configuration (deviceClassMappings and feature gates) for one Kueue version. A
``Scenario`` lives in its own namespace: ResourceClaimTemplates, a LocalQueue, its own
ClusterQueue with quota, and the Jobs (created suspended) or Workloads to judge. Scenarios of one
world run side by side; the cluster-scoped objects are replaced between worlds and Kueue restarts
only when the configuration changes.

The package, one module per concern: ``base`` (the model, the versions, the shared drivers and
quotas), ``devices`` (the devices world: claims, extended resources, CEL errors, gates),
``clusterqueue`` (namespaceSelector, cohort trees, fair sharing), ``mig`` (the counter path),
``capacity`` (the capacity path) and ``adjust`` (LimitRanges, RuntimeClasses, partial admission,
transformations). ``scenarios`` assembles the matrix; every name is importable from here.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field  # noqa: F401  (names of the single module this package was)

from testenv.builders import (  # noqa: F401  (the builders are part of this module's API too)
    FLAVOR, QUEUE_LABEL, cluster_queue, container, device, device_class, job, limit_range, local_queue,
    partial_job, pod_spec, queued, request, resource_flavor, resource_slice, runtime_class, template, workload,
)
from testenv.oracle_scenarios.adjust import (  # noqa: F401
    CONTAINER_DEFAULTS, TRANSFORMATIONS, _adjust_scenarios, _partial_scenarios, _transform_scenarios, adjust_world,
    transform_world,
)
from testenv.oracle_scenarios.base import (  # noqa: F401
    ASIC, BASE_QUOTA, FPGA, GPU, GPU_Q, NV, V18, V19, Cohort, CohortScenario, Queue, Scenario, SelectorScenario,
    World, queue_builders,
)
from testenv.oracle_scenarios.capacity import CAPACITY_GATES, SHARE, _capacity_scenarios, capacity_world  # noqa: F401
from testenv.oracle_scenarios.clusterqueue import (  # noqa: F401
    FAIR_SHARING, GPU2, _cohort_scenarios, _fair_sharing_scenarios, _selector_scenarios,
)
from testenv.oracle_scenarios.devices import (  # noqa: F401
    DEVICES_MAPPINGS, _cel_error_scenarios, _devices_scenarios, _gate_scenarios, devices_classes, devices_slices,
    devices_world,
)
from testenv.oracle_scenarios.mig import (  # noqa: F401
    MIG, MIG_BAD_SELECTOR, _bad_counter_scenarios, _mig_cel_error_scenarios, _mig_scenarios, bad_counters_world,
    mig_classes, mig_slices, mig_world,
)


_V18_DEVICES = ("template-count", "two-claims", "er-mapped", "er-same-name", "er-init-containers", "er-sidecar",
                "unmapped-class", "cel-too-few", "admin-access")
_V18_MIG = ("mig-one", "mig-max", "mig-counter-sets", "mig-stale-pool")
_V18_ADJUST = ("lr-container-defaults", "lr-request-before-limit", "runtime-class-overhead",
               "lr-default-limit-below-request")
_V18_PARTIAL = ("partial-admitted",)
_V18_TRANSFORM = ("tf-retain-multiply", "tf-replace-plus-dra")
V18_GATES = {"KueueDRAIntegrationExtendedResource": True, "KueueDRAIntegrationPartitionableDevices": True}


def scenarios(versions: tuple[str, ...] = (V19,)) -> list[Scenario]:
    out: list[Scenario] = []
    if V19 in versions:
        devices = devices_world("devices")
        out += _devices_scenarios(devices)
        out += _cohort_scenarios(devices)
        out += _cel_error_scenarios(devices)
        out += _selector_scenarios(devices)
        mig = mig_world("mig")
        out += _mig_scenarios(mig)
        out += _mig_cel_error_scenarios(mig)
        fair = devices_world("fair-sharing")
        fair.config = FAIR_SHARING
        out += _fair_sharing_scenarios(fair)
        out += _capacity_scenarios(capacity_world("capacity"))
        out += _bad_counter_scenarios(bad_counters_world("bad-counters"))
        dra_off = {"KueueDRAIntegration": False, "KueueDRAIntegrationExtendedResource": False,
                   "KueueDRAIntegrationPartitionableDevices": False}
        gpu_only = [DEVICES_MAPPINGS[0]]
        adjust = adjust_world("adjust")
        out += _adjust_scenarios(adjust)
        out += _partial_scenarios(adjust)
        out += _transform_scenarios(transform_world("transformations"))
        out += _gate_scenarios(devices_world("dra-off", gates=dra_off, mappings=gpu_only),
                               devices_world("dra-off-no-reject", mappings=gpu_only,
                                             gates={**dra_off, "KueueDRARejectWorkloadsWhenDRADisabled": False}),
                               devices_world("er-gate-off", gates={"KueueDRAIntegrationExtendedResource": False,
                                                                   "UnadmittedWorkloadsObservability": True}))
    if V18 in versions:
        w = devices_world("devices-0.18", V18, V18_GATES)
        out += [s for s in _devices_scenarios(w, "0.18/") if s.id[5:] in _V18_DEVICES]
        m = mig_world("mig-0.18", V18, V18_GATES)
        out += [s for s in _mig_scenarios(m, "0.18/") if s.id[5:] in _V18_MIG]
        out += [s for s in _cohort_scenarios(w, "0.18/") if s.id[5:] in ("cohort-lending-limit", "cohort-nested")]
        out += _cel_error_scenarios(w, "0.18/")[:1]
        out += _selector_scenarios(w, "0.18/")[:1]
        a = adjust_world("adjust-0.18", V18, V18_GATES)
        out += [s for s in _adjust_scenarios(a, "0.18/") if s.id[5:] in _V18_ADJUST]
        out += [s for s in _partial_scenarios(a, "0.18/") if s.id[5:] in _V18_PARTIAL]
        t = transform_world("transformations-0.18", V18, V18_GATES)
        out += [s for s in _transform_scenarios(t, "0.18/") if s.id[5:] in _V18_TRANSFORM]
    return copy.deepcopy(out)
