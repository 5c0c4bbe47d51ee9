"""kubectl/oc plugin that makes Kueue's DRA quota accounting visible and fixable."""

__version__ = "0.1.0"
