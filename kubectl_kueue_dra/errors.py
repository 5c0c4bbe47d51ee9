"""Errors every layer may raise. Each one carries a single line meant for a person.

The CLI turns any ``UserError`` into that line on stderr and its ``exit_code``; nothing else of
the exception (no traceback) is shown unless ``-v`` was given.
"""


class UserError(Exception):
    """An error whose message is written for the person running the command."""

    exit_code = 1
    #: the command line tool its commands are written for (``oc`` on OpenShift)
    cli = "kubectl"

    def __init__(self, message: str, hint: str | None = None):
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        if self.hint:
            return f"{self.message}; {self.hint}"
        return self.message


class UsageError(UserError):
    """Wrong usage: bad flag value, bad reference. Exit code 2 like click's own usage errors."""

    exit_code = 2


class ConfigError(UserError):
    """The kubeconfig (or in-cluster config) cannot be used."""


class SnapshotError(UserError):
    """An offline snapshot (``--from``) cannot be read."""
