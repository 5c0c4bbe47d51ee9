"""``explain -f FILE``: the workloads of a manifest file (or stdin), and the objects beside them.

A file may hold several documents, as the job files users apply do: the Job next to the
ResourceClaimTemplate it names, a DeviceClass, a Namespace. Every Job, Pod, JobSet or Workload in
it is explained; the other objects are kept (``resource.k8s.io`` ones reshaped to v1 and checked
like the view checks what it reads) so that explain can use them before the cluster's.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import IO, Any

from ..errors import UsageError
from ..k8s.job_kinds import MANIFEST_KINDS, listed
from ..k8s.object_shapes import GENERIC, SHAPES
from ..k8s.shape import Malformed, check_object
from ..k8s.utf8 import NotUtf8, manifest_text
from .convert import to_v1

#: the kinds explained (k8s/job_kinds: those whose pod sets explain -f can read)
WORKLOAD_KINDS = MANIFEST_KINDS
#: the kinds explain takes from the file before the cluster's
COMPANION_KINDS = ("ResourceClaimTemplate", "DeviceClass")


@dataclass
class Manifest:
    """What ``-f`` read: the workloads in file order, and every other object of the file."""

    source: str  # "-f job.yaml", "-f -" (stdin)
    workloads: list[dict[str, Any]]
    objects: list[dict[str, Any]] = field(default_factory=list)
    malformed: list[Malformed] = field(default_factory=list)  # fields of the file's objects removed

    def companions(self, kind: str, namespace: str | None = None) -> list[dict[str, Any]]:
        """The file's objects of ``kind`` (a namespaced kind: those of ``namespace``; an object
        without a namespace is in the namespace it would be applied to, the workload's)."""
        return [o for o in self.objects if o.get("kind") == kind
                and (namespace is None or (_meta(o).get("namespace") or namespace) == namespace)]

    def ignored_kinds(self) -> list[str]:
        """The kinds of the file explain does not read (a Namespace, a LocalQueue …)."""
        return sorted({str(o.get("kind")) for o in self.objects if o.get("kind") not in COMPANION_KINDS})


def _meta(obj: dict[str, Any]) -> dict[str, Any]:
    meta = obj.get("metadata")
    return meta if isinstance(meta, dict) else {}


def _documents(docs: list[Any]) -> list[Any]:
    """The documents, the items of a ``kind: List`` (kubectl get -o yaml) in their place."""
    out: list[Any] = []
    for d in docs:
        if isinstance(d, dict) and d.get("kind") == "List" and isinstance(d.get("items"), list):
            out.extend(_documents(d["items"]))
        elif d:
            out.append(d)
    return out


#: what kubectl reads from a directory (a file named on the command line is read whatever its name)
MANIFEST_EXTENSIONS = (".json", ".yaml", ".yml")


def manifest_files(paths: list[str], recursive: bool = False,
                   where: Callable[[str], str] = str) -> list[tuple[str, str]]:
    """The files ``-f`` names, as kubectl finds them: a file as given, ``-`` for stdin, a
    directory's .json/.yaml/.yml files in name order (its subdirectories too with ``-R``). Each
    as (the name shown, the path opened: ``where`` says where a path of the command line is)."""
    import os

    files: list[tuple[str, str]] = []
    for path in paths:
        opened = where(path)
        if path == "-" or not os.path.isdir(opened):
            files.append((path, opened))
            continue
        found = []
        for top, dirs, names in os.walk(opened):
            dirs[:] = sorted(dirs) if recursive else []
            found += [(os.path.join(path, os.path.relpath(os.path.join(top, n), opened)), os.path.join(top, n))
                      for n in names if n.endswith(MANIFEST_EXTENSIONS)]
        if not found:
            raise UsageError(f"-f {path}: no .json, .yaml or .yml file in it"
                             + ("" if recursive else " (-R reads its subdirectories)"))
        files += sorted(found)
    return files


def _read_documents(path: str, opened: str, stdin: IO[str]) -> list[Any]:
    import json

    import yaml

    from .parse.jsonstream import values

    try:
        if path == "-":  # its bytes where it has them, decoded as a file's (a UTF-16 byte-order mark)
            raw = getattr(stdin, "buffer", None)
            text = stdin.read() if raw is None else manifest_text(raw.read())
        else:
            with open(opened, "rb") as f:
                text = manifest_text(f.read())
    except OSError as e:
        raise UsageError(f"-f {path}: {e.strerror}") from None
    except (NotUtf8, UnicodeDecodeError) as e:
        raise UsageError(f"-f {path}: {e if isinstance(e, NotUtf8) else 'not UTF-8 text'}") from None
    if text.lstrip()[:1] == "{":  # JSON, one object or several one after another, as kubectl reads them
        try:
            return _documents(values(text))
        except json.JSONDecodeError as e:
            if path.endswith(".json"):
                raise UsageError(f"-f {path}:{e.lineno}: malformed JSON: {e.msg}") from None
    try:
        docs = _documents(list(yaml.safe_load_all(text)))
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f":{mark.line + 1}" if mark else ""
        raise UsageError(f"-f {path}{where}: malformed YAML: {getattr(e, 'problem', None) or e}") from None
    if any(isinstance(d, list) for d in docs):
        raise UsageError(f"-f {path}: an array of objects, which kubectl does not apply",
                         "make it a List (apiVersion: v1, kind: List, items: [...]) or one document per object")
    return docs


def read_manifest(paths: str | list[str], stdin: IO[str], recursive: bool = False,
                  where: Callable[[str], str] = str) -> Manifest:
    """The workloads of every file ``paths`` name (``-`` reads ``stdin``, the run's; a directory its
    manifests), in order, and the objects beside them: a template in one file serves a Job in
    another, as when they are applied together. ``where`` says where a path of the command line is
    opened (the run's working directory)."""
    paths = [paths] if isinstance(paths, str) else list(paths)
    files = manifest_files(paths, recursive, where)
    if [shown for shown, _ in files].count("-") > 1:
        raise UsageError("-f - (standard input) can be given only once")
    docs = [d for shown, opened in files for d in _read_documents(shown, opened, stdin)]
    named = " ".join(f"-f {p}" for p in paths)
    workloads = [dict(d) for d in docs if isinstance(d, dict) and d.get("kind") in WORKLOAD_KINDS]
    if not workloads:
        kinds = ", ".join(sorted({str(d.get("kind")) for d in docs if isinstance(d, dict)})) or "nothing"
        raise UsageError(f"{named}: no {listed(WORKLOAD_KINDS)} in {'it' if len(files) == 1 else 'them'} "
                         f"(found {kinds})")
    manifest = Manifest(named, workloads)
    for d in docs:
        if isinstance(d, dict) and d.get("kind") not in WORKLOAD_KINDS:
            obj = to_v1(dict(d))
            if obj.get("kind") in COMPANION_KINDS:
                manifest.malformed.extend(check_object(str(obj["kind"]), obj, SHAPES.get(str(obj["kind"]), GENERIC)))
            manifest.objects.append(obj)
    return manifest


def manifest_name(obj: dict[str, Any]) -> str:
    """A workload's name as a reference shows it: ``train`` or, for generateName, ``train- (generated)``."""
    meta = _meta(obj)
    if meta.get("name"):
        return str(meta["name"])
    if meta.get("generateName"):
        return f"{meta['generateName']} (generated)"
    return "(no name)"
