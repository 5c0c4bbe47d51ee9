"""The queue scenario: what it creates, what it changes after the first settle, and what Kueue must
then show.

A ``QueueScenario`` lives in a namespace of its own with a ClusterQueue of its own (``{cq}``), whose
spec is free-form (``objects.queue_spec``). It brings its cluster-scoped objects (named after its
ClusterQueue, ``objects.own``) and LocalQueues in ``setup``, then its Jobs and Workloads in
``waves``: a wave's Workloads are created more than a second after the previous wave's
(``creationTimestamp`` has one-second resolution and Kueue orders by the Workload's, which Kueue
creates for a Job, sometimes after a retry), without waiting for Kueue to admit anything. After the
first settle come the ``steps``: each applies its actions, then every scenario of the world
settles again. A scenario declares what Kueue must show after each phase (``expect`` after the
first settle, ``Step.expect`` after its step): the state it was written for; a scenario that does
not drive Kueue there is a defect of the scenario.

``subjects`` are explained (``explain -o json``) after the last phase, and after every phase whose
``explain`` flag is set (a pending preemptor explained before it preempts, then judged against the
victims Kueue picked). Jobs and Workloads that are only named in ``expect`` are actors: observed,
not explained.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from testenv.queue.actions import Action, Delete


@dataclass(frozen=True)
class Expect:
    """What Kueue must show for one Job or Workload after a phase.

    ``state`` is the queue state read from the Workload (``observe.kueue_state``): admitted,
    reserved (quota reserved, not admitted: admission checks), pending, evicting (Evicted=True and
    still holding quota), evicted (evicted, quota released, not reserved again), inactive,
    finished. ``message``: a substring of the QuotaReserved=False message; ``no_condition``: no
    QuotaReserved condition at all (never evaluated: behind a StrictFIFO head). ``conds``:
    {condition type: "Status/Reason"}; ``flavors``: {resource: own flavor name} of the admission;
    ``checks``: {own check name: state}; ``position``: positionInClusterQueue from the visibility
    API (``listed=False``: absent from it); ``preemptor``: the Job or Workload (``job/x``) whose
    UID Kueue's preemption message names; ``requeue_at``: status.requeueState.requeueAt is set;
    ``cq``: "Status/Reason" of the Active condition of its ClusterQueue."""

    state: str
    message: str | None = None
    no_condition: bool = False
    conds: dict[str, str] = field(default_factory=dict)
    flavors: dict[str, str] | None = None
    checks: dict[str, str] | None = None
    position: int | None = None
    lq_position: int | None = None
    listed: bool | None = None
    preemptor: str | None = None
    requeue_at: bool = False
    cq: str | None = None

    def describe(self) -> str:
        parts = [self.state]
        if self.flavors:
            parts.append("on " + ", ".join(f"{r}={f}" for r, f in sorted(self.flavors.items())))
        if self.message:
            parts.append(f'message contains "{self.message}"')
        if self.no_condition:
            parts.append("no QuotaReserved condition")
        parts += [f"{t}={v}" for t, v in sorted(self.conds.items())]
        if self.checks is not None:
            parts.append("checks " + (", ".join(f"{c} {s}" for c, s in sorted(self.checks.items())) or "none"))
        if self.preemptor:
            parts.append(f"preempted by {self.preemptor}")
        if self.position is not None:
            parts.append(f"position {self.position} in the ClusterQueue")
        if self.lq_position is not None:
            parts.append(f"position {self.lq_position} in its LocalQueue")
        if self.listed is False:
            parts.append("not in the visibility API")
        if self.requeue_at:
            parts.append("requeueAt set")
        if self.cq:
            parts.append(f"ClusterQueue Active={self.cq}")
        return ", ".join(parts)


# Shorthands for the common expectations.
def admitted(checks: dict[str, str] | None = None, **flavors: str) -> Expect:
    """Admitted on these flavors: ``admitted(cpu="spot")``; a resource with a slash is given as a
    dict: ``admitted(**{"example.com/widget": "w"})``."""
    return Expect("admitted", flavors=flavors or None, checks=checks)


def pending(message: str | None = None, **kw: Any) -> Expect:
    return Expect("pending", message=message, **kw)


def preempted(reason: str, by: str, state: str = "evicted", **kw: Any) -> Expect:
    """A victim: Evicted=True reason Preempted, Preempted=True reason ``reason``, preempted by ``by``."""
    conds = {"Evicted": "True/Preempted", "Preempted": f"True/{reason}", **kw.pop("conds", {})}
    return Expect(state, conds=conds, preemptor=by, **kw)


@dataclass
class Step:
    """One change after a settle; every scenario of the world then settles again."""

    title: str
    do: list[Action]
    expect: dict[str, Expect] = field(default_factory=dict)
    explain: bool = False


@dataclass
class QueueScenario:
    id: str
    title: str
    area: str  # flavors | preemption | lifecycle | checks | stops | order | changes
    cq: dict  # the ClusterQueue's spec
    subjects: list[str]  # job/<name> or workload/<name>: explained
    waves: list[list[dict]]  # Jobs and Workloads, wave after wave
    expect: dict[str, Expect]  # after the first settle
    setup: list[dict] = field(default_factory=list)  # flavors, checks, priority classes, LocalQueues, …
    steps: list[Step] = field(default_factory=list)
    explain_first: bool = False  # explain the subjects after the first settle too
    #: the ClusterQueue's LocalQueue "lq" is created unless the scenario brings its own
    default_local_queue: bool = True
    #: the Kueue versions it runs on (None: all); why it is limited, when it is
    versions: tuple[str, ...] | None = None
    why_versions: str = ""
    #: the recorded flavors may legitimately differ from what the model would pick today (the
    #: flavors changed after admission): the judge does not require the prediction to match
    drift: bool = False

    @property
    def phases(self) -> int:
        return 1 + len(self.steps)

    def expect_at(self, phase: int) -> dict[str, Expect]:
        return self.expect if phase == 0 else self.steps[phase - 1].expect

    def explained_at(self, phase: int) -> bool:
        if phase == self.phases - 1:
            return True
        return self.explain_first if phase == 0 else self.steps[phase - 1].explain

    def explained(self, phase: int) -> list[str]:
        """The subjects explained after ``phase`` (not the ones the scenario has deleted by then)."""
        if not self.explained_at(phase):
            return []
        gone = {s for s, e in self.expect_at(phase).items() if e.state == "missing"}
        return [s for s in self.subjects if s not in gone]

    def deleted_jobs(self, phase: int) -> set[str]:
        """``job/x`` subjects whose Job a step up to ``phase`` deleted (their Workload stays: asked
        about by the Workload's name)."""
        return {f"job/{a.name}" for st in self.steps[:phase] for a in st.do
                if isinstance(a, Delete) and a.kind == "jobs.batch"}

    def watched(self, phase: int | None = None) -> list[str]:
        """Every Job and Workload the scenario has created by the end of ``phase`` (None: by the
        end), as subjects (job/x, workload/x)."""
        out = []
        for wave in self.waves:
            for o in wave:
                ref = f"{'job' if o['kind'] == 'Job' else 'workload'}/{o['metadata']['name']}"
                if ref not in out:
                    out.append(ref)
        for s in self.steps[:phase]:
            for a in s.do:
                for ref in a.creates():
                    if ref not in out:
                        out.append(ref)
        return out
