"""Queues as Kueue's scheduler sees them: ClusterQueue facts, the cohort tree and its quotas, the
flavor assigner's quota verdicts, and which namespaces Kueue manages."""
