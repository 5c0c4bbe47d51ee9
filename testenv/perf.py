"""Timing the plugin against kubectl on the same server, in the same run (scripts/bench, test_perf).

Every measured command runs as a child process; its wall time comes from the parent's clock and
its peak RSS from ``os.wait4`` (the child's own rusage). The plugin also reports its requests,
bytes read and CEL evaluations through ``KUEUE_DRA_STATS`` (see ``kubectl_kueue_dra/stats.py``).
Measurements alternate plugin, kubectl, floor, plugin, kubectl, floor … so all see the same
machine load, and the median of the repeats is what counts. The floor (``rawget.py``) sends the
plugin's own GET requests and reads the bytes without parsing them: the transfer alone.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

from testenv.harness import REPO_ROOT

PLUGIN = [sys.executable, "-m", "kubectl_kueue_dra"]


@dataclass
class Run:
    wall: float
    max_rss_kib: int
    exit_code: int
    cpu: float = 0.0  # user + system seconds of the child
    stats: dict[str, Any] | None = None
    stdout: bytes = b""
    stderr: bytes = b""


GNU_TIME = Path("/usr/bin/time")


def run_child(argv: list[str], env: dict[str, str] | None = None, capture: bool = False,
              cwd: Path = REPO_ROOT) -> Run:
    """Run argv; wall time, the child's own peak RSS (KiB), CPU time and exit code. stdout is
    discarded unless ``capture`` (then it goes through a temporary file, which costs the child no
    more than a pipe).

    The peak RSS comes from GNU time when it is installed: Linux keeps a process's RSS high-water
    mark across fork and exec, so a child started directly from this (big) process would report
    at least this process's size; started from the small ``time`` process it reports its own.
    """
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, \
            tempfile.NamedTemporaryFile("r", suffix=".time") as timing:
        wrapped = [str(GNU_TIME), "-f", "%M %U %S", "-o", timing.name, *argv] if GNU_TIME.exists() else argv
        t0 = time.perf_counter()
        proc = subprocess.Popen(wrapped, stdout=out if capture else subprocess.DEVNULL, stderr=err,
                                stdin=subprocess.DEVNULL, env=env, cwd=cwd)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        code = os.waitstatus_to_exitcode(status)
        rss, cpu = usage.ru_maxrss, usage.ru_utime + usage.ru_stime
        fields = (timing.read().strip().splitlines() or [""])[-1].split() if GNU_TIME.exists() else []
        if len(fields) == 3:
            rss, cpu = int(fields[0]), float(fields[1]) + float(fields[2])
        out.seek(0)
        err.seek(0)
        return Run(wall, rss, code, cpu, stdout=out.read() if capture else b"", stderr=err.read())


def plugin(kubeconfig: Path | None, args: list[str], capture: bool = False, context: str = "admin") -> Run:
    """The plugin from source, with KUEUE_DRA_STATS. ``kubeconfig=None``: offline (--from in args)."""
    fd, stats_path = tempfile.mkstemp(prefix="kueue-dra-stats-", suffix=".json")
    os.close(fd)
    env = dict(os.environ, KUEUE_DRA_STATS=stats_path, NO_COLOR="1")
    argv = list(PLUGIN)
    if kubeconfig is not None:
        env["KUBECONFIG"] = str(kubeconfig)
        argv += ["--kubeconfig", str(kubeconfig), "--context", context]
    try:
        run = run_child(argv + list(args), env, capture)
        try:
            run.stats = json.loads(Path(stats_path).read_text())
        except (OSError, ValueError):
            run.stats = None
    finally:
        os.unlink(stats_path)
    return run


def kubectl(cluster: Any, args: list[str]) -> Run:
    """The built kubectl against the cluster, output discarded (it is still produced)."""
    env = dict(os.environ, KUBECONFIG=str(cluster.kubeconfig), KUBECACHEDIR=str(cluster.dir / "kubectl-cache"))
    return run_child([str(cluster.bin_dir / "kubectl"), f"--kubeconfig={cluster.kubeconfig}", "--context=admin",
                      *args], env)


RAWGET = Path(__file__).resolve().parent / "rawget.py"


def replayed_paths(stats: dict[str, Any] | None) -> list[str]:
    """The GET requests of a plugin run (from its KUEUE_DRA_STATS), once each: a list's pages are
    one path (rawget follows the ``continue`` tokens itself)."""
    out: list[str] = []
    for call in (stats or {}).get("calls") or []:
        if call.get("method") != "GET" or call.get("status") != 200:
            continue
        url = urlsplit(call["path"])
        query = urlencode([(k, v) for k, v in parse_qsl(url.query) if k != "continue"])
        path = url.path + (f"?{query}" if query else "")
        if path not in out:
            out.append(path)
    return out


def raw_transfer(cluster: Any, paths: list[str]) -> Run:
    """The floor: ``paths`` read over one HTTPS connection by a fresh interpreter, bytes discarded."""
    run = run_child([sys.executable, str(RAWGET), cluster.server, str(cluster.pki.ca_cert),
                     cluster.tokens["admin"], *paths], capture=True)
    if run.exit_code != 0:
        raise RuntimeError(f"rawget failed: {run.stderr[-500:]!r}")
    run.stats = json.loads(run.stdout)
    return run


def kubectl_lists(command: str, namespace: str, kueue_namespace: str = "kueue-system",
                  driver: str = "gpu.nvidia.com") -> list[list[str]]:
    """The ``kubectl get`` calls that read what the command reads: ResourceSlices first (the
    headline comparison), then the other lists. ``explain`` of a MIG workload needs only the GPU
    driver's slices, and asks the server for just those, so kubectl gets the same selector."""
    slices = ["get", "resourceslices", "-o", "json"]
    if command == "classes":
        return [slices, ["get", "deviceclasses,clusterqueues", "-o", "json"],
                ["get", "configmaps,deployments", "-n", kueue_namespace, "-o", "json"]]
    if command == "explain":
        return [["get", "resourceslices", "--field-selector", f"spec.driver={driver}", "-o", "json"],
                ["get", "deviceclasses,clusterqueues", "-o", "json"],
                ["get", "workloads,jobs,resourceclaimtemplates,localqueues,limitranges", "-n", namespace, "-o", "json"],
                ["get", "configmaps,deployments", "-n", kueue_namespace, "-o", "json"]]
    if command == "verify":
        return [slices, ["get", "deviceclasses,clusterqueues,localqueues,namespaces", "-A", "-o", "json"],
                ["get", "configmaps,deployments", "-n", kueue_namespace, "-o", "json"]]
    raise ValueError(command)


