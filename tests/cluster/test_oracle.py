"""`explain` against the real Kueue controller: every scenario of the matrix must agree.

The matrix (``oracle_scenarios``) runs once per module on its own API server (Kueue reconciles
every queued Job and Workload it sees, so it must not share a server with the other tests),
against Kueue built from its Go module (``scripts/controlplane build-kueue``). Each scenario is
then one test: the charge ``explain`` predicts equals what Kueue recorded, and a rejection is
predicted with Kueue's own message and finding code. ``scripts/oracle`` prints the same matrix
as a table.

Versions: ``KUEUE_DRA_ORACLE_VERSIONS`` (comma separated; default v0.19.2; v0.18.4 adds the 0.18
semantics runs).
"""

from __future__ import annotations

import os

import pytest

from testenv.binaries import kueue_build
from testenv import oracle
from testenv import oracle_scenarios
from testenv.harness import GATES_ON, Cluster
from testenv.kueue_harness import KueueRunner

VERSIONS = tuple(v.strip() for v in os.environ.get("KUEUE_DRA_ORACLE_VERSIONS", oracle_scenarios.V19).split(",")
                 if v.strip())
SCENARIOS = oracle_scenarios.scenarios(VERSIONS)
CASES = [(s.id, subject) for s in SCENARIOS for subject in s.subjects]


def _ci() -> bool:
    return os.environ.get("CI", "").lower() in ("true", "1", "yes")


@pytest.fixture(scope="module")
def oracle_report(request, controlplane_bin):
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
    cluster = Cluster.start("oracle", controlplane_bin, GATES_ON)
    request.addfinalizer(cluster.stop)
    runners = {v: KueueRunner(cluster, b, v) for v, b in binaries.items()}
    for r in runners.values():
        request.addfinalizer(r.close)
    report = oracle.run_matrix(cluster, runners, SCENARIOS, log=lambda m: print(m, flush=True))
    print("\n" + oracle.table(report), flush=True)
    return report


@pytest.mark.parametrize("scenario,subject", CASES, ids=[f"{s}:{j}" for s, j in CASES])
def test_explain_agrees_with_kueue(oracle_report, scenario, subject):
    row = next(r for r in oracle_report.rows if r.scenario == scenario and r.subject == subject)
    assert row.agree, (f"{scenario} {subject}: {row.why}\n  Kueue said:   {row.kueue}\n"
                       f"  explain said: {row.explain}\n  details: {row.details}")


def test_scenarios_do_what_they_are_built_for(oracle_report):
    """Guards the matrix itself: each scenario drives Kueue into the state it was written for."""
    wrong = []
    for s in SCENARIOS:
        states = sorted(r.kueue_state for r in oracle_report.rows if r.scenario == s.id)
        want = ["admitted", "pending"] if s.expect == "one-pending" else [s.expect] * len(s.subjects)
        if states != want:
            wrong.append(f"{s.id}: Kueue {states}, built for {want}")
    assert not wrong, "\n".join(wrong)


def test_matrix_size():
    assert len({s.id for s in SCENARIOS if s.world.version == oracle_scenarios.V19}) >= 30 \
        or oracle_scenarios.V19 not in VERSIONS
