"""Every message Kueue's DRA code can reject a workload with maps to a finding code and a fix.

The message formats are read at test time from Kueue's own ``pkg/dra`` (non-test ``.go`` files) in
the Go module cache, for each Kueue version the oracle runs: every string literal passed to
``fmt.Errorf``, ``fmt.Sprintf``, ``errors.New`` or a ``field.*`` error constructor. Each is
instantiated (``%s`` → a word, ``%d`` → a number …) and must map, through
``kueue/workloads/status.cause_of``, to a code with a cause and a fix. A format that is not a
condition message by itself (a prefix that only adds context to another error, or an error Kueue
only logs) is listed in ``NOT_MESSAGES`` with the reason; an entry there that no version contains
any more fails too, so the list cannot go stale. A new Kueue message without a code fails this test.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from testenv.binaries import crds
from testenv import oracle_scenarios
import pytest

from kubectl_kueue_dra.kueue.workloads.status import cause_of

VERSIONS = (oracle_scenarios.V19, oracle_scenarios.V18)

#: format -> why it is not a message of its own
NOT_MESSAGES = {
    "%s: %s": "compileCELSelectors: '<context>: <cel error>'; the context decides the code",
    "ResourceClaimTemplate %s: %s": "prefix Kueue puts before the errors of one template",
    "request %s exceeds all valid values": "roundToValidValues: only logged (the device is skipped)",
    "rounded value %d exceeds max %d": "roundToValidRange: only logged (the device is skipped)",
}

_CALL = re.compile(r"\b(?:fmt\.Errorf|fmt\.Sprintf|errors\.New|field\.(?:Invalid|NotFound|InternalError|Required|"
                   r"Forbidden|NotSupported|TooMany|Duplicate|TypeInvalid))\(")
_VERB = re.compile(r"%[-+# 0]*\d*(?:\.\d+)?([a-zA-Z%])")
_SAMPLE = {"s": "x", "v": "x", "w": "x", "d": "1", "q": '"x"', "T": "x", "%": "%"}


def _go_string(text: str, i: int) -> tuple[str, int]:
    """The Go string literal starting at text[i] (interpreted or raw) and the index after it."""
    quote = text[i]
    j, out = i + 1, []
    while text[j] != quote:
        if quote == '"' and text[j] == "\\":
            out.append({"n": "\n", "t": "\t", '"': '"', "\\": "\\"}.get(text[j + 1], text[j + 1]))
            j += 2
            continue
        out.append(text[j])
        j += 1
    return "".join(out), j + 1


def formats(source: str) -> list[str]:
    """The literal (``"a" + "b"`` joined) at the top level of each formatting call."""
    found = []
    for m in _CALL.finditer(source):
        i, depth, parts, joined = m.end(), 1, [], False
        literals: list[str] = []
        while depth:
            c = source[i]
            if c in "\"`":
                s, i = _go_string(source, i)
                if depth == 1:
                    if joined and literals:
                        literals[-1] += s
                    else:
                        literals.append(s)
                    joined = False
                continue
            if c in "([{":
                depth += 1
            elif c in ")]}":
                depth -= 1
            elif c == "+" and depth == 1:
                joined = True
            elif c == "," and depth == 1:
                joined = False
            i += 1
        parts = literals
        if parts:
            found.append(parts[-1])
    return found


def kueue_formats(version: str) -> dict[str, str]:
    """format -> file, for one Kueue version."""
    try:
        root = crds.module_dir("sigs.k8s.io/kueue", version)
    except crds.CRDError as e:
        if os.environ.get("CI", "").lower() in ("true", "1", "yes"):
            pytest.fail(str(e), pytrace=False)
        pytest.skip(str(e))
    out: dict[str, str] = {}
    for path in sorted((root / "pkg" / "dra").glob("*.go")):
        if path.name.endswith("_test.go"):
            continue
        for fmt in formats(path.read_text()):
            out.setdefault(fmt, f"{version}:{Path('pkg/dra') / path.name}")
    return out


def sample(fmt: str) -> str:
    return _VERB.sub(lambda m: _SAMPLE.get(m.group(1), "x"), fmt)


@pytest.fixture(scope="module")
def all_formats() -> dict[str, str]:
    out: dict[str, str] = {}
    for version in VERSIONS:
        for fmt, where in kueue_formats(version).items():
            out.setdefault(fmt, where)
    return out


def test_the_reader_finds_kueues_messages(all_formats):
    # a few known ones, across files and with multi-line concatenation, so the test cannot pass empty
    assert "FirstAvailable device selection is not supported" in all_formats
    assert ("extended resource %s resolves to DeviceClass %s with counters configured; use ResourceClaimTemplates "
            "with CEL selectors for counter-based quota") in all_formats
    assert "matched devices have no capacity dimension %q" in all_formats
    assert len(all_formats) >= 25


def test_every_kueue_dra_message_has_a_code_and_a_fix(all_formats):
    missing = []
    for fmt, where in sorted(all_formats.items()):
        if fmt in NOT_MESSAGES:
            continue
        cause = cause_of(sample(fmt))
        if cause is None or not cause.cause or cause.code.fixes.get(cause.variant) is None:
            missing.append(f"{where}: {fmt!r}")
    assert not missing, "Kueue messages without a finding code and fix:\n" + "\n".join(missing)


def test_not_messages_list_is_current(all_formats):
    stale = sorted(set(NOT_MESSAGES) - set(all_formats))
    assert not stale, f"no Kueue version has these formats any more: {stale}"
