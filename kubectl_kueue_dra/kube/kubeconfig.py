"""Find and load the kubeconfig the way kubectl does, and turn it into a client configuration.

kubectl merges every file of ``KUBECONFIG`` (``:``-separated; ``;`` on Windows) with *first wins*
for clusters, users, contexts and current-context, and resolves relative file paths against the
file that names them. The ``kubernetes`` package merges with *last wins* for current-context and
loses the base path when given a dict, so the merge is done here and the package only does what
it is good at: TLS, exec/OIDC auth plugins, in-cluster config.
"""

import os
from dataclasses import dataclass, field
from typing import Any

import yaml

from ..errors import ConfigError
from ..k8s.utf8 import NotUtf8, utf8_text

IN_CLUSTER_NAMESPACE_FILE = "/var/run/secrets/kubernetes.io/serviceaccount/namespace"
_PATH_KEYS = {
    "clusters": ("certificate-authority",),
    "users": ("client-certificate", "client-key", "tokenFile"),
}


@dataclass
class ConnectionOptions:
    kubeconfig: str | None = None
    context: str | None = None
    namespace: str | None = None
    as_user: str | None = None
    as_groups: tuple[str, ...] = ()
    request_timeout: float = 30.0
    insecure_skip_tls_verify: bool = False
    debug: bool = False


@dataclass
class LoadedConfig:
    configuration: Any  # kubernetes.client.Configuration
    context: str | None
    namespace: str
    user: str | None
    server: str
    sources: list[str] = field(default_factory=list)


def kubeconfig_paths(explicit: str | None) -> list[str]:
    if explicit:
        return [os.path.expanduser(explicit)]
    env = os.environ.get("KUBECONFIG")
    if env:
        sep = ";" if os.name == "nt" else ":"
        return [os.path.expanduser(p) for p in env.split(sep) if p]
    return [os.path.expanduser("~/.kube/config")]


def _read_file(path: str) -> dict[str, Any]:
    try:
        with open(path, "rb") as f:
            doc = yaml.safe_load(utf8_text(f.read()))
    except NotUtf8 as e:
        raise ConfigError(f"kubeconfig {path}: {e}") from None
    except FileNotFoundError:
        raise ConfigError(f"kubeconfig {path}: no such file") from None
    except OSError as e:
        raise ConfigError(f"kubeconfig {path}: {e.strerror}") from None
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f":{mark.line + 1}" if mark else ""
        problem = getattr(e, "problem", None) or "malformed YAML"
        raise ConfigError(f"kubeconfig {path}{where}: malformed YAML: {problem}") from None
    if doc is None:
        return {}
    if not isinstance(doc, dict):
        raise ConfigError(f"kubeconfig {path}: not a kubeconfig (expected a mapping)")
    return doc


def _absolutize(entry: dict[str, Any], keys: tuple[str, ...], base: str) -> None:
    for key in keys:
        value = entry.get(key)
        if isinstance(value, str) and value and not os.path.isabs(value):
            entry[key] = os.path.join(base, value)


def merge_kubeconfigs(paths: list[str], explicit: bool) -> tuple[dict[str, Any], list[str]]:
    """Merge kubeconfig files with kubectl's rules. Missing files in a KUBECONFIG list are
    skipped (as kubectl does); an explicitly named file must exist."""
    merged: dict[str, Any] = {"clusters": [], "users": [], "contexts": []}
    seen: dict[str, set[str]] = {k: set() for k in merged}
    used: list[str] = []
    for path in paths:
        if not explicit and not os.path.exists(path):
            continue
        doc = _read_file(path)
        used.append(path)
        base = os.path.dirname(os.path.abspath(path))
        for section in ("clusters", "users", "contexts"):
            for item in doc.get(section) or []:
                if not isinstance(item, dict) or "name" not in item:
                    raise ConfigError(f"kubeconfig {path}: an entry of {section} has no name")
                if item["name"] in seen[section]:
                    continue
                seen[section].add(item["name"])
                body_key = section[:-1]  # cluster / user / context
                body = dict(item.get(body_key) or {})
                _absolutize(body, _PATH_KEYS.get(section, ()), base)
                exec_cfg = body.get("exec")
                if isinstance(exec_cfg, dict):
                    command = exec_cfg.get("command")
                    if isinstance(command, str) and os.sep in command and not os.path.isabs(command):
                        body["exec"] = dict(exec_cfg, command=os.path.join(base, command))
                merged[section].append({"name": item["name"], body_key: body})
        if "current-context" not in merged and doc.get("current-context"):
            merged["current-context"] = doc["current-context"]
    return merged, used


def _in_cluster() -> bool:
    return bool(os.environ.get("KUBERNETES_SERVICE_HOST")) and os.path.exists(IN_CLUSTER_NAMESPACE_FILE)


def load(opts: ConnectionOptions) -> LoadedConfig:
    """Build a ``kubernetes.client.Configuration`` from the options (imports the package lazily)."""
    from kubernetes import client as k8s_client
    from kubernetes import config as k8s_config

    configuration = k8s_client.Configuration()
    paths = kubeconfig_paths(opts.kubeconfig)
    merged, used = merge_kubeconfigs(paths, explicit=bool(opts.kubeconfig))

    if not used:
        if _in_cluster() and not opts.context:
            try:
                k8s_config.load_incluster_config(client_configuration=configuration)
            except k8s_config.ConfigException as e:
                raise ConfigError(f"in-cluster configuration: {e}") from None
            with open(IN_CLUSTER_NAMESPACE_FILE, encoding="utf-8") as f:
                namespace = opts.namespace or f.read().strip() or "default"
            return LoadedConfig(configuration, None, namespace, "serviceaccount", configuration.host)
        raise ConfigError(
            f"no kubeconfig found (looked at {', '.join(paths)})",
            "pass --kubeconfig, set KUBECONFIG, or run inside a cluster",
        )

    contexts = {c["name"]: c["context"] for c in merged["contexts"]}
    context_name = opts.context or merged.get("current-context")
    if not context_name:
        raise ConfigError(f"kubeconfig {', '.join(used)}: no current-context set", "pass --context")
    if context_name not in contexts:
        available = ", ".join(sorted(contexts)) or "none"
        raise ConfigError(f'context "{context_name}" not found in kubeconfig {", ".join(used)}'
                          f" (available: {available})")
    context = contexts[context_name]
    clusters = {c["name"]: c["cluster"] for c in merged["clusters"]}
    if context.get("cluster") not in clusters:
        raise ConfigError(f'context "{context_name}" names cluster "{context.get("cluster")}" '
                          f"which is not in kubeconfig {', '.join(used)}")
    from ..frozen import user_dll_directory

    try:
        with user_dll_directory():  # exec credential plugins run here (see frozen.py)
            k8s_config.load_kube_config_from_dict(
                merged, context=context_name, client_configuration=configuration, persist_config=False)
    except k8s_config.ConfigException as e:
        raise ConfigError(f'kubeconfig context "{context_name}": {e}') from None
    except (ValueError, OSError) as e:
        raise ConfigError(f'kubeconfig context "{context_name}": {e}') from None
    if opts.insecure_skip_tls_verify:
        configuration.verify_ssl = False
    namespace = opts.namespace or context.get("namespace") or "default"
    return LoadedConfig(configuration, context_name, namespace, context.get("user"),
                        configuration.host, used)
