"""The command lines the plugin tells users to run: ``oc`` on OpenShift, ``kubectl`` elsewhere
(one decision for every command), and the one way a shell argument is quoted."""

from __future__ import annotations

import re
from typing import Any, TypeVar

from ...errors import UserError
from ...kube.view import ClusterView
from ..config.load import CONFIG_KEY, CONFIGMAP_NAME, DEPLOYMENT_NAME, KueueConfig
from ..names import DEFAULT_NAMESPACE
from .platform import read_cluster_version

T = TypeVar("T")
#: characters a double-quoted shell word still expands or ends at
_DOUBLE_QUOTE_SPECIAL = set('"$`\\!')
_SAFE = re.compile(r"^[A-Za-z0-9_./:=@%+,-]+$")
#: ``kubectl`` as the command word of a command line in a fix or message (not ``kubectl-kueue_dra``)
_KUBECTL = re.compile(r"(?<![\w./-])kubectl(?= )")


def openshift_platform(feature_gate: dict[str, Any] | None, cluster_version: dict[str, Any] | None,
                       config_kind: str | None) -> bool:
    """OpenShift: its singletons exist (a served config.openshift.io API alone is not enough), or
    Kueue is configured by the OpenShift operator's Kueue CR."""
    return feature_gate is not None or cluster_version is not None or config_kind == "Kueue"


def cli_name(openshift: bool) -> str:
    return "oc" if openshift else "kubectl"


def map_restart(config_kind: str | None) -> str:
    """What ``map set|remove`` needs on this installation to take effect: upstream Kueue reads its
    ConfigMap only at start (``--restart``); the OpenShift operator rolls Kueue out by itself."""
    return " --restart" if config_kind == "ConfigMap" else ""


def restart_kueue(namespace: str | None) -> str:
    """The command that restarts Kueue (in ``namespace``, its Deployment's) to read its configuration."""
    return f"kubectl -n {namespace or DEFAULT_NAMESPACE} rollout restart deployment/{DEPLOYMENT_NAME}"


def edit_kueue_config(config: KueueConfig, namespace: str | None, what: str) -> str:
    """The command that opens Kueue's configuration (``config``: where it is written) for editing
    ``what``; ``namespace``: Kueue's Deployment's, for the restart a ConfigMap needs."""
    if config.kind == "Kueue":
        return f"oc edit kueues.kueue.openshift.io cluster  # {what} under spec.config"
    ns, name = config.namespace or DEFAULT_NAMESPACE, config.name or CONFIGMAP_NAME
    return f"kubectl -n {ns} edit configmap {name}  # {what} in {CONFIG_KEY}; then {restart_kueue(namespace)}"


def cli_of(view: ClusterView, config: KueueConfig | None) -> str:
    """``oc`` or ``kubectl`` for the cluster (or snapshot) of ``view`` (answers cached by the view).
    A FeatureGate or ClusterVersion the user may not read is recorded as unread, so the answer is
    partial: whether the cluster is OpenShift is then not known."""
    if config is not None and config.kind == "Kueue":
        return "oc"
    feature_gate = view.try_get("FeatureGate", "cluster") if view.serves("FeatureGate") else None
    cluster_version = read_cluster_version(view).obj
    return cli_name(openshift_platform(feature_gate, cluster_version, config.kind if config else None))


def for_cli(text: str | None, cli: str) -> str | None:
    """``text`` with every ``kubectl`` command line written for ``cli`` (``oc`` runs kubectl's
    commands and plugins alike)."""
    if text is None or cli == "kubectl":
        return text
    return _KUBECTL.sub(cli, text)


def error_for_cli(e: UserError, cli: str) -> UserError:
    """``e`` with the command lines of its message and hint written for ``cli``."""
    e.cli = cli
    e.message, e.hint = for_cli(e.message, cli) or e.message, for_cli(e.hint, cli)
    return e


def document_for_cli(document: T, cli: str) -> T:
    """``document`` with the message and fix of every finding in it (at any depth) written for ``cli``."""
    if cli == "kubectl":
        return document
    if isinstance(document, list):
        for item in document:
            document_for_cli(item, cli)
    elif isinstance(document, dict):
        if "severity" in document and "code" in document:
            for key in ("message", "fix"):
                if isinstance(document.get(key), str):
                    document[key] = for_cli(document[key], cli)
        for value in document.values():
            if isinstance(value, (dict, list)):
                document_for_cli(value, cli)
    return document


def shell_quote(text: str) -> str:
    """One shell word for ``text``, as readable as it can be: bare when safe, in single quotes
    unless it holds one, else in double quotes when nothing in it expands there, else single
    quotes with each ``'`` written as ``'\\''``."""
    if _SAFE.match(text):
        return text
    if "'" not in text:
        return f"'{text}'"
    if not _DOUBLE_QUOTE_SPECIAL & set(text):
        return f'"{text}"'
    return "'" + text.replace("'", "'\\''") + "'"
