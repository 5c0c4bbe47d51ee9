"""The kinds of object Kueue makes Workloads of, and what this plugin does with each: the one table
``explain TYPE/NAME`` (``k8s/refs``), its completion (``commands/candidates``), ``explain -f``
(``kube/manifest``, ``kueue/workloads/podsets``) and the owner lookups of ``commands/explain``
derive from.

Kueue creates one Workload per managed object and makes the object the Workload's controller
owner, so a reference to any of these kinds resolves through the Workloads' ``ownerReferences``
without reading the object. Two kinds are read themselves (``read``): a Job (its pods, its events)
and a Pod (a plain pod, or one that belongs to a Job). ``pod_sets`` says how ``explain -f`` builds
the pod sets of a manifest not submitted yet, as Kueue's integration does (``kueue/workloads/podsets``
has one reader per value); None: only through the Workload Kueue creates for it.

To add a kind: one row here (and, when ``explain -f`` should read it, a reader in
``kueue/workloads/podsets``).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, kw_only=True)
class JobKind:
    kind: str
    group: str  # the API group ownerReferences carry ("" for the core group)
    aliases: tuple[str, ...] = ()  # short names besides the kind in lower case and its plural
    read: bool = False  # the plugin reads objects of this kind (not only their Workloads)
    pod_sets: str | None = None  # how explain -f reads a manifest's pod sets (None: it does not)

    @property
    def word(self) -> str:
        """The TYPE of ``TYPE/NAME`` (``job``, ``pytorchjob``)."""
        return self.kind.lower()

    @property
    def words(self) -> tuple[str, ...]:
        """Every TYPE that names the kind: the word, its plural, the aliases, each also with the group."""
        plain = (self.word, self.word + "s", *self.aliases)
        return plain + (tuple(f"{w}.{self.group}" for w in plain) if self.group else ())


#: in the order help and completion list them: the kinds explain -f reads first
JOB_KINDS: tuple[JobKind, ...] = (
    JobKind(kind="Job", group="batch", read=True, pod_sets="job"),
    JobKind(kind="Pod", group="", aliases=("po",), read=True, pod_sets="pod"),
    JobKind(kind="JobSet", group="jobset.x-k8s.io", pod_sets="jobset"),
    JobKind(kind="Workload", group="kueue.x-k8s.io", aliases=("wl", "wls"), pod_sets="workload"),
    JobKind(kind="RayJob", group="ray.io"),
    JobKind(kind="RayCluster", group="ray.io"),
    JobKind(kind="RayService", group="ray.io"),
    JobKind(kind="PyTorchJob", group="kubeflow.org"),
    JobKind(kind="TFJob", group="kubeflow.org"),
    JobKind(kind="MPIJob", group="kubeflow.org"),
    JobKind(kind="XGBoostJob", group="kubeflow.org"),
    JobKind(kind="PaddleJob", group="kubeflow.org"),
    JobKind(kind="JAXJob", group="kubeflow.org"),
    JobKind(kind="TrainJob", group="trainer.kubeflow.org"),
    JobKind(kind="LeaderWorkerSet", group="leaderworkerset.x-k8s.io", aliases=("lws",)),
    JobKind(kind="Deployment", group="apps", aliases=("deploy",)),
    JobKind(kind="StatefulSet", group="apps", aliases=("sts",)),
    JobKind(kind="AppWrapper", group="workload.codeflare.dev", aliases=("aw",)),
)

BY_KIND: dict[str, JobKind] = {k.kind: k for k in JOB_KINDS}
#: TYPE (lower case) → the kind it names
BY_WORD: dict[str, JobKind] = {w: k for k in JOB_KINDS for w in k.words}
#: the kinds explain -f explains (the other objects of a file are kept beside them)
MANIFEST_KINDS: tuple[str, ...] = tuple(k.kind for k in JOB_KINDS if k.pod_sets)
#: the kinds read themselves, not only through their Workloads
READ_KINDS: tuple[str, ...] = tuple(k.kind for k in JOB_KINDS if k.read)


def listed(kinds: tuple[str, ...]) -> str:
    """``Job, Pod, JobSet or Workload``."""
    return ", ".join(kinds[:-1]) + f" or {kinds[-1]}" if len(kinds) > 1 else "".join(kinds)
