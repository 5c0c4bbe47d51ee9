"""The CLI run in process (``main(args, Environment)``) leaks nothing from one run into the next:
not the per-run cache, the stats, the colour, -v, the global flags, the environment variables or
the streams."""

import json
import logging
import os
import sys
from pathlib import Path

from testenv.clirun import run

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
MIG = str(EXAMPLES / "mig-partitionable")
EXTENDED = str(EXAMPLES / "extended-resource")  # has findings, which are coloured


def test_environment_and_streams_are_put_back():
    before = dict(os.environ), sys.stdout, sys.stderr, sys.stdin, os.getcwd()
    proc = run("classes", "--from", MIG, env={"KUBECONFIG": "/somewhere/else", "NO_COLOR": ""})
    assert proc.returncode == 0
    assert (dict(os.environ), sys.stdout, sys.stderr, sys.stdin, os.getcwd()) == before
    # and the variable the first run had is not seen by the next one
    line = run("classes").stderr.strip()
    assert "/somewhere/else" not in line and line.startswith("error: no kubeconfig found")


def test_verbose_is_one_runs_only():
    noisy = run("classes", "--from", MIG, "-v")
    quiet = run("classes", "--from", MIG)
    assert noisy.returncode == quiet.returncode == 0
    assert logging.getLogger("kubectl_kueue_dra").level == logging.WARNING
    assert quiet.stderr == ""
    # one handler however many runs, writing to the stderr of the run in progress
    handlers = logging.getLogger("kubectl_kueue_dra").handlers
    assert len([h for h in handlers if type(h).__name__ == "_StderrHandler"]) == 1


def test_debug_lines_go_to_the_current_run(tmp_path):
    kc = tmp_path / "kc"
    kc.write_text("apiVersion: v1\nkind: Config\ncurrent-context: c\n"
                  "clusters: [{name: c, cluster: {server: 'https://127.0.0.1:1'}}]\n"
                  "users: [{name: u, user: {token: t}}]\ncontexts: [{name: c, context: {cluster: c, user: u}}]\n")
    first = run("classes", "--kubeconfig", str(kc), "--request-timeout", "1s", "-v")
    second = run("classes", "--kubeconfig", str(kc), "--request-timeout", "1s", "-v")
    assert "debug:" in first.stderr and "debug:" in second.stderr
    assert first.stderr.count("debug:") == second.stderr.count("debug:")


def test_colour_and_global_flags_do_not_carry_over():
    coloured = run("classes", "--from", EXTENDED, "--color", "always", "--no-headers")
    plain = run("classes", "--from", EXTENDED)
    assert "\x1b[" in coloured.stdout and "\x1b[" not in plain.stdout
    assert plain.stdout.startswith("NAME ")  # --no-headers was the first run's
    assert run("-n", "x", "explain", "job/notebook-eval", "--from", MIG).returncode == 1  # not in x
    assert run("explain", "job/notebook-eval", "-n", "ml-research", "--from", MIG).returncode == 0
    assert run("version", "--from", MIG).returncode == 0  # -n of the run before is not given here


def test_stats_are_counted_per_run(tmp_path):
    first, second = tmp_path / "1.json", tmp_path / "2.json"
    assert run("classes", "--from", MIG, env={"KUEUE_DRA_STATS": str(first)}).returncode == 0
    assert run("classes", "--from", MIG).returncode == 0  # not recorded anywhere
    assert run("classes", "--from", MIG, env={"KUEUE_DRA_STATS": str(second)}).returncode == 0
    a, b = json.loads(first.read_text()), json.loads(second.read_text())
    assert a["celEvaluations"] == b["celEvaluations"] > 0  # not the sum of both runs
    assert a["argv"] == b["argv"] == ["classes", "--from", MIG]


def test_same_answer_every_time():
    """Nothing cached by one run changes the next (the view's cache lives and dies with its run)."""
    docs = [json.loads(run("verify", "--from", MIG, "-o", "json").stdout) for _ in range(2)]
    assert docs[0] == docs[1]


def test_python_dash_m_entry_point_exits_with_the_code(monkeypatch, capsys):
    """``python -m kubectl_kueue_dra`` in this process: run() exits with main()'s code (and turns
    the cyclic collector off for the short run, which is put back here)."""
    import gc
    import runpy

    import pytest

    monkeypatch.setattr(sys, "argv", ["kubectl-kueue_dra", "--version"])
    try:
        with pytest.raises(SystemExit) as exit_:
            runpy.run_module("kubectl_kueue_dra", run_name="__main__")
    finally:
        gc.enable()
    assert exit_.value.code == 0 and capsys.readouterr().out.startswith("kueue-dra ")
