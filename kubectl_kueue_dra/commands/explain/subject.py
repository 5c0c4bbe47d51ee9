"""What ``explain`` is about: the Workload a reference names (found through its owner), or the
pod sets of a manifest that is not submitted yet (what-if)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...errors import UserError
from ...k8s.envelope import owner_references
from ...k8s.job_kinds import BY_KIND, READ_KINDS
from ...kube.errors import Forbidden
from ...kube.manifest import Manifest
from ...k8s.refs import Ref
from ...kube.view import ClusterView
from ...kueue.names import OPENSHIFT_MANAGED_LABEL, QUEUE_LABEL
from ...kueue.workloads.podsets import PodSet, podsets_from_manifest, podsets_from_workload

JOB_NAME_LABEL = "batch.kubernetes.io/job-name"


@dataclass
class Subject:
    """What is being explained: a Workload in the cluster, or a manifest (what-if)."""

    namespace: str
    podsets: list[PodSet]
    workload: dict[str, Any] | None = None
    manifest: dict[str, Any] | None = None
    owner: dict[str, Any] | None = None  # the Job etc., when known
    #: a what-if's file: its ResourceClaimTemplates and DeviceClasses come before the cluster's
    file: Manifest | None = None

    @property
    def queue_name(self) -> str | None:
        if self.workload is not None:
            return (self.workload.get("spec") or {}).get("queueName") or None
        labels = ((self.manifest or {}).get("metadata") or {}).get("labels") or {}
        return labels.get(QUEUE_LABEL)


    @property
    def job_reference(self) -> str | None:
        """``job/train``: the object the queue-name label belongs on (the Job etc. that owns the
        Workload); None for a what-if or a Workload without an owner."""
        owner = self.owner
        if owner is not None:
            return f"{str(owner.get('kind') or 'job').lower()}/{(owner.get('metadata') or {}).get('name')}"
        controller = next((o for o in owner_references(self.workload or {}) if o.get("controller")), None)
        if controller and controller.get("kind") and controller.get("name"):
            return f"{str(controller['kind']).lower()}/{controller['name']}"
        return None


def _owned_by(workload: dict[str, Any], ref: Ref, uid: str | None) -> bool:
    for owner in owner_references(workload):
        group = (owner.get("apiVersion") or "").rpartition("/")[0]
        if owner.get("kind") == ref.kind and owner.get("name") == ref.name and group == ref.group \
                and (uid is None or owner.get("uid") == uid):
            return True
    return False


def _not_managed_reason(view: ClusterView, obj: dict[str, Any], namespace: str, kueue_namespace: str | None) -> str:
    from ...kueue.config.load import load_kueue_config
    from ...kueue.install.command import cli_of
    from ...kueue.install.model import installation_of
    from ...kueue.queues.namespaces import OPENSHIFT, namespace_rule

    labels = (obj.get("metadata") or {}).get("labels") or {}
    kind = obj.get("kind", "object").lower()
    name = (obj.get("metadata") or {}).get("name")
    if view.live and not view.serves("Workload"):
        return f"{kind}/{name} has no Workload: Kueue is not installed (kueue.x-k8s.io is not served)"
    config = load_kueue_config(view, kueue_namespace)
    cli = cli_of(view, config)
    if QUEUE_LABEL not in labels:
        from ...kueue.queues.proposals import local_queue_for, queue_note

        queues = view.try_list("LocalQueue", namespace)
        choice = local_queue_for(queues, namespace)
        here = sorted(str(q["metadata"]["name"]) for q in queues or [])
        note = queue_note(choice, namespace, here, comment=False) if queues is not None else ""
        return (f"{kind}/{name} is not managed by Kueue: it has no {QUEUE_LABEL} label "
                f"({cli} label -n {namespace} {kind}/{name} {QUEUE_LABEL}={choice.value if choice else '<local-queue>'}"
                f"{note})")
    install = installation_of(view, config)
    rule = namespace_rule(openshift=config.kind == "Kueue", configuration=config.document,
                          kueue_version=install.version, kueue_namespace=install.namespace)
    ns_obj = view.try_get("Namespace", namespace)
    if ns_obj is not None and not rule.manages(ns_obj):
        fix = (f"{cli} label namespace {namespace} {OPENSHIFT_MANAGED_LABEL}=true" if rule.how == OPENSHIFT
               else "label it to match managedJobsNamespaceSelector")
        return (f"{kind}/{name} has no Workload: namespace {namespace} is not managed by Kueue "
                f"({rule.describe().removeprefix('the ')} does not match it), so its jobs run without quota ({fix})")
    integration = (f"namespace {namespace} is managed ({rule.describe().removeprefix('the ')}); is"
                   if ns_obj is not None else "is the namespace managed and")
    return (f"{kind}/{name} has no Workload yet: Kueue has not reconciled it — {integration} the "
            f"integration enabled in Kueue's config (integrations.frameworks)? Explain the manifest instead "
            f"with: explain -f <file>")


def resolve(view: ClusterView, ref: Ref, namespace: str, kueue_namespace: str | None = None) -> Subject:
    """Find the Workload for a reference. Raises UserError with the reason when there is none."""
    if ref.kind == "Workload":
        wl = view.get("Workload", ref.name, namespace)
        if wl is None:
            raise UserError(f'workload "{ref.name}" not found in namespace "{namespace}"')
        return Subject(namespace, podsets_from_workload(wl), workload=wl)

    owner = None
    if ref.kind in READ_KINDS:
        owner = view.get(ref.kind, ref.name, namespace)
        if owner is None:
            raise UserError(f'{ref.kind.lower()} "{ref.name}" not found in namespace "{namespace}"')
        if ref.kind == "Pod":
            for o in owner_references(owner):
                if o.get("controller") and o.get("kind") == "Job":
                    return resolve(view, Ref("Job", BY_KIND["Job"].group, o["name"]), namespace, kueue_namespace)
    uid = ((owner or {}).get("metadata") or {}).get("uid")
    workloads = [wl for wl in view.list("Workload", namespace) if _owned_by(wl, ref, uid)]
    if not workloads:
        if owner is not None:
            raise UserError(_not_managed_reason(view, owner, namespace, kueue_namespace))
        raise UserError(f"no Workload in namespace \"{namespace}\" is owned by {ref}",
                        "check the name and namespace (-n), or use workload/<name>")
    if len(workloads) > 1:
        names = ", ".join(sorted(w["metadata"]["name"] for w in workloads))
        raise UserError(f"{ref} has {len(workloads)} Workloads: {names}", "pick one with workload/<name>")
    return Subject(namespace, podsets_from_workload(workloads[0]), workload=workloads[0], owner=owner)


def resolve_in_all_namespaces(view: ClusterView, ref: Ref, kueue_namespace: str | None = None) -> Subject:
    """``-A``: find the namespace of the reference (a Job or Pod by its name, anything else by the
    Workload it owns), then resolve it there."""
    listed = None
    if ref.kind in READ_KINDS:
        try:
            listed = view.list(ref.kind)
        except Forbidden:  # not a gap in the answer: the Workloads say where it is
            listed = None
    if listed is not None:
        found = sorted({str(o["metadata"].get("namespace")) for o in listed if o["metadata"].get("name") == ref.name})
        if not found:
            raise UserError(f'{ref.kind.lower()} "{ref.name}" not found in any namespace')
    else:  # another kind, or Jobs/Pods not listable cluster-wide: the Workload that belongs to it
        def matches(wl: dict[str, Any]) -> bool:
            if ref.kind == "Workload":
                return bool(wl["metadata"]["name"] == ref.name)
            return _owned_by(wl, ref, None)

        found = sorted({wl["metadata"]["namespace"] for wl in view.list("Workload") if matches(wl)})
        if not found:
            raise UserError(f"no Workload in any namespace belongs to {ref}",
                            "if it exists, explain it with -n <namespace> to see why it has none")
    if len(found) > 1:
        raise UserError(f"{ref} exists in several namespaces: {', '.join(found)}", "pick one with -n")
    return resolve(view, ref, found[0], kueue_namespace)


def subject_from_manifest(manifest: dict[str, Any], namespace: str, file: Manifest | None = None) -> Subject:
    """A workload of a file (what-if); ``file`` holds the objects beside it."""
    ns = (manifest.get("metadata") or {}).get("namespace") or namespace
    return Subject(ns, podsets_from_manifest(manifest), manifest=manifest, file=file)
