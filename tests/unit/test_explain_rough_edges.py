"""explain's answers where a user meets them first: the fix names the Job it is about, -A finds a
Job in whichever namespace it is, a managed namespace is not suspected of not being managed, and
an OpenShift answer writes every command for oc."""

import json
from pathlib import Path

import yaml
from testenv.clirun import run  # in process (tests/clirun.py)

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
MIG = EXAMPLES / "mig-partitionable"


def snapshot(tmp_path, example, edit):
    """A copy of an example whose objects ``edit`` changed (a list of objects in, a list out)."""
    objects = [o for f in sorted((EXAMPLES / example).glob("*.yaml")) for o in yaml.safe_load_all(f.read_text()) if o]
    out = tmp_path / "snap.yaml"
    out.write_text(yaml.safe_dump_all(edit(objects)))
    return str(out)


def one_line_error(proc, code=1):
    assert proc.returncode == code, (proc.stdout, proc.stderr)
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr, lines
    return lines[0]


def findings(*args):
    proc = run("explain", *args, "-o", "json")
    assert proc.returncode == 0, proc.stderr
    return {f["code"]: f for f in json.loads(proc.stdout)["findings"]}


def test_no_queue_name_fix_names_the_job(tmp_path):
    def drop_queue(objects):
        for o in objects:
            if o["kind"] == "Workload" and o["metadata"]["name"].startswith("job-pretrain"):
                o["spec"].pop("queueName", None)
                o.pop("status", None)
        return objects

    snap = snapshot(tmp_path, "mig-partitionable", drop_queue)
    fix = findings("job/pretrain", "-n", "ml-research", "--from", snap)["NoQueueName"]["fix"]
    # OpenShift: oc; the namespace's one LocalQueue filled in
    assert fix == ("oc label -n ml-research job/pretrain kueue.x-k8s.io/queue-name=research  # the one LocalQueue in "
                   "namespace ml-research")
    # a what-if: the label belongs in the file
    job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "x", "namespace": "ml-research"},
           "spec": {"template": {"spec": {"containers": [{"name": "c", "image": "busybox"}]}}}}
    proc = run("explain", "-f", "-", "--from", str(MIG), "-o", "json", input=yaml.safe_dump(job))
    fix = {f["code"]: f for f in json.loads(proc.stdout)["findings"]}["NoQueueName"]["fix"]
    assert fix == ("add the label kueue.x-k8s.io/queue-name: research to metadata.labels in the file (the one "
                   "LocalQueue in namespace ml-research)")


def test_all_namespaces_finds_the_job_or_says_it_is_nowhere():
    a = json.loads(run("explain", "job/notebook-eval", "-A", "--from", str(MIG), "-o", "json").stdout)
    n = json.loads(run("explain", "job/notebook-eval", "-n", "ml-research", "--from", str(MIG), "-o", "json").stdout)
    assert a == n and a["workload"]["namespace"] == "ml-research"
    line = one_line_error(run("explain", "job/nope", "-A", "--from", str(MIG)))
    assert line == 'error: job "nope" not found in any namespace'


def _job_without_workload(objects, namespace_labels):
    for o in objects:
        if o["kind"] == "Namespace" and o["metadata"]["name"] == "ml-research":
            o["metadata"]["labels"] = namespace_labels
    return [o for o in objects if not (o["kind"] == "Workload" and o["metadata"]["name"].startswith("job-pretrain"))]


def test_no_workload_in_a_managed_namespace_does_not_ask_whether_it_is_managed(tmp_path):
    snap = snapshot(tmp_path, "mig-partitionable",
                    lambda objs: _job_without_workload(objs, {"kueue.openshift.io/managed": "true"}))
    line = one_line_error(run("explain", "job/pretrain", "-n", "ml-research", "--from", snap))
    assert "is the namespace managed" not in line
    assert "namespace ml-research is managed (label kueue.openshift.io/managed=true)" in line
    assert "integration enabled in Kueue's config" in line


def test_no_workload_in_an_unmanaged_namespace_says_so(tmp_path):
    snap = snapshot(tmp_path, "mig-partitionable", lambda objs: _job_without_workload(objs, {}))
    line = one_line_error(run("explain", "job/pretrain", "-n", "ml-research", "--from", snap))
    assert line == ("error: job/pretrain has no Workload: namespace ml-research is not managed by Kueue "
                    "(label kueue.openshift.io/managed=true does not match it), so its jobs run without quota "
                    "(oc label namespace ml-research kueue.openshift.io/managed=true)")


