"""Typed errors for API requests: what was asked, of what, where, and what to do about it."""

import re

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


#: the API server's words when the impersonation itself is refused (not the impersonated request):
#: 'users "admin" is forbidden: User "reader" cannot impersonate resource "users" in API group ""', or
#: (1.36, constrained impersonation) 'forbidden: User "reader" cannot impersonate-on:user-info:get path "/api"'
_IMPERSONATE = re.compile(r'User "(?P<user>[^"]*)" cannot impersonate')
_TARGET = re.compile(r'^(?P<what>users|groups|serviceaccounts|uids) "(?P<name>[^"]*)" is forbidden')
_KIND = {"users": "user", "groups": "group", "serviceaccounts": "service account", "uids": "uid"}


class ImpersonationDenied(KubeError):
    """403 for the Impersonate-* headers: the caller may not act as --as/--as-group."""


def impersonation_denied(message: str, as_user: str | None, as_groups: tuple[str, ...] = ()) -> \
        ImpersonationDenied | None:
    """The refused impersonation named as "CALLER cannot impersonate user X", or None when the 403
    is about something else."""
    m = _IMPERSONATE.search(message or "")
    if not m:
        return None
    target = _TARGET.match(message)
    if target:
        whom = f'{_KIND[target["what"]]} "{target["name"]}"'
    else:
        whom = f'user "{as_user}"' + "".join(f' (group "{g}")' for g in as_groups) if as_user else "the user"
    return ImpersonationDenied(
        f"{m['user']} cannot impersonate {whom}",
        f"ask for the impersonate verb for {m['user']} (an RBAC rule on users/groups), or drop --as/--as-group",
        status=403)


class NotKubernetes(KubeError):
    """The server at the URL answers, but not as a Kubernetes API server (404 on /api)."""


class NotFound(KubeError):
    """404 on a named object, or a resource type the server does not serve."""


class Unreachable(KubeError):
    """The server could not be reached, or did not answer in time."""


class ServerError(KubeError):
    """The server answered with an error we do not map to anything more specific."""


class Gone(KubeError):
    """410: the resourceVersion a watch asked for is too old (compacted); list again."""


class Conflict(KubeError):
    """409: the object changed since it was read (resourceVersion precondition failed)."""


class Invalid(KubeError):
    """422: the server rejected the object."""
