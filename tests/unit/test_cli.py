"""The command line as a user meets it: exit codes, one-line errors, no tracebacks, offline
commands on the example snapshots."""

import json
import socket
import time
from pathlib import Path

import pytest
from testenv.clirun import run  # in process (tests/clirun.py)

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"


def one_line_error(proc, code=1):
    assert proc.returncode == code, (proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    return lines[0]


def test_help_lists_commands_with_descriptions():
    proc = run("--help")
    assert proc.returncode == 0
    for command in ("classes", "explain"):
        assert f"\n  {command} " in proc.stdout
    assert "Examples:" in proc.stdout


def test_version():
    from kubectl_kueue_dra import __version__

    proc = run("--version")
    assert proc.returncode == 0 and proc.stdout.strip() == f"kueue-dra {__version__}"


def test_unknown_command_suggests():
    proc = run("clases")
    assert proc.returncode == 2
    assert "unknown command 'clases'. Did you mean 'classes'?" in proc.stderr


def test_unknown_flag():
    proc = run("classes", "--frm", "x")
    assert proc.returncode == 2
    assert proc.stdout == "" and proc.stderr == (
        "error: unknown flag: --frm (did you mean --from?); see 'kubectl kueue-dra classes --help'\n")


def test_bad_output_format():
    proc = run("classes", "-o", "xml", "--from", str(EXAMPLES / "mig-partitionable"))
    assert proc.returncode == 2 and proc.stderr == (
        'error: unable to match a printer suitable for the output format "xml", allowed formats are: '
        "custom-columns,custom-columns-file,json,jsonpath,jsonpath-as-json,jsonpath-file,name,table,wide,yaml\n")


def test_global_flags_before_and_after_command():
    before = run("-o", "json", "classes", "--from", str(EXAMPLES / "mig-partitionable"))
    after = run("classes", "--from", str(EXAMPLES / "mig-partitionable"), "-o", "json")
    assert before.returncode == after.returncode == 0
    assert json.loads(before.stdout) == json.loads(after.stdout)


@pytest.mark.parametrize("command", [("classes",), ("map",), ("verify",), ("version",),
                                     ("explain", "job/notebook-eval", "-n", "ml-research")])
def test_from_before_the_command_is_the_same_as_after(command):
    before = run("--from", MIG, *command, "-o", "json")
    after = run(*command, "--from", MIG, "-o", "json")
    assert before.returncode == after.returncode and before.returncode in (0, 1)
    assert json.loads(before.stdout) == json.loads(after.stdout)


def test_root_help_mentions_from_and_global_flags_in_both_places():
    text = " ".join(run("--help").stdout.split())
    assert "--from PATH" in text and "before or after the command" in text


@pytest.mark.parametrize("group", ["", "map", "classes"])
def test_every_summary_is_a_whole_sentence_on_one_line(group):
    """Each command's short help is a sentence (a capital, a verb first, a full stop) that the
    help of its group prints whole on one line of an 80-column terminal."""
    args = [group, "--help"] if group else ["--help"]
    listed = run(*args, env={"COLUMNS": "80"}).stdout.split("Commands:")[1].split("\n\n")[0].strip().splitlines()
    from kubectl_kueue_dra.cli import cli
    import click

    ctx = click.Context(cli)
    parent = cli.get_command(ctx, group) if group else cli
    names = parent.list_commands(ctx)  # type: ignore[union-attr]
    assert len(listed) == len(names), listed  # one line each: nothing wrapped
    for line, name in zip(listed, names):
        summary = parent.get_command(ctx, name).short_help  # type: ignore[union-attr]
        assert summary and line.split(None, 1) == [name, summary], (line, summary)
        assert summary[0].isupper() and summary.endswith(".") and "..." not in summary, summary
        assert summary.split()[0] in ("List", "Print", "Explain", "Show", "Check", "Add", "Remove", "Set"), summary


def test_set_extended_resource_from_a_snapshot_needs_client_dry_run():
    er = str(EXAMPLES / "resourceclaimtemplate")
    proc = run("classes", "set-extended-resource", "gpu.nvidia.com", "nvidia.com/gpu", "--from", er,
               "--dry-run=client", "-o", "json")
    doc = json.loads(proc.stdout)
    assert proc.returncode == 0 and doc["changed"] and not doc["written"]
    assert "+  extendedResourceName: nvidia.com/gpu" in doc["diff"]
    assert [f["code"] for f in doc["findings"]] == ["MappingWins"]
    line = one_line_error(run("classes", "set-extended-resource", "gpu.nvidia.com", "nvidia.com/gpu",
                              "--from", er), code=2)
    assert line == "error: --from reads an offline snapshot: a change against it needs --dry-run=client"
    line = one_line_error(run("classes", "set-extended-resource", "nope", "nvidia.com/gpu", "--from", er,
                              "--dry-run=client"))
    assert line == "error: DeviceClass nope is not in the snapshot"


def test_explain_exit_code_offline():
    rct = str(EXAMPLES / "resourceclaimtemplate")
    assert run("explain", "job/batch-infer", "-n", "team-a", "--from", rct).returncode == 0
    assert run("explain", "job/batch-infer", "-n", "team-a", "--from", rct, "--exit-code").returncode == 3
    assert run("explain", "job/train-llm", "-n", "team-a", "--from", rct, "--exit-code").returncode == 0


def test_needs_attention():
    from kubectl_kueue_dra.commands.explain.request import needs_attention

    error = {"severity": "error", "code": "X", "message": "m", "fix": None}
    assert not needs_attention({"state": "Admitted", "findings": []})
    assert needs_attention({"state": "Admitted", "findings": [error]})
    assert needs_attention({"state": "Inadmissible", "findings": []})
    assert not needs_attention({"state": "WhatIf", "findings": [dict(error, severity="warning")]})
    assert needs_attention({"state": "WhatIf", "findings": [error]})
    assert needs_attention({"items": [{"state": "Admitted"}, {"state": "Pending"}]})


def test_one_fact_one_finding_offline(tmp_path):
    rct, er = str(EXAMPLES / "resourceclaimtemplate"), str(EXAMPLES / "extended-resource")
    doc = json.loads(run("explain", "job/batch-infer", "-n", "team-a", "--from", rct, "-o", "json").stdout)
    exhausted = [f for f in doc["findings"] if f["code"] == "QuotaExhausted"]
    assert len(exhausted) == 1 and "Kueue says: \"couldn't assign flavors" in exhausted[0]["message"]
    shared = [f for c in json.loads(run("classes", "--from", er, "-o", "json").stdout)["deviceClasses"]
              for f in c["findings"] if f["code"] == "DuplicateExtendedResourceName"]
    assert len(shared) == 1
    job = tmp_path / "job.yaml"
    job.write_text("""apiVersion: batch/v1
kind: Job
metadata: {name: x, namespace: ml-research, labels: {kueue.x-k8s.io/queue-name: research}}
spec:
  template:
    spec:
      restartPolicy: Never
      resourceClaims: [{name: mig, resourceClaimTemplateName: nope}]
      containers: [{name: c, image: busybox, resources: {requests: {"example.com/foo": "1"}, claims: [{name: mig}]}}]
""")
    doc = json.loads(run("explain", "-f", str(job), "--from", MIG, "-o", "json").stdout)
    missing = next(f for f in doc["findings"] if f["code"] == "ClaimTemplateMissing")
    assert missing["message"].count("retries") == 1
    job.write_text(job.read_text().replace("nope", "mig-3g20gb"))
    codes = [f["code"] for f in json.loads(run("explain", "-f", str(job), "--from", MIG, "-o", "json").stdout)["findings"]]
    assert "ResourceNotCovered" in codes and "WhatIfFit" not in codes


def test_classes_json_contract_on_mig_example():
    proc = run("classes", "--from", str(EXAMPLES / "mig-partitionable"), "-o", "json")
    doc = json.loads(proc.stdout)
    mig = next(c for c in doc["deviceClasses"] if c["name"] == "mig.nvidia.com")
    assert set(mig) >= {"name", "extendedResourceName", "quotaResource", "quotaSource", "matchingDevices",
                        "coveredBy", "findings"}
    assert (mig["quotaResource"], mig["quotaSource"], mig["matchingDevices"], mig["coveredBy"]) == \
        ("gpu.memory", "mapping", 224, ["research-cq"])


def test_classes_table_and_no_headers():
    proc = run("classes", "--from", str(EXAMPLES / "resourceclaimtemplate"))
    assert proc.stdout.splitlines()[0].split() == ["NAME", "EXTENDED", "RESOURCE", "QUOTA", "RESOURCE", "VIA",
                                                   "DEVICES", "COVERED", "BY"]
    assert proc.stdout.splitlines()[1].split() == ["gpu.nvidia.com", "<none>", "whole-gpus", "mapping", "8", "gpu-cq"]
    proc = run("classes", "--from", str(EXAMPLES / "resourceclaimtemplate"), "--no-headers")
    assert proc.stdout.splitlines()[0].split()[0] == "gpu.nvidia.com"


def test_color_always_and_no_color(tmp_path):
    args = ("classes", "--from", str(EXAMPLES / "extended-resource"))
    assert "\x1b[" in run(*args, "--color", "always").stdout
    assert "\x1b[" not in run(*args, "--color", "auto").stdout  # not a terminal
    assert "\x1b[" not in run(*args, env={"NO_COLOR": "1"}).stdout


def test_explain_mig_example_charges_4864Mi_per_device():
    proc = run("explain", "job/notebook-eval", "-n", "ml-research", "--from", str(EXAMPLES / "mig-partitionable"),
               "-o", "json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    ps = doc["podSets"][0]
    assert ps["count"] == 4 and ps["perPod"]["gpu.memory"] == "4864Mi" and ps["charge"]["gpu.memory"] == "19Gi"
    assert doc["recorded"]["gpu.memory"] == "19Gi" and doc["admitted"] is True
    assert set(doc) >= {"workload", "kueueVersion", "admitted", "podSets", "recorded", "findings"}
    counter = next(ln for ln in ps["lines"] if ln["kind"] == "counter")
    assert counter["counterValue"] == "4864Mi" and counter["matchedDevices"] == 2 * 8 * 7


def test_explain_workload_reference_and_yaml_output():
    proc = run("explain", "wl/job-train-llm-a1c41", "-n", "team-a", "--from", str(EXAMPLES / "resourceclaimtemplate"),
               "-o", "yaml")
    assert proc.returncode == 0, proc.stderr
    assert "whole-gpus: '4'" in proc.stdout


@pytest.mark.parametrize("args,message", [
    (("explain", "job/x", "-f", "job.yaml"), "error: give either TYPE/NAME or -f FILE"),
    (("explain", "jobb/x"), 'error: unknown kind "jobb" in "jobb/x"'),
    (("explain", "job"), 'error: invalid reference "job"'),
])
def test_explain_usage_errors(args, message):
    line = one_line_error(run(*args, "--from", str(EXAMPLES / "mig-partitionable")), code=2)
    assert line.startswith(message)


def test_explain_missing_object():
    line = one_line_error(run("explain", "job/nope", "-n", "ml-research", "--from", str(EXAMPLES / "mig-partitionable")))
    assert line == 'error: job "nope" not found in namespace "ml-research"'


def test_explain_manifest_not_a_workload(tmp_path):
    f = tmp_path / "cm.yaml"
    f.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")
    line = one_line_error(run("explain", "-f", str(f), "--from", str(EXAMPLES / "mig-partitionable")), code=2)
    assert "no Job, Pod, JobSet or Workload in it (found ConfigMap)" in line


def test_explain_malformed_manifest(tmp_path):
    f = tmp_path / "job.yaml"
    f.write_text("kind: Job\nspec: [\n")
    line = one_line_error(run("explain", "-f", str(f), "--from", str(EXAMPLES / "mig-partitionable")), code=2)
    assert f"-f {f}:" in line and "malformed YAML" in line


def test_from_missing_path():
    line = one_line_error(run("classes", "--from", "/nonexistent/dir"))
    assert line == "error: --from /nonexistent/dir: no such file or directory"


def test_from_malformed_yaml(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("apiVersion: v1\nkind: List\nitems:\n- {name: [\n")
    line = one_line_error(run("classes", "--from", str(bad)))
    assert line.startswith(f"error: {bad}:") and "malformed YAML" in line


def test_selector_that_does_not_compile_is_a_finding(tmp_path):
    snap = tmp_path / "s.yaml"
    snap.write_text("""apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: broken}
spec: {selectors: [{cel: {expression: "device.driver == "}}]}
""")
    proc = run("classes", "--from", str(snap), "-o", "json")
    assert proc.returncode == 0, proc.stderr
    codes = [f["code"] for f in json.loads(proc.stdout)["deviceClasses"][0]["findings"]]
    assert "SelectorInvalid" in codes


def test_missing_kubeconfig():
    line = one_line_error(run("classes", "--kubeconfig", "/nonexistent/kubeconfig"))
    assert line == "error: kubeconfig /nonexistent/kubeconfig: no such file"


def test_malformed_kubeconfig(tmp_path):
    kc = tmp_path / "kc"
    kc.write_text("clusters: [\n")
    line = one_line_error(run("classes", "--kubeconfig", str(kc)))
    assert line.startswith(f"error: kubeconfig {kc}:") and "malformed YAML" in line


def _kubeconfig(tmp_path, server):
    kc = tmp_path / "kubeconfig"
    kc.write_text(f"""apiVersion: v1
kind: Config
current-context: c
clusters: [{{name: c, cluster: {{server: "{server}", insecure-skip-tls-verify: true}}}}]
users: [{{name: u, user: {{token: t}}}}]
contexts: [{{name: c, context: {{cluster: c, user: u}}}}]
""")
    return kc


def test_unknown_context(tmp_path):
    kc = _kubeconfig(tmp_path, "https://127.0.0.1:1")
    line = one_line_error(run("classes", "--kubeconfig", str(kc), "--context", "prod"))
    assert line == f'error: context "prod" not found in kubeconfig {kc} (available: c)'


def test_unreachable_server_is_quick_and_clear(tmp_path):
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    kc = _kubeconfig(tmp_path, f"https://127.0.0.1:{port}")
    started = time.monotonic()
    line = one_line_error(run("classes", "--request-timeout", "3s", env={"KUBECONFIG": str(kc)}))
    assert time.monotonic() - started < 15
    assert line == (f'error: cannot reach the API server at https://127.0.0.1:{port} (context "c"): connection '
                    "refused; check --context/--kubeconfig and that the cluster is up")


def test_silent_server_times_out(tmp_path):
    with socket.socket() as server:  # accepts connections, never answers
        server.bind(("127.0.0.1", 0))
        server.listen(8)
        kc = _kubeconfig(tmp_path, f"https://127.0.0.1:{server.getsockname()[1]}")
        started = time.monotonic()
        line = one_line_error(run("classes", "--kubeconfig", str(kc), "--request-timeout", "2s"))
        assert time.monotonic() - started < 20
    assert "cannot reach the API server" in line and "no answer within 2s" in line


def test_explain_all_namespaces_finds_the_namespace():
    proc = run("explain", "job/finetune", "-A", "--from", str(EXAMPLES / "extended-resource"), "-o", "json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["workload"]["namespace"] == "team-b"
    line = one_line_error(run("explain", "job/nope", "-A", "--from", str(EXAMPLES / "extended-resource")))
    assert line == 'error: job "nope" not found in any namespace'


# ---- every option checked the same way; flags that do nothing are refused ----------------
MIG = str(EXAMPLES / "mig-partitionable")


@pytest.mark.parametrize("args,message", [
    (("version", "-o", "wide"), "error: -o wide does nothing for version; version prints table, json, yaml, jsonpath"),
    (("version", "--no-headers"), "error: --no-headers does nothing for version"),
    (("completion", "bash", "-n", "x"), "error: -n/--namespace does nothing for completion"),
    (("completion", "bash", "--context", "x"), "error: --context does nothing for completion"),
    (("completion", "bash", "-o", "json"), "error: -o json does nothing for completion"),
    (("classes", "-A", "--from", MIG), "error: -A/--all-namespaces does nothing for classes"),
    (("map", "-n", "x", "--from", MIG), "error: -n/--namespace does nothing for map"),
    (("verify", "-A", "--from", MIG), "error: -A/--all-namespaces does nothing for verify"),
    (("map", "set", "g", "--device-class", "c", "--dry-run=client", "--from", MIG, "--no-headers"),
     "error: --no-headers does nothing for map set"),
    (("-n", "x", "version", "--from", MIG), "error: -n/--namespace does nothing for version"),
    (("explain", "-f", "-", "-A", "--from", MIG), "error: -A finds the namespace of a TYPE/NAME"),
])
def test_flags_that_do_nothing_are_usage_errors(args, message):
    assert one_line_error(run(*args), code=2).startswith(message)


@pytest.mark.parametrize("command", [
    ("explain", "job/notebook-eval", "-n", "ml-research"),
    ("map", "set", "g", "--device-class", "c", "--dry-run=client"),
    ("map", "remove", "gpu.memory", "--dry-run=client"),
])
def test_kueue_version_is_checked_by_every_command_that_takes_it(command):
    line = one_line_error(run(*command, "--kueue-version", "latest", "--from", MIG), code=2)
    assert line == 'error: invalid --kueue-version "latest"; use e.g. 0.19.2'


@pytest.mark.parametrize("command", [("classes",), ("map",), ("verify",), ("version",),
                                     ("explain", "job/notebook-eval", "-n", "ml-research"),
                                     ("map", "set", "g", "--device-class", "c", "--dry-run=client")])
def test_kueue_namespace_is_checked_by_every_command_that_takes_it(command):
    line = one_line_error(run(*command, "--kueue-namespace", "Kueue_System", "--from", MIG), code=2)
    assert line.startswith('error: invalid --kueue-namespace "Kueue_System": must be a DNS label')


def test_durations_name_their_flag():
    line = one_line_error(run("map", "set", "g", "--device-class", "c", "--restart", "--timeout", "soon",
                              "--from", MIG), code=2)
    assert line == 'error: invalid --timeout "soon"; use e.g. "10s", "1m" or "500ms"'


def test_the_root_help_summaries_are_the_commands_own():
    from kubectl_kueue_dra.cli import COMMANDS, cli

    proc = run("--help")
    ctx = cli.make_context("kubectl kueue-dra", ["--help"], resilient_parsing=True)
    for name in COMMANDS:
        summary = cli.get_command(ctx, name).short_help
        assert summary and f"{name} {summary}" in " ".join(proc.stdout.split())


# ---- explain as a table ---------------------------------------------------------------------
def test_explain_table_and_wide():
    args = ("explain", "job/notebook-eval", "-n", "ml-research", "--from", MIG)
    table = run(*args).stdout.splitlines()
    assert table[0].split() == ["Workload", "ml-research/job-notebook-eval-d2c61", "ClusterQueue", "research-cq",
                                "state", "Admitted"]
    assert table[1] == "Kueue 0.19.2 (assumed)"
    assert ["gpu.memory", "4864Mi", "19Gi", "19Gi", "default-flavor"] in [line.split() for line in table]
    assert not any(line.startswith("RESOURCE ") for line in table)  # admitted: no quota table
    wide = run(*args, "-o", "wide").stdout.splitlines()
    assert any("MAX over 112 matching device(s) = 4864Mi × 1 = 4864Mi gpu.memory" in line for line in wide)
    quota = next(i for i, line in enumerate(wide) if line.startswith("RESOURCE "))
    assert wide[quota].split() == ["RESOURCE", "FLAVOR", "NOMINAL", "RESERVED", "FREE", "REQUEST", "FITS"]
    assert ["gpu.memory", "default-flavor", "160Gi", "99Gi", "61Gi", "19Gi", "yes"] in \
        [line.split() for line in wide[quota:]]
    headless = run(*args, "--no-headers").stdout.splitlines()
    assert not any(line.startswith("POD SET") for line in headless)


def test_explain_table_after_admission_pods_claims_and_events():
    """An admitted job whose pods wait (the example's pretrain): the pods, their unallocated claims,
    the scheduler's reason translated with the fragmentation numbers, the events newest last."""
    lines = run("explain", "job/pretrain", "-n", "ml-research", "--from", MIG).stdout.splitlines()
    head = lines.index("Pods and the devices their claims were allocated:")
    assert lines[head + 1].split()[:4] == ["POD", "SET", "POD", "PHASE"]
    assert lines[head + 2].split() == ["main", "pretrain-h2d6n", "Pending", "-", "pretrain-h2d6n-gpu-n6d2h", "-",
                                       "-", "-", "no", "no"]
    events = lines.index("Events (newest last):")
    rows = [line.split()[:5] for line in lines[events + 2:events + 9]]
    assert rows[0][:2] == ["2026-09-01T08:00:00Z", "Job/pretrain"]
    assert rows[-1] == ["2026-09-01T08:09:05Z", "Pod/pretrain-w8c3j", "Warning", "FailedScheduling", "5"]
    [warning] = [line for line in lines if line.startswith("warning: 2 pod(s) of pod set main not scheduled")]
    assert "counter memory of gpu.nvidia.com is fragmented" in warning and warning.endswith("[DevicesUnavailable]")
    assert "552Gi memory is free in the cluster, at most 35328Mi on one counter set" in warning
    running = run("explain", "job/notebook-eval", "-n", "ml-research", "--from", MIG).stdout
    assert "gpu.nvidia.com/a100-node-1/gpu-0-mig-1g5gb-19-0  memory=4864Mi  yes" in running
    wide = run("explain", "job/notebook-eval", "-n", "ml-research", "--from", MIG, "-o", "wide").stdout
    assert "memory-slice-0=1, multiprocessors=14" in wide  # every counter in -o wide


def test_classes_and_verify_count_the_devices_kueue_does_not_charge():
    proc = run("classes", "--from", MIG)
    assert "warning: 12 device(s) of gpu.nvidia.com are allocated to pods Kueue does not charge: 12 in sandbox " \
        "(no admitted Workload: jupyter-00, jupyter-01, jupyter-02 and 9 more) [UnchargedDevices]" in proc.stdout
    doc = json.loads(run("verify", "--from", MIG, "-o", "json").stdout)
    [check] = [c for c in doc["checks"] if c["id"] == "uncharged-devices"]
    assert check["status"] == "warn" and check["uncharged"]["byDriver"] == {"gpu.nvidia.com": 12}


def test_explain_table_of_a_manifest_what_if(tmp_path):
    job = tmp_path / "job.yaml"
    job.write_text("""apiVersion: batch/v1
kind: Job
metadata: {name: what-if, namespace: team-a, labels: {kueue.x-k8s.io/queue-name: team-a-queue}}
spec:
  parallelism: 3
  template:
    spec:
      resourceClaims: [{name: gpu, resourceClaimTemplateName: one-gpu}]
      containers: [{name: c, image: x, resources: {claims: [{name: gpu}]}}]
""")
    proc = run("explain", "-f", str(job), "--from", str(EXAMPLES / "resourceclaimtemplate"))
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "What-if: Job team-a/what-if (not submitted)  state WhatIf"
    assert ["main", "3", "whole-gpus", "1", "3", "-", "-"] in [line.split() for line in lines]  # no queue, no flavor
    assert "error: LocalQueue team-a/team-a-queue does not exist [LocalQueueMissing]" in lines


def test_as_group_without_as_is_a_usage_error():
    proc = run("classes", "--as-group", "system:masters", "--kubeconfig", "/nonexistent")
    line = one_line_error(proc, code=2)
    assert "--as-group needs --as" in line


class _NotFoundEverywhere:
    """An HTTP server that answers 404 to every path (something that is not an API server)."""

    def __enter__(self):
        import http.server
        import threading

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                self.send_response(404)
                self.send_header("Content-Type", "text/plain")
                self.end_headers()
                self.wfile.write(b"404 page not found\n")

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()


@pytest.mark.parametrize("command", ["classes", "verify", "version", "map", "queues"])
def test_a_server_answering_404_everywhere_is_not_kubernetes(tmp_path, command):
    with _NotFoundEverywhere() as url:
        kc = _kubeconfig(tmp_path, url)
        proc = run(command, "--kubeconfig", str(kc), "--request-timeout", "5s")
    assert proc.returncode == 1, proc.stderr
    assert f"error: not a Kubernetes API server at {url}" in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize("where", ["kubeconfig", "-f", "--from"])
def test_non_utf8_bytes_are_one_error_naming_the_file(tmp_path, where):
    bad = tmp_path / "bad.yaml"
    bad.write_bytes(b"apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\xff\n")
    if where == "kubeconfig":
        proc = run("classes", "--kubeconfig", str(bad))
    elif where == "-f":
        proc = run("explain", "-f", str(bad), "--from", str(EXAMPLES / "resourceclaimtemplate"))
    else:
        proc = run("classes", "--from", str(bad))
    line = one_line_error(proc, code=2 if where == "-f" else 1)
    assert str(bad) in line and "not UTF-8 text (byte 0xff at line 4, column 10)" in line, line


@pytest.mark.parametrize(("metadata", "problem"), [
    ("oops", "metadata: expected a mapping, got a string"),
    ("{name: [a]}", "metadata.name: expected a non-empty string, got a list"),
    ("{name: d, labels: {a: [1]}}", "metadata.labels['a']: expected a string, got a list"),
])
def test_an_object_without_a_valid_envelope_is_an_error_naming_file_and_field(tmp_path, metadata, problem):
    snap = tmp_path / "snap.yaml"
    snap.write_text(f"apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {metadata}\n")
    line = one_line_error(run("classes", "--from", str(snap)))
    assert line.startswith(f"error: {snap}: DeviceClass") and problem in line, line


def test_a_list_whose_items_are_no_list_says_so(tmp_path):
    snap = tmp_path / "snap.yaml"
    snap.write_text("apiVersion: v1\nkind: List\nitems:\n  a: b\n")
    line = one_line_error(run("classes", "--from", str(snap)))
    assert line.startswith(f"error: {snap}: List (object 1 of its document): items: expected a list, got a mapping")


@pytest.mark.parametrize("command", [("explain", "-A"), ("explain", "wl/w", "-A"), ("queues",), ("verify",)])
def test_a_namespaced_object_without_a_namespace_is_an_error_naming_it(tmp_path, command):
    """Which namespace it is in is unknown (a manifest for kubectl apply -n, not what a server
    serves): one error, not a guess (an object of no namespace, a LocalQueue it cannot find)."""
    snap = tmp_path / "snap.yaml"
    snap.write_text("apiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\nmetadata: {name: w}\nspec: {queueName: q}\n"
                    "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: f}\n")
    line = one_line_error(run(*command, "--from", str(snap)))
    assert line == (f"error: {snap}: Workload w (object 1 of its document): metadata.namespace: a Workload is "
                    "namespaced, this one names none; fix or remove the object: the API server never serves one "
                    "like it"), line
    snap.write_text(snap.read_text().replace("{name: w}", "{name: w, namespace: a}"))
    assert run(*command, "--from", str(snap)).returncode in (0, 1)


@pytest.mark.parametrize("name,problem", [
    ("gpu", "a domain-prefixed name outside kubernetes.io"), ("kubernetes.io/gpu", "outside kubernetes.io"),
    ("requests.example.com/gpu", "must not begin with 'requests.'"), ("example.com/a/b", "at most one '/'"),
    ("example.com/Bad_", "must be a qualified name"),
])
def test_set_extended_resource_refuses_a_name_the_api_server_refuses(name, problem):
    """IsExtendedResourceName, as the API server checks a DeviceClass: refused before anything is read."""
    proc = run("classes", "set-extended-resource", "gpu.nvidia.com", name, "--from",
               str(EXAMPLES / "cohort-sharing"), "--dry-run=client")
    line = one_line_error(proc)
    assert proc.returncode == 1 and line.startswith(f'error: extended resource name "{name}" must be a valid '
                                                    "extended resource name") and problem in line, line
    ok = run("classes", "set-extended-resource", "gpu.nvidia.com", "example.com/gpu", "--from",
             str(EXAMPLES / "cohort-sharing"), "--dry-run=client")
    assert ok.returncode == 0, ok.stderr


@pytest.mark.parametrize("extra,message", [
    (("--timeout", "5m"), "error: --timeout bounds the wait of --restart: give --restart with it, or leave it out"),
    (("--allow-gate-off",), "error: --allow-gate-off accepts a counter or capacity source whose gate is off: give "
                            "--counter or --capacity with it"),
])
def test_a_map_set_flag_that_does_nothing_here_is_a_usage_error(extra, message):
    proc = run("map", "set", "g", "--device-class", "zz.example.com", "--allow-missing-class", *extra, "--from",
               str(EXAMPLES / "cohort-sharing"), "--dry-run=client")
    assert (proc.returncode, proc.stdout, proc.stderr) == (2, "", message + "\n")