@dataclass
class Comparison:
    command: str
    plugin_runs: list[Run] = field(default_factory=list)
    kubectl_slices: list[float] = field(default_factory=list)  # seconds, kubectl get resourceslices
    kubectl_all: list[float] = field(default_factory=list)  # seconds, every list the command needs
    kubectl_rss_kib: list[int] = field(default_factory=list)
    kubectl_slices_cpu: list[float] = field(default_factory=list)  # user + system seconds
    floor: list[Run] = field(default_factory=list)  # rawget of the plugin's own GET requests

    @property
    def wall(self) -> float:
        return statistics.median(r.wall for r in self.plugin_runs)

    @property
    def ratio_slices(self) -> float | None:
        return self.wall / statistics.median(self.kubectl_slices) if self.kubectl_slices else None

    @property
    def ratio_all(self) -> float | None:
        return self.wall / statistics.median(self.kubectl_all) if self.kubectl_all else None

    @property
    def floor_wall(self) -> float | None:
        return statistics.median(r.wall for r in self.floor) if self.floor else None

    def to_floor(self, seconds: float | None) -> float | None:
        """``seconds`` as a multiple of the floor (the raw transfer of the same requests)."""
        floor = self.floor_wall
        return seconds / floor if seconds is not None and floor else None

    @property
    def cpu_ratio_slices(self) -> float | None:
        """Client CPU of the plugin / of kubectl get resourceslices: steadier than wall time on a
        busy machine, and blind to the server's share."""
        if not self.kubectl_slices_cpu:
            return None
        return statistics.median(r.cpu for r in self.plugin_runs) / statistics.median(self.kubectl_slices_cpu)

    @property
    def stats(self) -> dict[str, Any]:
        return self.plugin_runs[-1].stats or {}

    def summary(self) -> dict[str, Any]:
        s = self.stats
        kinds: dict[str, int] = {}
        for call in s.get("calls") or []:
            path = call["path"].split("?")[0]
            kinds[path] = kinds.get(path, 0) + 1
        return {
            "command": self.command,
            "wall_s": round(self.wall, 3),
            "wall_runs_s": [round(r.wall, 3) for r in self.plugin_runs],
            "max_rss_mib": round(max(r.max_rss_kib for r in self.plugin_runs) / 1024, 1),
            "requests": s.get("requests"),
            "bytes_read_mib": round((s.get("bytesRead") or 0) / 2**20, 2),
            "cel_evaluations": s.get("celEvaluations"),
            "cel_cache_hits": s.get("celCacheHits"),
            "kubectl_slices_s": _round(statistics.median(self.kubectl_slices) if self.kubectl_slices else None, 3),
            "kubectl_all_s": _round(statistics.median(self.kubectl_all) if self.kubectl_all else None, 3),
            "kubectl_slices_max_rss_mib": round(max(self.kubectl_rss_kib) / 1024, 1) if self.kubectl_rss_kib else None,
            "ratio_slices": _round(self.ratio_slices, 2),
            "ratio_all": _round(self.ratio_all, 2),
            "cpu_s": round(statistics.median(r.cpu for r in self.plugin_runs), 3),
            "kubectl_slices_cpu_s": _round(statistics.median(self.kubectl_slices_cpu) if self.kubectl_slices_cpu else None, 3),
            "cpu_ratio_slices": _round(self.cpu_ratio_slices, 2),
            "floor_s": _round(self.floor_wall, 3),
            "floor_requests": (self.floor[-1].stats or {}).get("requests") if self.floor else None,
            "floor_mib": round((self.floor[-1].stats or {}).get("bytes", 0) / 2**20, 2) if self.floor else None,
            "ratio_floor": _round(self.to_floor(self.wall), 2),
            "kubectl_slices_ratio_floor": _round(self.to_floor(
                statistics.median(self.kubectl_slices) if self.kubectl_slices else None), 2),
            "paths": kinds,
        }


