"""kubectl's habits on every command, in process on the example snapshots: the -o spellings, -o name,
jsonpath, custom-columns, --sort-by, -l/--field-selector, -f many/dir/-R/stdin, one-line errors
(click's own too), --watch refused offline, and the table fixes (colour alignment, --no-headers)."""

import json
import re
from pathlib import Path

import pytest
from testenv.clirun import run  # in process (testenv/clirun.py)

ROOT = Path(__file__).resolve().parents[2]
MIG = str(ROOT / "examples" / "mig-partitionable")
RCT = str(ROOT / "examples" / "resourceclaimtemplate")
NOTEBOOK_UID = "5e4d3c2b-1a09-4f8e-9d7c-6b5a4e3d2c61"


def ok(*args, input=None):
    proc = run(*args, input=input)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    return proc.stdout


def error_line(proc, code=2):
    assert proc.returncode == code, (proc.stdout, proc.stderr)
    assert proc.stdout == "" and "Traceback" not in proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), proc.stderr
    return lines[0]


@pytest.mark.parametrize("spelling", [["-ojson"], ["-o=json"], ["--output=json"], ["--output", "json"],
                                      ["-o", "json"]])
def test_every_spelling_of_o(spelling):
    assert json.loads(ok("classes", "--from", MIG, *spelling)) == json.loads(ok("classes", "--from", MIG, "-o", "json"))


@pytest.mark.parametrize("spelling", [["-ojsonpath={.deviceClasses[*].name}"], ["-o=jsonpath={.deviceClasses[*].name}"],
                                      ["--output=jsonpath={.deviceClasses[*].name}"],
                                      ["-o", "jsonpath", "--template", "{.deviceClasses[*].name}"]])
def test_jsonpath_spellings_print_exactly_the_values(spelling):
    assert ok("classes", "--from", MIG, *spelling) == "gpu.nvidia.com mig.nvidia.com"  # no newline, as kubectl


def test_jsonpath_runs_over_the_json_document():
    doc = json.loads(ok("explain", "-A", "--from", MIG, "-o", "json"))
    out = ok("explain", "-A", "--from", MIG, "-o",
             'jsonpath={range .items[*]}{.summary.name}{"\\t"}{.summary.draCharge.gpu\\.memory}{"\\n"}{end}')
    assert out == "".join(f"{i['summary']['name']}\t{i['summary']['draCharge']['gpu.memory']}\n" for i in doc["items"])
    filtered = ok("explain", "-A", "--from", MIG, "-o",
                  'jsonpath={.items[?(@.summary.owner=="job/pretrain")].summary.name}')
    assert filtered == "job-pretrain-3a271"
    # a null beside a string does not compare, in kubectl either
    line = error_line(run("explain", "-A", "--from", MIG, "-o", 'jsonpath={.items[?(@.position=="x")]}'), 1)
    assert line.endswith("Error executing template: invalid type for comparison")


def test_jsonpath_missing_keys_and_the_flag():
    assert ok("classes", "--from", MIG, "-o", "jsonpath={.nope}") == ""
    line = error_line(run("classes", "--from", MIG, "-o", "jsonpath={.nope}", "--allow-missing-template-keys=false"),
                      code=1)
    assert line == 'error: error executing jsonpath "{.nope}": Error executing template: nope is not found'
    assert ok("classes", "--from", MIG, "-o", "jsonpath={.source}", "--allow-missing-template-keys=false") == \
        f"snapshot {MIG}"


def test_jsonpath_and_custom_columns_files(tmp_path):
    (tmp_path / "t.jsonpath").write_text("{.deviceClasses[0].name}")
    (tmp_path / "cols.txt").write_text("CLASS DEVICES\n.name .matchingDevices\n")
    assert ok("classes", "--from", MIG, "-o", f"jsonpath-file={tmp_path / 't.jsonpath'}") == "gpu.nvidia.com"
    assert ok("classes", "--from", MIG, "-o", f"custom-columns-file={tmp_path / 'cols.txt'}") == (
        "CLASS            DEVICES\ngpu.nvidia.com   16\nmig.nvidia.com   224\n")
    assert error_line(run("classes", "--from", MIG, "-o", f"jsonpath-file={tmp_path / 'none'}")) == \
        f"error: -o jsonpath-file: cannot read {tmp_path / 'none'}: No such file or directory"


