"""The answers the one-folder bundle ships (kubectl_kueue_dra/cli/recall.py): scripts/build-binary
runs this with the project's .venv Python (the interpreter PyInstaller bundled, so the marshal
files are the ones the binary reads) after PyInstaller made the bundle and before it is packed.

  python packaging/ship_answers.py DIST_DIR     DIST_DIR: the folder holding the executable and _internal/

Walks the click tree for every command path, runs the freshly built binary once per request
(``requests``: each path's ``--help`` and ``-h`` at the shipped help widths, ``__complete`` of each
path with ``""``, ``-`` and ``--``), each run with an empty XDG_CACHE_HOME of its own, and ships
what ``recall.keep`` kept, after checking that it is what the binary printed. Every help request
must be kept; a completion that asked a dynamic completer (the cluster, the kubeconfig) is not
kept, so not shipped. Prints the shipped requests as JSON ({"help": [[words, width], …],
"complete": [words, …]}) for the smoke test.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import click

from kubectl_kueue_dra.cli import recall, shipping
from kubectl_kueue_dra.cli.root import PROG, cli

#: variables of the build's environment that would change or bypass what the binary keeps
_CLEARED = ("COLUMNS", "KUBECONFIG", "KUEUE_DRA_STATS", recall.NO_RECALL_VARIABLE, "_KUBECTL_KUEUE_DRA_COMPLETE")


@dataclass(frozen=True, kw_only=True)
class Request:
    words: tuple[str, ...]
    columns: int | None  # the run's COLUMNS; None: unset (stdout is a pipe: no terminal width)

    @property
    def width(self) -> int:
        return recall.help_width({} if self.columns is None else {"COLUMNS": str(self.columns)}, None)

    @property
    def is_help(self) -> bool:
        return self.words[0] not in recall.COMPLETE_REQUESTS


def command_paths(group: click.Group = cli) -> list[tuple[str, ...]]:
    """Every command path of the tree, the root's () first, as the user types them."""
    paths: list[tuple[str, ...]] = []

    def walk(command: click.Command, path: tuple[str, ...], ctx: click.Context) -> None:
        paths.append(path)
        if isinstance(command, click.Group):
            for name in command.list_commands(ctx):
                sub = command.get_command(ctx, name)
                if sub is not None and not sub.hidden:
                    walk(sub, (*path, name), click.Context(sub, parent=ctx, info_name=name))

    walk(group, (), click.Context(group, info_name=PROG))
    return paths


def requests(paths: list[tuple[str, ...]]) -> list[Request]:
    """Help at each shipped width (COLUMNS = width + 2, as ``recall.help_width`` takes 2 off),
    and the static completions (width-independent: run without COLUMNS)."""
    found = [Request(words=(*path, flag), columns=width + 2)
             for path in paths for flag in ("--help", "-h") for width in recall.SHIPPED_WIDTHS]
    found += [Request(words=("__complete", *path, incomplete), columns=None)
              for path in paths for incomplete in ("", "-", "--")]
    return found


def kept_by_binary(exe: Path, request: Request) -> str | None:
    """What the binary printed for ``request`` and kept in an empty cache; None when it kept
    nothing (a completion that asked a dynamic completer). A help it did not keep, or a kept answer
    that differs from what it printed, fails the build."""
    env = {k: v for k, v in os.environ.items() if k not in _CLEARED}
    if request.columns is not None:
        env["COLUMNS"] = str(request.columns)
    with tempfile.TemporaryDirectory() as cache:
        proc = subprocess.run([str(exe), *request.words], env=dict(env, XDG_CACHE_HOME=cache),
                              stdin=subprocess.DEVNULL, capture_output=True, timeout=120)
        kept = shipping.kept_answers(cache)
    shown = " ".join(request.words)
    if proc.returncode != 0:
        raise SystemExit(f"ship_answers: {shown} failed (exit {proc.returncode}): {proc.stderr[-2000:]!r}")
    key = (request.words, request.width)
    if set(kept) - {key}:
        raise SystemExit(f"ship_answers: {shown} kept answers to other requests: {sorted(kept)}")
    answer = kept.get(key)
    if answer is None and request.is_help:
        raise SystemExit(f"ship_answers: the binary did not keep its answer to {shown} (width {request.width})")
    if answer is not None and not _printed(answer, proc.stdout):
        raise SystemExit(f"ship_answers: what the binary kept for {shown} is not what it printed")
    return answer


def _printed(answer: str, stdout: bytes) -> bool:
    """Whether ``stdout`` is ``answer`` as the binary's stdout writes it: UTF-8 on POSIX; on
    Windows, a pipe's newlines are CRLF and its encoding may be the ANSI code page."""
    if os.name != "nt":
        return answer.encode() == stdout
    import locale

    written = stdout.replace(b"\r\n", b"\n")
    return any(answer.encode(enc, "replace") == written for enc in ("utf-8", locale.getpreferredencoding(False)))


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        raise SystemExit("usage: ship_answers.py DIST_DIR")
    dist = Path(argv[0]).resolve()
    exe = dist / ("kubectl-kueue_dra.exe" if os.name == "nt" else "kubectl-kueue_dra")
    internal = dist / "_internal"
    if not exe.is_file() or not internal.is_dir():
        raise SystemExit(f"ship_answers: {dist} is no one-folder bundle (no executable or no _internal/)")
    shipping.ship(str(internal), {})  # an earlier build's answers would answer instead of the binary
    answers: dict[tuple[tuple[str, ...], int], str] = {}
    shipped: dict[str, list] = {"help": [], "complete": []}
    for request in requests(command_paths()):
        answer = kept_by_binary(exe, request)
        if answer is not None:
            answers[(request.words, request.width)] = answer
            if request.is_help:
                shipped["help"].append([list(request.words), request.width])
            else:
                shipped["complete"].append(list(request.words))
    sizes = shipping.ship(str(internal), answers)
    print(f"ship_answers: {len(shipped['help'])} help and {len(shipped['complete'])} completion answers in "
          + ", ".join(f"{name} ({size:,} bytes)" for name, size in sizes.items()), file=sys.stderr)
    print(json.dumps(shipped))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
