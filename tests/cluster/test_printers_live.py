"""kubectl's habits against the real API server and the kubectl binary built with it: the JSONPath
table (tests/fixtures/jsonpath) byte for byte against kubectl's own output, custom-columns and -o name
against ``kubectl get`` on the same objects, selectors sent to the server, and ``explain --watch``
following a Workload whose status changes (across server-ended watch connections)."""

import json
import os
import subprocess
import threading
import time
from pathlib import Path

import pytest

from testenv import setups
from testenv.harness import run_plugin

from kubectl_kueue_dra.render.printers import columns
from kubectl_kueue_dra.render.printers.jsonpath_eval import JSONPath, JSONPathError
from kubectl_kueue_dra.render.printers.spec import OutputError, OutputSpec, checked

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "jsonpath"
CASES = json.loads((FIXTURES / "cases.json").read_text())
DOCUMENT = json.loads((FIXTURES / "document.json").read_text())


def kubectl_jsonpath(bin_dir: Path, case: dict) -> subprocess.CompletedProcess:
    """kubectl prints the document with the template, offline (``patch --local`` changes nothing)."""
    fmt = case.get("format", "jsonpath")
    args = [str(bin_dir / "kubectl"), "patch", "--local", "-f", str(FIXTURES / "document.json"), "-p", "{}",
            "--type", "merge", "-o", f"{fmt}={case['template']}"]
    if case.get("allowMissingKeys") is False:
        args.append("--allow-missing-template-keys=false")
    env = {k: v for k, v in os.environ.items() if k != "KUBECONFIG"}
    return subprocess.run(args, capture_output=True, text=True, env=env, timeout=60)


def test_jsonpath_table_is_kubectls_byte_for_byte(controlplane_bin):
    """Every template of the table: kubectl's stdout equals ours, its error message ours."""
    assert len(CASES) >= 30
    differ = []
    for case in CASES:
        proc = kubectl_jsonpath(controlplane_bin, case)
        if "parseError" in case:
            with pytest.raises(OutputError) as e:
                checked(OutputSpec("jsonpath", case["template"]))
            kubectl_says = proc.stderr.splitlines()[0]
            if proc.returncode == 0 or kubectl_says != f"error: {e.value}":
                differ.append((case["template"], kubectl_says, str(e.value)))
            continue
        path = JSONPath(case["template"], case.get("allowMissingKeys", True),
                        as_json=case.get("format") == "jsonpath-as-json")
        try:
            mine, failed = path.execute(DOCUMENT), None
        except JSONPathError as err:
            mine, failed = None, str(err)
        if proc.returncode == 0:
            ok = failed is None and mine == proc.stdout == case.get("output")
        else:
            ok = failed is not None and f"Error executing template: {failed}. Printing more" in proc.stderr \
                and failed == case.get("error")
        if not ok:
            differ.append((case["template"], proc.stdout or proc.stderr[:300], mine or failed))
    assert not differ, differ


@pytest.fixture(scope="module")
def mig(cluster_gates_on):
    setups.load(cluster_gates_on, "mig-partitionable")
    return cluster_gates_on


SPECS = [
    "NAME:.metadata.name,QUEUE:.spec.queueName,CQ:.status.admission.clusterQueue",
    "NAME:metadata.name,COUNT:{.spec.podSets[*].count},LABELS:.metadata.labels,OWNER:.metadata.ownerReferences[0].kind",
    "NAME:.metadata.name,USAGE:.status.admission.podSetAssignments[0].resourceUsage,MISSING:.status.nope",
    "C:.status.conditions[*].type,S:.status.conditions[?(@.type==\"Admitted\")].status,P:.spec.podSets[0].name",
]


@pytest.mark.parametrize("spec", SPECS)
def test_custom_columns_are_kubectl_gets(mig, spec):
    items = mig.get_json("workloads", "-n", "ml-research")["items"]
    kubectl = mig.kubectl("get", "workloads", "-n", "ml-research", "-o", f"custom-columns={spec}").stdout
    assert columns.render(columns.from_spec(spec), items, no_headers=False) == kubectl
    no_headers = mig.kubectl("get", "workloads", "-n", "ml-research", "--no-headers", "-o",
                             f"custom-columns={spec}").stdout
    assert columns.render(columns.from_spec(spec), items, no_headers=True) == no_headers


def test_names_are_kubectl_gets(mig):
    assert run_plugin(mig, "classes", "-o", "name").stdout == mig.kubectl("get", "deviceclasses", "-o", "name").stdout
    assert run_plugin(mig, "explain", "-A", "-o", "name").stdout == \
        mig.kubectl("get", "workloads.kueue.x-k8s.io", "-A", "-o", "name").stdout


def _requests(stats_file: Path) -> list[str]:
    return [call["path"] for call in json.loads(stats_file.read_text())["calls"]]


def test_selectors_are_sent_to_the_server(mig, tmp_path):
    mig.kubectl("label", "deviceclass", "mig.nvidia.com", "team=ml", "--overwrite")
    stats = tmp_path / "stats.json"
    proc = run_plugin(mig, "classes", "-l", "team=ml", "-o", "name", env={"KUEUE_DRA_STATS": str(stats)})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == mig.kubectl("get", "deviceclasses", "-l", "team=ml", "-o", "name").stdout == \
        "deviceclass.resource.k8s.io/mig.nvidia.com\n"
    assert any("labelSelector=team%3Dml" in p for p in _requests(stats))
    selector = "status.admission.clusterQueue=research-cq,metadata.name!=job-pretrain-3a271"
    proc = run_plugin(mig, "explain", "-A", "--field-selector", selector, "-o", "name",
                      env={"KUEUE_DRA_STATS": str(stats)})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == mig.kubectl("get", "workloads.kueue.x-k8s.io", "-A", "--field-selector", selector,
                                      "-o", "name").stdout == "workload.kueue.x-k8s.io/job-notebook-eval-d2c61\n"
    assert any("fieldSelector=status.admission.clusterQueue" in p for p in _requests(stats))


