"""kubectl's JSONPath templates read into nodes, with the grammar of client-go's ``util/jsonpath``
parser: text with ``{…}`` actions; inside an action ``.field`` (``\\.`` escapes a dot in a name),
``[n]``, ``[a:b:c]``, ``[*]``, ``[a,b]`` unions, ``['key']``, ``..`` recursive descent,
``[?(@.x == "y")]`` filters (``== != < > <= >=``, or existence), quoted text with Go escapes,
numbers, ``true``/``false`` and the identifiers ``range`` and ``end``. Every quirk of that grammar
is kept (``['a.b']`` is two fields, a filter splits at its first operator character), so that a
template means here what it means to kubectl."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any


class JSONPathSyntaxError(ValueError):
    """The template cannot be parsed; the message is client-go's."""


@dataclass
class Node:
    kind: str  # text, field, array, filter, int, float, bool, wildcard, recursive, union, identifier, list
    value: Any = None
    nodes: list[Node] = field(default_factory=list)  # list: its nodes; union: one list per member
    left: Node | None = None  # filter
    right: Node | None = None
    op: str = ""


@dataclass
class Param:
    """One bound of an array slice: ``known`` when written, ``derived`` for [n]'s end (n+1)."""

    value: int = 0
    known: bool = False
    derived: bool = False


_DICT_KEY = re.compile(r"^'([^']*)'$")
_SLICE = re.compile(r"^(-?\d*)(:-?\d*)?(:-?\d*)?$")
_FILTER = re.compile(r"^([^!<>=]+)([!<>=]+)(.+?)$", re.S)
_EOF = ""


def _is_terminator(ch: str) -> bool:
    return ch in (_EOF, " ", "\t", "\r", "\n", ".", ",", "[", "]", "$", "@", "{", "}")


def _is_alnum(ch: str) -> bool:
    return ch == "_" or (ch != _EOF and (ch.isalpha() or unicodedata.category(ch) == "Nd"))


def _rune(ch: str) -> str:
    """Go's %#U: ``U+0021 '!'``."""
    return f"U+{ord(ch):04X} '{ch}'" if ch.isprintable() else f"U+{ord(ch):04X}"


class _Parser:
    def __init__(self, text: str):
        self.input, self.pos, self.start = text, 0, 0
        self.root = Node("list")

    def next(self) -> str:
        if self.pos >= len(self.input):
            return _EOF
        self.pos += 1
        return self.input[self.pos - 1]

    def backup(self, ch: str) -> None:
        if ch != _EOF:
            self.pos -= 1

    def peek(self) -> str:
        return self.input[self.pos] if self.pos < len(self.input) else _EOF

    def consume(self) -> str:
        value, self.start = self.input[self.start:self.pos], self.pos
        return value

    def parse(self) -> Node:
        cur = self.root
        while True:  # text, then an action, until the end
            i = self.input.find("{", self.pos)
            if i < 0:
                self.pos = len(self.input)
                if self.pos > self.start:
                    cur.nodes.append(Node("text", self.consume()))
                return self.root
            self.pos = i
            if self.pos > self.start:
                cur.nodes.append(Node("text", self.consume()))
            self.pos += 1
            self.consume()
            action = Node("list")
            cur.nodes.append(action)
            self.inside(action)

    def inside(self, cur: Node) -> None:
        """One action up to its ``}``."""
        while True:
            rest = self.input[self.pos:]
            if rest.startswith("}"):
                self.pos += 1
                self.consume()
                return
            if rest.startswith("[?("):
                self.filter(cur)
                continue
            if rest.startswith(".."):
                self.recursive(cur)
                continue
            ch = self.next()
            if ch == _EOF or ch in "\r\n":
                raise JSONPathSyntaxError("unclosed action")
            if ch in " @$":
                self.consume()
            elif ch == "[":
                self.array(cur)
            elif ch in "\"'":
                self.quote(cur, ch)
            elif ch == ".":
                self.field(cur)
            elif ch in "+-" or unicodedata.category(ch) == "Nd":
                self.backup(ch)
                self.number(cur)
            elif _is_alnum(ch):
                self.backup(ch)
                self.identifier(cur)
            else:
                raise JSONPathSyntaxError(f"unrecognized character in action: {_rune(ch)}")

    def identifier(self, cur: Node) -> None:
        while not _is_terminator(ch := self.next()):
            pass
        self.backup(ch)
        value = self.consume()
        cur.nodes.append(Node("bool", value == "true") if value in ("true", "false") else Node("identifier", value))

    def recursive(self, cur: Node) -> None:
        if cur.nodes and cur.nodes[-1].kind == "recursive":
            raise JSONPathSyntaxError("invalid multiple recursive descent")
        self.pos += 2
        self.consume()
        cur.nodes.append(Node("recursive"))
        if _is_alnum(self.peek()):
            self.field(cur)

    def number(self, cur: Node) -> None:
        if self.peek() in "+-" and self.peek() != _EOF:
            self.next()
        while (ch := self.next()) == "." or (ch != _EOF and unicodedata.category(ch) == "Nd"):
            pass
        self.backup(ch)
        value = self.consume()
        if re.fullmatch(r"[+-]?\d+", value):
            cur.nodes.append(Node("int", int(value)))
            return
        try:
            if not re.fullmatch(r"[+-]?(\d+\.?\d*|\.\d+)", value):
                raise ValueError(value)
            cur.nodes.append(Node("float", float(value)))
        except ValueError:
            raise JSONPathSyntaxError(f"cannot parse number {value}") from None

    def array(self, cur: Node) -> None:
        while (ch := self.next()) != "]":
            if ch == _EOF or ch == "\n":
                raise JSONPathSyntaxError("unterminated array")
        text = self.consume()[1:-1]
        if text == "*":
            text = ":"
        members = text.split(",")
        if len(members) > 1:
            cur.nodes.append(Node("union", nodes=[parse_action(f"[{m.strip(' ')}]") for m in members]))
            return
        key = _DICT_KEY.match(text)
        if key:
            cur.nodes.extend(parse_action(f".{key.group(1)}").nodes)
            return
        m = _SLICE.match(text)
        if m is None:
            raise JSONPathSyntaxError(f"invalid array index {text}")
        params = [Param(), Param(), Param()]
        for i, group in enumerate(m.groups()):
            if group:
                written = group[1:] if i > 0 else group
                if i > 0 and written == "":
                    continue
                try:
                    params[i] = Param(int(written), known=True)
                except ValueError:
                    raise JSONPathSyntaxError(f"array index {written} is not a number") from None
            elif i == 1:
                params[1] = Param(params[0].value + 1, known=True, derived=True)
        cur.nodes.append(Node("array", params))

    def filter(self, cur: Node) -> None:
        self.pos += 3
        self.consume()
        begin = end = False
        pair = ""
        while True:
            ch = self.next()
            if ch == _EOF or ch == "\n":
                raise JSONPathSyntaxError("unterminated filter")
            if ch in "\"'":
                if not begin:
                    begin, pair = True, ch
                    continue
                if self.input[self.pos - 2] != "\\" and ch == pair:
                    end = True
            elif ch == ")" and begin == end:
                break
        if self.next() != "]":
            raise JSONPathSyntaxError("unclosed array expect ]")
        text = self.consume()[:-2]
        m = _FILTER.match(text)
        if m is None:
            cur.nodes.append(Node("filter", left=parse_action(text), right=Node("list"), op="exists"))
        else:
            cur.nodes.append(Node("filter", left=parse_action(m.group(1)), right=parse_action(m.group(3)),
                                  op=m.group(2)))

    def quote(self, cur: Node, end: str) -> None:
        while True:
            ch = self.next()
            if ch == _EOF or ch == "\n":
                raise JSONPathSyntaxError("unterminated quoted string")
            if ch == end and self.input[self.pos - 2] != "\\":
                break
        value = self.consume()
        cur.nodes.append(Node("text", unquote(value)))

    def field(self, cur: Node) -> None:
        self.consume()
        while True:
            ch = self.next()
            if ch == "\\":
                self.next()
            elif _is_terminator(ch):
                self.backup(ch)
                break
        value = self.consume()
        cur.nodes.append(Node("wildcard") if value == "*" else Node("field", value.replace("\\", "")))


