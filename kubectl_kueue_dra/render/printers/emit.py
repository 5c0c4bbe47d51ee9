"""A command's document printed in the format ``-o`` asked for.

What each printer sees (the contract the README documents):

* ``json``/``yaml``: the document; ``jsonpath``: the same document (what ``-o json`` prints), so a
  path is read off ``-o json`` output;
* ``name``, ``custom-columns`` and ``--sort-by``: the items of the document's list (a ``Listing``
  names which: ``deviceClasses``, ``items``, ``checks``…), or the document itself when it is one
  object; ``-o name`` writes ``kind.group/name`` per item as kubectl does, where the items are
  Kubernetes objects;
* the table and ``wide``: the command's own text, drawn from the (sorted) document.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ...errors import UserError
from .spec import OutputSpec


@dataclass(frozen=True)
class Listing:
    """Where a document keeps its items, and the ``-o name`` of one (None: they are no objects)."""

    items: str | None = None  # the key of the list; None: the document is one object
    name: Callable[[dict[str, Any]], str] | None = None

    def of(self, document: dict[str, Any]) -> list[Any]:
        if self.items is None:
            return [document]
        items = document.get(self.items)
        return items if isinstance(items, list) else []


def object_name(kind: str, api_version: str, name: str | None) -> str:
    """kubectl's ``-o name`` of an object: ``kind.group/name`` (``kind/name`` in the core group)."""
    group = api_version.rpartition("/")[0] if "/" in api_version else ""
    return f"{kind.lower()}{'.' + group if group else ''}/{name or '<unknown>'}"


class PrintError(UserError):
    """A template failed on the document (a missing key with --allow-missing-template-keys=false)."""


def sorted_document(document: dict[str, Any], listing: Listing, sort_by: str | None,
                    quantity: Callable[[str], Any] | None = None) -> dict[str, Any]:
    """The document with its items in ``--sort-by`` order (a copy; the document is kept)."""
    from .sorting import SortError, sort_items

    if not sort_by or listing.items is None or not isinstance(document.get(listing.items), list):
        return document
    try:
        return dict(document, **{listing.items: sort_items(document[listing.items], sort_by, quantity)})
    except SortError as e:
        raise PrintError(str(e)) from None


_NOT_ASCII = "[\x7f-\U0010ffff]"  # compiled where needed: 4-6 ms, the most of any pattern a command compiles


def _escaped(found: re.Match[str]) -> str:
    code = ord(found.group())
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xd800 | code >> 10:04x}\\u{0xdc00 | code & 0x3ff:04x}"


def json_text(document: Any) -> str:
    """``json.dumps(document, indent=2)``, character for character but for how a float is written
    (``1e-05`` is ``0.00001``; NaN, which is no JSON, is ``null``), built in C: the standard
    library's indented encoder is pure Python (50 ms for the 1.3 MB of ``explain -A -o json`` on
    200 Workloads, 3 ms this way). What msgspec refuses (a lone surrogate) goes to ``json.dumps``."""
    import msgspec

    try:
        text = msgspec.json.format(msgspec.json.encode(document), indent=2).decode()
    except (TypeError, ValueError, OverflowError):
        return json.dumps(document, indent=2)
    if text.isascii() and "\x7f" not in text:
        return text
    return re.sub(_NOT_ASCII, _escaped, text)  # json.dumps' ensure_ascii


def formatted(document: dict[str, Any], spec: OutputSpec, text: Callable[[dict[str, Any]], str],
              listing: Listing) -> tuple[str, bool]:
    """The output and whether it is text for a terminal (escaped) rather than data (exact)."""
    family = spec.family
    if family == "json":
        return json_text(document) + "\n", False
    if family == "yaml":
        import yaml

        return yaml.safe_dump(document, sort_keys=False, default_flow_style=False), False
    if family == "jsonpath":
        from .jsonpath_eval import JSONPath, JSONPathError

        path = JSONPath(spec.template, spec.allow_missing_keys, as_json=spec.format == "jsonpath-as-json")
        try:
            return path.execute(document), False
        except JSONPathError as e:
            raise PrintError(f'error executing jsonpath "{spec.template}": Error executing template: {e}') from None
    if family == "custom-columns":
        from .columns import render
        from .jsonpath_eval import JSONPathError

        try:  # kubectl's printer returns the path's error as it is
            return render(list(spec.columns), listing.of(document), spec.no_headers), True
        except JSONPathError as e:
            raise PrintError(str(e)) from None
    if family == "name":
        assert listing.name is not None
        return "".join(f"{listing.name(item)}\n" for item in listing.of(document)), True
    out = text(document)
    return (out + "\n" if out else ""), True