def _round(value: float | None, digits: int) -> float | None:
    return None if value is None else round(value, digits)


def compare(cluster: Any, command: str, args: list[str], namespace: str, repeats: int = 3,
            check=None, with_kubectl: bool = True) -> Comparison:
    """Alternate plugin, kubectl and floor runs ``repeats`` times (after one warm-up of each)."""
    comp = Comparison(command)
    lists = kubectl_lists(command, namespace) if with_kubectl else []
    warm = plugin(cluster.kubeconfig, [command, *args, "-o", "json"], capture=True)
    if check is not None:
        check(warm)
    replay = replayed_paths(warm.stats)
    raw_transfer(cluster, replay)
    if lists:  # kubectl's discovery cache, warm as a user's would be (the lists themselves are not cached)
        kubectl(cluster, ["get", "deviceclasses", "-o", "name"])
    for _ in range(repeats):
        comp.plugin_runs.append(plugin(cluster.kubeconfig, [command, *args, "-o", "json"]))
        comp.floor.append(raw_transfer(cluster, replay))
        runs = [kubectl(cluster, argv) for argv in lists]
        for r in runs:
            if r.exit_code != 0:
                raise RuntimeError(f"kubectl failed: {r.stderr[-500:]!r}")
        if not runs:
            continue
        comp.kubectl_slices.append(runs[0].wall)
        comp.kubectl_all.append(sum(r.wall for r in runs))
        comp.kubectl_rss_kib.append(runs[0].max_rss_kib)
        comp.kubectl_slices_cpu.append(runs[0].cpu)
    return comp


#: how a Python program reads the whole file, per snapshot suffix: the baseline of an offline run
WHOLE_READS = {".json": ("json.load", "import json\nread = json.load\n"),
               ".yaml": ("yaml.load (CSafeLoader)",
                         "import yaml\nread = lambda f: yaml.load(f, Loader=yaml.CSafeLoader)\n")}


def json_load_seconds(path: Path, repeats: int = 3) -> dict[str, float]:
    """How long ``json.load`` of the file takes in a fresh interpreter (median), that child's
    peak RSS, and (for reference) the same with the cyclic garbage collector off, as the plugin
    runs. A ``.yaml`` file: PyYAML's ``yaml.load`` with its C loader instead (``WHOLE_READS``)."""
    _, setup = WHOLE_READS[path.suffix]
    code = (f"import gc, sys, time\n{setup}if sys.argv[2] == 'off':\n    gc.disable()\n"
            "t = time.perf_counter()\nwith open(sys.argv[1], 'rb') as f:\n"
            "    read(f)\nprint(time.perf_counter() - t)\n")
    times: dict[str, list[float]] = {"on": [], "off": []}
    rss, cpu = [], []
    for _ in range(repeats):
        for gc_mode in ("on", "off"):
            run = run_child([sys.executable, "-c", code, str(path), gc_mode], capture=True)
            times[gc_mode].append(float(run.stdout))
            if gc_mode == "on":
                rss.append(run.max_rss_kib)
                cpu.append(run.cpu)
    return {"parse_s": round(statistics.median(times["on"]), 3),
            "parse_gc_off_s": round(statistics.median(times["off"]), 3),
            "cpu_s": round(statistics.median(cpu), 3),  # the whole child: interpreter, read, parse
            "max_rss_mib": round(max(rss) / 1024, 1)}


def compile_package(root: Path = REPO_ROOT) -> None:
    """Write the package's bytecode before it is timed: a development tree run with
    PYTHONDONTWRITEBYTECODE (or never imported yet) would otherwise compile every module on
    every run, which an installed package or the binary never does."""
    import compileall

    compileall.compile_dir(str(root / "kubectl_kueue_dra"), quiet=1)
