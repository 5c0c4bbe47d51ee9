"""Terminal safety (issue 16 class 6): what the cluster wrote reaches the terminal escaped, in
every table and text output; the plugin's own colours and the JSON/YAML documents stay exact."""

import json
import shutil

import click
import yaml
from testenv.clirun import run

from kubectl_kueue_dra.render.output import Style
from kubectl_kueue_dra.render.terminal import safe

HOSTILE = "gpu\x1b]0;pwned\x07\x1b[2J\r\x9b1m\u202eevil.example.com"


def test_safe_escapes_every_control_but_newline_and_tab():
    assert safe(HOSTILE) == "gpu\\x1b]0;pwned\\x07\\x1b[2J\\x0d\\x9b1m\\u202eevil.example.com"
    assert safe("a\tb\nc") == "a\tb\nc"
    assert safe("\x00\x7f") == "\\x00\\x7f"


def test_the_plugins_own_colour_survives_and_cannot_be_forged():
    style = Style("always")
    assert safe(style("FAIL", "red")) == click.style("FAIL", fg="red", bold=False)
    assert "\x1b" not in safe("\ue000forged\ue001[31m")


def _hostile_snapshot(tmp_path):
    src = tmp_path / "snap"
    shutil.copytree("examples/resourceclaimtemplate", src)
    path = src / "deviceclasses.yaml"
    doc = yaml.safe_load(path.read_text())
    doc["spec"]["selectors"].append({"cel": {"expression": f"device.driver != '{HOSTILE}'"}})
    path.write_text(yaml.safe_dump(doc, allow_unicode=True))
    return src


def test_tables_print_cluster_text_escaped_and_json_exact(tmp_path):
    src = _hostile_snapshot(tmp_path)
    for command in (["classes", "-o", "wide"], ["classes", "--color", "always", "-o", "wide"], ["verify"]):
        proc = run(*command, "--from", str(src))
        assert proc.returncode in (0, 1), proc.stderr
        assert "\x07" not in proc.stdout and "\x9b" not in proc.stdout and "\u202e" not in proc.stdout
        assert "]0;pwned" not in proc.stdout.replace("\\x1b]0;pwned", "")
    wide = run("classes", "--from", str(src), "-o", "wide")
    assert "\\x1b]0;pwned\\x07" in wide.stdout
    doc = json.loads(run("classes", "--from", str(src), "-o", "json").stdout)
    assert any(HOSTILE in s for c in doc["deviceClasses"] for s in c["selectors"])


def test_an_error_line_is_escaped(tmp_path):
    proc = run("explain", f"workload/x{HOSTILE}", "-n", "team-a", "--from", "examples/resourceclaimtemplate")
    assert proc.returncode == 1
    assert "\x1b" not in proc.stderr and "\\x1b]0;pwned" in proc.stderr
