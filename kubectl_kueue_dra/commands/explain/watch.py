"""``explain --watch``: follow a workload (or the list) and say each change of its state, charge
or findings as it happens.

The loop is the same for one workload and for a list: take the Workloads' resourceVersion, show
the state at that point (unless ``--watch-only``), then watch Workloads from there (``?watch=1``
through ``ClusterView.watch``). Each event re-explains the one Workload it names on a fresh view
(what it depends on — quotas, classes, slices — is read again) and is reported only when its
summary changed. A watch the server ends (its ``timeoutSeconds``) or that drops resumes from the
last resourceVersion; a 410 Gone lists again and reports what changed meanwhile. ``--timeout``
ends the whole watch, with exit 0."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ...environment import Clock
from ...errors import UsageError
from ...kube import errors
from ...kube.view import ClusterView
from ...kueue.workloads.podsets import podsets_from_workload
from .request import ExplainRequest

#: seconds one watch connection lasts before the server ends it and it is resumed
SERVER_TIMEOUT = 300
#: attempts to reconnect a watch the server cannot be reached for, before the error is reported
RECONNECTS = 5


@dataclass(kw_only=True)
class WatchRequest:
    timeout: float | None = None  # --timeout: seconds until the watch stops (exit 0); None: forever
    watch_only: bool = False


@dataclass
class Change:
    """What to print: the first state (``initial``, the document explain prints) or one changed
    workload (its explain document with its ``summary``; ``deleted`` when it is gone)."""

    document: dict[str, Any]
    initial: bool = False
    deleted: bool = False


@dataclass
class _Scope:
    namespace: str | None
    selector: str | None
    fields: str | None
    single: bool  # one workload (explain TYPE/NAME -w)
    workload: dict[str, Any] | None = None  # that workload, as first read


@dataclass
class _Seen:
    summaries: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)

    def changed(self, doc: dict[str, Any]) -> bool:
        s = doc["summary"]
        key = (str(s.get("namespace")), str(s.get("name")))
        if self.summaries.get(key) == s:
            return False
        self.summaries[key] = s
        return True


def _key(wl: dict[str, Any]) -> tuple[str, str]:
    meta = wl.get("metadata") or {}
    return str(meta.get("namespace") or ""), str(meta.get("name") or "")


def explain_workload(view: ClusterView, wl: dict[str, Any], req: ExplainRequest) -> dict[str, Any] | None:
    """One Workload explained as the list explains each, with its one-line summary; None when it
    is not in the queue the request names (--cluster-queue, --local-queue)."""
    from .context import Settings
    from .document import explain_facts
    from .facts import gather
    from .request import _finished
    from .subject import Subject
    from .workload_list import Scope, in_scope, summary

    ns = _key(wl)[0]
    facts = gather(view, Subject(ns, podsets_from_workload(wl), workload=wl),
                   Settings(req.kueue_version, req.kueue_namespace, req.now))
    if not in_scope(facts, Scope(None, req.cluster_queue, req.local_queue)):
        return None
    doc = _finished(view, explain_facts(facts))
    doc["summary"] = summary(wl, doc)
    return doc


def _scope(view: ClusterView, req: ExplainRequest) -> _Scope:
    from .subject import resolve, resolve_in_all_namespaces

    if req.lists:
        return _Scope(None if req.all_namespaces else (req.namespace or view.default_namespace),
                      req.selector, req.field_selector, single=False)
    ns = req.namespace or view.default_namespace
    subject = resolve_in_all_namespaces(view, req.ref, req.kueue_namespace) if req.all_namespaces else \
        resolve(view, req.ref, ns, req.kueue_namespace)
    assert subject.workload is not None
    wl_ns, name = _key(subject.workload)
    return _Scope(wl_ns, None, f"metadata.name={name}", single=True, workload=subject.workload)


def follow(open_view: Callable[[], ClusterView], req: ExplainRequest, watch: WatchRequest,
           initial: Callable[[ClusterView], dict[str, Any]], clock: Clock) -> Iterator[Change]:
    """The changes to print, as they happen, until ``watch.timeout`` passes on ``clock`` (the
    run's), or forever."""
    deadline = None if watch.timeout is None else clock.monotonic() + watch.timeout
    view = open_view()
    if not view.live:
        raise UsageError("--watch follows a live cluster; a snapshot (--from) does not change")
    if req.filenames:
        raise UsageError("--watch follows workloads in the cluster; a manifest (-f) does not change")
    scope = _scope(view, req)
    rv = view.resource_version("Workload", scope.namespace, label_selector=scope.selector, fields=scope.fields)
    seen = _Seen()
    first = initial(view)
    if scope.workload is not None and "summary" not in first:
        from .workload_list import summary

        first["summary"] = summary(scope.workload, first)
    for item in first.get("items") or [first]:
        if isinstance(item, dict) and "summary" in item:
            seen.changed(item)
    if not watch.watch_only:
        yield Change(first, initial=True)
    failures = 0
    while deadline is None or clock.monotonic() < deadline:
        remaining = SERVER_TIMEOUT if deadline is None else max(1, math.ceil(deadline - clock.monotonic()))
        try:
            for event in view.watch("Workload", scope.namespace, resource_version=rv,
                                    timeout_seconds=min(SERVER_TIMEOUT, remaining),
                                    label_selector=scope.selector, fields=scope.fields):
                failures = 0
                obj = event["object"]
                rv = str((obj.get("metadata") or {}).get("resourceVersion") or rv)
                change = _event_change(open_view, req, event, seen)
                if change is not None:
                    yield change
                if deadline is not None and clock.monotonic() >= deadline:
                    return
        except errors.Expired:
            rv = view.resource_version("Workload", scope.namespace, label_selector=scope.selector,
                                       fields=scope.fields)
            yield from _relisted(open_view, req, scope, seen)
        except errors.Unreachable:
            failures += 1
            if failures > RECONNECTS:
                raise
            clock.sleep(min(2.0 ** failures / 4, 5.0))


def _event_change(open_view: Callable[[], ClusterView], req: ExplainRequest, event: dict[str, Any],
                  seen: _Seen) -> Change | None:
    kind, wl = event.get("type"), event["object"]
    if kind not in ("ADDED", "MODIFIED", "DELETED"):
        return None  # BOOKMARK: only the resourceVersion moves
    if kind == "DELETED":
        last = seen.summaries.pop(_key(wl), None)
        if last is None:
            return None
        return Change({"summary": dict(last, state="Deleted")}, deleted=True)
    doc = explain_workload(open_view(), wl, req)
    return Change(doc) if doc is not None and seen.changed(doc) else None


def _relisted(open_view: Callable[[], ClusterView], req: ExplainRequest, scope: _Scope,
              seen: _Seen) -> Iterator[Change]:
    """After a 410: the Workloads as they are now, each reported if it changed meanwhile."""
    fresh = open_view()
    listed = fresh.list("Workload", scope.namespace, label_selector=scope.selector, fields=scope.fields,
                        on_server=True)
    present = {_key(wl) for wl in listed}
    for key in [k for k in seen.summaries if k not in present]:
        yield Change({"summary": dict(seen.summaries.pop(key), state="Deleted")}, deleted=True)
    for wl in listed:
        doc = explain_workload(fresh, wl, req)
        if doc is not None and seen.changed(doc):
            yield Change(doc)
