"""Kueue semantics only, version-aware, over dra/: ``config/`` (where Kueue's configuration lives
and what it says), ``install/`` (the installation model), ``workloads/`` (pod sets and what
happens to them), ``charge/`` (the DRA charge) and ``queues/`` (quota and the cohort tree), each
importing only those before it; ``names``, ``units`` and ``fielderrors`` are the vocabulary they
share. Nothing here knows about a command (docs/architecture.md)."""
