"""cel-python's parser, with its LALR tables cached on disk, made on first use.

Building cel-python's lark parser costs ~0.35 s per process, loading its tables from a cache
~0.04 s. cel-python keeps one parser per process in a class attribute; instead of replacing that,
``CachedCELParser`` is a subclass with a parser of its own (same grammar and options as
``celpy.celparser.CELParser``, plus lark's ``cache``), and ``CelEnvironment`` an ``Environment``
that uses it. Nothing happens at import time: the cache directory is created, and the tables read
or written, when the first expression is compiled.

The cache: ``$XDG_CACHE_HOME/kueue-dra/cel-parser-lark-<lark version>.cache`` (``~/.cache`` when
unset; the run's variables, as ``dra/cel_cache`` was told them); lark checks it against the
grammar's hash and rebuilds it when they differ. When the directory cannot be written, or no
run said where it is, the parser is built without a cache.
"""

from __future__ import annotations

import logging
import re
import sys
from pathlib import Path
from typing import Any

import celpy
import lark
from celpy import InterpretedRunner
from celpy.celparser import CELParseError, CELParser

from .. import cel_cache

__all__ = ["CachedCELParser", "CelEnvironment", "cache_path", "environment"]


def cache_path() -> Path | None:
    """Where the parser tables are cached (the directory may not exist yet); None: nowhere."""
    directory = cel_cache.directory()
    return Path(directory) / f"cel-parser-lark-{lark.__version__}.cache" if directory else None


def _build(tree_class: type) -> lark.Lark:
    options = {"parser": "lalr", "start": "expr", "debug": True, "g_regex_flags": re.MULTILINE,
                   "lexer_callbacks": {"IDENT": CELParser.ambiguous_literals}, "propagate_positions": True,
                   "maybe_placeholders": False, "priority": "invert", "tree_class": tree_class}
    grammar = (Path(celpy.__file__).parent / "cel.lark").read_text()
    path = cache_path()
    if path is None:
        return lark.Lark(grammar, **options)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        return lark.Lark(grammar, cache=str(path), **options)
    except OSError:  # a read-only home: the tables are built for this process only
        return lark.Lark(grammar, **options)


class CachedCELParser(CELParser):
    """``CELParser`` whose lark parser is its own, built (from the cache) on the first ``parse``."""

    def __init__(self, tree_class: type = lark.Tree) -> None:  # the base would build the shared parser
        self._tree_class = tree_class
        self._lark: lark.Lark | None = None

    def parse(self, text: str) -> lark.Tree[Any]:
        if self._lark is None:
            self._lark = _build(self._tree_class)
        self.text = text
        try:
            return self._lark.parse(text)
        except (lark.exceptions.UnexpectedToken, lark.exceptions.UnexpectedCharacters) as ex:
            raise CELParseError(ex.get_context(text), *ex.args, line=ex.line, column=ex.column) from None
        except (lark.exceptions.LexError, lark.exceptions.ParseError) as ex:
            raise CELParseError(str(ex.args[0]).splitlines()[0], *ex.args) from None


class CelEnvironment(celpy.Environment):
    """``celpy.Environment`` (no package, no annotations, the interpreted runner) parsing with
    ``CachedCELParser``. The base ``__init__`` is not called: it would build cel-python's shared
    parser, which is what the cache avoids; the attributes it sets are set here."""

    def __init__(self) -> None:
        sys.setrecursionlimit(max(sys.getrecursionlimit(), 2500))  # as celpy.Environment does
        self.logger = logging.getLogger(f"celpy.{self.__class__.__name__}")
        self.package = None
        self.annotations = dict(celpy.googleapis)
        self.runner_class = InterpretedRunner
        self.cel_parser = CachedCELParser(tree_class=InterpretedRunner.tree_node_class)


_ENVIRONMENT: list[CelEnvironment] = []


def environment() -> CelEnvironment:
    """The process's CEL environment (made on first call)."""
    if not _ENVIRONMENT:
        _ENVIRONMENT.append(CelEnvironment())
    return _ENVIRONMENT[0]
