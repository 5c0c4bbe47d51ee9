"""The rules of docs/architecture.md on the process's state and on calls, read from the source:

* nothing in the package changes the process's streams or environment variables (no assignment to
  ``sys.stdout``/``stderr``/``stdin``, no ``os.environ[...] =``, ``del os.environ[...]``,
  ``os.environ.update/pop/...``, ``os.putenv``, ``os.chdir``, ``contextlib.redirect_stdout``…);
* only the entry point (``cli/entry.py``) reads them (``os.environ``, ``os.getenv``, ``sys.std*``,
  ``sys.argv``, ``os.getcwd``, the home ``expanduser`` and ``Path.home`` find): everything else
  gets them from the run's ``Environment``;
* only ``environment.py`` (the system clock) reads the time: the rest asks the run's ``Clock``;
* no call passes more than 8 positional arguments (keyword-only dataclasses instead).

Each rule also runs on a snippet that breaks it, so none passes by finding nothing."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "kubectl_kueue_dra"
#: the one module that reads the process's streams, variables and working directory
ENTRY = PACKAGE / "cli" / "entry.py"
#: the one module that reads the system clock
CLOCK = PACKAGE / "environment.py"
MAX_POSITIONAL = 8

_STREAMS = {"stdin", "stdout", "stderr", "__stdin__", "__stdout__", "__stderr__"}
_ENVIRON_CHANGES = {"update", "pop", "setdefault", "clear", "popitem", "__setitem__", "__delitem__"}
#: module → the attributes whose mere use reads the process's state
_READS = {"os": {"environ", "environb", "getenv", "getenvb", "getcwd", "getcwdb"},
          "sys": _STREAMS | {"argv", "orig_argv"},
          "os.path": {"expanduser"},
          "Path": {"home", "cwd"}}
#: module → the functions that change it
_CHANGES = {"os": {"putenv", "unsetenv", "chdir", "fchdir"},
            "contextlib": {"redirect_stdout", "redirect_stderr"}}
_CLOCK_READS = {"time": {"time", "time_ns", "monotonic", "monotonic_ns", "perf_counter", "perf_counter_ns",
                         "sleep"},
                "datetime": {"now", "utcnow", "today"}, "date": {"today"}}


def modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


def _dotted(node: ast.AST) -> str | None:
    """``os.path.expanduser`` → "os.path.expanduser"; None for anything but names and attributes."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr}" if base else None
    return None


def _uses(node: ast.AST, table: dict[str, set[str]]) -> str | None:
    """The ``module.attribute`` of ``table`` that ``node`` names (``datetime.datetime.now`` too)."""
    name = _dotted(node)
    if name is None or "." not in name:
        return None
    base, attr = name.rsplit(".", 1)
    for module, attrs in table.items():
        if attr in attrs and (base == module or base.endswith("." + module)):
            return f"{module}.{attr}"
    return None


def _imported(tree: ast.AST, table: dict[str, set[str]]) -> list[tuple[int, str]]:
    """``from os import environ`` and the like: the name is then used bare."""
    return [(node.lineno, f"from {node.module} import {alias.name}") for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.module in table
            for alias in node.names if alias.name in table[node.module]]


def _is_environ(node: ast.AST) -> bool:
    return _dotted(node) in ("os.environ", "os.environb")


def process_changes(source: str) -> list[tuple[int, str]]:
    """(line, what) of every change of the process's streams, variables or working directory."""
    tree = ast.parse(source)
    found = _imported(tree, _CHANGES)
    for node in ast.walk(tree):
        targets: list[ast.AST] = []
        if isinstance(node, ast.Assign):
            targets = [t for target in node.targets for t in (target.elts if isinstance(target, ast.Tuple) else [target])]
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        elif isinstance(node, ast.Delete):
            targets = node.targets
        for target in targets:
            if isinstance(target, ast.Attribute) and _dotted(target.value) == "sys" and target.attr in _STREAMS:
                found.append((node.lineno, f"sys.{target.attr} assigned"))
            elif isinstance(target, ast.Subscript) and _is_environ(target.value):
                found.append((node.lineno, "os.environ[...] " + ("deleted" if isinstance(node, ast.Delete) else "set")))
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute) and _is_environ(func.value) and func.attr in _ENVIRON_CHANGES:
                found.append((node.lineno, f"os.environ.{func.attr}()"))
            elif _dotted(func) == "setattr" and node.args and _dotted(node.args[0]) in ("sys", "os"):
                found.append((node.lineno, f"setattr({_dotted(node.args[0])}, ...)"))
        changed = _uses(node, _CHANGES)
        if changed:
            found.append((getattr(node, "lineno", 0), changed))
    return sorted(set(found))


