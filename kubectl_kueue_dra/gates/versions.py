"""Versions, one parser per kind, and the Kueue versions this plugin knows.

* a version string (``v0.19.2``, ``0.18``, ``4.21.3``, ``v1.34.1+k3s1``): ``parse_version`` →
  (major, minor, patch); the one parser of Kueue versions, OpenShift releases and a Kubernetes
  ``gitVersion``;
* a Kubernetes server: ``kube_minor`` of its ``/version`` document (the emulated minor first);
* a Kueue version: ``kueue_minor`` (major, minor); the Kueue minors whose gate registry and
  Configuration types this plugin holds are ``KUEUE_MINORS`` (from ``kueue_gate_table``), the
  version assumed when none can be read is ``DEFAULT_KUEUE_VERSION``, and ``SUPPORTED`` says which
  versions the charge is re-derived for.

To add a Kueue version: its gate registry in ``kueue_gate_table`` (a new minor there is a new
entry of ``KUEUE_MINORS``), its Configuration types in ``kueue/config/schema``, what changed in
its DRA accounting in ``kueue/install/semantics``; for a new newest version, ``DEFAULT_KUEUE_VERSION``.
"""

from __future__ import annotations

import re
from typing import Any

from .kueue_gate_table import MINORS

_VERSION = re.compile(r"v?(\d+)\.(\d+)(?:\.(\d+))?")

#: the Kueue version assumed when the installation's cannot be read (the newest one known)
DEFAULT_KUEUE_VERSION = "0.19.2"


def parse_version(text: str | None) -> tuple[int, int, int] | None:
    """(major, minor, patch) at the start of ``text`` (a missing patch is 0); None: no version."""
    match = _VERSION.match((text or "").strip())
    if not match:
        return None
    return int(match.group(1)), int(match.group(2)), int(match.group(3) or 0)


def kueue_minor(text: str | None) -> tuple[int, int] | None:
    """(major, minor) of a Kueue version string."""
    parsed = parse_version(text)
    return parsed[:2] if parsed else None


def minor_text(minor: tuple[int, int]) -> str:
    """``(0, 19)`` → ``"0.19"``, the key of the per-minor tables."""
    return f"{minor[0]}.{minor[1]}"


#: the Kueue minors whose gate registry (kueue_gate_table) and Configuration types this plugin holds
KUEUE_MINORS: tuple[tuple[int, int], ...] = tuple(sorted(kueue_minor(m) or (0, 0) for m in MINORS))
DEFAULT_KUEUE_MINOR: tuple[int, int] = kueue_minor(DEFAULT_KUEUE_VERSION) or KUEUE_MINORS[-1]
#: the versions whose DRA charge this plugin re-derives: every patch of the known minors
FIRST_SUPPORTED = (*KUEUE_MINORS[0], 0)
SUPPORTED = f"{minor_text(KUEUE_MINORS[0])}.0 – {minor_text(KUEUE_MINORS[-1])}.x"


def is_supported(version: tuple[int, int, int]) -> bool:
    return version[:2] in KUEUE_MINORS


def known_minor(minor: tuple[int, int]) -> tuple[int, int]:
    """The known minor whose tables apply to ``minor``: itself, else the nearest one below, else
    the first."""
    below = [m for m in KUEUE_MINORS if m <= minor]
    return below[-1] if below else KUEUE_MINORS[0]


def kube_minor(version_doc: dict[str, Any] | None) -> int | None:
    """The Kubernetes minor whose gate defaults apply: the emulated version when the server
    reports one (compatibility versions pick defaults by it), else its own minor."""
    if not version_doc:
        return None
    for major_key, minor_key in (("emulationMajor", "emulationMinor"), ("major", "minor")):
        major, minor = str(version_doc.get(major_key) or ""), str(version_doc.get(minor_key) or "")
        minor_digits = re.match(r"\d+", minor)  # "34+" on some distributions
        if major == "1" and minor_digits:
            return int(minor_digits.group(0))
    parsed = parse_version(str(version_doc.get("gitVersion") or ""))
    return parsed[1] if parsed and parsed[0] == 1 else None


def release_of(ocp_version: str | None) -> tuple[int, int] | None:
    """(major, minor) of an OpenShift version string such as ``4.21.3``."""
    parsed = parse_version(ocp_version)
    return parsed[:2] if parsed else None
