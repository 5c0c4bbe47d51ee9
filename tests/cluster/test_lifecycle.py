"""The whole DRA lifecycle on a cluster without containers: the real Kueue admits, the job
controller creates pods, the resourceclaim controller their claims, kube-scheduler allocates the
devices (and the DRA extended-resource claims), KWOK runs the pods. For every scenario the
ResourceClaims' ``status.allocation`` must equal the ``allocations`` of ``explain -o json``, and
Kueue's charge must equal explain's (``lifecycle_run``). ``scripts/oracle --lifecycle`` prints the
same table."""

from __future__ import annotations

import pytest

from testenv.lifecycle import run as lifecycle_run
from testenv.lifecycle import scenarios as lifecycle_scenarios

SCENARIOS = lifecycle_scenarios.scenarios()


@pytest.fixture(scope="module")
def report(lifecycle, lifecycle_kueue):
    rep = lifecycle_run.run(lifecycle, lifecycle_kueue, SCENARIOS, log=lambda m: print(m, flush=True))
    print("\n" + lifecycle_run.table(rep) + f"\n{rep.seconds}", flush=True)
    return rep


@pytest.mark.parametrize("scenario", [s.id for s in SCENARIOS])
def test_allocation_agrees_with_explain(report, scenario):
    row = next(r for r in report.rows if r.scenario == scenario)
    assert row.agree, f"{scenario}: " + "\n  ".join(row.problems)


def test_every_scenario_allocates_or_is_left_unschedulable(report):
    """Guards the scenarios: a running one really got devices, an unschedulable one really none."""
    for r in report.rows:
        devices = [d for *_, d in r.allocated]
        if r.expect == "running":
            assert devices and all(devices), (r.scenario, r.allocated)
        else:
            assert devices and not any(devices), (r.scenario, r.allocated)


def test_extended_resource_claims_come_from_the_scheduler(report, lifecycle):
    """The extended-resource scenarios' claims are the scheduler's own (no template, no pod claim)."""
    for r in report.rows:
        if not r.scenario.startswith("extended-resource"):
            continue
        claims = lifecycle.cluster.get_json("resourceclaims.resource.k8s.io", "-n", r.namespace)["items"]
        ours = [c for c in claims if any(o.get("kind") == "Pod" for o in c["metadata"].get("ownerReferences") or [])]
        assert ours and all(c["metadata"].get("annotations", {}).get("resource.kubernetes.io/extended-resource-claim")
                            == "true" for c in ours), [c["metadata"] for c in ours]


def test_scenario_count():
    assert len(SCENARIOS) >= 10
    assert {"mig-fragmented", "extended-resource", "mig-max-charging", "node-selector-unsatisfiable"} <= \
        {s.id for s in SCENARIOS}
