"""Child processes of the test environment: each in its own process group, logging to a file,
killed with the test process (Linux), stopped with SIGTERM then SIGKILL."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class _Proc:
    """A child process in its own process group, logging to a file."""

    def __init__(self, name: str, argv: list[str], log: Path, env: dict[str, str] | None = None):
        self.name = name
        self.log = log
        self._fh = open(log, "wb")
        self._stopped = False
        self.popen = subprocess.Popen(
            argv, stdout=self._fh, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            preexec_fn=_child_setup, env=env,
        )
        _LIVE.add(self)

    def alive(self) -> bool:
        return self.popen.poll() is None

    def tail(self, n: int = 40) -> str:
        try:
            lines = self.log.read_text(errors="replace").splitlines()
        except OSError:
            return ""
        return "\n".join(lines[-n:])

    def stop(self, timeout: float = 15) -> None:
        if self._stopped:
            return
        self._stopped = True
        try:
            if self.popen.poll() is None:
                _signal_group(self.popen.pid, signal.SIGTERM)
                try:
                    self.popen.wait(timeout)
                except subprocess.TimeoutExpired:
                    _signal_group(self.popen.pid, signal.SIGKILL)
                    self.popen.wait(10)
            # Children that outlived the leader.
            _signal_group(self.popen.pid, signal.SIGKILL)
        finally:
            self._fh.close()
            _LIVE.discard(self)


def _child_setup() -> None:
    """In the child: own session and process group; die with the test process (Linux)."""
    os.setsid()
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            PR_SET_PDEATHSIG = 1
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        except Exception:  # noqa: BLE001 - best effort
            pass


def _signal_group(pgid: int, sig: int) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


_LIVE: set[_Proc] = set()


def _http_ok(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as resp:
            return resp.status == 200
    except (OSError, urllib.error.URLError):
        return False
