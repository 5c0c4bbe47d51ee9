"""Shell completion: kubectl's ``__complete`` protocol, click's bash/zsh/fish scripts, and resource
names completed from a snapshot (the same code path as from a cluster)."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from testenv.clirun import run  # in process (tests/clirun.py)

from kubectl_kueue_dra.cli.completion import KUBECTL_COMPLETE_SCRIPT

ROOT = Path(__file__).resolve().parents[2]
MIG = "examples/mig-partitionable"


def complete(*words, env=None, request="__complete"):
    """(candidates, directive) as kubectl reads them."""
    proc = run(request, *words, env=env)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    lines = proc.stdout.splitlines()
    assert lines and lines[-1].startswith(":"), proc.stdout
    return lines[:-1], int(lines[-1][1:])


def values(candidates):
    return [c.split("\t")[0] for c in candidates]


def test_commands_with_descriptions_and_no_file_completion():
    candidates, directive = complete("")
    assert values(candidates) == ["classes", "completion", "explain", "map", "queues", "verify", "version"]
    assert all("\t" in c for c in candidates)
    assert directive == 4
    assert complete("ver")[0] == [c for c in candidates if c.startswith("ver")]


def test_no_descriptions_variant():
    candidates, _ = complete("", request="__completeNoDesc")
    assert "classes" in candidates and not any("\t" in c for c in candidates)


def test_option_names_and_choice_values():
    assert "--kueue-namespace" in values(complete("classes", "--k")[0])
    assert complete("classes", "-o", "")[0] == ["table", "wide", "json", "yaml", "name", "jsonpath=", "jsonpath-file=",
                                                "jsonpath-as-json=", "custom-columns=", "custom-columns-file="]
    assert complete("classes", "-o", "js") == (["json", "jsonpath=", "jsonpath-file=", "jsonpath-as-json="], 4 | 2)
    assert complete("completion", "")[0] == ["bash", "zsh", "fish", "kubectl"]


def test_path_options_fall_back_to_file_completion():
    assert complete("classes", "--from", "") == ([], 0)
    assert complete("--kubeconfig", "") == ([], 0)


def test_explain_kinds_then_names_from_the_snapshot():
    kinds, directive = complete("explain", "j")
    assert kinds == ["job/", "jobset/", "jaxjob/"] and directive == 4 | 2  # no space after the slash
    assert complete("explain", "--from", MIG, "-n", "ml-research", "job/")[0] == [
        "job/notebook-eval", "job/pretrain"]
    assert complete("explain", "--from", MIG, "-n", "ml-research", "workload/job-p")[0] == [
        "workload/job-pretrain-3a271"]


def test_device_classes_from_the_snapshot():
    assert complete("map", "set", "gpu", "--from", MIG, "--device-class", "")[0] == [
        "gpu.nvidia.com", "mig.nvidia.com"]
    assert complete("classes", "--from", MIG, "set-extended-resource", "m")[0] == ["mig.nvidia.com"]


def test_contexts_from_the_kubeconfig(tmp_path):
    kubeconfig = tmp_path / "config"
    kubeconfig.write_text("apiVersion: v1\nkind: Config\nclusters: []\nusers: []\ncontexts:\n"
                          "- {name: prod, context: {cluster: c, user: u}}\n"
                          "- {name: dev, context: {cluster: c, user: u}}\n")
    assert complete("classes", "--context", "", env={"KUBECONFIG": str(kubeconfig)})[0] == ["dev", "prod"]
    assert complete("--kubeconfig", str(kubeconfig), "--context", "p")[0] == ["prod"]


def test_unreachable_cluster_completes_to_nothing_quickly(tmp_path):
    kubeconfig = tmp_path / "config"
    kubeconfig.write_text("apiVersion: v1\nkind: Config\ncurrent-context: x\n"
                          "clusters: [{name: c, cluster: {server: 'https://127.0.0.1:9'}}]\n"
                          "users: [{name: u, user: {token: t}}]\n"
                          "contexts: [{name: x, context: {cluster: c, user: u}}]\n")
    assert complete("map", "set", "gpu", "--device-class", "", env={"KUBECONFIG": str(kubeconfig)}) == ([], 4)


def test_kubectl_complete_script_is_the_one_shipped():
    assert (ROOT / "packaging" / "kubectl_complete-kueue_dra").read_text() == KUBECTL_COMPLETE_SCRIPT
    assert run("completion", "kubectl").stdout == KUBECTL_COMPLETE_SCRIPT


def test_click_protocol_through_the_environment():
    proc = run(env={"_KUBECTL_KUEUE_DRA_COMPLETE": "bash_complete", "COMP_WORDS": "kubectl-kueue_dra cl",
                    "COMP_CWORD": "1"})
    assert proc.returncode == 0 and proc.stdout.strip() == "plain,classes"


@pytest.mark.parametrize("shell,marker", [
    ("bash", "complete -o nosort -F _kubectl_kueue_dra_completion kubectl-kueue_dra"),
    ("zsh", "#compdef kubectl-kueue_dra"),
    ("fish", "complete --no-files --command kubectl-kueue_dra"),
])
def test_scripts(shell, marker):
    proc = run("completion", shell)
    assert proc.returncode == 0 and marker in proc.stdout and "_KUBECTL_KUEUE_DRA_COMPLETE" in proc.stdout


@pytest.mark.skipif(shutil.which("bash") is None, reason="no bash")
def test_bash_script_completes_in_a_real_bash():
    script = run("completion", "bash").stdout
    bin_dir = Path(sys.executable).parent
    if not (bin_dir / "kubectl-kueue_dra").exists():
        pytest.skip("the kubectl-kueue_dra console script is not installed beside this Python")
    program = script + (
        "\nCOMP_WORDS=(kubectl-kueue_dra classes -o ya); COMP_CWORD=3\n"
        "_kubectl_kueue_dra_completion kubectl-kueue_dra\n"
        'printf "%s\\n" "${COMPREPLY[@]}"\n')
    env = dict(os.environ, PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    proc = subprocess.run(["bash", "--norc", "-c", program], capture_output=True, text=True, env=env,
                          cwd=ROOT, timeout=60)
    assert proc.stdout.split() == ["yaml"], proc.stderr


COHORT = "examples/cohort-sharing"


def test_mapping_names_for_map_set_and_remove():
    assert complete("map", "set", "--from", MIG, "g")[0] == ["gpu.memory"]
    assert complete("map", "remove", "--from", COHORT, "")[0] == ["gpus"]


def test_cluster_queues_for_queues_and_explain():
    assert complete("queues", "--from", COHORT, "")[0] == ["team-a-cq", "team-b-cq"]
    assert complete("explain", "--from", COHORT, "--cluster-queue", "team-b")[0] == ["team-b-cq"]


def test_local_queues_of_the_namespace_or_of_all():
    assert complete("explain", "--from", MIG, "-n", "ml-research", "--local-queue", "")[0] == ["research"]
    assert complete("explain", "--from", MIG, "-n", "default", "--local-queue", "")[0] == []
    assert complete("explain", "--from", MIG, "-A", "--local-queue", "")[0] == ["research"]


def test_classes_devices_completes_class_names():
    assert complete("classes", "--from", MIG, "--devices", "")[0] == ["gpu.nvidia.com", "mig.nvidia.com"]
    assert complete("classes", "--from", MIG, "--devices", "m")[0] == ["mig.nvidia.com"]


def test_workload_names_of_the_namespace():
    assert complete("explain", "--from", COHORT, "-n", "team-b", "workload/")[0] == [
        "workload/job-eval-d7302", "workload/job-finetune-f1303"]
