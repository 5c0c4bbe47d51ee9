"""Find and load the kubeconfig the way kubectl does, and turn it into a client configuration.

kubectl merges every file of ``KUBECONFIG`` (``:``-separated; ``;`` on Windows) with *first wins*
for clusters, users, contexts and current-context, and resolves relative file paths against the
file that names them. The ``kubernetes`` package merges with *last wins* for current-context and
loses the base path when given a dict, so the merge is done here. A plain context (a server, its
CA, a client certificate or a token) is then read here too (``kube/plain.py``: importing the
package costs ~150 ms of every live start); the package does the rest: exec/OIDC auth plugins,
token files, proxies, in-cluster config.

The run's environment (``ConnectionOptions.env``) gives ``KUBECONFIG``, the home ``~`` stands for,
the directory relative paths are read from, and the in-cluster variables
(``KUBERNETES_SERVICE_HOST``/``_PORT``, handed to the package's in-cluster loader). What the package
still takes from the process: an ``exec`` credential plugin runs with the process's environment
variables and stderr (its ``ExecProvider`` copies ``os.environ`` and has no parameter for it), and
``kubernetes.config`` reads ``KUBECONFIG`` at import into a default this module never uses.
"""

import ipaddress
import os
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import yaml

from ..environment import Environment
from ..errors import ConfigError
from ..k8s.utf8 import NotUtf8, utf8_text
from .plain import plain_config

IN_CLUSTER_NAMESPACE_FILE = "/var/run/secrets/kubernetes.io/serviceaccount/namespace"
_PATH_KEYS = {
    "clusters": ("certificate-authority",),
    "users": ("client-certificate", "client-key", "tokenFile"),
}


@dataclass(kw_only=True)
class ConnectionOptions:
    env: Environment  # the run's KUBECONFIG, home, working directory, in-cluster variables, clock
    kubeconfig: str | None = None
    context: str | None = None
    namespace: str | None = None
    as_user: str | None = None
    as_groups: tuple[str, ...] = ()
    request_timeout: float = 30.0
    insecure_skip_tls_verify: bool = False
    disable_compression: bool | None = None  # --disable-compression as given (None: not given)
    debug: bool = False


@dataclass
class LoadedConfig:
    configuration: Any  # kubernetes.client.Configuration
    context: str | None
    namespace: str
    user: str | None
    server: str
    sources: list[str] = field(default_factory=list)
    disable_compression: bool = False  # the cluster entry's ``disable-compression``


def kubeconfig_paths(explicit: str | None, env: Environment) -> list[str]:
    """The files kubectl would read, as the user wrote them (``~`` expanded with the run's home)."""
    if explicit:
        return [env.expand_user(explicit)]
    listed = env.vars.get("KUBECONFIG")
    if listed:
        sep = ";" if os.name == "nt" else ":"
        return [env.expand_user(p) for p in listed.split(sep) if p]
    return [env.expand_user("~/.kube/config")]


def _read_file(path: str, env: Environment) -> dict[str, Any]:
    try:
        with open(env.path(path), "rb") as f:
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


def merge_kubeconfigs(paths: list[str], explicit: bool, env: Environment) -> tuple[dict[str, Any], list[str]]:
    """Merge kubeconfig files with kubectl's rules. Missing files in a KUBECONFIG list are
    skipped (as kubectl does); an explicitly named file must exist."""
    merged: dict[str, Any] = {"clusters": [], "users": [], "contexts": []}
    seen: dict[str, set[str]] = {k: set() for k in merged}
    used: list[str] = []
    for path in paths:
        if not explicit and not os.path.exists(env.path(path)):
            continue
        doc = _read_file(path, env)
        used.append(path)
        base = os.path.dirname(os.path.abspath(env.path(path)))
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


def _in_cluster(env: Environment) -> bool:
    return bool(env.vars.get("KUBERNETES_SERVICE_HOST")) and os.path.exists(IN_CLUSTER_NAMESPACE_FILE)


