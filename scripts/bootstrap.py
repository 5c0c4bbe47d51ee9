"""Run the calling script with the project's virtualenv: create or refresh it first
(``scripts/dev-env``, as ``scripts/demo`` and ``scripts/test`` do), then re-execute the script
with ``.venv``'s Python. Imported first by the scripts that need the project's dependencies, so
each runs from a fresh clone as documented, not only from an activated virtualenv."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV = ROOT / ".venv"
VENV_PYTHON = VENV / "bin" / "python"


def into_venv() -> None:
    if Path(sys.prefix).resolve() == VENV.resolve():
        return
    subprocess.run([str(ROOT / "scripts" / "dev-env")], check=True, stdout=sys.stderr)
    os.execv(str(VENV_PYTHON), [str(VENV_PYTHON), *sys.argv])
