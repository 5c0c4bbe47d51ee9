"""The user's directories as a run's variables say them: the home and the cache home. Plain
functions over the variables (no dataclass, nothing but ``os``), so that the frozen binary's
answers from the cache (``cli/recall``) find them before anything heavier is imported; the run's
``Environment`` asks the same functions."""

from __future__ import annotations

import os
from collections.abc import Mapping


def home(env_vars: Mapping[str, str]) -> str:
    """The user's home directory: ``HOME`` (``USERPROFILE`` on Windows), else the account's."""
    found = env_vars.get("USERPROFILE") if os.name == "nt" else None
    found = found or env_vars.get("HOME")
    if found:
        return found
    try:
        import pwd

        return pwd.getpwuid(os.getuid()).pw_dir
    except (ImportError, KeyError, AttributeError):
        return "."


def cache_home(env_vars: Mapping[str, str]) -> str:
    """``$XDG_CACHE_HOME``, else ``~/.cache``."""
    return env_vars.get("XDG_CACHE_HOME") or os.path.join(home(env_vars), ".cache")
