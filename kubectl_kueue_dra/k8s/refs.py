"""``TYPE/NAME`` references as kubectl spells them: ``job/x``, ``jobs.batch/x``, ``wl/x``,
``jobset.jobset.x-k8s.io/x``, ``pytorchjob/x`` …

Kueue creates one Workload per managed object and sets the object as the Workload's controller
owner, so any kind resolves through the Workloads' ``ownerReferences`` without reading the owner
itself; only ``workload`` (the Workload) and ``pod`` (which may belong to a Job) are special.
The kinds, their groups and short names are ``k8s/job_kinds``'.
"""

from dataclasses import dataclass

from ..errors import UsageError
from .job_kinds import BY_WORD, JOB_KINDS

#: the kinds a reference may name, as the hint lists them
_KNOWN = ", ".join(k.word + (f" ({k.aliases[0]})" if k.aliases else "") for k in JOB_KINDS)


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
    found = BY_WORD.get(kind_text.lower())
    if found is None:
        raise UsageError(f'unknown kind "{kind_text}" in "{text}"', f"use one of: {_KNOWN}")
    return Ref(found.kind, found.group, name)