def test_name_per_command():
    assert ok("classes", "--from", MIG, "-o", "name") == \
        "deviceclass.resource.k8s.io/gpu.nvidia.com\ndeviceclass.resource.k8s.io/mig.nvidia.com\n"
    assert ok("classes", "--devices", "mig.nvidia.com", "--from", MIG, "-o", "name") == \
        "deviceclass.resource.k8s.io/mig.nvidia.com\n"
    assert ok("explain", "-A", "--from", MIG, "-o", "name") == \
        "workload.kueue.x-k8s.io/job-notebook-eval-d2c61\nworkload.kueue.x-k8s.io/job-pretrain-3a271\n"
    assert ok("explain", "job/pretrain", "-n", "ml-research", "--from", MIG, "-o", "name") == \
        "workload.kueue.x-k8s.io/job-pretrain-3a271\n"
    for command in ("verify", "map", "version"):
        line = error_line(run(command, "--from", MIG, "-o", "name"))
        assert line.startswith(f"error: -o name does nothing for {command}; {command} prints table"), line


def test_custom_columns_over_each_commands_items():
    assert ok("explain", "-A", "--from", MIG, "-o",
              "custom-columns=NAME:.summary.name,STATE:.summary.state,CHARGE:.summary.draCharge,Q:.queue.nope") == (
        "NAME                      STATE      CHARGE                    Q\n"
        "job-notebook-eval-d2c61   Admitted   map[gpu.memory:19Gi]      <none>\n"
        "job-pretrain-3a271        Admitted   map[gpu.memory:80384Mi]   <none>\n")
    assert ok("map", "--from", MIG, "-o", "custom-columns=NAME:.name,CLASSES:.deviceClassNames", "--no-headers") == \
        "gpu.memory   [gpu.nvidia.com mig.nvidia.com]\n"
    checks = json.loads(run("verify", "--from", MIG, "-o", "json").stdout)["checks"]
    out = run("verify", "--from", MIG, "-o", "custom-columns=ID:.id,STATUS:.status").stdout
    assert out.splitlines()[0].split() == ["ID", "STATUS"]
    assert [line.split() for line in out.splitlines()[1:]] == [[c["id"], c["status"]] for c in checks]


def test_sort_by():
    names = ok("classes", "--from", MIG, "--sort-by=.matchingDevices", "-o", "name").split()
    assert names == ["deviceclass.resource.k8s.io/gpu.nvidia.com", "deviceclass.resource.k8s.io/mig.nvidia.com"]
    by_charge = ok("explain", "-A", "--from", MIG, "--sort-by", "{.summary.draCharge.gpu\\.memory}",
                   "-o", "jsonpath={.items[*].summary.name}")
    assert by_charge == "job-notebook-eval-d2c61 job-pretrain-3a271"  # 19Gi < 80384Mi as quantities
    table = ok("explain", "-A", "--from", MIG, "--sort-by=.summary.reason")
    rows = table.splitlines()[1:]
    assert rows[0].split()[1] == "job-notebook-eval-d2c61"  # no reason first, as kubectl puts a missing value
    line = error_line(run("classes", "--from", MIG, "--sort-by=.nothing"), code=1)
    assert line == 'error: couldn\'t find any field with path "{.nothing}" in the list of objects'


def test_label_and_field_selectors_offline():
    assert ok("explain", "-A", "--from", MIG, "-l", f"kueue.x-k8s.io/job-uid={NOTEBOOK_UID}", "-o", "name") == \
        "workload.kueue.x-k8s.io/job-notebook-eval-d2c61\n"
    assert ok("explain", "-A", "--from", MIG, "-l", f"kueue.x-k8s.io/job-uid notin ({NOTEBOOK_UID})", "-o", "name") == \
        "workload.kueue.x-k8s.io/job-pretrain-3a271\n"
    assert ok("explain", "-A", "--from", MIG, "--field-selector", "metadata.name!=job-pretrain-3a271", "-o",
              "name") == "workload.kueue.x-k8s.io/job-notebook-eval-d2c61\n"
    assert ok("explain", "-A", "--from", MIG, "--field-selector", "status.admission.clusterQueue=other",
              "-o", "name") == ""
    assert ok("classes", "--from", MIG, "--field-selector=metadata.name=mig.nvidia.com", "-o", "name") == \
        "deviceclass.resource.k8s.io/mig.nvidia.com\n"
    assert ok("classes", "--from", MIG, "-l", "missing", "-o", "name") == ""
    line = error_line(run("explain", "-A", "--from", MIG, "--field-selector", "spec.queueName=x"))
    assert "is not a known field selector" in line
    assert error_line(run("explain", "-A", "--from", MIG, "-l", "a in b")).startswith(
        'error: label selector "a in b": in needs a list in parentheses')
    assert error_line(run("explain", "job/x", "--from", MIG, "-l", "a=b")) == \
        "error: -l and --field-selector select the workloads to list; they do not go with TYPE/NAME"
    assert error_line(run("verify", "--from", MIG, "-l", "a=b")).startswith("error: unknown flag: -l")


JOB = """apiVersion: batch/v1
kind: Job
metadata: {{name: {name}, namespace: ml-research, labels: {{kueue.x-k8s.io/queue-name: research}}}}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{{name: t, image: busybox, resources: {{requests: {{cpu: "{cpu}"}}}}}}]
"""


