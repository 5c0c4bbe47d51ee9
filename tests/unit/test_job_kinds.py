"""The one table of the kinds Kueue makes Workloads of (k8s/job_kinds) and what derives from it:
the references explain takes, their completion, the kinds explain -f reads, the kinds read
themselves."""

import pytest

from kubectl_kueue_dra.commands.candidates import REFERENCE_KINDS
from kubectl_kueue_dra.errors import UsageError
from kubectl_kueue_dra.k8s.job_kinds import BY_KIND, JOB_KINDS, MANIFEST_KINDS, READ_KINDS, listed
from kubectl_kueue_dra.kube.kinds import KINDS
from kubectl_kueue_dra.kube.manifest import WORKLOAD_KINDS
from kubectl_kueue_dra.k8s.refs import parse_ref
from kubectl_kueue_dra.kueue.workloads import podsets


@pytest.mark.parametrize("job_kind", JOB_KINDS, ids=lambda k: k.kind)
def test_every_kind_is_a_reference_by_every_name(job_kind):
    for word in job_kind.words:
        assert parse_ref(f"{word}/x").kind == job_kind.kind
        assert parse_ref(f"{word.upper()}/x").group == job_kind.group
    assert f"{job_kind.word}/x" == str(parse_ref(f"{job_kind.word}/x"))


def test_words_with_the_group():
    assert parse_ref("jobs.batch/x").kind == "Job"
    assert parse_ref("jobset.jobset.x-k8s.io/x").kind == "JobSet"
    assert parse_ref("wl/x").kind == "Workload" and parse_ref("lws.leaderworkerset.x-k8s.io/x").kind == "LeaderWorkerSet"
    assert parse_ref("po/x").kind == "Pod"


def test_an_unknown_kind_lists_every_kind():
    with pytest.raises(UsageError) as e:
        parse_ref("cronjob/x")
    hint = e.value.hint or ""
    assert all(k.word in hint for k in JOB_KINDS) and "workload (wl)" in hint


def test_completion_offers_every_kind():
    assert REFERENCE_KINDS == tuple(k.word for k in JOB_KINDS)
    assert len(set(REFERENCE_KINDS)) == len(JOB_KINDS)


def test_explain_f_reads_the_kinds_that_have_a_reader():
    assert WORKLOAD_KINDS == MANIFEST_KINDS == ("Job", "Pod", "JobSet", "Workload")
    assert listed(MANIFEST_KINDS) == "Job, Pod, JobSet or Workload"
    for kind in MANIFEST_KINDS:
        assert podsets.podsets_from_manifest({"kind": kind, "spec": {}}) is not None
    with pytest.raises(UsageError, match="give a Job, Pod, JobSet or Workload"):
        podsets.podsets_from_manifest({"kind": "RayJob", "spec": {}})


def test_the_kinds_read_themselves_are_the_views():
    assert READ_KINDS == ("Job", "Pod")
    for kind in READ_KINDS:
        assert KINDS[kind].group == BY_KIND[kind].group
