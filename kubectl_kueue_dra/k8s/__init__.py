"""Kubernetes API conventions, one of each, pure: label selectors (``labels``) and object-name
formats (``names``). Imports nothing else of the package, so every layer may use it."""