def parse(template: str) -> Node:
    """The template's nodes: text nodes and one list node per ``{…}`` action."""
    return _Parser(template).parse()


def parse_action(text: str) -> Node:
    """The nodes of one action's text (a filter's side, a union's member)."""
    root = parse("{" + text + "}")
    return root.nodes[0]


_SIMPLE_ESCAPES = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v", "\\": "\\"}


def unquote(s: str) -> str:
    """A quoted string as Go's ``strconv.Unquote`` reads it, single quotes allowed (client-go's
    ``UnquoteExtend``)."""
    quote, body = s[0], s[1:-1]
    if len(s) < 2 or s[-1] != quote:
        raise JSONPathSyntaxError(f"unquote string {s} error invalid syntax")
    out, i = [], 0
    while i < len(body):
        ch = body[i]
        if ch == quote:
            raise JSONPathSyntaxError(f"unquote string {s} error invalid syntax")
        if ch != "\\":
            out.append(ch)
            i += 1
            continue
        esc = body[i + 1] if i + 1 < len(body) else ""
        if esc in _SIMPLE_ESCAPES:
            out.append(_SIMPLE_ESCAPES[esc])
            i += 2
        elif esc in "'\"" and esc:
            if esc != quote:
                raise JSONPathSyntaxError(f"unquote string {s} error invalid syntax")
            out.append(esc)
            i += 2
        elif esc in ("x", "u", "U"):
            width = {"x": 2, "u": 4, "U": 8}[esc]
            digits = body[i + 2:i + 2 + width]
            if len(digits) != width or not re.fullmatch(r"[0-9a-fA-F]+", digits):
                raise JSONPathSyntaxError(f"unquote string {s} error invalid syntax")
            out.append(chr(int(digits, 16)))
            i += 2 + width
        elif esc and esc in "01234567":
            digits = body[i + 1:i + 4]
            if len(digits) != 3 or not re.fullmatch(r"[0-7]{3}", digits) or int(digits, 8) > 255:
                raise JSONPathSyntaxError(f"unquote string {s} error invalid syntax")
            out.append(chr(int(digits, 8)))
            i += 4
        else:
            raise JSONPathSyntaxError(f"unquote string {s} error invalid syntax")
    return "".join(out)
