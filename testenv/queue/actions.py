"""What a step of a queue scenario does: create, patch or delete objects, play an admission-check
controller (the AdmissionCheck's ``Active`` condition, a Workload's check state, both through the
status subresource), deactivate a Workload, or restart Kueue with another configuration.

Names carry the ``{cq}``/``{ns}`` placeholders of ``objects``; a Workload is named by its subject
(``job/x``: the Workload Kueue made for Job x), resolved when the step runs.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from collections.abc import Callable
from typing import Any

from testenv.harness import Cluster
from testenv.queue.objects import active_condition
from testenv.queue.observe import kueue_state


def resolve(value: Any, cq: str, ns: str) -> Any:
    """``value`` with the placeholders filled in (a deep copy)."""
    if isinstance(value, str):
        return value.replace("{cq}", cq).replace("{ns}", ns)
    if isinstance(value, list):
        return [resolve(v, cq, ns) for v in value]
    if isinstance(value, dict):
        return {resolve(k, cq, ns): resolve(v, cq, ns) for k, v in value.items()}
    return value


@dataclass
class Context:
    """Where a scenario's action runs."""

    cluster: Cluster
    ns: str
    cq: str
    #: subject → the Workload object (None when Kueue has not made it yet)
    workload: Callable[[str], dict | None]

    def fill(self, value: Any) -> Any:
        return resolve(value, self.cq, self.ns)

    def workload_name(self, subject: str) -> str:
        wl = self.workload(subject)
        if wl is None:
            raise RuntimeError(f"{self.ns}: no Workload for {subject}")
        return wl["metadata"]["name"]


class Action:
    #: a Kueue configuration to restart with: (mappings, gates, config); the world runner does it
    restart: tuple | None = None

    def describe(self) -> str:
        raise NotImplementedError

    def creates(self) -> list[str]:
        return []

    def run(self, ctx: Context) -> None:
        raise NotImplementedError


@dataclass
class Apply(Action):
    objects: list[dict]

    def describe(self) -> str:
        return "create " + ", ".join(f"{o['kind']} {o['metadata']['name']}" for o in self.objects)

    def creates(self) -> list[str]:
        return [f"{'job' if o['kind'] == 'Job' else 'workload'}/{o['metadata']['name']}"
                for o in self.objects if o["kind"] in ("Job", "Workload")]

    def run(self, ctx: Context) -> None:
        ctx.cluster.apply(ctx.fill(self.objects))


@dataclass
class Patch(Action):
    """A merge patch of an object (``kind``, ``name``; namespaced ones in the scenario's namespace)."""

    kind: str
    name: str
    patch: dict
    namespaced: bool = True
    status: bool = False

    def describe(self) -> str:
        return f"patch {self.kind} {self.name}{' status' if self.status else ''} {json.dumps(self.patch)}"

    def run(self, ctx: Context) -> None:
        args = ["patch", self.kind, ctx.fill(self.name), "--type=merge", "-p", json.dumps(ctx.fill(self.patch))]
        if self.namespaced:
            args += ["-n", ctx.ns]
        if self.status:
            args.append("--subresource=status")
        ctx.cluster.kubectl(*args)


@dataclass
class Delete(Action):
    kind: str
    name: str
    namespaced: bool = True

    def describe(self) -> str:
        return f"delete {self.kind} {self.name}"

    def run(self, ctx: Context) -> None:
        args = ["delete", self.kind, ctx.fill(self.name), "--wait=false", "--ignore-not-found"]
        if self.namespaced:
            args += ["-n", ctx.ns]
        ctx.cluster.kubectl(*args)


@dataclass
class PatchWorkload(Action):
    """A merge patch of the Workload of ``subject`` (spec.active=false deactivates it)."""

    subject: str
    patch: dict

    def describe(self) -> str:
        return f"patch the Workload of {self.subject} {json.dumps(self.patch)}"

    def run(self, ctx: Context) -> None:
        ctx.cluster.kubectl("patch", "workloads.kueue.x-k8s.io", ctx.workload_name(self.subject), "-n", ctx.ns,
                            "--type=merge", "-p", json.dumps(self.patch))


def deactivate(subject: str) -> PatchWorkload:
    return PatchWorkload(subject, {"spec": {"active": False}})


