"""A kubeconfig context the client connects with directly, without importing the ``kubernetes``
package (about 150 ms of every live command's start, most of it the package's generated API
models and what they import; docs/performance.md).

Most contexts are plain: a server, its CA, and a client certificate or a bearer token (what kind,
``oc login`` and most installers write). For those, ``plain_config`` gives what the package's
``load_kube_config_from_dict`` would set — the same host, CA, client certificate and key, TLS
server name, verification and ``Authorization`` header — and ``pool_manager`` the connection pool
its ``RESTClientObject`` would build from them (the same urllib3 arguments). Everything else goes
through the package as before (``kube/kubeconfig.py``): exec credential plugins, auth providers,
token files, user names and passwords, proxies (from the kubeconfig or the environment), and any
entry that does not read cleanly (a missing file, bad base64), so that its error is the one the
package gives.
"""

from __future__ import annotations

import atexit
import base64
import binascii
import os
import shutil
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

#: the fields of a plain context (anything else, e.g. ``exec``, ``proxy-url``: the package)
_CLUSTER_KEYS = frozenset(("server", "certificate-authority", "certificate-authority-data",
                           "insecure-skip-tls-verify", "tls-server-name", "disable-compression", "extensions"))
_USER_KEYS = frozenset(("client-certificate", "client-certificate-data", "client-key", "client-key-data",
                        "token", "extensions"))


@dataclass
class PlainConfig:
    """The attributes of ``kubernetes.client.Configuration`` that ``kube/client.py`` reads."""

    host: str
    ssl_ca_cert: str | None = None
    cert_file: str | None = None
    key_file: str | None = None
    verify_ssl: bool = True
    tls_server_name: str | None = None
    token: str | None = None  # "Bearer …"
    retries: Any = None
    username: None = None
    password: None = None

    def auth_settings(self) -> dict[str, dict[str, str]]:
        return {"BearerToken": {"key": "authorization", "value": self.token}} if self.token else {}


def plain_config(cluster: dict[str, Any], user: dict[str, Any], env_vars: Mapping[str, str]) -> PlainConfig | None:
    """The configuration of a plain context, or None when the package must load it (``env_vars``:
    the run's environment variables)."""
    server = cluster.get("server")
    if not (set(cluster) <= _CLUSTER_KEYS and set(user) <= _USER_KEYS) or not isinstance(server, str) \
            or not server.startswith(("https://", "http://")) or _proxies(env_vars):
        return None
    token = user.get("token")
    if token is not None and not isinstance(token, str):
        return None
    cfg = PlainConfig(host=server.rstrip("/"), token=f"Bearer {token}" if token else None)
    if "insecure-skip-tls-verify" in cluster:
        cfg.verify_ssl = not cluster["insecure-skip-tls-verify"]
    if "tls-server-name" in cluster:
        cfg.tls_server_name = cluster["tls-server-name"]
    if cfg.host.startswith("https"):
        try:
            cfg.ssl_ca_cert = _file(cluster, "certificate-authority")
            cfg.cert_file = _file(user, "client-certificate")
            cfg.key_file = _file(user, "client-key")
        except _Unreadable:
            return None
    return cfg


class _Unreadable(Exception):
    """A file or data field that the package would refuse (its message is the package's)."""


def _file(obj: dict[str, Any], key: str) -> str | None:
    """The file holding ``key`` of a kubeconfig entry (``key-data``, base64, is preferred and
    written to a private temporary file, kept until exit); None when neither is given (or the data
    is empty). Raises ``_Unreadable``."""
    data_key = f"{key}-data"
    if data_key in obj:
        data = obj[data_key]
        if not data:
            return None
        if not isinstance(data, str):
            raise _Unreadable(data_key)
        try:
            content = base64.standard_b64decode(data.encode())
        except (binascii.Error, ValueError):
            raise _Unreadable(data_key) from None
        return _private_file(content)
    path = obj.get(key)
    if path is None:
        return None
    if not isinstance(path, str) or not os.path.isfile(path):
        raise _Unreadable(key)
    return os.path.normpath(path)


_TEMP_DIR: list[str] = []


def _private_file(content: bytes) -> str:
    if not _TEMP_DIR:
        _TEMP_DIR.append(tempfile.mkdtemp(prefix="kubectl-kueue_dra-"))  # mode 0700
        atexit.register(shutil.rmtree, _TEMP_DIR[0], True)
    fd, name = tempfile.mkstemp(dir=_TEMP_DIR[0])
    with os.fdopen(fd, "wb") as f:
        f.write(content)
    return name


def _proxies(env_vars: Mapping[str, str]) -> bool:
    """Whether the package could take a proxy from the environment: any ``*_proxy`` variable (as
    ``urllib.request.getproxies`` reads them, any case), or on macOS and Windows the system's
    settings (``getproxies`` itself, which is not imported otherwise: ~10 ms)."""
    if any(k.lower().endswith("_proxy") and v for k, v in env_vars.items()):
        return True
    if sys.platform in ("darwin", "win32"):
        from urllib.request import getproxies

        return bool(getproxies())
    return False


def pool_manager(cfg: Any) -> Any:
    """The urllib3 pool of a configuration: for a ``PlainConfig`` the pool the package's
    ``RESTClientObject`` builds from the same settings, else the package's own."""
    if not isinstance(cfg, PlainConfig):
        from kubernetes.client import rest

        return rest.RESTClientObject(cfg).pool_manager
    import ssl

    import urllib3

    args: dict[str, Any] = {"cert_reqs": ssl.CERT_REQUIRED if cfg.verify_ssl else ssl.CERT_NONE,
                            "ca_certs": cfg.ssl_ca_cert, "cert_file": cfg.cert_file, "key_file": cfg.key_file,
                            "ca_cert_data": None}
    args["maxsize"] = (os.cpu_count() or 1) * 5  # the package's default connection_pool_maxsize
    if cfg.retries is not None:
        args["retries"] = cfg.retries
    if cfg.tls_server_name:
        args["server_hostname"] = cfg.tls_server_name
    return urllib3.PoolManager(**args)
