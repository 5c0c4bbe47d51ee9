"""The frozen binary's answers that never change: ``--help`` and the static candidates of
``__complete`` (kubectl's ``<TAB>``), printed without loading click or any command.

Every ``<TAB>`` of ``kubectl kueue-dra`` starts the binary; most ask for subcommands or flags,
whose answer depends on nothing but the words typed (and, for help, the width it is wrapped to)
and the binary itself: help names the program ``root.PROG``, never ``argv[0]``, and a
completion's candidates name none, so the answer is the same under any install path or name.
``recalled`` looks for the run's words and width first in the user's cache, then in the answers
the one-folder bundle ships:

* ``keep`` stores what a run through click printed for help, or for a completion that asked
  nothing of the cluster or the kubeconfig, under its words and width in
  ``$XDG_CACHE_HOME/kueue-dra/`` (one file per version and executable path, marked with the
  executable's size and modification time: another build starts afresh).
* The build has the fresh binary answer every command path's help at ``SHIPPED_WIDTHS`` and the
  static completions, and ships what ``keep`` kept in ``SHIPPED_DIR`` under the bundle's folder:
  one small file per help width, one for completions (they do not depend on the width), each
  stamped with the version (``shipping``). A file of another version, or one that cannot be
  read, is no answer. The one-file bundle (built for comparison only) ships none.

A hit imports nothing but ``os``, ``sys``, ``zlib`` and ``marshal``. Only the frozen binary does
this (its code cannot change without its file changing); from source, and in tests, every run
goes through click. Nothing is recalled or kept when anything else could change the answer:
``KUEUE_DRA_STATS`` (the report must be written), ``KUEUE_DRA_NO_RECALL`` (any value: the run
goes through click, as the build's smoke test compares), ``-v``, click's own completion
variables, a candidate from a dynamic completer, an exit code other than 0. A cache that cannot be
read or written is no cache: the run goes through click.

This module imports nothing of the package but its light base: it runs before click is loaded.
"""

from __future__ import annotations

import marshal
import os
import sys
import zlib
from collections.abc import Mapping
from typing import IO, Any

from .. import __version__, userdirs

#: click's help width when nothing says the terminal's: its own default
DEFAULT_COLUMNS = 80
#: the widest help click formats (the root group's max_content_width)
MAX_HELP_WIDTH = 100
#: answers kept per file; past it the file starts afresh (a user types few distinct prefixes)
MAX_ANSWERS = 512
#: the requests that may be kept: help anywhere on the line, or kubectl's completion protocol
_HELP_FLAGS = ("-h", "--help")
COMPLETE_REQUESTS = ("__complete", "__completeNoDesc")
#: variables that change what a run prints besides its words, or ask for click: nothing recalled or kept
NO_RECALL_VARIABLE = "KUEUE_DRA_NO_RECALL"
_UNCACHED_VARIABLES = ("KUEUE_DRA_STATS", NO_RECALL_VARIABLE, "_KUBECTL_KUEUE_DRA_COMPLETE")
#: the help widths the bundle ships answers for: no terminal known (COLUMNS unset and stdout not a
#: terminal, as when kubectl or a pipe reads it) and a terminal of MAX_HELP_WIDTH columns or more
SHIPPED_WIDTHS = (DEFAULT_COLUMNS - 2, MAX_HELP_WIDTH - 2)
#: where the shipped answers are, under the bundle's folder (sys._MEIPASS, ``_internal/``)
SHIPPED_DIR = os.path.join("kubectl_kueue_dra", "answers")


class _Run:
    """What the run in progress printed that may be kept (None: nothing), and whether a dynamic
    completer was asked (then nothing is kept). Reset by ``begin``, at the start of each run."""

    printed: str | None = None
    dynamic: bool = False


_run = _Run()


def help_width(env_vars: Mapping[str, str], stdout: IO[str] | Any) -> int:
    """The width click formats help and usage to, as click decides it from the terminal, but for
    this run's terminal: ``COLUMNS``, else the size of its stdout when that is a terminal."""
    columns = env_vars.get("COLUMNS", "")
    width = int(columns) if columns.isdigit() and int(columns) > 0 else 0
    if not width:
        try:
            width = os.get_terminal_size(stdout.fileno()).columns
        except (AttributeError, ValueError, OSError):
            width = 0
    return max(min(width or DEFAULT_COLUMNS, MAX_HELP_WIDTH) - 2, 50)


