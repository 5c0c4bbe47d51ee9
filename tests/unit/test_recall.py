"""The frozen binary's cached answers (cli/recall): what a run kept is printed again, byte for
byte, without click; what could change is never kept."""

import marshal
import os
import subprocess
import sys
from pathlib import Path

from testenv.clirun import run

from kubectl_kueue_dra.cli import recall, shipping

ROOT = Path(__file__).resolve().parents[2]
MIG = "examples/mig-partitionable"


def vars_for(tmp_path, **extra):
    return {"XDG_CACHE_HOME": str(tmp_path), "COLUMNS": "90", **extra}


def kept(tmp_path, *args, frozen=True, **extra):
    """Run ``args`` in process, keep its answer as the frozen entry point would, and recall it."""
    env_vars = vars_for(tmp_path, **extra)
    proc = run(*args, env=env_vars)
    width = recall.help_width(env_vars, None)
    recall.keep(list(args), env_vars, width=width, frozen=frozen, exit_code=proc.returncode)
    return proc, recall.recalled(list(args), env_vars, width=width, frozen=frozen)


def test_help_is_recalled_exactly(tmp_path):
    for args in (["--help"], ["explain", "--help"], ["map", "set", "-h"], ["-n", "x", "classes", "--help"]):
        proc, answer = kept(tmp_path, *args)
        assert proc.returncode == 0 and proc.stdout.startswith("Usage: kubectl kueue-dra")
        assert answer == proc.stdout, args


def test_help_is_kept_per_width(tmp_path):
    kept(tmp_path, "explain", "--help")
    env_vars = vars_for(tmp_path)
    assert recall.recalled(["explain", "--help"], env_vars, width=88, frozen=True) is not None
    assert recall.recalled(["explain", "--help"], env_vars, width=60, frozen=True) is None


def test_static_completions_are_recalled(tmp_path):
    for args in (["__complete", ""], ["__completeNoDesc", "ex"], ["__complete", "explain", "--"],
                 ["__complete", "classes", "-o", ""], ["__complete", "classes", "--from", ""]):
        proc, answer = kept(tmp_path, *args)
        assert proc.returncode == 0 and proc.stdout.endswith("\n")
        assert answer == proc.stdout, args


def test_what_could_change_is_never_kept(tmp_path):
    # candidates from a snapshot, a kubeconfig's contexts: asked outside, never kept
    proc, answer = kept(tmp_path, "__complete", "classes", "--from", MIG, "--devices", "")
    assert "gpu.nvidia.com" in proc.stdout and answer is None
    assert kept(tmp_path, "__complete", "--context", "")[1] is None
    # a run that is not help, a failing one, a verbose one, one that writes a report
    assert kept(tmp_path, "classes", "--from", MIG)[1] is None
    assert kept(tmp_path, "explain", "--nope", "--help")[1] is None
    assert kept(tmp_path, "-v", "explain", "--help")[1] is None
    assert kept(tmp_path, "explain", "--help", KUEUE_DRA_STATS=str(tmp_path / "s.json"))[1] is None
    # from source nothing is kept or recalled
    assert kept(tmp_path, "explain", "--help", frozen=False)[1] is None
    assert not (tmp_path / "kueue-dra").exists() or \
        recall.recalled(["explain", "--help"], vars_for(tmp_path), width=88, frozen=True) is None


def test_another_binary_starts_afresh(tmp_path, monkeypatch):
    exe = tmp_path / "kubectl-kueue_dra"
    exe.write_text("one build")
    monkeypatch.setattr(sys, "executable", str(exe))
    kept(tmp_path, "--help")
    env_vars = vars_for(tmp_path)
    assert recall.recalled(["--help"], env_vars, width=88, frozen=True) is not None
    exe.write_text("another build of the same version")
    assert recall.recalled(["--help"], env_vars, width=88, frozen=True) is None


def test_a_broken_cache_is_no_cache(tmp_path):
    kept(tmp_path, "--help")
    [stored] = (tmp_path / "kueue-dra").glob("answers-*.marshal")
    stored.write_bytes(b"\x00garbage")
    assert recall.recalled(["--help"], vars_for(tmp_path), width=88, frozen=True) is None


def test_the_entry_point_answers_again_without_click(tmp_path):
    """Through ``run()`` as the binary runs it: the first run keeps, the second prints the same
    with click made unimportable."""
    code = ("import sys; sys.frozen = True; {block}"
            "sys.argv = ['kubectl-kueue_dra', 'explain', '--help']; "
            "from kubectl_kueue_dra.cli import run; run()")
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path), COLUMNS="90")
    env.pop("KUEUE_DRA_STATS", None)
    first = subprocess.run([sys.executable, "-c", code.format(block="")], cwd=ROOT, env=env,
                           capture_output=True, text=True, timeout=60)
    assert first.returncode == 0 and first.stdout.startswith("Usage:"), first.stderr
    second = subprocess.run([sys.executable, "-c", code.format(block="sys.modules['click'] = None; ")], cwd=ROOT,
                            env=env, capture_output=True, text=True, timeout=60)
    assert (second.returncode, second.stdout, second.stderr) == (0, first.stdout, "")
    # and without the cache, click is needed: the block above does block it
    blocked = subprocess.run([sys.executable, "-c", code.format(block="sys.modules['click'] = None; ")], cwd=ROOT,
                             env=dict(env, XDG_CACHE_HOME=str(tmp_path / "empty")), capture_output=True, text=True,
                             timeout=60)
    assert blocked.returncode != 0


