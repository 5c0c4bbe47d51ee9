"""ClusterView: the one interface through which commands read objects.

Two implementations: ``LiveView`` (``kube/live.py``: the API server, through ``KubeClient``) and
``SnapshotView`` (``kube/snapshot.py``: files given with ``--from``). Both return plain dicts in
the v1 DRA shape, cache every answer so each object is fetched at most once per run, and record
what could not be read (403) so that a command can carry on and mark its answer partial.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from typing import Any

from ..k8s.object_shapes import GENERIC, SHAPES
from ..k8s.shape import Malformed, SharedParts, check_object
from . import errors
from .kinds import KINDS, Kind

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
USER_FIELDS = "\0user"


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
        #: kinds an answer needed that the snapshot was written without (``lacks``)
        self.absent: list[str] = []
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
            field_selector = {**(field_selector or {}), USER_FIELDS: fields}
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

    def lacks(self, kind: str) -> bool:
        """A snapshot written without any object of ``kind``: what those would say is unknown, not
        none (recorded in ``absent``: the answer is then partial). A live cluster lacks nothing."""
        if self.live or self.serves(kind):
            return False
        if kind not in self.absent:
            self.absent.append(kind)
        return True

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
            if path == USER_FIELDS:
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