def process_reads(source: str) -> list[tuple[int, str]]:
    """(line, what) of every read of the process's streams, variables, arguments or directory."""
    tree = ast.parse(source)
    found = _imported(tree, _READS)
    found += [(node.lineno, used) for node in ast.walk(tree) if isinstance(node, ast.Attribute)
              and (used := _uses(node, _READS))]
    return sorted(set(found))


def clock_reads(source: str) -> list[tuple[int, str]]:
    """(line, what) of every read of the system clock (and sleep on it)."""
    tree = ast.parse(source)
    found = [(n, what) for n, what in _imported(tree, _CLOCK_READS) if what != "from datetime import datetime"]
    found += [(node.lineno, used) for node in ast.walk(tree) if isinstance(node, ast.Attribute)
              and (used := _uses(node, _CLOCK_READS))]
    return sorted(set(found))


def long_calls(source: str, limit: int = MAX_POSITIONAL) -> list[tuple[int, int]]:
    """(line, count) of every call with more than ``limit`` positional arguments (``*xs`` counts one)."""
    return [(node.lineno, len(node.args)) for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.Call) and len(node.args) > limit]


def _where(path: Path) -> str:
    return str(path.relative_to(PACKAGE))


@pytest.mark.parametrize("path", modules(), ids=_where)
def test_nothing_changes_the_process_streams_or_variables(path):
    assert process_changes(path.read_text()) == [], _where(path)


@pytest.mark.parametrize("path", [p for p in modules() if p != ENTRY], ids=_where)
def test_only_the_entry_point_reads_the_process_environment(path):
    assert process_reads(path.read_text()) == [], f"{_where(path)}: take it from the run's Environment"


@pytest.mark.parametrize("path", [p for p in modules() if p != CLOCK], ids=_where)
def test_only_the_system_clock_reads_the_time(path):
    assert clock_reads(path.read_text()) == [], f"{_where(path)}: take the time from the run's Clock"


@pytest.mark.parametrize("path", modules(), ids=_where)
def test_no_call_has_more_than_8_positional_arguments(path):
    assert long_calls(path.read_text()) == [], f"{_where(path)}: pass them by keyword (kw_only dataclasses)"


def test_the_exempt_modules_do_what_they_are_exempt_for():
    """The entry point does read the process, the clock module does read the time: the checks
    see them (a check that reads nothing passes anything)."""
    reads = {what for _, what in process_reads(ENTRY.read_text())}
    assert {"os.environ", "sys.stdin", "sys.stdout", "sys.stderr", "sys.argv"} <= reads
    assert {what for _, what in clock_reads(CLOCK.read_text())} >= {"time.monotonic", "time.sleep", "datetime.now"}


def test_a_change_of_the_process_state_is_found():
    snippet = """
import contextlib, os, sys
from contextlib import redirect_stderr
sys.stdout = open("x")
sys.stdin, sys.stderr = a, b
os.environ["A"] = "1"
os.environ["B"] += "2"
del os.environ["A"]
os.environ.update(A="1")
os.environ.pop("A")
os.environ.setdefault("A", "1")
os.environ.clear()
os.putenv("A", "1")
os.chdir("/")
setattr(sys, "stderr", None)
with contextlib.redirect_stdout(out):
    pass
env = os.environ  # a read, not a change
x = os.environ.get("A")
"""
    found = process_changes(snippet)
    assert [line for line, _ in found] == [3, 4, 5, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16], found
    assert process_changes("import os\nx = os.environ.get('A')\nprint(x, file=out)\n") == []


def test_a_read_of_the_process_state_is_found():
    snippet = """
import os, sys
from pathlib import Path
from os import getenv
a = os.environ.get("A")
b = os.getenv("B")
sys.stdout.write("x")
print("x", file=sys.stderr)
args = sys.argv[1:]
here = os.getcwd()
home = os.path.expanduser("~")
home = Path.home()
"""
    found = process_reads(snippet)
    assert [line for line, _ in found] == [4, 5, 6, 7, 8, 9, 10, 11, 12], found
    assert process_reads("import sys\nx = sys.platform\nenv.vars.get('A')\n") == []


def test_a_read_of_the_clock_is_found():
    snippet = """
import time
from datetime import datetime, timezone
from time import monotonic
a = time.monotonic()
datetime.now(timezone.utc)
time.sleep(1)
b = datetime.datetime.utcnow()
"""
    found = clock_reads(snippet)
    assert [line for line, _ in found] == [4, 5, 6, 7, 8], found
    assert clock_reads("from datetime import datetime\nx = datetime.fromisoformat(t)\nclock.now()\n") == []


def test_a_long_positional_call_is_found():
    assert long_calls("f(1, 2, 3, 4, 5, 6, 7, 8)\nf(*xs, a=1)\n") == []
    assert long_calls("x = 1\nRequest('set', n, c, d, e, f, g, h, i)\n") == [(2, 9)]
