"""``explain`` as a request: what to explain (a reference or a manifest), validated the same way
as every other command's options, then run through ``commands/explain/document``."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from ...environment import Environment
from ...errors import UsageError
from ...findings import is_partial, unreadable_findings
from ...kube.manifest import Manifest
from ...kube.view import ClusterView
from ...kueue.install import flags


#: the fields the API server selects Workloads by (Kueue's v1beta2 CRD adds the ClusterQueue)
WORKLOAD_FIELDS = ("metadata.name", "metadata.namespace", "status.admission.clusterQueue")


#: the time a run answers at, for tests and reproducible answers: an RFC 3339 time (else the clock's)
NOW_ENV = "KUEUE_DRA_NOW"


def answer_time(env: Environment) -> datetime:
    """The time the answer is given at: the run's ``KUEUE_DRA_NOW`` when set, else its clock's now."""
    text = env.vars.get(NOW_ENV)
    if not text:
        return env.clock.now()
    try:
        when = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise UsageError(f"{NOW_ENV}={text!r} is not an RFC 3339 time", "e.g. 2026-01-02T03:04:05Z") from None
    return when if when.tzinfo else when.replace(tzinfo=timezone.utc)


@dataclass(kw_only=True)
class ExplainRequest:
    reference: str | None = None
    filenames: tuple[str, ...] = ()
    recursive: bool = False
    selector: str | None = None  # -l, --field-selector: which Workloads the list shows
    field_selector: str | None = None
    kueue_version: str | None = None
    kueue_namespace: str | None = None
    namespace: str | None = None
    all_namespaces: bool = False
    cluster_queue: str | None = None
    local_queue: str | None = None
    ref: Any = None  # the parsed reference (set by validate)
    manifest: Manifest | None = None  # what -f read (set by validate)
    now: datetime | None = None  # the time the answer is given at (set by validate)

    def validate(self, env: Environment) -> ExplainRequest:
        """Check the options and complete the request: parse the reference, read the manifest
        (``-`` the run's stdin, a relative path from its working directory)."""
        from ...kube.manifest import read_manifest
        from ...k8s.refs import parse_ref

        from ...k8s.selectors import parse_fields, parse_labels

        if self.reference and self.filenames:
            raise UsageError("give either TYPE/NAME or -f FILE", "e.g. explain job/train, or explain -f job.yaml")
        if (self.cluster_queue or self.local_queue) and (self.reference or self.filenames):
            raise UsageError("--cluster-queue and --local-queue select the workloads to list; "
                             "they do not go with TYPE/NAME or -f")
        if (self.selector or self.field_selector) and (self.reference or self.filenames):
            raise UsageError("-l and --field-selector select the workloads to list; they do not go with "
                             f"{'TYPE/NAME' if self.reference else '-f'}")
        if self.recursive and not self.filenames:
            raise UsageError("-R reads the directories -f names; give -f DIR")
        flags.kueue_version(self.kueue_version)
        flags.kueue_namespace(self.kueue_namespace)
        if self.filenames and self.all_namespaces:
            raise UsageError("-A finds the namespace of a TYPE/NAME; a manifest (-f) has its own")
        parse_labels(self.selector or "")
        parse_fields(self.field_selector or "", WORKLOAD_FIELDS)
        self.ref = parse_ref(self.reference) if self.reference else None
        self.now = answer_time(env)
        if self.filenames:
            self.manifest = read_manifest(list(self.filenames), env.stdin, self.recursive, env.path)
        return self

    @property
    def lists(self) -> bool:
        """No TYPE/NAME and no manifest: list the Workloads in scope, one line each."""
        return not self.reference and not self.filenames


#: what the queue model lists cluster-wide for every explained workload (``queue_world``), and an
#: explanation otherwise reads narrower first: the workload's namespace, its LocalQueue and ClusterQueue
QUEUE_KINDS = ("Workload", "LocalQueue", "ClusterQueue")


def list_document(view: ClusterView, req: ExplainRequest) -> dict[str, Any]:
    """``explain`` with no TYPE/NAME: every Workload in scope, each document as ``explain`` gives it."""
    from .context import Settings
    from .workload_list import Scope, explain_all

    view.prefer_cluster_wide(*QUEUE_KINDS)
    scope = Scope(None if req.all_namespaces else (req.namespace or view.default_namespace),
                  req.cluster_queue, req.local_queue, req.selector, req.field_selector)
    items = explain_all(view, scope, Settings(req.kueue_version, req.kueue_namespace, req.now))
    return {"kind": "List", "items": items, "partial": is_partial(view),
            "findings": unreadable_findings(view)}


def explain_document(view: ClusterView, req: ExplainRequest) -> dict[str, Any]:
    """The explain document of a reference or of a file's one workload; a file with several
    workloads gives a ``List`` of documents, one per workload in file order."""
    from .context import Settings
    from .document import explain
    from .subject import resolve, resolve_in_all_namespaces, subject_from_manifest

    ref, manifest = req.ref, req.manifest
    view.prefer_cluster_wide(*QUEUE_KINDS)
    namespace = req.namespace or view.default_namespace
    settings = Settings(req.kueue_version, req.kueue_namespace, req.now)
    if manifest is None:
        subject = resolve_in_all_namespaces(view, ref, req.kueue_namespace) if req.all_namespaces else \
            resolve(view, ref, namespace, req.kueue_namespace)
        return _finished(view, explain(view, subject, settings))
    view.note_malformed(manifest.malformed)
    documents = [_finished(view, explain(view, subject_from_manifest(w, namespace, manifest), settings))
                 for w in manifest.workloads]
    if len(documents) == 1:
        return documents[0]
    return {"kind": "List", "items": documents, "partial": is_partial(view), "findings": []}


def _finished(view: ClusterView, document: dict[str, Any]) -> dict[str, Any]:
    document["findings"] = unreadable_findings(view) + document["findings"]
    document["partial"] = is_partial(view)
    return document


#: ``explain --exit-code``: the exit status when the answer needs attention (like ``git diff --exit-code``)
ATTENTION_EXIT = 3
_SETTLED = ("Admitted", "Finished", "WhatIf")


def needs_attention(document: dict[str, Any]) -> bool:
    """Whether an explained workload is not admitted, or the answer has an error finding. A
    what-if (``-f``) is never admitted: only its error findings count. A list counts any item."""
    if isinstance(document.get("items"), list):
        return any(needs_attention(item) for item in document["items"] if isinstance(item, dict))
    if any(f.get("severity") == "error" for f in document.get("findings") or []):
        return True
    return document.get("state") not in _SETTLED and "state" in document
