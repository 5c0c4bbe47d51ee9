"""The offline snapshot: every object of a test API server read back page by page into one JSON
``List`` file, without managedFields as ``kubectl get -o json`` prints it, and the writers of
such a file (the API server's compact lines, or kubectl's indented form)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from collections.abc import Iterable, Iterator
from urllib.parse import urlencode

from testenv.scale.loading import Loader, LoadError
from testenv.scale.objects import Obj

SNAPSHOT_KINDS = ("Namespace", "DeviceClass", "ResourceSlice", "ResourceFlavor", "ClusterQueue", "LocalQueue",
                  "ResourceClaimTemplate", "Workload", "Job", "ConfigMap", "Deployment")


def _list_path(kind_name: str) -> tuple[str, str, str]:
    from kubectl_kueue_dra.kube.kinds import KINDS

    kind = KINDS[kind_name]
    version = kind.versions[0]
    api_version = f"{kind.group}/{version}" if kind.group else version
    base = f"/api/{version}" if kind.group == "" else f"/apis/{kind.group}/{version}"
    return f"{base}/{kind.plural}", api_version, kind.kind


def iter_objects(loader: Loader, kinds: Iterable[str] = SNAPSHOT_KINDS, page: int = 500) -> Iterator[Obj]:
    """Every object of the kinds, page by page, as ``kubectl get -o json`` prints them."""
    for kind_name in kinds:
        path, api_version, kind = _list_path(kind_name)
        token = None
        while True:
            query = {"limit": page, **({"continue": token} if token else {})}
            status, payload = loader.request("GET", f"{path}?{urlencode(query)}")
            if status != 200:
                raise LoadError(f"list {path}: HTTP {status}: {payload[:200]!r}")
            doc = json.loads(payload)
            for item in doc.get("items") or []:
                item["metadata"].pop("managedFields", None)
                yield {"apiVersion": api_version, "kind": kind, **item}
            token = (doc.get("metadata") or {}).get("continue")
            if not token:
                break


def write_list(objects: Iterable[Obj], path: Path) -> int:
    """Write one JSON List, streaming; returns the number of items."""
    n = 0
    with open(path, "w", encoding="utf-8") as f:
        f.write('{"apiVersion": "v1", "kind": "List", "metadata": {}, "items": [\n')
        for obj in objects:
            if n:
                f.write(",\n")
            f.write(json.dumps(obj, separators=(",", ":")))
            n += 1
        f.write("\n]}\n")
    return n


def kubectl_style(obj: Obj, k: int) -> Obj:
    """``obj`` as ``kubectl get -o json`` prints an object the API server holds: apiVersion, kind,
    metadata with what the server adds (uid, resourceVersion, generation; a ResourceSlice owned
    by its Node), then the rest, in that order. ``k`` numbers the object (its uid)."""
    meta = dict(obj.get("metadata") or {})
    meta.setdefault("generation", 1)
    if obj.get("kind") == "ResourceSlice" and (obj.get("spec") or {}).get("nodeName"):
        node = obj["spec"]["nodeName"]
        meta["ownerReferences"] = [{"apiVersion": "v1", "controller": True, "kind": "Node", "name": node,
                                    "uid": f"10000000-0000-4000-8000-{int(node.rsplit('-', 1)[-1]):012d}"}]
    meta["resourceVersion"] = str(100000 + k)
    meta.setdefault("uid", f"20000000-0000-4000-8000-{k:012d}")
    rest = {key: value for key, value in obj.items() if key not in ("apiVersion", "kind", "metadata")}
    return {"apiVersion": obj["apiVersion"], "kind": obj["kind"], "metadata": dict(sorted(meta.items())), **rest}


def write_kubectl_list(objects: Iterable[Obj], path: Path) -> int:
    """Write one JSON List as ``kubectl get -o json`` prints it (4-space indentation, each item a
    whole object beginning with its apiVersion, the List's keys in kubectl's order): what another
    tool or a user hands the plugin, unlike the API server's compact lists. Streaming; returns
    the number of items."""
    n = 0
    with open(path, "w", encoding="utf-8") as f:
        f.write('{\n    "apiVersion": "v1",\n    "items": [')
        for obj in objects:
            f.write(",\n        " if n else "\n        ")
            f.write(json.dumps(kubectl_style(obj, n), indent=4).replace("\n", "\n        "))
            n += 1
        f.write('\n    ],\n    "kind": "List",\n    "metadata": {\n        "resourceVersion": ""\n    }\n}\n')
    return n


def write_kubectl_yaml(objects: Iterable[Obj], path: Path) -> int:
    """Write one YAML List as ``kubectl get -o yaml`` prints it (keys sorted, 2-space indentation,
    the items an unindented block sequence, each item as in ``write_kubectl_list``). Streaming;
    returns the number of items."""
    import yaml

    class Dumper(getattr(yaml, "CSafeDumper", yaml.SafeDumper)):  # type: ignore[misc]
        def ignore_aliases(self, data: Any) -> bool:
            return True  # kubectl writes every value out: no anchors for the objects generated shared

    n = 0
    with open(path, "w", encoding="utf-8") as f:
        f.write("apiVersion: v1\nitems:\n")
        for obj in objects:
            f.write(yaml.dump([kubectl_style(obj, n)], Dumper=Dumper, default_flow_style=False, width=1 << 16))
            n += 1
        f.write('kind: List\nmetadata:\n  resourceVersion: ""\n')
    return n


#: the snapshot layouts the benchmark and make-snapshot write: (writer, file suffix)
STYLES = {"compact": (write_list, ".json"), "kubectl": (write_kubectl_list, ".json"),
          "yaml": (write_kubectl_yaml, ".yaml")}


def write_snapshot(cluster: Any, path: Path) -> int:
    return write_list(iter_objects(Loader(cluster, 1)), path)
