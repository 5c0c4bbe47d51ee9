"""What the frozen (PyInstaller) binary must undo so that the programs it starts see the user's
environment, not the bundle's.

PyInstaller's bootloader points the dynamic loader at the bundle before Python starts: on Linux
and the BSDs it prepends the bundle directory to ``LD_LIBRARY_PATH`` (the original value, if any,
is kept in ``LD_LIBRARY_PATH_ORIG``); on AIX the same with ``LIBPATH``; on Windows it calls
``SetDllDirectory`` with the bundle directory, which child processes inherit. Children of the
plugin are kubeconfig ``exec`` credential plugins (``aws``, ``gke-gcloud-auth-plugin``,
``kubelogin``, ``oc``…): with the bundle's ``libssl``/``libcrypto``/``libz`` ahead of the system's
they can fail with symbol lookup errors, or worse, half work.

``restore_child_environment`` is called by the bundle's runtime hook before any code of the
plugin runs, so every child (and the ``kubernetes`` package's exec provider, which copies
``os.environ``) gets the user's values back. This is safe for the running process: the dynamic
loader reads ``LD_LIBRARY_PATH`` once at process start, so the bundle's own later imports still
find its libraries. Outside a frozen binary nothing is changed.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator, MutableMapping

#: library search path variables the bootloader changes, per platform
_LOADER_VARIABLES = ("LD_LIBRARY_PATH", "LIBPATH")


def is_frozen() -> bool:
    return bool(getattr(sys, "frozen", False))


def restore_child_environment(environ: MutableMapping[str, str], frozen: bool | None = None) -> dict[str, str | None]:
    """Put back, in ``environ``, the library search path the user had before the bootloader
    changed it. The bundle's runtime hook passes ``os.environ`` (the one change the process's
    variables get, before any code of the plugin runs; the package itself never changes them).

    ``X_ORIG`` present: ``X`` gets that value back. Absent: the user had no ``X``, so ``X`` is
    removed. Returns what was changed (name -> the restored value, None when removed)."""
    if not (is_frozen() if frozen is None else frozen):
        return {}
    changed: dict[str, str | None] = {}
    for name in _LOADER_VARIABLES:
        original = environ.pop(f"{name}_ORIG", None)
        if original is not None:
            if environ.get(name) != original:
                environ[name] = original
                changed[name] = original
        elif name in environ:
            del environ[name]
            changed[name] = None
    return changed


@contextlib.contextmanager
def user_dll_directory() -> Iterator[None]:
    """On Windows in a frozen binary: undo the bootloader's ``SetDllDirectory`` while children
    are started (they inherit it), then put it back for the bundle's own later imports."""
    if os.name != "nt" or not is_frozen():
        yield
        return
    try:
        import ctypes

        kernel32 = ctypes.windll.kernel32  # type: ignore[attr-defined]
        kernel32.SetDllDirectoryW(None)
    except (OSError, AttributeError):
        yield
        return
    try:
        yield
    finally:
        kernel32.SetDllDirectoryW(getattr(sys, "_MEIPASS", None))