def test_two_binaries_keep_their_own_answers(tmp_path, monkeypatch):
    one, other = tmp_path / "onedir" / "kubectl-kueue_dra", tmp_path / "onefile"
    one.parent.mkdir()
    one.write_text("one-folder build")
    other.write_text("one-file build")
    env_vars = vars_for(tmp_path)
    monkeypatch.setattr(sys, "executable", str(one))
    kept(tmp_path, "--help")
    monkeypatch.setattr(sys, "executable", str(other))
    kept(tmp_path, "--help")
    assert recall.recalled(["--help"], env_vars, width=88, frozen=True) is not None
    monkeypatch.setattr(sys, "executable", str(one))
    assert recall.recalled(["--help"], env_vars, width=88, frozen=True) is not None


# ---- the answers the one-folder bundle ships ------------------------------------------------------
def shipped_bundle(tmp_path, monkeypatch, answers):
    """A bundle folder (what sys._MEIPASS names in the frozen binary) shipping ``answers``."""
    bundle = tmp_path / "bundle" / "_internal"
    bundle.mkdir(parents=True)
    monkeypatch.setattr(sys, "_MEIPASS", str(bundle), raising=False)
    return bundle, shipping.ship(str(bundle), answers)


def test_the_user_cache_first_then_the_shipped_answers(tmp_path, monkeypatch):
    _, sizes = shipped_bundle(tmp_path, monkeypatch, {
        (("explain", "--help"), 78): "shipped explain help\n",
        (("explain", "--help"), 98): "shipped wide explain help\n",
        (("__complete", ""), 78): "shipped\tcandidates\n:4\n",
        (("explain", "--help"), 88): "a width that is not shipped\n",
    })
    assert sorted(sizes) == ["complete.marshal", "help-78.marshal", "help-98.marshal"]
    env_vars = vars_for(tmp_path)
    assert recall.recalled(["explain", "--help"], env_vars, width=78, frozen=True) == "shipped explain help\n"
    assert recall.recalled(["explain", "--help"], env_vars, width=98, frozen=True) == "shipped wide explain help\n"
    assert recall.recalled(["explain", "--help"], env_vars, width=88, frozen=True) is None
    assert recall.recalled(["explain", "-h"], env_vars, width=78, frozen=True) is None
    # a completion does not depend on the width: one file answers at any
    for width in (78, 88, 98):
        assert recall.recalled(["__complete", ""], env_vars, width=width, frozen=True) == "shipped\tcandidates\n:4\n"
    # nothing from the bundle when the run must go through click, or from source
    for extra in ({"KUEUE_DRA_NO_RECALL": "1"}, {"KUEUE_DRA_STATS": str(tmp_path / "s.json")}):
        assert recall.recalled(["explain", "--help"], vars_for(tmp_path, **extra), width=78, frozen=True) is None
    assert recall.recalled(["explain", "--help"], env_vars, width=78, frozen=False) is None
    # what the user's cache holds comes first
    proc, answer = kept(tmp_path, "explain", "--help", COLUMNS="80")
    assert proc.stdout.startswith("Usage: kubectl kueue-dra explain") and answer == proc.stdout
    assert recall.recalled(["explain", "--help"], env_vars, width=78, frozen=True) == proc.stdout
    assert recall.recalled(["explain", "--help"], env_vars, width=98, frozen=True) == "shipped wide explain help\n"


def test_shipped_answers_of_another_version_are_ignored(tmp_path, monkeypatch):
    bundle, _ = shipped_bundle(tmp_path, monkeypatch, {(("--help",), 78): "this version's help\n"})
    assert recall.recalled(["--help"], vars_for(tmp_path), width=78, frozen=True) == "this version's help\n"
    with monkeypatch.context() as another:  # the same bundle folder, written by another version
        another.setattr(shipping, "__version__", "0.0.0-another")
        shipping.ship(str(bundle), {(("--help",), 78): "another version's help\n"})
    assert recall.recalled(["--help"], vars_for(tmp_path), width=78, frozen=True) is None


