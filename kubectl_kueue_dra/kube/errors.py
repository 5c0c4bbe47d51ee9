"""Typed errors for API requests: what was asked, of what, where, and what to do about it."""

from ..errors import UserError

READER_ROLE_HINT = "the plugin's read-only ClusterRole is in deploy/rbac/reader-clusterrole.yaml"


def describe_target(verb: str, resource: str, namespace: str | None, name: str | None = None) -> str:
    """``list resourceslices.resource.k8s.io at cluster scope`` / ``get jobs.batch "x" in namespace "ns"``."""
    what = f'{verb} {resource}'
    if name:
        what += f' "{name}"'
    where = f'in namespace "{namespace}"' if namespace else "at cluster scope"
    return f"{what} {where}"


class KubeError(UserError):
    """A request to the API server failed."""

    def __init__(self, message: str, hint: str | None = None, *, status: int | None = None):
        super().__init__(message, hint)
        self.status = status


class Unauthorized(KubeError):
    """401: the credentials were not accepted."""


class Forbidden(KubeError):
    """403: RBAC does not allow the request."""

    def __init__(self, verb: str, resource: str, namespace: str | None, name: str | None = None,
                 user: str | None = None):
        target = describe_target(verb, resource, namespace, name)
        who = f" (as {user})" if user else ""
        scope = f'a Role in namespace "{namespace}"' if namespace else "a ClusterRole"
        super().__init__(
            f"cannot {target}: forbidden{who}",
            f"ask for {verb} on {resource} through {scope} ({READER_ROLE_HINT})",
            status=403,
        )
        self.verb, self.resource, self.namespace = verb, resource, namespace


class NotFound(KubeError):
    """404 on a named object, or a resource type the server does not serve."""


class Unreachable(KubeError):
    """The server could not be reached, or did not answer in time."""


class ServerError(KubeError):
    """The server answered with an error we do not map to anything more specific."""


class Conflict(KubeError):
    """409: the object changed since it was read (resourceVersion precondition failed)."""


class Invalid(KubeError):
    """422: the server rejected the object."""
