"""Writes: read-modify-write of whole objects with a ``resourceVersion`` precondition.

``read_modify_write`` reads the object fresh, lets the caller compute the new object (which may
refuse by raising), and replaces it with PUT carrying the ``resourceVersion`` it read. When someone
else wrote in between, the server answers 409 and the cycle starts again from a fresh read, a
bounded number of times. Nothing is written when the new object equals the old one. Server-side
dry run (``dryRun=All``) goes through admission and validation and persists nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any
from collections.abc import Callable

from ..environment import Clock
from . import errors
from .client import Target
from .kinds import KINDS, Kind
from .live import LiveView

Obj = dict[str, Any]
MAX_ATTEMPTS = 5
WRITER_ROLE_HINT = "the ClusterRole in deploy/rbac/mapping-editor-clusterrole.yaml grants what map needs"


class TooManyConflicts(errors.Conflict):
    """The object kept changing between our read and our write."""


@dataclass
class WriteResult:
    before: Obj
    after: Obj  # what the server returned (or the computed object when nothing was sent)
    changed: bool
    sent: bool
    attempts: int = 1


class ObjectWriter:
    """Fresh reads and whole-object replaces of one kind of object, through a live view."""

    def __init__(self, view: LiveView, kind: str):
        self.view = view
        self.client = view.client
        self.clock: Clock = view.client.clock  # the run's: restart stamps, waits
        self.kind: Kind = KINDS[kind]
        version = view.api_version(self.kind)
        if version is None:
            raise errors.NotFound(f"the server does not serve {self.kind.resource}", status=404)
        self.version = version

    def _path(self, name: str, namespace: str | None) -> str:
        return self.view._path(self.kind, self.version, namespace if self.kind.namespaced else None, name)

    def _target(self, verb: str, name: str, namespace: str | None) -> Target:
        return Target(verb, self.kind.resource, namespace if self.kind.namespaced else None, name)

    def _send(self, method: str, verb: str, obj_name: str, namespace: str | None, *, body: Any,
              query: dict[str, Any] | None = None, content_type: str | None = None) -> Obj:
        try:
            return self.client.request(method, self._path(obj_name, namespace),
                                       self._target(verb, obj_name, namespace), query=query,
                                       body=body, content_type=content_type)
        except errors.Forbidden as e:
            e.hint = f"ask for {verb} on {self.kind.resource} ({WRITER_ROLE_HINT})"
            raise
        except errors.KubeError as e:
            e.message = " ".join(e.message.split())  # server messages may span lines
            raise

    def read(self, name: str, namespace: str | None = None) -> Obj:
        """The object as stored (no version conversion), raising NotFound when absent."""
        return self.client.get(self._path(name, namespace), self._target("get", name, namespace))

    def replace(self, obj: Obj, *, dry_run: bool = False) -> Obj:
        meta = obj["metadata"]
        return self._send("PUT", "update", meta["name"], meta.get("namespace"), body=obj,
                          query={"dryRun": "All"} if dry_run else None)

    def merge_patch(self, name: str, namespace: str | None, patch: Obj, *,
                    dry_run: bool = False) -> Obj:
        return self._send("PATCH", "patch", name, namespace, body=patch,
                          query={"dryRun": "All"} if dry_run else None,
                          content_type="application/merge-patch+json")


def read_modify_write(read: Callable[[], Obj], modify: Callable[[Obj], Obj],
                      write: Callable[[Obj], Obj], *, attempts: int = MAX_ATTEMPTS,
                      clock: Clock) -> WriteResult:
    """Read, compute, write with the read ``resourceVersion``; retry from a fresh read on 409.

    ``modify`` returns the new object (it may raise to refuse); when it equals the object read,
    nothing is sent.
    """
    for attempt in range(1, attempts + 1):
        before = read()
        after = modify(before)
        if after == before:
            return WriteResult(before, before, changed=False, sent=False, attempts=attempt)
        after.setdefault("metadata", {})["resourceVersion"] = before["metadata"]["resourceVersion"]
        try:
            result = write(after)
        except errors.Conflict:
            if attempt == attempts:
                break
            clock.sleep(0.05 * attempt)
            continue
        return WriteResult(before, result, changed=True, sent=True, attempts=attempt)
    raise TooManyConflicts(f"the object changed {attempts} times between reading and writing it; "
                           "nothing was written", "try again", status=409)


# ---- Deployment restarts --------------------------------------------------------------------

RESTARTED_AT = "kubectl.kubernetes.io/restartedAt"


def restart_patch(now: datetime) -> Obj:
    """What ``kubectl rollout restart`` sends: a new pod-template annotation, stamped ``now`` (UTC)."""
    stamp = now.strftime("%Y-%m-%dT%H:%M:%SZ")
    return {"spec": {"template": {"metadata": {"annotations": {RESTARTED_AT: stamp}}}}}


def rollout_complete(deployment: Obj) -> bool:
    """``kubectl rollout status``: the new generation is observed and all replicas are updated
    and available."""
    spec, status = deployment.get("spec") or {}, deployment.get("status") or {}
    meta = deployment.get("metadata") or {}
    want = spec.get("replicas", 1)
    if status.get("observedGeneration", 0) < meta.get("generation", 0):
        return False
    updated = status.get("updatedReplicas", 0)
    return updated >= want and status.get("replicas", 0) <= updated and \
        status.get("availableReplicas", 0) >= updated


def wait_for(check: Callable[[], bool], timeout: float, interval: float = 1.0, *,
             clock: Clock) -> bool:
    deadline = clock.monotonic() + timeout
    while True:
        if check():
            return True
        if clock.monotonic() >= deadline:
            return False
        clock.sleep(min(interval, max(0.0, deadline - clock.monotonic())))
