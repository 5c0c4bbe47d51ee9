"""``TYPE/NAME`` references as kubectl spells them: ``job/x``, ``jobs.batch/x``, ``wl/x``,
``jobset.jobset.x-k8s.io/x``, ``pytorchjob/x`` …

Kueue creates one Workload per managed object and sets the object as the Workload's controller
owner, so any kind resolves through the Workloads' ``ownerReferences`` without reading the owner
itself; only ``workload`` (the Workload) and ``pod`` (which may belong to a Job) are special.
"""

from dataclasses import dataclass

from ..errors import UsageError

# alias -> (Kind, API group) for kinds Kueue manages. The group is what ownerReferences carry.
_KINDS: dict[str, tuple[str, str]] = {}


def _register(kind: str, group: str, *aliases: str) -> None:
    plural = kind.lower() + "s"
    for alias in {kind.lower(), plural, *aliases}:
        _KINDS[alias] = (kind, group)
        if group:
            _KINDS[f"{alias}.{group}"] = (kind, group)


_register("Workload", "kueue.x-k8s.io", "wl", "wls")
_register("Job", "batch")
_register("Pod", "", "po")
_register("JobSet", "jobset.x-k8s.io")
_register("RayJob", "ray.io")
_register("RayCluster", "ray.io")
_register("RayService", "ray.io")
_register("PyTorchJob", "kubeflow.org")
_register("TFJob", "kubeflow.org")
_register("MPIJob", "kubeflow.org")
_register("XGBoostJob", "kubeflow.org")
_register("PaddleJob", "kubeflow.org")
_register("JAXJob", "kubeflow.org")
_register("TrainJob", "trainer.kubeflow.org")
_register("LeaderWorkerSet", "leaderworkerset.x-k8s.io", "lws")
_register("Deployment", "apps", "deploy")
_register("StatefulSet", "apps", "sts")
_register("AppWrapper", "workload.codeflare.dev", "aw")


@dataclass(frozen=True)
class Ref:
    kind: str
    group: str
    name: str

    def __str__(self) -> str:
        return f"{self.kind.lower()}/{self.name}"


def parse_ref(text: str) -> Ref:
    kind_text, sep, name = text.partition("/")
    if not sep or not name or not kind_text or "/" in name:
        raise UsageError(f'invalid reference "{text}"', "use TYPE/NAME, e.g. job/train or workload/job-train-1a2b3")
    found = _KINDS.get(kind_text.lower())
    if found is None:
        known = "job, workload (wl), pod, jobset, rayjob, raycluster, pytorchjob, tfjob, mpijob, " \
                "leaderworkerset, deployment, statefulset, appwrapper"
        raise UsageError(f'unknown kind "{kind_text}" in "{text}"', f"use one of: {known}")
    return Ref(found[0], found[1], name)