def load(opts: ConnectionOptions) -> LoadedConfig:
    """The client configuration of the options: a ``PlainConfig`` for a plain context
    (``kube/plain.py``), else a ``kubernetes.client.Configuration`` (imports the package)."""
    paths = kubeconfig_paths(opts.kubeconfig, opts.env)
    merged, used = merge_kubeconfigs(paths, explicit=bool(opts.kubeconfig), env=opts.env)

    if not used:
        if _in_cluster(opts.env) and not opts.context:
            return _in_cluster_config(opts)
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
    users = {u["name"]: u["user"] for u in merged["users"]}
    user = users.get(context.get("user")) if context.get("user") is not None else {}
    plain = None if user is None else plain_config(clusters[context["cluster"]], user, opts.env.vars)
    configuration = plain if plain is not None else _package_config(merged, context_name)
    if opts.insecure_skip_tls_verify:
        configuration.verify_ssl = False
    namespace = opts.namespace or context.get("namespace") or "default"
    return LoadedConfig(configuration, context_name, namespace, context.get("user"),
                        configuration.host, used, clusters[context["cluster"]].get("disable-compression") is True)


def _package_config(merged: dict[str, Any], context_name: str) -> Any:
    """The context loaded by the ``kubernetes`` package: exec and auth-provider credentials, token
    files, proxies, and the errors of an entry that does not read."""
    from kubernetes import client as k8s_client
    from kubernetes import config as k8s_config

    from ..frozen import user_dll_directory

    configuration = k8s_client.Configuration()
    try:
        with user_dll_directory():  # exec credential plugins run here (see frozen.py)
            k8s_config.load_kube_config_from_dict(
                merged, context=context_name, client_configuration=configuration, persist_config=False)
    except k8s_config.ConfigException as e:
        raise ConfigError(f'kubeconfig context "{context_name}": {e}') from None
    except (ValueError, OSError) as e:
        raise ConfigError(f'kubeconfig context "{context_name}": {e}') from None
    return configuration


def _in_cluster_config(opts: ConnectionOptions) -> LoadedConfig:
    """The pod's service account, loaded by the ``kubernetes`` package."""
    from kubernetes import client as k8s_client
    from kubernetes import config as k8s_config
    from kubernetes.config.incluster_config import (
        SERVICE_CERT_FILENAME,
        SERVICE_TOKEN_FILENAME,
        InClusterConfigLoader,
    )

    configuration = k8s_client.Configuration()
    try:
        InClusterConfigLoader(token_filename=SERVICE_TOKEN_FILENAME, cert_filename=SERVICE_CERT_FILENAME,
                              environ=dict(opts.env.vars)).load_and_set(configuration)
    except k8s_config.ConfigException as e:
        raise ConfigError(f"in-cluster configuration: {e}") from None
    with open(IN_CLUSTER_NAMESPACE_FILE, encoding="utf-8") as f:
        namespace = opts.namespace or f.read().strip() or "default"
    return LoadedConfig(configuration, None, namespace, "serviceaccount", configuration.host)


def compression(opts: ConnectionOptions, loaded: LoadedConfig) -> tuple[bool, str]:
    """Whether to ask the API server for gzip-compressed responses, and why (said with -v).

    kubectl asks for it unless ``--disable-compression`` or the kubeconfig's cluster
    ``disable-compression`` says not to; the API server then compresses a response of more than
    128 KiB (a 1,000-node ResourceSlice list: 7.8 MB instead of 155 MB on the wire). On a server
    this machine reaches through loopback the bytes cost nothing to carry and compressing and
    inflating them only costs CPU on both ends, so it is not asked there unless the flag is given
    as ``--disable-compression=false``."""
    if opts.disable_compression is not None:
        return not opts.disable_compression, f"--disable-compression={str(opts.disable_compression).lower()}"
    if loaded.disable_compression:
        return False, "the kubeconfig's cluster sets disable-compression"
    host = urlsplit(loaded.server).hostname or ""
    try:
        loopback = host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = False
    if loopback:
        return False, f"the API server is reached through loopback ({host}): compression would only cost CPU"
    return True, "as kubectl does (--disable-compression turns it off)"