def activate(subject: str) -> PatchWorkload:
    return PatchWorkload(subject, {"spec": {"active": True}})


@dataclass
class SetCheck(Action):
    """Play the admission-check controller: set the state (and message) of check ``check`` (own
    name) on the Workload of ``subject``, as a controller does, through the status subresource;
    ``requeue_after``: its requeueAfterSeconds."""

    subject: str
    check: str
    state: str
    message: str = ""
    requeue_after: int | None = None

    def describe(self) -> str:
        after = f", requeueAfterSeconds {self.requeue_after}" if self.requeue_after is not None else ""
        return f"set check {self.check} of {self.subject} to {self.state} ({self.message!r}{after})"

    def run(self, ctx: Context) -> None:
        wl = ctx.workload(self.subject)
        name = ctx.fill("{cq}-" + self.check)
        checks = ((wl or {}).get("status") or {}).get("admissionChecks") or []
        index = next((i for i, c in enumerate(checks) if c.get("name") == name), None)
        if wl is None or index is None:
            raise RuntimeError(f"{ctx.ns}: {self.subject} has no admission check {name}")
        path = f"/status/admissionChecks/{index}"
        ops: list[dict[str, Any]] = [{"op": "test", "path": f"{path}/name", "value": name},
                                     {"op": "replace", "path": f"{path}/state", "value": self.state},
                                     {"op": "replace", "path": f"{path}/message", "value": self.message}]
        if self.requeue_after is not None:
            ops.append({"op": "add", "path": f"{path}/requeueAfterSeconds", "value": self.requeue_after})
        ctx.cluster.kubectl("patch", "workloads.kueue.x-k8s.io", wl["metadata"]["name"], "-n", ctx.ns,
                            "--subresource=status", "--type=json", "-p", json.dumps(ops))


@dataclass
class ActivateCheck(Action):
    """Play the admission-check controller: ``Active=True`` on AdmissionCheck ``check`` (own name)."""

    check: str

    def describe(self) -> str:
        return f"set AdmissionCheck {self.check} Active=True"

    def run(self, ctx: Context) -> None:
        ctx.cluster.kubectl("patch", "admissionchecks.kueue.x-k8s.io", ctx.fill("{cq}-" + self.check),
                            "--subresource=status", "--type=merge",
                            "-p", json.dumps({"status": {"conditions": [active_condition()]}}))


@dataclass
class Restart(Action):
    """Restart Kueue with another configuration (deviceClassMappings, gates, more fields). It
    affects every scenario that shares the Kueue: such scenarios get a world of their own."""

    mappings: list[dict]
    gates: dict[str, bool] = field(default_factory=dict)
    config: dict = field(default_factory=dict)
    title: str = "restart Kueue with another configuration"

    def __post_init__(self) -> None:
        self.restart = (json.dumps(self.mappings, sort_keys=True), json.dumps(self.gates, sort_keys=True),
                        json.dumps(self.config, sort_keys=True))

    def describe(self) -> str:
        return self.title

    def run(self, ctx: Context) -> None:  # the world runner restarts Kueue once for every scenario
        pass


def stop_cluster_queue(policy: str) -> Patch:
    """The scenario's ClusterQueue's stopPolicy: Hold, HoldAndDrain or None."""
    return Patch("clusterqueues.kueue.x-k8s.io", "{cq}", {"spec": {"stopPolicy": policy}}, namespaced=False)


def stop_local_queue(name: str, policy: str) -> Patch:
    return Patch("localqueues.kueue.x-k8s.io", name, {"spec": {"stopPolicy": policy}})


@dataclass
class Await(Action):
    """Let time pass until Kueue's own timer moves the Workload of ``subject`` to ``state`` (a
    timeout of Kueue's configuration), at most ``timeout`` seconds; then the world settles. Under
    load Kueue acts on its timers late, so a fixed wait would not say when it is done."""

    subject: str
    state: str
    timeout: float
    why: str

    def describe(self) -> str:
        return f"wait until {self.subject} is {self.state} ({self.why}; at most {self.timeout:g} s)"

    def run(self, ctx: Context) -> None:
        deadline = time.monotonic() + self.timeout
        while kueue_state(ctx.workload(self.subject)) != self.state and time.monotonic() < deadline:
            time.sleep(0.5)
