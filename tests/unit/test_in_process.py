"""The CLI run in process (``main(args, Environment)``) leaks nothing from one run into the next:
not the per-run cache, the stats, the colour, -v, the global flags, the environment variables,
the streams or the clock. A run reads and writes its own Environment only: the process's streams
and variables are neither read nor changed."""

import json
import logging
import os
import sys
from datetime import datetime, timezone
from pathlib import Path

from testenv.clirun import run, run_with

from kubectl_kueue_dra.dra import cel_cache
from kubectl_kueue_dra.environment import Clock

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


def _unreachable_kubeconfig(tmp_path: Path) -> str:
    kc = tmp_path / "kc"
    kc.write_text("apiVersion: v1\nkind: Config\ncurrent-context: c\n"
                  "clusters: [{name: c, cluster: {server: 'https://127.0.0.1:1'}}]\n"
                  "users: [{name: u, user: {token: t}}]\ncontexts: [{name: c, context: {cluster: c, user: u}}]\n")
    return str(kc)


class FakeClock:
    """A clock that moves only when the run sleeps on it (or when told)."""

    def __init__(self, start: float = 1000.0):
        self.time = start
        self.slept: list[float] = []

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.time += seconds

    def clock(self) -> Clock:
        return Clock(now=lambda: datetime(2026, 3, 1, 12, 0, tzinfo=timezone.utc), monotonic=lambda: self.time,
                     sleep=self.sleep)


def test_the_process_streams_and_variables_are_neither_read_nor_written(capfd, monkeypatch, tmp_path):
    """Help, --version, usage errors, errors, -v, completion, output: all on the run's streams;
    the process's variables (a KUBECONFIG, NO_COLOR unset) are not what the run sees."""
    monkeypatch.setenv("KUBECONFIG", "/the/process/kubeconfig")
    monkeypatch.delenv("NO_COLOR", raising=False)
    capfd.readouterr()
    home = {"HOME": str(tmp_path)}
    kc = _unreachable_kubeconfig(tmp_path)
    runs = {
        "help": run_with(["classes", "--help"], home),
        "root help": run_with([], home),
        "version": run_with(["--version"], home),
        "usage": run_with(["classes", "--nope"], home),
        "error": run_with(["classes"], home),
        "debug": run_with(["classes", "--kubeconfig", kc, "-v"], home, clock=FakeClock().clock()),
        "output": run_with(["classes", "--from", EXTENDED, "--color", "auto"], home),
        "cobra": run_with(["__complete", "cla"], home),
        "script": run_with(["completion", "bash"], home),
        "click": run_with([], dict(home, _KUBECTL_KUEUE_DRA_COMPLETE="bash_complete", COMP_WORDS="kubectl-kueue_dra cla",
                                   COMP_CWORD="1")),
    }
    assert capfd.readouterr() == ("", "")  # not one byte reached the process's own streams
    assert runs["help"].stdout.startswith("Usage: ") and runs["root help"].stdout.startswith("Usage: ")
    assert runs["version"].stdout.startswith("kueue-dra ")
    assert runs["usage"].returncode == 2 and "unknown flag: --nope" in runs["usage"].stderr
    assert runs["error"].stderr.startswith("error: no kubeconfig found")
    assert f"{tmp_path}/.kube/config" in runs["error"].stderr and "/the/process" not in runs["error"].stderr
    assert "debug:" in runs["debug"].stderr
    assert "\x1b[" not in runs["output"].stdout  # auto: the run's stdout is no terminal
    assert "\x1b[" in run_with(["classes", "--from", EXTENDED, "--color", "always"], home).stdout
    assert runs["cobra"].stdout.startswith("classes\t") and runs["script"].stdout.startswith("_kubectl_kueue_dra")
    assert runs["click"].stdout == "plain,classes\n"


def test_the_cel_parser_cache_is_the_runs(tmp_path):
    assert run("classes", "--from", MIG, env={"XDG_CACHE_HOME": str(tmp_path / "xdg")}).returncode == 0
    assert cel_cache.directory() == str(tmp_path / "xdg" / "kueue-dra")
    env = {k: v for k, v in os.environ.items() if k != "XDG_CACHE_HOME"}
    assert run_with(["classes", "--from", MIG], dict(env, HOME=str(tmp_path / "home"))).returncode == 0
    assert cel_cache.directory() == str(tmp_path / "home" / ".cache" / "kueue-dra")


def test_the_clock_is_the_runs(tmp_path):
    """The stats' wall time and the API client's retries run on the run's clock, and the next run
    (on the system clock) sees nothing of it."""
    report = tmp_path / "stats.json"
    fake = FakeClock()
    ticks = iter([1000.0, 1002.5])
    clock = Clock(monotonic=lambda: next(ticks, 1002.5), sleep=fake.sleep)
    assert run("classes", "--from", MIG, env={"KUEUE_DRA_STATS": str(report)}, clock=clock).returncode == 0
    assert json.loads(report.read_text())["wallSeconds"] == 2.5  # exactly the run's clock
    assert run("classes", "--from", MIG, env={"KUEUE_DRA_STATS": str(report)}).returncode == 0
    assert json.loads(report.read_text())["wallSeconds"] < 2.5

    kc = _unreachable_kubeconfig(tmp_path)
    fake = FakeClock()
    proc = run("classes", "--kubeconfig", kc, "--request-timeout", "30s", clock=fake.clock())
    assert proc.returncode == 1 and "127.0.0.1:1" in proc.stderr
    # connection refused is retried with backoff: every pause on the run's clock, none slept for real
    assert len(fake.slept) >= 3 and all(0 < s <= 2.4 for s in fake.slept)
    late = FakeClock()
    readings = iter(range(0, 10**6, 100))  # 100 s pass between two readings of the run's clock
    late_clock = Clock(monotonic=lambda: float(next(readings)), sleep=late.sleep)
    assert run("classes", "--kubeconfig", kc, "--request-timeout", "1s", clock=late_clock).returncode == 1
    assert late.slept == []  # the deadline had passed on the run's clock: no retry


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
