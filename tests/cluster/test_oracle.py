"""`explain` against the real Kueue controller: every scenario of the matrix must agree.

The matrix (``oracle_scenarios``) runs once per module on its own API server (Kueue reconciles
every queued Job and Workload it sees, so it must not share a server with the other tests),
against Kueue built from its Go module (``scripts/controlplane build-kueue``). Each scenario is
then one test: the charge ``explain`` predicts equals what Kueue recorded, and a rejection is
predicted with Kueue's own message and finding code. ``scripts/oracle`` prints the same matrix
as a table.

The queue scenarios (``testenv/queue``: flavors, preemption, lifecycle, admission checks, stops,
order and position, changes after admission) run in the same session, in worlds that share the
Kueue process of the DRA world with their configuration: each must drive Kueue into the state it
declares (``test_queue_scenario_reaches_its_state``), and explain must tell the truth about it
(``test_explain_tells_the_queue_truth``). Kueue runs with its visibility API (positions).

Versions: ``KUEUE_DRA_ORACLE_VERSIONS`` (comma separated; default v0.19.2; v0.18.4 adds the 0.18
semantics runs). The DRA matrix runs on every kube-apiserver version (``KUEUE_DRA_KUBE_VERSION``,
the tests marked ``versions``); the queue scenarios on the default one. On 1.34 and 1.35 the API
server runs with its own gate defaults unless ``KUEUE_DRA_ORACLE_KUBE_GATES=on`` (``testenv/oracle``):
a scenario whose objects need a field the server drops then shows what Kueue really does without
it, and explain must agree with that.
"""

from __future__ import annotations

import os

import pytest

from testenv.binaries import kueue_build
from testenv import oracle
from testenv import oracle_scenarios
from testenv.binaries import controlplane
from testenv.harness import Cluster
from testenv.kueue_harness import KueueRunner
from testenv.queue import report as queue_report
from testenv.queue import scenarios as queue_scenarios

VERSIONS = tuple(v.strip() for v in os.environ.get("KUEUE_DRA_ORACLE_VERSIONS", oracle_scenarios.V19).split(",")
                 if v.strip())
SCENARIOS = oracle_scenarios.scenarios(VERSIONS)
CASES = [(s.id, subject) for s in SCENARIOS for subject in s.subjects]
#: the queue scenarios run on the default kube-apiserver version only
DEFAULT_KUBE = controlplane.kube_version() == controlplane.k8s_version()
QUEUE_WORLDS = queue_scenarios.worlds(VERSIONS) if DEFAULT_KUBE else []
QUEUE_CASES = [(w.world.version, s.id) for w in QUEUE_WORLDS for s in w.scenarios]
QUEUE_ROWS = [(w.world.version, s.id, subject, phase) for w in QUEUE_WORLDS for s in w.scenarios
              for phase in range(s.phases) for subject in s.explained(phase)]
KUBE_GATES = oracle.kube_gates(oracle.kube_gate_setting(controlplane.kube_version(), controlplane.k8s_version()))


def _ci() -> bool:
    return os.environ.get("CI", "").lower() in ("true", "1", "yes")


@pytest.fixture(scope="module")
def oracle_run(request, controlplane_bin):
    binaries = {}
    for version in VERSIONS:
        try:
            binaries[version] = kueue_build.build(version)
        except kueue_build.controlplane.GoNotFound as e:
            if not _ci():
                pytest.skip(f"Kueue cannot be built: {e}")
            pytest.fail(str(e), pytrace=False)
        except Exception as e:  # noqa: BLE001
            pytest.fail(f"building Kueue {version} failed: {e}", pytrace=False)
    cluster = Cluster.start("oracle", controlplane_bin, KUBE_GATES)
    request.addfinalizer(cluster.stop)
    queue_runs = queue_scenarios.worlds(VERSIONS) if DEFAULT_KUBE else []
    # visibility: the queue scenarios read positions; the wait for it is left to them
    runners = {v: KueueRunner(cluster, b, v, visibility=bool(queue_runs), visibility_wait=False)
               for v, b in binaries.items()}
    for r in runners.values():
        request.addfinalizer(r.close)
    report = oracle.run_matrix(cluster, runners, SCENARIOS, log=lambda m: print(m, flush=True), extra=queue_runs)
    queue = queue_report.QueueReport(queue_runs)
    print("\n" + oracle.table(report), flush=True)
    if queue_runs:
        print("\n" + queue_report.reached_table(queue) + "\n\n" + queue_report.agreement_table(queue), flush=True)
        print(f"queue worlds: {queue.seconds()}", flush=True)
    return report, queue, cluster


