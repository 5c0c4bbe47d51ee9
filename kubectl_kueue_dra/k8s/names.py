"""Object and key name formats as apimachinery validates them (``k8s.io/apimachinery/pkg/util/
validation``) and the DRA API's capacity names. Each returns why a value is refused, or None."""

from __future__ import annotations

import re

_DNS_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
_DNS_SUBDOMAIN = re.compile(rf"{_DNS_LABEL.pattern}(\.{_DNS_LABEL.pattern})*")
_QUALIFIED_NAME_PART = re.compile(r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]")
_C_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def dns_label_error(value: str) -> str | None:
    if len(value) > 63:
        return "must be no more than 63 characters"
    if not _DNS_LABEL.fullmatch(value):
        return ("must be a DNS label: lower case alphanumeric characters or '-', starting and "
                "ending with an alphanumeric character")
    return None


def dns_subdomain_error(value: str) -> str | None:
    if len(value) > 253:
        return "must be no more than 253 characters"
    if not _DNS_SUBDOMAIN.fullmatch(value):
        return ("must be a DNS subdomain: lower case alphanumeric characters, '-' or '.', starting "
                "and ending with an alphanumeric character")
    return None


def qualified_name_error(value: str) -> str | None:
    """IsQualifiedName (= IsLabelKey): ``[prefix/]name``, e.g. ``nvidia.com/gpu`` or ``gpu``."""
    parts = value.split("/")
    if len(parts) > 2:
        return "must be a qualified name: at most one '/'"
    name = parts[-1]
    if len(parts) == 2:
        if not parts[0]:
            return "must be a qualified name: the prefix before '/' must not be empty"
        problem = dns_subdomain_error(parts[0])
        if problem:
            return f"must be a qualified name: the prefix {problem}"
    if not name:
        return "must be a qualified name: the name part must not be empty"
    if len(name) > 63:
        return "must be a qualified name: the name part must be no more than 63 characters"
    if not _QUALIFIED_NAME_PART.fullmatch(name):
        return ("must be a qualified name: alphanumeric characters, '-', '_' or '.', starting and "
                "ending with an alphanumeric character, with an optional DNS subdomain prefix and "
                "'/' (e.g. 'nvidia.com/gpu' or 'gpu')")
    return None


def extended_resource_name_error(value: str) -> str | None:
    """``v1helper.IsExtendedResourceName``, what the API server checks a DeviceClass's
    ``extendedResourceName`` with: not a native resource (it has a domain, and not a
    ``kubernetes.io`` one), not ``requests.*``, and ``requests.<name>`` a qualified name."""
    if "/" not in value or "kubernetes.io/" in value:
        return "must be a valid extended resource name: a domain-prefixed name outside kubernetes.io (example.com/gpu)"
    if value.startswith("requests."):
        return "must be a valid extended resource name: it must not begin with 'requests.'"
    problem = qualified_name_error("requests." + value)
    return f"must be a valid extended resource name: {problem}" if problem else None


def capacity_name_error(value: str) -> str | None:
    """A DRA capacity name: ``[domain/]identifier`` with a C identifier of at most 32 characters."""
    parts = value.split("/")
    ident = parts[-1]
    if len(parts) == 2:
        problem = dns_subdomain_error(parts[0].lower()) if parts[0] else "must not be empty"
        if problem or len(parts[0]) > 63:
            return f"the domain {problem or 'must be no more than 63 characters'}"
    if len(ident) > 32 or not _C_IDENTIFIER.fullmatch(ident):
        return "must be a C identifier of at most 32 characters, optionally prefixed by 'domain/'"
    return None
