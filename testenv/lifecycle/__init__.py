"""The DRA lifecycle without containers: a cluster with kube-scheduler, kube-controller-manager and
KWOK (``cluster``), the scenarios (``scenarios``) and their run against the real Kueue (``run``)."""

from .cluster import Lifecycle, fake_node

__all__ = ["Lifecycle", "fake_node"]
