"""Scenarios about the ClusterQueue itself rather than the devices: its namespaceSelector, and the
cohort tree it may borrow from (lending and borrowing limits, nested Cohorts, fair sharing)."""

from __future__ import annotations

import copy

from testenv.builders import job, pod_spec, queued, request, template
from testenv.oracle_scenarios.base import (
    BASE_QUOTA, GPU_Q, Cohort, CohortScenario, Queue, Scenario, SelectorScenario, World,
)


def _selector_scenarios(w: World, prefix: str = "") -> list[Scenario]:
    gpu1 = template("gpu-1", request("gpu.example.com"))
    objs = [gpu1, job("train", pod_spec({"gpu": "gpu-1"}))]
    team = {"matchLabels": {"team": "ml"}}
    return [
        SelectorScenario(prefix + "cq-no-namespace-selector", "ClusterQueue without namespaceSelector: no namespace",
                         w, GPU_Q, copy.deepcopy(objs), ["job/train"], expect="pending", selector=None),
        SelectorScenario(prefix + "cq-selector-mismatch", "namespaceSelector team=ml, namespace not labelled",
                         w, GPU_Q, copy.deepcopy(objs), ["job/train"], expect="pending", selector=team),
        SelectorScenario(prefix + "cq-selector-match", "namespaceSelector team=ml, namespace labelled team=ml",
                         w, GPU_Q, copy.deepcopy(objs), ["job/train"], selector=team,
                         namespace_labels={"team": "ml"}),
    ]


# ------------------------------------------------------------ cohorts: what the tree can give
GPU2 = {**BASE_QUOTA, "example.com/gpu": "2"}


def _gpu_job(name: str, gpus: int) -> dict:
    """A Job of ``gpus`` pods with one GPU each (template gpu-1)."""
    return job(name, pod_spec({"gpu": "gpu-1"}), parallelism=gpus)


def _cohort_scenarios(w: World, prefix: str = "") -> list[Scenario]:
    P, C = prefix, CohortScenario
    gpu1 = template("gpu-1", request("gpu.example.com"))
    lender = [Queue("a", "c", {"example.com/gpu": "4"}, {"example.com/gpu": {"lendingLimit": "1"}})]
    sibling = [Queue("a", "c", {**BASE_QUOTA, "example.com/gpu": "4"})]
    nested = [Cohort("r", quota={"example.com/gpu": "2"}), Cohort("c", parent="r")]
    return [
        C(P + "cohort-lending-limit", "cohort: the other queue lends 1 of 4 (lendingLimit); 4 GPUs on quota 2 "
          "never fit: maximum capacity 3, not unlimited borrowing", w, GPU2, [gpu1, _gpu_job("train", 4)],
          ["job/train"], expect="pending", queues=lender),
        C(P + "cohort-lending-fits", "cohort: 3 GPUs on quota 2 borrow the 1 the other queue lends", w, GPU2,
          [gpu1, _gpu_job("train", 3)], ["job/train"], queues=lender),
        C(P + "cohort-borrowing-limit", "cohort: borrowingLimit 1 caps quota 2 at 3 though the cohort has 6", w, GPU2,
          [gpu1, _gpu_job("train", 4)], ["job/train"], expect="pending",
          limits={"example.com/gpu": {"borrowingLimit": "1"}}, queues=[Queue("a", "c", {"example.com/gpu": "4"})]),
        C(P + "cohort-nested", "nested cohorts: the root Cohort's own quota 2 + the queue's 1 = 3 < 4", w,
          {**BASE_QUOTA, "example.com/gpu": "1"}, [gpu1, _gpu_job("train", 4)], ["job/train"], expect="pending",
          cohorts=nested),
        C(P + "cohort-nested-fits", "nested cohorts: 3 GPUs fit with the root Cohort's quota", w,
          {**BASE_QUOTA, "example.com/gpu": "1"}, [gpu1, _gpu_job("train", 3)], ["job/train"], cohorts=nested),
        C(P + "cohort-nested-borrowing-limit", "nested cohorts: the middle Cohort may borrow 1 from the root: "
          "maximum 2", w, {**BASE_QUOTA, "example.com/gpu": "1"}, [gpu1, _gpu_job("train", 3)], ["job/train"],
          expect="pending", cohorts=[Cohort("r", quota={"example.com/gpu": "2"}),
                                     Cohort("c", parent="r", quota={"example.com/gpu": "0"},
                                            limits={"example.com/gpu": {"borrowingLimit": "1"}})]),
        C(P + "cohort-nested-lending-limit", "nested cohorts: a sibling Cohort lends 1 of its queue's 4: maximum 2",
          w, {**BASE_QUOTA, "example.com/gpu": "1"}, [gpu1, _gpu_job("train", 3)], ["job/train"], expect="pending",
          cohorts=[Cohort("r"), Cohort("c", parent="r"),
                   Cohort("s", parent="r", quota={"example.com/gpu": "0"},
                          limits={"example.com/gpu": {"lendingLimit": "1"}})],
          queues=[Queue("a", "s", {"example.com/gpu": "4"})]),
        C(P + "cohort-exhausted", "cohort of 2 + 4 GPUs, jobs of 4 (other queue) and 3: whichever waits needs 1 more",
          w, GPU2, [gpu1, queued(_gpu_job("first", 4), "lq-a"), _gpu_job("second", 3)],
          ["job/first", "job/second"], expect="one-pending", queues=sibling),
    ]


FAIR_SHARING = {"fairSharing": {"preemptionStrategies": ["LessThanOrEqualToFinalShare", "LessThanInitialShare"]}}


def _fair_sharing_scenarios(w: World) -> list[Scenario]:
    keep = ("cohort-lending-limit", "cohort-nested-borrowing-limit", "cohort-exhausted")
    return [s for s in _cohort_scenarios(w, "fair-sharing/") if s.id.split("/", 1)[1] in keep]
