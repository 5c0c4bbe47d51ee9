"""The rules of docs/architecture.md, read from the source: which package may import which (and,
inside kueue/ and commands/, which subpackage may import which), that only kube/ talks to the
network or starts processes, that no module imports itself back through others, and the sizes:
folders, modules, command modules. The test tooling testenv/ keeps the module size and has no
import circle either."""

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "kubectl_kueue_dra"
#: the test tooling (not shipped): its modules follow the size and no-circle rules too
TESTENV = PACKAGE.parent / "testenv"

#: the base every layer may use: the modules errors, stats (KUEUE_DRA_STATS), frozen, userdirs, environment
#: (the run's streams, variables and clock), the version, and the package findings/ (the catalogue
#: of finding codes); they import no other package
BASE = {"errors", "findings", "stats", "frozen", "environment", "userdirs", "__version__"}
#: package → the project packages it may import (besides itself and BASE)
ALLOWED = {
    "k8s": set(),
    "gates": set(),
    "dra": set(),
    "kube": {"k8s"},
    "render": set(),
    "kueue": {"k8s", "dra", "gates", "kube"},
    "commands": {"k8s", "dra", "gates", "kube", "kueue"},
    "cli": {"commands", "render"},
    "__main__": {"cli"},
}
#: kueue/'s subpackages, bottom first: each may import those before it, never one after it. The
#: modules at kueue/'s top (names, units, fielderrors) every subpackage may import; they import none.
KUEUE_ORDER = ("config", "install", "workloads", "charge", "queues", "scheduler")
#: standard-library and third-party modules that reach the network or other processes
IO_MODULES = {"kubernetes", "urllib3", "requests", "http", "socket", "ssl", "subprocess"}
#: the sizes of docs/architecture.md: modules in one folder, lines of a module, of a cli/ module
MAX_MODULES = 20
MAX_LINES = 400
MAX_CLI_LINES = 200


def modules(root: Path = PACKAGE) -> list[Path]:
    return sorted(p for p in root.rglob("*.py") if "__pycache__" not in p.parts)


def package_of(path: Path) -> str:
    parts = path.relative_to(PACKAGE).with_suffix("").parts
    return parts[0]