def test_a_broken_shipped_file_is_no_answer(tmp_path, monkeypatch):
    bundle, _ = shipped_bundle(tmp_path, monkeypatch, {(("--help",), 78): "help\n", (("-h",), 98): "help\n"})
    env_vars = vars_for(tmp_path)
    assert recall.recalled(["--help"], env_vars, width=78, frozen=True) == "help\n"
    folder = bundle / recall.SHIPPED_DIR
    good = (folder / "help-78.marshal").read_bytes()
    for broken in (b"\x00garbage", good[: len(good) // 2], b""):
        (folder / "help-78.marshal").write_bytes(broken)
        assert recall.recalled(["--help"], env_vars, width=78, frozen=True) is None
    (folder / "help-98.marshal").write_bytes(marshal.dumps({"version": recall.__version__, "answers": ["help\n"]}))
    assert recall.recalled(["-h"], env_vars, width=98, frozen=True) is None
    (folder / "help-98.marshal").unlink()
    assert recall.recalled(["-h"], env_vars, width=98, frozen=True) is None


def test_shipping_again_leaves_only_the_new_answers(tmp_path, monkeypatch):
    bundle, _ = shipped_bundle(tmp_path, monkeypatch, {(("--help",), 78): "old\n", (("__complete", ""), 78): ":4\n"})
    shipping.ship(str(bundle), {(("--help",), 98): "new\n"})
    assert sorted(p.name for p in (bundle / recall.SHIPPED_DIR).iterdir()) == ["help-98.marshal"]
    assert recall.recalled(["--help"], vars_for(tmp_path), width=78, frozen=True) is None
    assert recall.recalled(["--help"], vars_for(tmp_path), width=98, frozen=True) == "new\n"


def ship_answers_module():
    """packaging/ship_answers.py, the build step that ships the binary's answers."""
    import importlib.util

    if "ship_answers" not in sys.modules:  # its dataclass looks its module up there
        spec = importlib.util.spec_from_file_location("ship_answers", ROOT / "packaging" / "ship_answers.py")
        sys.modules["ship_answers"] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(sys.modules["ship_answers"])
    return sys.modules["ship_answers"]


def test_the_build_asks_for_every_command_paths_help_and_static_completions():
    from kubectl_kueue_dra.cli.root import COMMANDS, cli

    ship = ship_answers_module()
    paths = ship.command_paths()
    assert paths[0] == () and {p[0] for p in paths if len(p) == 1} == set(COMMANDS)
    assert {("map", "set"), ("map", "remove"), ("classes", "set-extended-resource")} <= set(paths)
    for group in ("map", "classes"):
        assert {p[1] for p in paths if len(p) == 2 and p[0] == group} == set(cli.get_command(None, group).commands)
    requests = ship.requests(paths)
    help_requests = {(r.words, r.width) for r in requests if r.is_help}
    assert help_requests == {((*p, flag), w) for p in paths for flag in ("--help", "-h") for w in (78, 98)}
    assert {r.words for r in requests if not r.is_help} >= {("__complete", ""), ("__complete", "map", "set", "--")}


def test_what_the_build_ships_is_what_the_binary_printed(tmp_path, monkeypatch):
    """The build step runs a binary (here the frozen entry point from source) per request with an
    empty cache and ships what it kept; that binary then answers from the shipped file, click blocked."""
    ship = ship_answers_module()
    exe = tmp_path / "kubectl-kueue_dra"
    exe.write_text(f"#!{sys.executable}\nimport sys\nsys.frozen = True\n"
                   "from kubectl_kueue_dra.cli import run\nrun()\n")
    exe.chmod(0o755)
    monkeypatch.chdir(ROOT)
    wanted = [ship.Request(words=("map", "--help"), columns=80), ship.Request(words=("-h",), columns=100),
              ship.Request(words=("__complete", ""), columns=None)]
    answers = {(r.words, r.width): ship.kept_by_binary(exe, r) for r in wanted}
    assert answers[(("map", "--help"), 78)].startswith("Usage: kubectl kueue-dra map")
    assert "explain\t" in answers[(("__complete", ""), 78)]
    # a completion that asks the cluster is printed but not kept: not shipped
    assert ship.kept_by_binary(exe, ship.Request(words=("__complete", "explain", ""), columns=None)) is None
    bundle = tmp_path / "_internal"
    shipping.ship(str(bundle), answers)
    blocked = ("import sys; sys.frozen = True; sys._MEIPASS = {bundle!r}; sys.modules['click'] = None; "
               "sys.argv = ['kubectl-kueue_dra', *{words!r}]; from kubectl_kueue_dra.cli import run; run()")
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "KUEUE_DRA_STATS", "KUEUE_DRA_NO_RECALL")}
    for (words, width), answer in answers.items():
        out = subprocess.run([sys.executable, "-c", blocked.format(bundle=str(bundle), words=list(words))], cwd=ROOT,
                             env=dict(env, XDG_CACHE_HOME=str(tmp_path / "empty"), COLUMNS=str(width + 2)),
                             capture_output=True, text=True, timeout=60)
        assert (out.returncode, out.stdout, out.stderr) == (0, answer, ""), words
    assert not (tmp_path / "empty").exists()
