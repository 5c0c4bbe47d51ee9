"""The import rules of docs/architecture.md, read from the source: which package may import which,
and that only kube/ talks to the network or starts processes."""

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "kubectl_kueue_dra"

#: modules every layer may use: errors, findings, stats (KUEUE_DRA_STATS), frozen, the version
BASE = {"errors", "findings", "stats", "frozen", "__version__"}
#: package → the project packages it may import (besides itself and BASE)
ALLOWED = {
    "k8s": set(),
    "gates": set(),
    "dra": set(),
    "kube": {"k8s"},
    "render": set(),
    "kueue": {"k8s", "dra", "gates", "kube"},
    "commands": {"k8s", "dra", "gates", "kube", "kueue"},
    "cli": {"k8s", "dra", "gates", "kube", "kueue", "commands", "render"},
    "__main__": {"cli"},
}
#: standard-library and third-party modules that reach the network or other processes
IO_MODULES = {"kubernetes", "urllib3", "requests", "http", "socket", "ssl", "subprocess"}


def modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


def package_of(path: Path) -> str:
    parts = path.relative_to(PACKAGE).with_suffix("").parts
    return parts[0]


def imported(path: Path) -> list[tuple[int, str]]:
    """(line, absolute module name) of every import in the file, relative ones resolved."""
    parts = ["kubectl_kueue_dra", *path.relative_to(PACKAGE).with_suffix("").parts]
    here = parts[:-1]  # the package the module is in (for __init__, the package itself)
    out = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here[:len(here) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            out.append((node.lineno, module))
            # "from .. import gates": the names may be modules themselves
            out += [(node.lineno, f"{module}.{a.name}") for a in node.names]
    return out


def project_packages(path: Path) -> list[tuple[int, str]]:
    found = []
    for line, module in imported(path):
        parts = module.split(".")
        if parts[0] == "kubectl_kueue_dra" and len(parts) > 1:
            found.append((line, parts[1]))
    return found


def _is_package_or_module(name: str) -> bool:
    return (PACKAGE / name).is_dir() or (PACKAGE / f"{name}.py").exists() or name == "__version__"


@pytest.mark.parametrize("path", modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_follow_the_layers(path):
    own = package_of(path)
    if own in BASE or own == "__init__":
        allowed: set[str] = set()
    else:
        assert own in ALLOWED, f"{own}/ is not in docs/architecture.md's table (and this test's ALLOWED)"
        allowed = ALLOWED[own]
    bad = [f"line {line}: imports {target}" for line, target in project_packages(path)
           if _is_package_or_module(target) and target != own and target not in BASE | allowed]
    assert not bad, f"{path.relative_to(PACKAGE)} ({own}/ may import {sorted(allowed) or 'nothing'}): {bad}"


@pytest.mark.parametrize("path", [p for p in modules() if package_of(p) != "kube"],
                         ids=lambda p: str(p.relative_to(PACKAGE)))
def test_only_kube_reaches_the_network_or_other_processes(path):
    bad = [f"line {line}: {module}" for line, module in imported(path) if module.split(".")[0] in IO_MODULES]
    assert not bad, f"{path.relative_to(PACKAGE)}: {bad}"


def test_the_rules_see_what_they_check():
    """The parser finds relative imports of every form (a rule that reads nothing passes anything)."""
    facts = PACKAGE / "commands" / "verify" / "facts.py"
    found = {t for _, t in project_packages(facts)}
    assert {"kube", "kueue", "gates", "dra"} <= found
    # "from .. import stats" inside a function, "from kubernetes import client" inside a function
    assert "kubectl_kueue_dra.stats" in {m for _, m in imported(PACKAGE / "kube" / "client.py")}
    assert any(m.split(".")[0] in IO_MODULES for _, m in imported(PACKAGE / "kube" / "kubeconfig.py"))