def module_name(path: Path, root: Path = PACKAGE) -> str:
    parts = [root.name, *path.relative_to(root).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, root: Path) -> list[tuple[int, str, list[str]]]:
    """(line, absolute module, the names it imports from it) of every import in the file, at any
    depth (inside functions too), relative ones resolved."""
    parts = [root.name, *path.relative_to(root).with_suffix("").parts]
    here = parts[:-1]  # the package the module is in (for __init__, the package itself)
    out = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name, []) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here[:len(here) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            out.append((node.lineno, module, [a.name for a in node.names]))
    return out


def imported(path: Path, root: Path = PACKAGE) -> list[tuple[int, str]]:
    """(line, absolute module name) of every import in the file, relative ones resolved."""
    out = []
    for line, module, names in _imports(path, root):
        out.append((line, module))
        # "from .. import gates": the names may be modules themselves
        out += [(line, f"{module}.{name}") for name in names]
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


def import_graph(root: Path = PACKAGE) -> dict[str, set[str]]:
    """module → the modules of the package it imports, wherever in the file the import is.
    ``from p import x`` goes to the module p.x when there is one, else to p (its __init__)."""
    names = {module_name(p, root): p for p in modules(root)}
    graph: dict[str, set[str]] = {}
    for name, path in names.items():
        edges = set()
        for _, module, imported_names in _imports(path, root):
            for target in [f"{module}.{n}" for n in imported_names] or [module]:
                if target in names:
                    edges.add(target)
                elif module in names:
                    edges.add(module)
        graph[name] = edges - {name}
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import circles: each set of modules that reach one another (Tarjan's strongly
    connected components of more than one module), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def crowded_folders(root: Path = PACKAGE, limit: int = MAX_MODULES) -> dict[str, int]:
    """Folders holding more than ``limit`` modules (``__init__.py`` counts), with their count."""
    counts: dict[str, int] = {}
    for path in modules(root):
        folder = str(path.parent.relative_to(root.parent))
        counts[folder] = counts.get(folder, 0) + 1
    return {folder: n for folder, n in counts.items() if n > limit}


def long_modules(paths: list[Path], limit: int) -> dict[str, int]:
    """Modules of ``limit`` lines or more (a module must stay under it), with their length."""
    lengths = {str(p): len(p.read_text().splitlines()) for p in paths}
    return {p: n for p, n in lengths.items() if n >= limit}


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


def _subpackage(module: str, package: str) -> str | None:
    """The subpackage of kubectl_kueue_dra.<package> a module name is in; None for a module at
    the package's top (or the package itself)."""
    parts = module.split(".")
    if parts[:2] != ["kubectl_kueue_dra", package] or len(parts) < 3:
        return None
    return parts[2] if (PACKAGE / package / parts[2]).is_dir() else None


def _targets_in(path: Path, package: str) -> list[tuple[int, str]]:
    return [(line, m) for line, m in imported(path) if m.split(".")[:2] == ["kubectl_kueue_dra", package]
            and len(m.split(".")) > 2]


@pytest.mark.parametrize("path", modules(PACKAGE / "kueue"), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_kueue_subpackages_depend_one_way(path):
    own = _subpackage(module_name(path), "kueue")
    allowed = set(KUEUE_ORDER[:KUEUE_ORDER.index(own)]) if own else set()
    assert own is None or own in KUEUE_ORDER, f"kueue/{own}/ is not in KUEUE_ORDER (and docs/architecture.md)"
    bad = [f"line {line}: imports {m}" for line, m in _targets_in(path, "kueue")
           if (sub := _subpackage(m, "kueue")) is not None and sub != own and sub not in allowed]
    assert not bad, f"{path.relative_to(PACKAGE)} (kueue/{own or ''} may import {sorted(allowed)}): {bad}"


@pytest.mark.parametrize("path", modules(PACKAGE / "commands"), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_a_command_never_imports_another(path):
    """commands/<verb>/ may import the modules at commands/' top, never another verb's package."""
    own = _subpackage(module_name(path), "commands")
    bad = [f"line {line}: imports {m}" for line, m in _targets_in(path, "commands")
           if (sub := _subpackage(m, "commands")) is not None and sub != own]
    assert not bad, f"{path.relative_to(PACKAGE)}: {bad}"


@pytest.mark.parametrize("path", [p for p in modules() if package_of(p) != "kube"],
                         ids=lambda p: str(p.relative_to(PACKAGE)))
def test_only_kube_reaches_the_network_or_other_processes(path):
    bad = [f"line {line}: {module}" for line, module in imported(path) if module.split(".")[0] in IO_MODULES]
    assert not bad, f"{path.relative_to(PACKAGE)}: {bad}"


def test_no_import_circle():
    """No module imports itself back through others, counting the imports inside functions."""
    assert circles(import_graph()) == []


def test_no_folder_holds_more_than_20_modules():
    assert crowded_folders() == {}


def test_modules_stay_under_400_lines():
    assert long_modules(modules(), MAX_LINES) == {}


def test_testenv_modules_stay_under_400_lines():
    assert long_modules(modules(TESTENV), MAX_LINES) == {}


def test_no_import_circle_in_testenv():
    graph = import_graph(TESTENV)
    # the rule reads the tooling: the scale package's __init__ re-exports its three modules
    assert {"testenv.scale.objects", "testenv.scale.loading", "testenv.scale.snapshot"} <= graph["testenv.scale"]
    assert circles(graph) == []


def test_command_modules_stay_under_200_lines():
    assert long_modules(modules(PACKAGE / "cli"), MAX_CLI_LINES) == {}


def test_the_rules_see_what_they_check():
    """The parser finds relative imports of every form (a rule that reads nothing passes anything)."""
    facts = PACKAGE / "commands" / "verify" / "facts.py"
    found = {t for _, t in project_packages(facts)}
    assert {"kube", "kueue", "gates", "dra"} <= found
    # "from .. import stats" inside a function, "from kubernetes import client" inside a function
    assert "kubectl_kueue_dra.stats" in {m for _, m in imported(PACKAGE / "kube" / "client.py")}
    assert any(m.split(".")[0] in IO_MODULES for _, m in imported(PACKAGE / "kube" / "kubeconfig.py"))
    # the sub-package rules read the subpackage of a target, and of the module itself
    charge = {_subpackage(m, "kueue") for _, m in _targets_in(PACKAGE / "kueue" / "charge" / "engine.py", "kueue")}
    assert {"charge", "workloads"} <= charge
    assert _subpackage(module_name(PACKAGE / "kueue" / "units.py"), "kueue") is None
    request = PACKAGE / "commands" / "explain" / "request.py"
    assert {_subpackage(m, "commands") for _, m in _targets_in(request, "commands")} == {"explain"}


def test_the_graph_holds_imports_at_every_depth():
    graph = import_graph()
    # module level, relative: kueue/install/model imports kueue/config/load
    assert "kubectl_kueue_dra.kueue.config.load" in graph["kubectl_kueue_dra.kueue.install.model"]
    # inside a function: the entry point loads the click side (dispatch) only when it runs, and
    # dispatch loads completion only then
    assert "kubectl_kueue_dra.cli.dispatch" in graph["kubectl_kueue_dra.cli.entry"]
    assert "kubectl_kueue_dra.cli.completion" in graph["kubectl_kueue_dra.cli.dispatch"]
    # "from . import flags": the module, not the package's __init__
    assert "kubectl_kueue_dra.kueue.install.flags" in graph["kubectl_kueue_dra.commands.explain.request"]
    # "from ...dra.cel import SelectorEvaluator": the package's __init__, which re-exports it
    assert "kubectl_kueue_dra.dra.cel" in graph["kubectl_kueue_dra.commands.explain.inputs"]


def _package(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "pkg"
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def test_a_circle_through_a_function_level_import_is_found(tmp_path):
    root = _package(tmp_path, {
        "__init__.py": "",
        "a.py": "from . import b\n",
        "sub/__init__.py": "",
        "sub/c.py": "def later():\n    from ..a import thing\n",
        "b.py": "from .sub import c\n",
        "d.py": "from .a import thing\n",  # into the circle, not part of it
    })
    assert circles(import_graph(root)) == [["pkg.a", "pkg.b", "pkg.sub.c"]]
    (root / "sub" / "c.py").write_text("def later():\n    return 1\n")
    assert circles(import_graph(root)) == []


def test_a_package_init_re_exporting_its_module_is_no_circle(tmp_path):
    root = _package(tmp_path, {"__init__.py": "from .impl import f\n", "impl.py": "from .helper import g\n",
                               "helper.py": "X = 1\n"})
    assert circles(import_graph(root)) == []
    (root / "helper.py").write_text("from . import f\n")  # the name of the __init__, not a module
    assert circles(import_graph(root)) == [["pkg", "pkg.helper", "pkg.impl"]]


def test_a_crowded_folder_is_found(tmp_path):
    root = _package(tmp_path, {f"many/m{i}.py": "" for i in range(MAX_MODULES)} | {"__init__.py": ""})
    assert crowded_folders(root) == {}
    (root / "many" / "__init__.py").write_text("")
    assert crowded_folders(root) == {"pkg/many": MAX_MODULES + 1}


def test_a_long_module_is_found(tmp_path):
    short, long = tmp_path / "short.py", tmp_path / "long.py"
    short.write_text("x = 1\n" * (MAX_CLI_LINES - 1))
    long.write_text("x = 1\n" * MAX_CLI_LINES)
    assert long_modules([short, long], MAX_CLI_LINES) == {str(long): MAX_CLI_LINES}
    assert long_modules([short, long], MAX_LINES) == {}