def _names(stdout):
    doc = json.loads(stdout)
    items = doc["items"] if "items" in doc else [doc]
    return [i["manifest"]["name"] for i in items]


def test_f_many_dir_recursive_and_stdin(tmp_path):
    (tmp_path / "a.yaml").write_text(JOB.format(name="a", cpu=1))
    (tmp_path / "b.yaml").write_text(JOB.format(name="b", cpu=2))
    (tmp_path / "notes.txt").write_text("not a manifest")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "c.json").write_text(json.dumps({
        "apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "c", "namespace": "ml-research"},
        "spec": {"template": {"spec": {"containers": [{"name": "t", "image": "x"}]}}}}))
    a, b = str(tmp_path / "a.yaml"), str(tmp_path / "b.yaml")
    assert _names(ok("explain", "-f", a, "-f", b, "--from", MIG, "-o", "json")) == ["a", "b"]
    assert _names(ok("explain", "-f", str(tmp_path), "--from", MIG, "-o", "json")) == ["a", "b"]
    assert _names(ok("explain", "-f", str(tmp_path), "-R", "--from", MIG, "-o", "json")) == ["a", "b", "c"]
    assert _names(ok("explain", "-f", "-", "-f", b, "--from", MIG, "-o", "json",
                     input=JOB.format(name="s", cpu=3))) == ["s", "b"]
    assert ok("explain", "-f", a, "-f", b, "--from", MIG, "-o", "name") == "job.batch/a\njob.batch/b\n"
    empty = tmp_path / "empty"
    empty.mkdir()
    assert error_line(run("explain", "-f", str(empty), "--from", MIG)) == \
        f"error: -f {empty}: no .json, .yaml or .yml file in it (-R reads its subdirectories)"
    assert error_line(run("explain", "-R", "--from", MIG)) == "error: -R reads the directories -f names; give -f DIR"


@pytest.mark.parametrize("args,line", [
    (["classes", "--bogus"], "error: unknown flag: --bogus (did you mean --verbose?); see 'kubectl kueue-dra classes "
                             "--help'"),
    (["classes", "--color=x"], "error: invalid value for --color: 'x' is not one of 'auto', 'always', 'never'; "
                               "see 'kubectl kueue-dra classes --help'"),
    (["classes", "-o"], "error: flag needs an argument: -o"),
    (["map", "set"], "error: missing argument 'NAME'; see 'kubectl kueue-dra map set --help'"),
    (["explain", "a", "b"], "error: got unexpected extra argument (b); see 'kubectl kueue-dra explain --help'"),
    (["classes", "-o", "jsonpath={.a"], "error: error parsing jsonpath {.a, unclosed action"),
    (["classes", "-o", "custom-columns=NAME"], "error: unexpected custom-columns spec: NAME, expected "
                                               "<header>:<json-path-expr>"),
    (["classes", "-o", "json", "--template", "{.a}"], "error: --template does nothing with -o json; use -o "
                                                      "jsonpath --template='{…}'"),
    (["classes", "--allow-missing-template-keys=maybe"], 'error: invalid value for --allow-missing-template-keys: '
                                                         'invalid argument "maybe" for "--allow-missing-template-keys":'
                                                         " want true or false; see 'kubectl kueue-dra classes --help'"),
])
def test_usage_errors_are_one_line(args, line):
    assert error_line(run(args[0], "--from", MIG, *args[1:])) == line


def test_usage_hint_only_with_h():
    assert "Usage:" in ok("classes", "-h")
    assert "Usage:" not in run("classes", "--bogus").stderr


def test_watch_refuses_what_does_not_change():
    assert error_line(run("explain", "-A", "-w", "--from", MIG)) == \
        "error: --watch follows a live cluster; a snapshot (--from) does not change"
    assert error_line(run("explain", "-A", "--timeout", "5s", "--from", MIG)) == "error: --timeout ends a --watch; give -w"
    assert error_line(run("explain", "-A", "-w", "--timeout", "5x", "--from", MIG)).startswith('error: invalid --timeout "5x"')


def test_verify_colour_keeps_columns_aligned():
    out = ok("verify", "--from", MIG, "--color=always")
    visible = [re.sub("\x1b\\[[0-9;]*m", "", line) for line in out.splitlines()]
    table = visible[:visible.index("")]
    starts = {line.index(line.split()[1], len(line.split()[0])) for line in table}
    assert len(starts) == 1, table  # the CHECK column starts at the same place on every line
    assert "\x1b[" in out


def test_map_no_headers_prints_rows_only():
    out = ok("map", "--from", MIG, "--no-headers")
    assert out == ok("map", "--from", MIG).split("\n", 2)[2]
    assert out.startswith("gpu.memory ")
