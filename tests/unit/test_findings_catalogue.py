"""The catalogue of finding codes (kubectl_kueue_dra/findings/): every code declared once and well
formed; no module outside it writes a code as a string; docs/findings.md is what the catalogue
generates; and every code is named by a test module (other than this one)."""

import ast
import re
import shlex
from pathlib import Path

import pytest

from kubectl_kueue_dra.findings import codes as F
from kubectl_kueue_dra.findings.catalogue import KUEUE_WORDS, SECTIONS, catalogue
from kubectl_kueue_dra.findings.code import SEVERITIES, Code, placeholders
from kubectl_kueue_dra.findings.doc import markdown

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "kubectl_kueue_dra"
CATALOGUE = PACKAGE / "findings"
TESTS = ROOT / "tests"
DOC = ROOT / "docs" / "findings.md"
CODES = catalogue()
NAMES = {c.name for c in CODES}
#: a call that builds a finding or a code: it must not be given a code as a string
CONSTRUCTORS = {"finding", "Finding", "Code", "Note", "Violation"}
#: the files of tests/ a code name is looked for in (test modules, expected-output fixtures)
TEXT_SUFFIXES = {".py", ".json", ".yaml", ".yml", ".txt", ".md"}


def _modules(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*.py") if "__pycache__" not in p.parts)


# ---- each code declared once, well formed --------------------------------------------------------

def test_each_code_is_declared_once_under_its_own_name():
    assert len(NAMES) == len(CODES), sorted(n for n in NAMES if sum(c.name == n for c in CODES) > 1)
    for _, module in SECTIONS:
        for attribute, value in vars(module).items():
            if isinstance(value, Code) and not attribute.startswith("_"):
                assert attribute == value.name, f"{module.__name__}.{attribute} declares {value.name}"
    # codes.py, the call sites' namespace, holds exactly the catalogue
    assert {v.name for v in vars(F).values() if isinstance(v, Code)} == NAMES
    # a module of findings/ that declares codes is a section of the catalogue
    sections = {module.__name__ for _, module in SECTIONS}
    declaring = {f"kubectl_kueue_dra.findings.{p.stem}" for p in _modules(CATALOGUE)
                 if re.search(r"^\w+ = (Code|_rule)\(", p.read_text(), re.M)}
    assert declaring == sections
    assert len(CODES) >= 100  # the codes the commands said when the catalogue was made


@pytest.mark.parametrize("code", CODES, ids=lambda c: c.name)
def test_each_code_is_well_formed(code):
    assert re.fullmatch(r"[A-Z][A-Za-z0-9]+", code.name)
    assert code.severities and set(code.severities) <= set(SEVERITIES)
    assert len(set(code.severities)) == len(code.severities)
    # what it means: one sentence, ours
    assert code.means[0].isupper() and code.means.endswith("."), code.means
    assert not re.search(r"[.!?] [A-Z]", code.means), f"more than one sentence: {code.means}"
    for variant, template in code.fixes.items():
        assert variant == "" or re.fullmatch(r"[a-z0-9]+(-[a-z0-9.]+)*", variant), variant
        names = placeholders(template)
        assert all(n.isidentifier() for n in names), f"{code.name} {variant!r}: {sorted(names)}"
        if template is None:
            continue
        filled = template.format(**{n: f"x-{n}" for n in names})
        if filled.startswith("kubectl "):  # a command: it comes out pasteable (its quotes balance; a
            assert shlex.split(filled, comments=True)[0] == "kubectl"  # shell comment after it says why)


def test_a_fix_that_is_a_command_pastes_as_one():
    """ClusterQueueStopped's patch: a shell reads the JSON as one word, with its braces single."""
    fix = F.ClusterQueueStopped.fix_text(cluster_queue="gpu-cq")
    assert shlex.split(fix) == ["kubectl", "patch", "clusterqueue", "gpu-cq", "--type=merge", "-p",
                                '{"spec":{"stopPolicy":"None"}}']
    assert shlex.split(F.NamespaceNotManaged.fix_text("openshift", namespace="team-a", label="kueue.openshift.io/managed")) \
        == ["kubectl", "label", "namespace", "team-a", "kueue.openshift.io/managed=true"]


def test_make_builds_the_finding_the_code_declares():
    f = F.LocalQueueMissing.make("LocalQueue team-a/q does not exist", local_queue="q", namespace="team-a",
                                 extra={"predicted": True})
    assert list(f) == ["severity", "code", "message", "fix", "predicted"]
    assert f == {"severity": "error", "code": "LocalQueueMissing", "message": "LocalQueue team-a/q does not exist",
                 "fix": "create it: a LocalQueue named q in team-a pointing at a ClusterQueue", "predicted": True}
    assert F.WhatIfFit.make("fits", severity="info", variant="fits")["fix"] is None
    # a call site passes the same names whichever variant it picks
    assert F.NoQueueName.make("m", variant="what-if", holder=None, namespace="ns", local_queue="lq",
                              note="")["fix"].startswith("add the label kueue.x-k8s.io/queue-name: lq")


def test_make_refuses_what_the_code_does_not_declare():
    with pytest.raises(ValueError, match="error"):
        F.QuotaExhausted.make("m", severity="error")
    with pytest.raises(KeyError, match="no fix 'openshift'"):
        F.QuotaExhausted.make("m", variant="openshift")
    with pytest.raises(TypeError, match="lacks \\['namespace'\\]"):
        F.LocalQueueMissing.make("m", local_queue="q")
    with pytest.raises(TypeError, match="takes \\['queue'\\]"):
        F.LocalQueueMissing.make("m", local_queue="q", namespace="ns", queue="q")


# ---- no code written as a string outside the catalogue ---------------------------------------------

def _called(node: ast.Call) -> str | None:
    func = node.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None


def _is_str(node: ast.AST | None) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def literal_codes(source: str, names: set[str]) -> list[tuple[int, str]]:
    """(line, what) of every place ``source`` writes a finding code as a string: a literal equal to
    a code's name (a comparison, a table, ``Note("X", …)``), a finding or code built with a literal
    code (``finding("error", "X", …)``, ``Code("X", …)``, ``code="X"``), or a finding built as a dict
    literal (a ``"code"`` key whose value is a string, or that sits beside ``"severity"``)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if _is_str(node) and node.value in names:
            found.append((node.lineno, f"the code {node.value!r} written as a string"))
        elif isinstance(node, ast.Dict):
            keys = {k.value: v for k, v in zip(node.keys, node.values) if _is_str(k)}
            if "code" in keys and (_is_str(keys["code"]) or "severity" in keys):
                found.append((node.lineno, "a finding built as a dict literal"))
        elif isinstance(node, ast.Call):
            literal = [a for a in [*node.args, *(k.value for k in node.keywords if k.arg == "code")]
                       if _is_str(a) and re.fullmatch(r"[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*", a.value)]
            if (_called(node) in CONSTRUCTORS and literal) or \
                    any(k.arg == "code" and _is_str(k.value) for k in node.keywords):
                found.append((node.lineno, f"{_called(node)}(…) given a code as a string"))
    return sorted(set(found))


@pytest.mark.parametrize("path", [p for p in _modules(PACKAGE) if CATALOGUE not in p.parents],
                         ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_module_writes_a_code_as_a_string(path):
    found = literal_codes(path.read_text(), NAMES - KUEUE_WORDS)  # Kueue's words stay strings where they are
    assert not found, (f"{path.relative_to(ROOT)}: {found}; declare the code in kubectl_kueue_dra/findings/ and "
                       "use it by name (F.X.make(...)), see docs/architecture.md")


def test_the_check_finds_every_way_of_writing_a_code():
    source = "\n".join([
        'finding("error", "QuotaExhausted", "m", None)',                       # 1: the old constructor
        'finding("warning", "BrandNewCode", "m")',                             # 2: a code not declared yet
        'x = {"severity": "warning", "code": code, "message": m, "fix": None}',  # 3: a finding as a dict
        'y = {"code": "SomethingElse", "podSet": p}',                          # 4: a literal code in a dict
        'Note("DRAIgnored", "text")',                                          # 5: a declared name, anywhere
        'Code("AnotherCode", "error", means="m.")',                                # 6: a code outside the catalogue
        'if f["code"] == "ResourceNotCovered": pass',                          # 7
        'out = make(message, code="NewThing")',                                # 8
        'F.QuotaExhausted.make("Kueue says: QuotaExhausted")',                 # 9: fine, a longer text
        'doc = {"code": v.code, "podSet": v.pod_set}',                         # 10: fine, a verdict
        'ok = f["code"] == F.ResourceNotCovered.name',                         # 11: fine
    ])
    found = literal_codes(source, NAMES)
    assert sorted({line for line, _ in found}) == [1, 2, 3, 4, 5, 6, 7, 8], found


def test_the_check_reads_the_package():
    """It parses what it checks: the modules that use the catalogue most name many codes."""
    queue = (PACKAGE / "commands" / "explain" / "queue.py").read_text()
    assert len(set(re.findall(r"\bF\.(\w+)\.", queue)) & NAMES) >= 8
    assert literal_codes(queue.replace("F.ResourceNotCovered.name", '"ResourceNotCovered"'), NAMES)


# ---- docs/findings.md ------------------------------------------------------------------------------

def test_the_findings_doc_is_current():
    text = markdown()
    assert all(f"\n### {name}\n" in text for name in NAMES)
    assert DOC.read_text() == text, "docs/findings.md is stale: regenerate it with scripts/findings-doc"


# ---- every code named by a test --------------------------------------------------------------------

def _words(path: Path) -> set[str]:
    """The words of a test module's strings and names (comments are not read), or of a fixture."""
    text = path.read_text(errors="replace")
    if path.suffix != ".py":
        return set(re.findall(r"[A-Za-z0-9]+", text))
    words: set[str] = set()
    for node in ast.walk(ast.parse(text)):
        if _is_str(node):
            words.update(re.findall(r"[A-Za-z0-9]+", node.value))
        elif isinstance(node, ast.Name):
            words.add(node.id)
        elif isinstance(node, ast.Attribute):
            words.add(node.attr)
    return words


def reached_codes(root: Path = TESTS, own: Path = Path(__file__)) -> set[str]:
    words: set[str] = set()
    for path in sorted(root.rglob("*")):
        if path.is_file() and path.suffix in TEXT_SUFFIXES and path != own and "__pycache__" not in path.parts:
            words |= _words(path)
    return NAMES & words


def test_every_code_is_named_by_a_test():
    unreached = sorted(NAMES - reached_codes())
    assert not unreached, f"no test module names these codes (write a test that drives each): {unreached}"


def test_reachability_reads_strings_and_names_not_comments(tmp_path):
    (tmp_path / "test_a.py").write_text('# QuotaExhausted only in a comment\nassert f["code"] == "ExceedsQuota"\n')
    (tmp_path / "test_b.py").write_text("assert codes == [F.NoQueueName.name]\n")
    (tmp_path / "expected.json").write_text('{"code": "WhatIfFit"}')
    assert reached_codes(tmp_path, own=tmp_path / "none") == {"ExceedsQuota", "NoQueueName", "WhatIfFit"}


def test_the_recorder_adds_the_codes_a_session_emits(tmp_path):
    from testenv.findings_record import Recorder

    path = tmp_path / "emitted.txt"
    path.write_text("QuotaExhausted\n")  # an earlier session's
    recorder = Recorder(path)
    recorder.start()
    F.LocalQueueMissing.make("m", local_queue="q", namespace="ns")
    recorder.finish()
    assert path.read_text() == "LocalQueueMissing\nQuotaExhausted\n"
    F.ExceedsQuota.make("m", resource="r", cluster_queue="cq")  # after finish: no longer recorded
    assert recorder.emitted == {"LocalQueueMissing"}