def test_openshift_answers_use_oc_everywhere_upstream_kubectl(tmp_path):
    """Every command of an OpenShift answer (explain, classes, map, verify) starts with oc; an
    upstream one with kubectl."""
    def commands(doc):
        text = json.dumps(doc)
        return "kubectl " in text, " oc " in text or '"oc ' in text

    for command in (["explain", "job/notebook-eval", "-n", "ml-research"], ["classes"], ["map"], ["verify"]):
        proc = run(*command, "--from", str(MIG), "-o", "json")
        assert proc.returncode in (0, 1), proc.stderr
        assert commands(json.loads(proc.stdout))[0] is False, command
    def drop_queue(objects):
        for o in objects:
            if o["kind"] == "Workload":
                o["spec"].pop("queueName", None)
        return objects

    rct = snapshot(tmp_path, "resourceclaimtemplate", drop_queue)
    doc = json.loads(run("explain", "job/batch-infer", "-n", "team-a", "--from", rct, "-o", "json").stdout)
    assert commands(doc) == (True, False)
    assert {f["code"]: f for f in doc["findings"]}["NoQueueName"]["fix"].startswith("kubectl label -n team-a job/")
    verify = json.loads(run("verify", "--from", str(EXAMPLES / "extended-resource"), "-o", "json").stdout)
    assert commands(verify) == (True, False)


def test_recorded_is_shown_in_the_charge_form(tmp_path):
    """Kueue may write a counter charge as a bare number of bytes (DecimalSI): RECORDED shows it in
    the form CHARGE uses, so that equal amounts read equal."""
    def raw_bytes(objects):
        for o in objects:
            if o["kind"] == "Workload" and o["metadata"]["name"].startswith("job-notebook-eval"):
                usage = o["status"]["admission"]["podSetAssignments"][0]["resourceUsage"]
                usage["gpu.memory"] = str(19 * 2**30)  # 20401094656
        return objects

    snap = snapshot(tmp_path, "mig-partitionable", raw_bytes)
    proc = run("explain", "job/notebook-eval", "-n", "ml-research", "--from", snap, "-o", "json")
    doc = json.loads(proc.stdout)
    assert doc["recorded"]["gpu.memory"] == doc["podSets"][0]["charge"]["gpu.memory"] == "19Gi"
    assert "ChargeMismatch" not in {f["code"] for f in doc["findings"]}
    text = run("explain", "job/notebook-eval", "-n", "ml-research", "--from", snap).stdout
    row = next(line for line in text.splitlines() if "gpu.memory" in line and "4864Mi" in line)
    assert row.split()[-3:] == ["19Gi", "19Gi", "default-flavor"] and "20401094656" not in text


def test_verify_shows_a_quota_sum_readably(tmp_path):
    """A quota that is no whole number of k prints as apimachinery prints it, the nearest amount
    beside it marked approximate, never a bare 12-digit number alone."""
    def odd_quota(objects):
        for o in objects:
            if o["kind"] == "ClusterQueue":
                for res in o["spec"]["resourceGroups"][0]["flavors"][0]["resources"]:
                    if res["name"] == "gpu.memory":
                        res["nominalQuota"] = "171798691841"  # 160Gi + 1 byte, written without a unit
        return objects

    snap = snapshot(tmp_path, "mig-partitionable", odd_quota)
    doc = json.loads(run("verify", "--from", snap, "-o", "json").stdout)
    check = next(c for c in doc["checks"] if c["id"] == "quota-vs-capacity")
    assert "give 171798691841 (≈172G) of the 628Gi" in check["message"]


def test_all_namespaces_without_a_cluster_wide_job_list_falls_back_to_the_workloads():
    """A user who may not list Jobs in every namespace still gets the Job found through its
    Workload, and the answer is not marked partial for that list."""
    from kubectl_kueue_dra.commands.explain.subject import resolve_in_all_namespaces
    from kubectl_kueue_dra.kube.errors import Forbidden
    from kubectl_kueue_dra.k8s.refs import parse_ref
    from kubectl_kueue_dra.kube.snapshot import load_objects
    from kubectl_kueue_dra.kube.snapshot import SnapshotView

    class NoClusterWideJobs(SnapshotView):
        def _list(self, kind, namespace, field_selector, label_selector):
            if kind.kind == "Job" and namespace is None:
                raise Forbidden("list", "jobs", None)
            return super()._list(kind, namespace, field_selector, label_selector)

    view = NoClusterWideJobs(load_objects(str(MIG)), str(MIG))
    subject = resolve_in_all_namespaces(view, parse_ref("job/notebook-eval"))
    assert subject.namespace == "ml-research" and subject.workload is not None
    assert view.unreadable == []
