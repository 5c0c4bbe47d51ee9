"""Run the queue scenarios of one world against the real Kueue, in phases.

Phase 0 creates every scenario of the world at once (its namespace, cluster-scoped objects, its
ClusterQueue and LocalQueues, then its Jobs and Workloads wave after wave, a second apart), then
the whole world settles. Phase n runs step n of every scenario that has one (a Kueue restart, if a
step asks for one, once for all), then the world settles again. After each phase the Workloads,
queues and the visibility API's positions are observed, and the subjects of the scenarios that
explain at that phase are explained (a few in parallel). Once the last phase is observed the
expectations are checked and the explanations judged.

Settling: every Job and Workload of the world keeps the same ``observe.signature`` (conditions,
admission, check states, requeue state, spec.active) for ``STABLE`` seconds, and exists unless the
scenario expects it gone. One rule for every queue state: a preemptor waiting for its victims, a
victim requeued, a workload holding quota while its checks are pending, an inactive one, and one
that has no QuotaReserved condition at all (behind a StrictFIFO head) all stop changing.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from testenv.harness import Cluster
from testenv.kueue_harness import KueueRunner, KueueSetup
from testenv.oracle import explain_json
from testenv.oracle_scenarios import World
from testenv.queue import builders as queue_builders, objects
from testenv.queue.actions import Context, Restart, resolve
from testenv.queue.expect import problems, summary
from testenv.queue.judge import QueueRow, judge
from testenv.queue.model import QueueScenario
from testenv.queue.observe import Observed, all_workloads, find_workload, list_all, observe, signature

STABLE = float(os.environ.get("KUEUE_DRA_QUEUE_STABLE", "3"))
SETTLE_TIMEOUT = float(os.environ.get("KUEUE_DRA_QUEUE_SETTLE_TIMEOUT", "120"))
#: log every change seen while settling
DEBUG = bool(os.environ.get("KUEUE_DRA_QUEUE_DEBUG"))
WAVE_GAP = 1.1  # creationTimestamp has one-second resolution
SETUP_GAP = 1.0  # Kueue's caches take in the flavors, priority classes and queues before the first Job
POLL = float(os.environ.get("KUEUE_DRA_QUEUE_POLL", "0.4"))
CQS = "/apis/kueue.x-k8s.io/v1beta2/clusterqueues"
LQS = "/apis/kueue.x-k8s.io/v1beta2/localqueues"


def uniq(text: str) -> str:
    return "".join(ch if ch.isalnum() else "-" for ch in text.lower()).strip("-")


@dataclass
class Reached:
    """Did Kueue reach the declared state of one Job or Workload after one phase."""

    scenario: str
    version: str
    phase: int
    subject: str
    want: str
    kueue: str
    problems: list[str]


@dataclass
class Placed:
    scenario: QueueScenario
    ns: str
    cq: str
    observed: list[Observed] = field(default_factory=list)
    docs: dict[tuple[int, str], tuple[dict | None, str]] = field(default_factory=dict)


@dataclass
class QueueWorldRun:
    """One world of queue scenarios; ``run_matrix`` runs it between the DRA worlds that share its
    Kueue configuration (``extra``)."""

    world: World
    scenarios: list[QueueScenario]
    workers: int = 3
    #: run before every other world (its Kueue configuration acts on every workload of the cluster)
    early: bool = False
    rows: list[QueueRow] = field(default_factory=list)
    reached: list[Reached] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)
    placed: list[Placed] = field(default_factory=list)
    log: Callable[[str], None] = print
    #: phase → (the subject that changed last while settling, seconds into the settle)
    last_change: dict[int, tuple[str, float]] = field(default_factory=dict)

    @property
    def restarts(self) -> bool:
        return any(a.restart for s in self.scenarios for st in s.steps for a in st.do)

    # ------------------------------------------------------------------------------------ create
    def _place(self, run_id: str) -> None:
        tag = self.world.version.lstrip("v").replace(".", "")
        self.placed = []
        for s in self.scenarios:
            ns = f"{uniq(s.id)[:34]}-{tag}-{run_id}"
            self.placed.append(Placed(s, ns, f"cq-{ns}"))

    def _create(self, cluster: Cluster) -> None:
        cluster.apply([{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": p.ns}} for p in self.placed])
        setup, checks = [], []
        for p in self.placed:
            s = p.scenario
            setup.append(queue_builders.kueue_object("ClusterQueue", p.cq, spec=resolve(s.cq, p.cq, p.ns)))
            if s.default_local_queue:
                setup.append(resolve(objects.local_queue("lq"), p.cq, p.ns))
            for o in resolve(s.setup, p.cq, p.ns):
                if o["kind"] == "AdmissionCheck" and o.pop("status", None):
                    checks.append(o["metadata"]["name"])
                setup.append(o)
        cluster.apply(setup)
        for name in checks:  # play their controller: Active=True through the status subresource
            cluster.kubectl("patch", "admissionchecks.kueue.x-k8s.io", name, "--subresource=status",
                            "--type=merge", "-p", _json({"status": {"conditions": [objects.active_condition()]}}))
        time.sleep(SETUP_GAP)
        for i in range(max(len(p.scenario.waves) for p in self.placed)):
            if i:
                time.sleep(WAVE_GAP)
            batch = [(p, o) for p in self.placed if i < len(p.scenario.waves)
                     for o in resolve(p.scenario.waves[i], p.cq, p.ns)]
            cluster.apply([o for _, o in batch])
            self._wait_for_workloads(cluster, [(p.ns, f"{'job' if o['kind'] == 'Job' else 'workload'}/"
                                                f"{o['metadata']['name']}") for p, o in batch])

    def _wait_for_workloads(self, cluster: Cluster, keys: list[tuple[str, str]]) -> None:
        """Until Kueue has made the Workload of every Job of a wave. Kueue orders by the Workload's
        creationTimestamp, not the Job's: a Job whose Workload comes late (Kueue retries with a
        backoff when it reads a priority class its cache does not have yet) would jump the queue."""
        deadline = time.monotonic() + SETTLE_TIMEOUT
        while True:
            wls = all_workloads(cluster)
            missing = [f"{ns} {subj}" for ns, subj in keys if find_workload(wls, ns, subj) is None]
            if not missing:
                return
            if time.monotonic() > deadline:
                self.log(f"queue oracle: world {self.world.name}: no Workload for {', '.join(missing)}")
                return
            time.sleep(POLL)

    # ------------------------------------------------------------------------------------ settle
    def _settle(self, cluster: Cluster, phase: int) -> tuple[list[dict], list[dict], list[dict]]:
        """Poll until the world is still; the last Workloads, ClusterQueues and LocalQueues read."""
        live = [p for p in self.placed if phase < p.scenario.phases]
        watch = [(p, subj) for p in live for subj in p.scenario.watched(phase)]
        gone_ok = {(p.ns, subj) for p in live for subj, e in p.scenario.expect_at(phase).items()
                   if e.state == "missing"}
        seen: dict[tuple[str, str], tuple[str, float]] = {}
        started = time.monotonic()
        deadline = started + SETTLE_TIMEOUT
        while True:
            wls, cqs, lqs = all_workloads(cluster), list_all(cluster, CQS), list_all(cluster, LQS)
            now = time.monotonic()
            queues = {q["metadata"]["name"]: q for q in cqs}
            still = True
            for p, subj in watch:
                wl = find_workload(wls, p.ns, subj)
                sig = signature(wl) + _json((queues.get(p.cq) or {}).get("status", {}).get("conditions"))
                key = (p.ns, subj)
                if key not in seen or seen[key][0] != sig:
                    if DEBUG and key in seen:
                        self.log(f"queue oracle: +{now - started:.1f}s {p.scenario.id} {subj}: {summary(wl)}")
                    seen[key] = (sig, now)
                if (wl is None and key not in gone_ok) or now - seen[key][1] < STABLE:
                    still = False
            if still:
                key, (_, when) = max(seen.items(), key=lambda kv: kv[1][1])
                self.last_change[phase] = (f"{key[0]} {key[1]}", round(when - started, 1))
                return wls, cqs, lqs
            if now > deadline:
                restless = sorted(f"{p.scenario.id} {subj}" for p, subj in watch
                                  if now - seen[(p.ns, subj)][1] < STABLE or find_workload(wls, p.ns, subj) is None)
                self.log(f"queue oracle: world {self.world.name} phase {phase}: not settled after "
                         f"{SETTLE_TIMEOUT:.0f}s: {', '.join(restless)}")
                return wls, cqs, lqs
            time.sleep(POLL)

    # --------------------------------------------------------------------------------------- run
    def run(self, cluster: Cluster, runner: KueueRunner, run_id: str, log=print) -> None:
        t0 = time.monotonic()
        self.log = log
        self._place(run_id)
        self._create(cluster)
        self.seconds["create"] = round(time.monotonic() - t0, 1)
        for phase in range(max(p.scenario.phases for p in self.placed)):
            tp = time.monotonic()
            if phase:
                self._step(cluster, runner, phase)
            wls, cqs, lqs = self._settle(cluster, phase)
            ts = time.monotonic()
            live = [p for p in self.placed if phase < p.scenario.phases]
            runner.visibility_ready()  # positions come from Kueue's visibility API
            for p in live:
                p.observed.append(observe(cluster, phase, p.ns, p.cq, p.scenario.watched(phase), wls, cqs, lqs,
                                          positions=runner.visibility))
            jobs = [(p, subj) for p in live for subj in p.scenario.explained(phase)]
            asks = [(p.ns, self._target(p, subj, phase, wls)) for p, subj in jobs]
            with ThreadPoolExecutor(max_workers=self.workers) as pool:
                docs = list(pool.map(lambda a: explain_json(cluster, *a), asks))
            for (p, subj), doc in zip(jobs, docs):
                p.docs[(phase, subj)] = doc
            self.seconds[f"phase {phase}"] = round(time.monotonic() - tp, 1)
            log(f"queue oracle: world {self.world.name} (Kueue {self.world.version}) phase {phase}: "
                f"{len(live)} scenarios settled in {ts - tp:.1f}s (last change {self.last_change.get(phase)}), "
                f"{len(jobs)} explained in {time.monotonic() - ts:.1f}s")
        self._conclude()
        self.seconds["total"] = round(time.monotonic() - t0, 1)

    @staticmethod
    def _target(p: Placed, subject: str, phase: int, workloads: list[dict]) -> str:
        """What explain is asked about: the subject, or its Workload once a step deleted its Job."""
        wl = find_workload(workloads, p.ns, subject)
        if subject in p.scenario.deleted_jobs(phase) and wl is not None:
            return f"workload/{wl['metadata']['name']}"
        return subject

    def _step(self, cluster: Cluster, runner: KueueRunner, phase: int) -> None:
        live = [p for p in self.placed if phase < p.scenario.phases]
        restarts = {a.restart: a for p in live for a in p.scenario.steps[phase - 1].do if isinstance(a, Restart)}
        if len(restarts) > 1:
            raise RuntimeError(f"world {self.world.name}: phase {phase} asks for {len(restarts)} Kueue configurations")
        for a in restarts.values():
            runner.ensure(KueueSetup.of(a.mappings, a.gates, a.config))

        def play(p: Placed) -> None:  # a scenario's actions in order; scenarios side by side
            ctx = Context(cluster, p.ns, p.cq, lambda subj: find_workload(all_workloads(cluster), p.ns, subj))
            for a in p.scenario.steps[phase - 1].do:
                if not isinstance(a, Restart):
                    a.run(ctx)

        with ThreadPoolExecutor(max_workers=self.workers) as pool:
            list(pool.map(play, live))

    # ---------------------------------------------------------------------------------- conclude
    def _conclude(self) -> None:
        v = self.world.version
        for p in self.placed:
            s = p.scenario
            for obs in p.observed:
                for subj, want in s.expect_at(obs.phase).items():
                    self.reached.append(Reached(s.id, v, obs.phase, subj, want.describe(),
                                                summary(obs.workloads.get(subj)), problems(want, obs, subj, p.cq)))
                for subj in s.explained(obs.phase):
                    doc, err = p.docs[(obs.phase, subj)]
                    row = QueueRow(s.id, s.area, subj, obs.phase, obs.phase == s.phases - 1, v, s.title)
                    row.details["namespace"] = p.ns
                    self.rows.append(judge(row, obs.workloads.get(subj), obs, p.observed[obs.phase:], doc, err,
                                           s.drift))


def _json(value) -> str:
    return json.dumps(value, sort_keys=True)