@pytest.fixture(scope="module")
def oracle_report(oracle_run):
    return oracle_run[0]


@pytest.fixture(scope="module")
def oracle_cluster(oracle_run):
    return oracle_run[2]


@pytest.fixture(scope="module")
def queue_oracle(oracle_run):
    return oracle_run[1]


@pytest.mark.versions
@pytest.mark.parametrize("scenario,subject", CASES, ids=[f"{s}:{j}" for s, j in CASES])
def test_explain_agrees_with_kueue(oracle_report, scenario, subject):
    row = next(r for r in oracle_report.rows if r.scenario == scenario and r.subject == subject)
    assert row.agree, (f"{scenario} {subject}: {row.why}\n  Kueue said:   {row.kueue}\n"
                       f"  explain said: {row.explain}\n  details: {row.details}")


@pytest.mark.versions
def test_scenarios_do_what_they_are_built_for(oracle_report, oracle_cluster):
    """Guards the matrix itself: each scenario drives Kueue into the state it was written for. A
    scenario whose charge reads a field this API server drops (a gate off, e.g. on 1.34 with the
    defaults: oracle.scenario_gates) was not built for it: there Kueue's real behaviour is the truth explain is held to
    (test_explain_agrees_with_kueue), not the state the scenario was written for."""
    wrong = []
    built_for = [s for s in SCENARIOS if not oracle.not_served(s, oracle_cluster)]
    assert built_for, "no scenario of the matrix runs on this server as it was built"
    for s in built_for:
        states = sorted(r.kueue_state for r in oracle_report.rows if r.scenario == s.id)
        want = ["admitted", "pending"] if s.expect == "one-pending" else [s.expect] * len(s.subjects)
        if states != want:
            wrong.append(f"{s.id}: Kueue {states}, built for {want}")
    assert not wrong, "\n".join(wrong)


@pytest.mark.versions
def test_matrix_size():
    assert len({s.id for s in SCENARIOS if s.world.version == oracle_scenarios.V19}) >= 30 \
        or oracle_scenarios.V19 not in VERSIONS


@pytest.mark.parametrize("version,scenario", QUEUE_CASES, ids=[f"{v}:{s}" for v, s in QUEUE_CASES])
def test_queue_scenario_reaches_its_state(queue_oracle, version, scenario):
    """Guards the queue scenarios: after every phase Kueue shows what the scenario declares."""
    seen = [r for r in queue_oracle.reached if r.scenario == scenario and r.version == version]
    assert seen, f"{scenario} did not run on {version}"
    wrong = [f"after phase {r.phase} {r.subject}: declared {r.want}\n    Kueue: {r.kueue}\n    "
             + "; ".join(r.problems) for r in seen if r.problems]
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("version,scenario,subject,phase", QUEUE_ROWS,
                         ids=[f"{v}:{s}:{j}@{p}" for v, s, j, p in QUEUE_ROWS])
def test_explain_tells_the_queue_truth(queue_oracle, version, scenario, subject, phase):
    row = next(r for r in queue_oracle.rows
               if (r.version, r.scenario, r.subject, r.phase) == (version, scenario, subject, phase))
    assert row.agree, (f"{scenario} {subject} after phase {phase}: {row.why}\n  Kueue: {row.kueue}\n"
                       f"  explain: {row.explain}")


def test_queue_matrix_size():
    """At least 35 queue scenarios, and the least number of each area."""
    ids = {s.id: s.area for s in queue_scenarios.every()}
    assert len(ids) >= 35
    for area, least in queue_scenarios.MINIMUM.items():
        assert sum(a == area for a in ids.values()) >= least, area
