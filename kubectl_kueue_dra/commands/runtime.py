"""What the run's environment decides for the helpers the process keeps between commands, said
once per run before the command runs: where cel-python's parser tables are cached."""

from __future__ import annotations

from ..dra import cel_cache
from ..environment import Environment


def prepare(env: Environment) -> None:
    cel_cache.use(env.cache_home())
