"""Unit tests: the shared helper modules in tests/ (``fuzz_mutations``, ``output_schema``,
``queue_model_helpers``) importable whatever the import mode."""

import sys
from pathlib import Path

_TESTS = str(Path(__file__).resolve().parents[1])
if _TESTS not in sys.path:
    sys.path.insert(0, _TESTS)
