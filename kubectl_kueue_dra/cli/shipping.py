"""The build's side of ``recall``: the answers the one-folder bundle ships, written at build time
and never imported by a run.

``scripts/build-binary`` (through ``packaging/ship_answers.py``), after PyInstaller made the bundle
and before it is packed, runs the fresh binary for every command path's ``--help`` and ``-h`` at
``recall.SHIPPED_WIDTHS`` and for ``__complete`` of every command path with ``""``, ``-`` and
``--``, each with an empty ``XDG_CACHE_HOME`` of its own. ``kept_answers`` reads what ``recall.keep``
kept there (only what keep keeps: no dynamic completer, exit 0), and ``ship`` writes it into the
bundle's folder in the layout ``recall.recalled`` reads: ``recall.SHIPPED_DIR``, one file per help
width and one for completions, each a marshal of ``{"version": …, "answers": {words: text}}``. Keys
are the words only: nothing of the install path, the executable's size or time.
"""

from __future__ import annotations

import marshal
import os
from collections.abc import Mapping

from .. import __version__
from .recall import SHIPPED_DIR, shipped_name

#: (words, help width) -> what the binary printed, as recall.keep stores it
Answers = Mapping[tuple[tuple[str, ...], int], str]


def kept_answers(cache_home: str) -> dict[tuple[tuple[str, ...], int], str]:
    """Every answer ``recall.keep`` stored under ``cache_home`` (an XDG_CACHE_HOME of its own),
    whatever binary kept it."""
    answers: dict[tuple[tuple[str, ...], int], str] = {}
    folder = os.path.join(cache_home, "kueue-dra")
    for name in sorted(os.listdir(folder)) if os.path.isdir(folder) else ():
        if name.startswith("answers-") and name.endswith(".marshal"):
            with open(os.path.join(folder, name), "rb") as f:
                stored = marshal.load(f)
            answers.update(stored["answers"])
    return answers


def ship(bundle: str, answers: Answers) -> dict[str, int]:
    """Write ``answers`` into ``bundle`` (the folder the frozen binary knows as ``sys._MEIPASS``)
    as ``recall.recalled`` reads them, in place of any earlier build's: help at the shipped widths
    (others are left out), completions at any width. Returns each file's name and size in bytes."""
    files: dict[str, dict[tuple[str, ...], str]] = {}
    texts: dict[str, str] = {}  # one object per distinct text: marshal writes it once (-h, --help)
    for (words, width), text in sorted(answers.items()):
        name = shipped_name(words, width)
        if name is not None:
            files.setdefault(name, {})[words] = texts.setdefault(text, text)
    folder = os.path.join(bundle, SHIPPED_DIR)
    os.makedirs(folder, exist_ok=True)
    for stale in os.listdir(folder):  # an earlier build's: the folder holds this build's only
        os.unlink(os.path.join(folder, stale))
    sizes = {}
    for name, table in sorted(files.items()):
        with open(os.path.join(folder, name), "wb") as f:
            marshal.dump({"version": __version__, "answers": table}, f)
        sizes[name] = os.path.getsize(os.path.join(folder, name))
    return sizes