WATCHED = {
    "apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
    "metadata": {"name": "watch-me", "namespace": "ml-research"},
    "spec": {"queueName": "research", "podSets": [{"name": "main", "count": 1, "template": {"spec": {
        "restartPolicy": "Never",
        "containers": [{"name": "c", "image": "busybox", "resources": {"requests": {"cpu": "1"}}}]}}}]},
}
INADMISSIBLE = {"status": {"conditions": [{
    "type": "QuotaReserved", "status": "False", "reason": "Inadmissible", "message": "ClusterQueue research-cq is inactive",
    "lastTransitionTime": "2026-09-01T08:00:00Z"}]}}


def _in_background(mig, *args, env=None):
    result = {}

    def watch():
        result["proc"] = run_plugin(mig, *args, env=env)
    thread = threading.Thread(target=watch)
    thread.start()
    return thread, result


def _patch_status(mig, body):
    mig.kubectl("patch", "workload", "watch-me", "-n", "ml-research", "--subresource=status", "--type=merge",
                "-p", json.dumps(body))


def test_watch_follows_a_workload_across_reconnects(mig, monkeypatch, tmp_path):
    from kubectl_kueue_dra.commands.explain import watch

    monkeypatch.setattr(watch, "SERVER_TIMEOUT", 1)  # the server ends each watch after 1 s: resumed each time
    mig.delete(WATCHED)
    mig.apply(WATCHED)
    started = time.monotonic()
    stats = tmp_path / "stats.json"
    thread, result = _in_background(mig, "explain", "workload/watch-me", "-n", "ml-research", "-w", "--timeout", "9s",
                                    env={"KUEUE_DRA_STATS": str(stats)})
    time.sleep(3.5)  # past several server-ended watches
    _patch_status(mig, INADMISSIBLE)
    thread.join(60)
    proc = result["proc"]
    assert proc.returncode == 0, proc.stderr
    assert 9 <= time.monotonic() - started < 30
    first, _, changes = proc.stdout.partition("\nNAME ")
    assert first.startswith("Workload ml-research/watch-me") and "state Pending" in first
    rows = ("NAME " + changes).splitlines()
    assert rows[0].split()[:2] == ["NAME", "OWNER"] and len(rows) == 2, rows
    assert rows[1].split()[0] == "watch-me" and "Pending" in rows[1].split()  # its stale message is a finding
    watches = [p for p in _requests(stats) if "watch=1" in p]
    assert len(watches) >= 4  # one per second: each resumed where the last ended
    assert all("resourceVersion=" in p and "fieldSelector=metadata.name%3Dwatch-me" in p for p in watches)
    versions = [p.split("resourceVersion=")[1].split("&")[0] for p in watches]
    assert int(versions[-1]) > int(versions[0])  # the change moved the resourceVersion it resumes from


def test_watch_only_lists_one_document_per_change(mig):
    mig.delete(WATCHED)
    mig.apply(WATCHED)
    thread, result = _in_background(mig, "explain", "-n", "ml-research", "--watch-only", "-o", "json",
                                    "--timeout", "6s")
    time.sleep(2.5)
    _patch_status(mig, INADMISSIBLE)
    time.sleep(1)
    mig.delete(WATCHED)
    thread.join(60)
    proc = result["proc"]
    assert proc.returncode == 0, proc.stderr
    docs = [json.loads(part) for part in proc.stdout.replace("}\n{", "}\n\0{").split("\0")]
    assert [(d["summary"]["name"], d["summary"]["state"]) for d in docs] == \
        [("watch-me", "Pending"), ("watch-me", "Deleted")]


def test_watch_lists_again_on_410_gone(mig, monkeypatch, tmp_path):
    """A resourceVersion the server no longer has (1: older than its watch cache) is answered 410
    Gone; the watch lists again, takes the current resourceVersion and goes on."""
    from kubectl_kueue_dra.kube.live import LiveView

    real = LiveView.resource_version
    calls = []

    def first_too_old(self, *args, **kw):
        calls.append(args)
        return "1" if len(calls) == 1 else real(self, *args, **kw)

    monkeypatch.setattr(LiveView, "resource_version", first_too_old)
    mig.delete(WATCHED)
    mig.apply(WATCHED)
    stats = tmp_path / "stats.json"
    thread, result = _in_background(mig, "explain", "-n", "ml-research", "--watch-only", "-o", "name",
                                    "--timeout", "6s", env={"KUEUE_DRA_STATS": str(stats)})
    time.sleep(3)
    _patch_status(mig, INADMISSIBLE)
    thread.join(60)
    proc = result["proc"]
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "workload.kueue.x-k8s.io/watch-me\n"
    watches = [p for p in _requests(stats) if "watch=1" in p]
    assert "resourceVersion=1&" in watches[0] and len(calls) >= 2 and "resourceVersion=1&" not in watches[-1]
