"""Versions: one parser per kind (gates/versions) and one default Kueue version, from which every
table keyed by Kueue minor and every default derives."""

from pathlib import Path

import pytest

from kubectl_kueue_dra.gates import kueue_gate_table
from kubectl_kueue_dra.gates.kueue import ASSUMED_KUEUE_VERSION
from kubectl_kueue_dra.gates.versions import (DEFAULT_KUEUE_MINOR, DEFAULT_KUEUE_VERSION, KUEUE_MINORS, SUPPORTED,
                                              is_supported, known_minor, kube_minor, kueue_minor, parse_version,
                                              release_of)
from kubectl_kueue_dra.kueue.config import decode
from kubectl_kueue_dra.kueue.config.schema import SCHEMAS
from kubectl_kueue_dra.kueue.install.semantics import DEFAULT_VERSION, Semantics
from kubectl_kueue_dra.kueue.install.target import minor_of
from testenv.binaries import kueue_build

PACKAGE = Path(__file__).resolve().parents[2] / "kubectl_kueue_dra"


@pytest.mark.parametrize("text,parsed", [
    ("0.19.2", (0, 19, 2)), ("v0.18", (0, 18, 0)), (" v0.18.4-rc.1 ", (0, 18, 4)), ("4.21.3", (4, 21, 3)),
    ("v1.34.1+k3s1", (1, 34, 1)), ("latest", None), ("", None), (None, None), ("19", None)])
def test_one_parser(text, parsed):
    assert parse_version(text) == parsed


def test_each_kind_derives_from_it():
    assert kueue_minor("v0.19.2") == (0, 19) and kueue_minor("main") is None
    assert minor_of("0.18.6") == 18 and minor_of("1.2.0") is None and minor_of(None) is None
    assert release_of("4.21.3") == (4, 21) and release_of("bad") is None
    assert kube_minor({"gitVersion": "v1.33.2-eks-1"}) == 33 and kube_minor({"gitVersion": "v2.1.0"}) is None


def test_one_default_kueue_version():
    assert DEFAULT_VERSION == DEFAULT_KUEUE_VERSION == "0.19.2"
    assert ASSUMED_KUEUE_VERSION == DEFAULT_KUEUE_MINOR == (0, 19) and DEFAULT_KUEUE_MINOR in KUEUE_MINORS
    assert decode.kueue_minor(None) == ("0.19", True) and decode.ASSUMED_MINOR == "0.19"
    assert Semantics.for_version(None).version == DEFAULT_KUEUE_VERSION
    # the Kueue the cluster tests run, and its Go module, are the default's
    assert kueue_build.DEFAULT_VERSION == f"v{DEFAULT_KUEUE_VERSION}" and kueue_build.DEFAULT_VERSION in kueue_build.module_dirs()


def test_the_known_minors_are_the_tables():
    """The gate registry and the Configuration types hold the same Kueue minors, and what is
    supported is those minors."""
    assert [kueue_minor(m) for m in kueue_gate_table.MINORS] == list(KUEUE_MINORS) == [(0, 18), (0, 19)]
    assert sorted(SCHEMAS) == ["0.18", "0.19"]
    assert SUPPORTED == "0.18.0 – 0.19.x"
    assert [is_supported(v) for v in ((0, 17, 9), (0, 18, 0), (0, 19, 7), (0, 20, 0))] == [False, True, True, False]
    assert [known_minor(m) for m in ((0, 15), (0, 18), (0, 21))] == [(0, 18), (0, 18), (0, 19)]
    assert [decode.kueue_minor(v) for v in ("v0.18.4", "0.15.0", "0.25.0")] == [
        ("0.18", False), ("0.18", True), ("0.19", True)]


def test_no_other_module_parses_a_version():
    """Only gates/versions captures a major and a minor from text (the image-tag and CSV-name
    patterns find version text; they do not split it)."""
    found = [str(p.relative_to(PACKAGE)) for p in sorted(PACKAGE.rglob("*.py"))
             if r"(\d+)\.(\d+)" in p.read_text() and p.name != "versions.py"]
    assert found == []
