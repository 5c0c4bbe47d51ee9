"""ClusterView: the one interface through which commands read objects.

Two implementations: ``LiveView`` (the API server, through ``KubeClient``) and ``SnapshotView``
(files given with ``--from``). Both return plain dicts in the v1 DRA shape, cache every answer so
each object is fetched at most once per run, and record what could not be read (403) so that a
command can carry on and mark its answer partial.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from typing import Any

from ..k8s.object_shapes import GENERIC, SHAPES
from ..k8s.shape import Malformed, SharedParts, check_object
from . import errors
from .convert import to_v1
from .kinds import KINDS, Kind
from .listing import read_list

Obj = dict[str, Any]
Objs = list[Obj]  # (inside ClusterView, ``list`` is the method)
MalformedList = list[Malformed]


def _field(obj: Obj, dotted: str) -> Any:
    value: Any = obj
    for part in dotted.split("."):
        if not isinstance(value, dict):
            return None
        value = value.get(part)
    return value


#: the key under which a user's --field-selector string rides among the plugin's own equalities
_USER_FIELDS = "\0user"


class ClusterView(ABC):
    """Read access to cluster objects. ``namespace=None`` on a namespaced kind means all."""

    #: a short description of where objects come from, for messages ("cluster https://…")
    source: str = ""
    #: the namespace commands use when none is given (the context's namespace)
    default_namespace: str = "default"
    #: True for a live cluster, False for an offline snapshot
    live: bool = False

    def __init__(self) -> None:
        self._cache: dict[tuple, list[Obj]] = {}
        self._got: dict[tuple, Obj | None] = {}
        self.unreadable: list[errors.Forbidden] = []
        #: fields of the wrong type, removed where the objects came in (``k8s.shape``)
        self.malformed: list[Malformed] = []
        self._checked: set[int] = set()
        #: the parts ResourceSlices share (``kube/compact.py``), each checked once
        self._shared: SharedParts | None = None
        self._memo: dict[tuple[Any, ...], Any] = {}
        #: kinds the command lists cluster-wide anyway (``prefer_cluster_wide``)
        self._wide: set[str] = set()
        #: lists the server refused (403), by cache key: asked once per run
        self._refused: dict[tuple, errors.Forbidden] = {}

    # -- the interface ------------------------------------------------------------------------
    def list(self, kind: str, namespace: str | None = None, *,
             field_selector: dict[str, str] | None = None, label_selector: str | None = None,
             fields: str | None = None, on_server: bool = False) -> list[Obj]:
        """The objects of ``kind``; ``fields`` is the user's ``--field-selector`` string (checked by
        ``k8s.selectors``), ``field_selector`` equalities the plugin itself asks for. ``on_server``:
        a live server selects (the user's -l and --field-selector, as kubectl sends them), even when
        a broader list already read could answer."""
        k = KINDS[kind]
        ns = namespace if k.namespaced else None
        if fields:
            field_selector = {**(field_selector or {}), _USER_FIELDS: fields}
        key = (kind, ns, tuple(sorted((field_selector or {}).items())), label_selector)
        if key not in self._cache:
            refused = self._refused.get(key)
            if refused is not None:
                raise refused
            # A cluster-wide list already fetched answers narrower questions without a request.
            narrower = key != (kind, None, (), None)
            broad = self._wide_list(kind) if narrower and not (on_server and self.live) else None
            if broad is not None:
                self._cache[key] = [o for o in broad if self._matches(o, ns, field_selector, label_selector)]
            else:
                try:
                    listed = self._list(k, ns, field_selector or {}, label_selector)
                except errors.Forbidden as e:
                    self._refused[key] = e
                    raise
                self._cache[key] = [self._checked_object(kind, o) for o in listed]
        return self._cache[key]

    def prefer_cluster_wide(self, *kinds: str) -> None:
        """The command lists these kinds cluster-wide anyway (``explain``'s queue model): a
        narrower read of one (a namespace's list, a get by name) asks for the cluster-wide list
        first and is answered from it, one request instead of two. Where that list is forbidden,
        the narrower read goes to the server as it would have."""
        if self.live:
            self._wide.update(kinds)

    def _wide_list(self, kind: str) -> Objs | None:
        """For a narrower read: the cluster-wide list of ``kind`` when it is read or should be read
        first (None when it is not, or is forbidden)."""
        wide = (kind, None, (), None)
        broad = self._cache.get(wide)
        if broad is None and kind in self._wide and wide not in self._refused:
            try:
                broad = self.list(kind)
            except errors.Forbidden:
                return None
        return broad

    def get(self, kind: str, name: str, namespace: str | None = None) -> Obj | None:
        """The named object, or None when it does not exist (or its kind is not served)."""
        k = KINDS[kind]
        ns = namespace if k.namespaced else None
        self._wide_list(kind)
        for key in ((kind, ns, (), None), (kind, None, (), None)):
            cached = self._cache.get(key)
            if cached is not None:  # an unfiltered list is authoritative, also for absence
                return next((o for o in cached if self._matches(o, ns, {"metadata.name": name}, None)), None)
        for key, cached in self._cache.items():  # a filtered list may hold it
            if key[0] == kind:
                for o in cached:
                    if self._matches(o, ns, {"metadata.name": name}, None):
                        return o
        got_key = (kind, ns, name)
        if got_key not in self._got:
            got = self._get(k, name, ns)
            self._got[got_key] = None if got is None else self._checked_object(kind, got)
        return self._got[got_key]

    def _checked_object(self, kind: str, obj: Obj) -> Obj:
        """The object with every field of the wrong type removed (once per object), each one
        recorded in ``malformed``."""
        if id(obj) not in self._checked:
            self._checked.add(id(obj))
            shared = self._shared if kind == "ResourceSlice" else None
            self.note_malformed(check_object(kind, obj, SHAPES.get(kind, GENERIC), shared))
        return obj

    def note_malformed(self, found: MalformedList) -> None:
        for m in found:
            if m not in self.malformed:
                self.malformed.append(m)

    def try_list(self, kind: str, namespace: str | None = None, **kw: Any) -> Objs | None:
        """Like ``list`` but a 403 is recorded in ``unreadable`` and answered with None."""
        return self._optional(lambda: self.list(kind, namespace, **kw))

    def try_get(self, kind: str, name: str, namespace: str | None = None) -> Obj | None:
        return self._optional(lambda: self.get(kind, name, namespace))

    def forbidden(self, kind: str) -> str | None:
        """Why ``kind`` could not be read (the first 403 a list or get of it met), or None: what a
        None from ``try_list``/``try_get`` means, absent or unknown."""
        resource = KINDS[kind].resource
        return next((e.message for e in self.unreadable if getattr(e, "resource", None) == resource), None)

    def _optional(self, fn: Callable[[], Any]) -> Any:
        try:
            return fn()
        except errors.Forbidden as e:
            self.note_unreadable(e)
            return None

    def note_unreadable(self, e: errors.Forbidden) -> None:
        """Record a 403 (once): the answer that needed it is partial."""
        if not any(str(u) == str(e) for u in self.unreadable):
            self.unreadable.append(e)

    def memo(self, key: tuple[Any, ...], fn: Callable[[], Any]) -> Any:
        """``fn()``'s answer, once per view: reads that are not a list or get of a kind, and what a
        command derives from the lists for every subject it explains."""
        if key not in self._memo:
            self._memo[key] = fn()
        return self._memo[key]

    @abstractmethod
    def serves(self, kind: str) -> bool:
        """Whether the kind's API is served (live) or could be present (snapshot)."""

    def server_version(self) -> Obj | None:
        return None

    def resource_version(self, kind: str, namespace: str | None = None, *, label_selector: str | None = None,
                         fields: str | None = None) -> str:
        """Where a watch of ``kind`` starts (a live cluster only)."""
        raise errors.NotFound(f"{self.source} cannot be watched", status=None)

    def watch(self, kind: str, namespace: str | None, *, resource_version: str, timeout_seconds: int,
              label_selector: str | None = None, fields: str | None = None) -> Iterator[Obj]:
        """The changes of ``kind`` after ``resource_version`` (a live cluster only)."""
        raise errors.NotFound(f"{self.source} cannot be watched", status=None)

    # -- for implementations ------------------------------------------------------------------
    @staticmethod
    def _matches(obj: Obj, namespace: str | None, field_selector: dict[str, str] | None,
                 label_selector: str | None) -> bool:
        if namespace is not None and (obj.get("metadata") or {}).get("namespace") != namespace:
            return False
        from ..k8s.selectors import fields_match, labels_match, parse_fields, parse_labels

        for path, want in (field_selector or {}).items():
            if path == _USER_FIELDS:
                if not fields_match(parse_fields(want), obj):
                    return False
            elif str(_field(obj, path)) != want:
                return False
        return not label_selector or labels_match(parse_labels(label_selector), obj)

    @property
    def slice_parts(self) -> SharedParts | None:
        """What the ResourceSlices read through this view share (``kube/compact.py``), among it
        the device lists alike their models, for grouping devices by shape (``dra.devices``); None
        when nothing compacted them. A live view's compactor is made here if no slice was read yet."""
        if self._shared is None and self.live:
            self._compactor()
        return self._shared

    def _compactor(self) -> Any:
        """One SliceCompactor per view, so that every list of ResourceSlices shares its parts."""
        if getattr(self, "_slice_compactor", None) is None:
            from .compact import SliceCompactor

            self._slice_compactor = SliceCompactor()
            self._shared = self._slice_compactor.parts
        return self._slice_compactor

    @abstractmethod
    def _list(self, kind: Kind, namespace: str | None, field_selector: dict[str, str],
              label_selector: str | None) -> Objs: ...

    @abstractmethod
    def _get(self, kind: Kind, name: str, namespace: str | None) -> Obj | None: ...


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
            query["fieldSelector"] = ",".join(v if k == _USER_FIELDS else f"{k}={v}" for k, v in field_selector.items())
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
