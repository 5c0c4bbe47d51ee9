"""``LiveView``: the ``ClusterView`` of an API server, read through ``KubeClient``: discovery picks
each kind's version, lists come whole or in pages (``kube/listing.py``), every answer is cached."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..k8s.object_shapes import GENERIC, SHAPES
from ..k8s.shape import check_object
from . import errors
from .convert import to_v1
from .kinds import KINDS, Kind
from .listing import read_list
from .view import USER_FIELDS, ClusterView, MalformedList, Obj


class LiveView(ClusterView):
    live = True

    def __init__(self, client: Any):
        super().__init__()
        self.client = client
        self.source = f"cluster {client.server}"
        self.default_namespace = client.namespace
        self._groups: dict[str, list[str] | None] = {}
        self._version: Obj | None = None

    def served_versions(self, group: str) -> list[str]:
        """Versions of an API group the server serves ([] when the group is absent)."""
        if group == "":
            return ["v1"]
        if group not in self._groups:
            try:
                doc = self.client.get(f"/apis/{group}", _target("get", f"apigroup {group}"))
                self._groups[group] = [v["version"] for v in doc.get("versions") or []]
            except errors.NotFound:
                self._check_kubernetes()
                self._groups[group] = []
        return self._groups[group] or []

    def _check_kubernetes(self) -> None:
        """An absent API group, or a server that is no Kubernetes API server at all? Every API
        server serves the core group's discovery at /api."""
        if "" in self._groups:
            return
        try:
            self.client.get("/api", _target("get", "/api"))
        except errors.NotFound:
            raise errors.NotKubernetes(f"not a Kubernetes API server at {self.client.server} (/api answers 404)",
                                       "check the server URL of the kubeconfig context", status=404) from None
        self._groups[""] = ["v1"]

    def api_version(self, kind: Kind) -> str | None:
        served = self.served_versions(kind.group)
        return next((v for v in kind.versions if v in served), None)

    def serves(self, kind: str) -> bool:
        return self.api_version(KINDS[kind]) is not None

    def server_version(self) -> Obj | None:
        if self._version is None:
            try:
                self._version = self.client.get("/version", _target("get", "/version"))
            except errors.NotFound:
                self._check_kubernetes()
                raise
        return self._version

    def _path(self, kind: Kind, version: str, namespace: str | None, name: str | None = None) -> str:
        base = f"/api/{version}" if kind.group == "" else f"/apis/{kind.group}/{version}"
        if namespace:
            base += f"/namespaces/{namespace}"
        base += f"/{kind.plural}"
        return base + (f"/{name}" if name else "")

    def resource_version(self, kind: str, namespace: str | None = None, *, label_selector: str | None = None,
                         fields: str | None = None) -> str:
        """The list's current resourceVersion (one item asked for): where a watch starts."""
        k = KINDS[kind]
        version = self.api_version(k)
        if version is None:
            raise errors.NotFound(f"this cluster does not serve {k.resource}", status=404)
        query = {"limit": 1, "labelSelector": label_selector, "fieldSelector": fields}
        page = self.client.get(self._path(k, version, namespace if k.namespaced else None),
                               _target("list", k.resource, namespace), {q: v for q, v in query.items() if v})
        return str((page.get("metadata") or {}).get("resourceVersion") or "")

    def watch(self, kind: str, namespace: str | None, *, resource_version: str, timeout_seconds: int,
              label_selector: str | None = None, fields: str | None = None) -> Iterator[Obj]:
        """The events of ``kind`` after ``resource_version`` (``ADDED``, ``MODIFIED``, ``DELETED``,
        ``BOOKMARK``), each object reshaped as ``list`` gives them; the server ends the watch after
        ``timeout_seconds`` (then the caller resumes from the last resourceVersion)."""
        k = KINDS[kind]
        version = self.api_version(k)
        if version is None:
            return
        query: dict[str, Any] = {"resourceVersion": resource_version, "allowWatchBookmarks": "true",
                                 "timeoutSeconds": timeout_seconds}
        if label_selector:
            query["labelSelector"] = label_selector
        if fields:
            query["fieldSelector"] = fields
        group_version = f"{k.group}/{version}" if k.group else version
        path = self._path(k, version, namespace if k.namespaced else None)
        for event in self.client.watch(path, _target("watch", k.resource, namespace), query, timeout_seconds + 10.0):
            obj = event.get("object") or {}
            obj.setdefault("apiVersion", group_version)
            obj.setdefault("kind", k.kind)
            event["object"] = to_v1(obj)
            yield event

    def _list(self, kind: Kind, namespace: str | None, field_selector: dict[str, str],
              label_selector: str | None) -> list[Obj]:
        version = self.api_version(kind)
        if version is None:
            return []
        query: dict[str, Any] = {}
        if field_selector:
            query["fieldSelector"] = ",".join(v if k == USER_FIELDS else f"{k}={v}" for k, v in field_selector.items())
        if label_selector:
            query["labelSelector"] = label_selector
        target = _target("list", kind.resource, namespace)
        group_version = f"{kind.group}/{version}" if kind.group else version
        compact = self._compactor() if kind.kind == "ResourceSlice" else None
        shape = SHAPES.get(kind.kind, GENERIC)
        found: MalformedList = []
        checked: list[int] = []

        def on_item(item: Obj) -> Obj:
            """Each item as its page is parsed, while the next page is on its way: the v1 shape,
            compacted (``kube/compact.py``), fields of the wrong type removed."""
            item.setdefault("apiVersion", group_version)
            item.setdefault("kind", kind.kind)
            item = to_v1(item)
            if compact is not None:
                item = compact(item)
            found.extend(check_object(kind.kind, item, shape, self._shared))
            checked.append(id(item))
            self._checked.add(id(item))
            return item

        def on_restart() -> None:  # the items read so far are dropped: so is what was found in them
            self._checked.difference_update(checked)
            checked.clear()
            found.clear()

        batches = None
        if compact is not None:
            from .parse.slices import SliceBatches

            batches = SliceBatches(compact, listed=True)
        items = read_list(self.client, self._path(kind, version, namespace), target, query, on_item, on_restart,
                          decode=batches)
        self.note_malformed(found)
        return items

    def _get(self, kind: Kind, name: str, namespace: str | None) -> Obj | None:
        version = self.api_version(kind)
        if version is None:
            return None
        try:
            obj = self.client.get(self._path(kind, version, namespace, name),
                                  _target("get", kind.resource, namespace, name))
        except errors.NotFound:
            return None
        return to_v1(obj)


def _target(verb: str, resource: str, namespace: str | None = None, name: str | None = None) -> Any:
    from .client import Target

    return Target(verb, resource, namespace, name)