def begin() -> None:
    _run.printed, _run.dynamic = None, False


def printed(text: str) -> None:
    """The run printed ``text`` (its help, or its completion answer) as its whole output."""
    _run.printed = text


def asked_dynamic() -> None:
    """A completer asked the cluster, the kubeconfig or a snapshot: the answer may change."""
    _run.dynamic = True


def _eligible(args: list[str], env_vars: Mapping[str, str], frozen: bool) -> bool:
    if not frozen or any(env_vars.get(name) for name in _UNCACHED_VARIABLES):
        return False
    if args and args[0] in COMPLETE_REQUESTS:
        return True
    words = args[:args.index("--")] if "--" in args else args
    verbose = any(a in ("-v", "--verbose") or (a.startswith("-v") and set(a[1:]) == {"v"}) for a in words)
    return not verbose and any(a in _HELP_FLAGS for a in words)


def _store(env_vars: Mapping[str, str]) -> tuple[str, tuple[Any, ...]] | None:
    """The cache file and the identity of the binary, or None when the binary cannot be read."""
    try:
        stat = os.stat(sys.executable)
    except (OSError, TypeError):
        return None
    # one file per installed binary: two binaries (a one-file and a one-folder build, two
    # installs) never overwrite each other's answers
    where = zlib.crc32(os.fsencode(sys.executable))
    path = os.path.join(userdirs.cache_home(env_vars), "kueue-dra", f"answers-{__version__}-{where:08x}.marshal")
    return path, (sys.executable, stat.st_size, stat.st_mtime_ns, sys.version)


def _load(path: str, stamp: str, expected: Any) -> dict[Any, str]:
    """The answers of the file at ``path`` when its ``stamp`` is ``expected`` (the user's cache:
    the binary's identity; a shipped file: the version), else none."""
    try:
        with open(path, "rb") as f:
            stored = marshal.load(f)
    except (OSError, EOFError, ValueError, TypeError):
        return {}
    if not isinstance(stored, dict) or stored.get(stamp) != expected:
        return {}
    answers = stored.get("answers")
    return answers if isinstance(answers, dict) else {}


def shipped_name(args: list[str] | tuple[str, ...], width: int) -> str | None:
    """The shipped file's name that holds the answer to ``args`` at ``width``; None: none does."""
    if args and args[0] in COMPLETE_REQUESTS:
        return "complete.marshal"
    return f"help-{width}.marshal" if width in SHIPPED_WIDTHS else None


def _shipped_file(args: list[str], width: int) -> str | None:
    """Where the bundle this binary runs from ships the answer to ``args`` at ``width``, if anywhere."""
    bundle = getattr(sys, "_MEIPASS", None)
    name = shipped_name(args, width)
    return os.path.join(bundle, SHIPPED_DIR, name) if isinstance(bundle, str) and name else None


def recalled(args: list[str], env_vars: Mapping[str, str], *, width: int, frozen: bool) -> str | None:
    """What an earlier identical run printed (the user's cache), else what the build printed (the
    shipped answers), or None: then the run goes through click."""
    if not _eligible(args, env_vars, frozen):
        return None
    store = _store(env_vars)
    answer = _load(store[0], "identity", store[1]).get((tuple(args), width)) if store is not None else None
    if not isinstance(answer, str):
        shipped = _shipped_file(args, width)
        answer = _load(shipped, "version", __version__).get(tuple(args)) if shipped is not None else None
    return answer if isinstance(answer, str) else None


def keep(args: list[str], env_vars: Mapping[str, str], *, width: int, frozen: bool, exit_code: int) -> None:
    """Keep what this run printed, when it may be recalled (see the module's doc)."""
    if exit_code != 0 or _run.printed is None or _run.dynamic or not _eligible(args, env_vars, frozen):
        return
    store = _store(env_vars)
    if store is None:
        return
    path, identity = store
    answers = _load(path, "identity", identity)
    if len(answers) >= MAX_ANSWERS:
        answers = {}
    answers[(tuple(args), width)] = _run.printed
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(tmp, "wb") as f:
            marshal.dump({"identity": identity, "answers": answers}, f)
        os.replace(tmp, path)
    except (OSError, ValueError):
        try:
            os.unlink(tmp)
        except OSError:
            pass

