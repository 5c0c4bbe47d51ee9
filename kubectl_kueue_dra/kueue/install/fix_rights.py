"""Which change each fix's command makes, and whether the user may make it.

A fix's command lines are the plugin's own (``kubectl patch clusterqueue …``, ``kubectl label
namespace …``, ``echo '{…}' | kubectl apply -f -``, ``kubectl kueue-dra map set …``), so the change
each one makes is read off its words: the verb RBAC checks (``patch`` for patch, label, annotate,
edit and a rollout restart; ``create`` for an applied object; ``update`` for what ``map`` and
``classes set-extended-resource`` write), the resource and the namespace. Reads (``get``,
``describe``, ``kueue-dra queues``) and prose ask for nothing.

``with_rights`` asks the API server once per distinct permission (``kube/access``) and adds to a
fix the user may not carry out who can: ``(you may not patch clusterqueues.kueue.x-k8s.io: ask a
cluster-admin)``. A snapshot, or a review the server does not answer, adds nothing.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Iterator
from typing import Any, TypeVar

from ...k8s.job_kinds import JOB_KINDS
from ...kube.access import Permission, may
from ...kube.kinds import KINDS
from ..config.load import KueueConfig

T = TypeVar("T")
#: a command word of a command line in a fix (not ``kubectl-kueue_dra``, not inside a word)
_COMMAND = re.compile(r"(?<![\w./-])(?:kubectl|oc)(?= )")
#: an object applied from the fix's own text
_APPLY = re.compile(r"echo '(?P<json>[^']*)' \| (?:kubectl|oc) (?:-n \S+ )?apply -f -")
#: flags of the commands in fixes that take the next word as their value
_VALUED = {"-p", "--patch", "-o", "--output", "-f", "--filename", "--type", "-l", "--selector", "--field-selector",
           "--device-class", "--counter", "--capacity", "--driver", "--dry-run"}
_NAMESPACE = {"-n", "--namespace"}
#: kubectl verbs that send a PATCH
_PATCHING = {"patch", "label", "annotate", "edit"}
_SHORT = {"ns": "Namespace", "cm": "ConfigMap", "deploy": "Deployment", "cq": "ClusterQueue", "lq": "LocalQueue",
          "rf": "ResourceFlavor", "wl": "Workload"}
#: who grants what the plugin's own changing commands need
MAPPING_EDITOR = "the ClusterRole in deploy/rbac/mapping-editor-clusterrole.yaml grants it"


def _types() -> dict[str, tuple[str, str, bool]]:
    """Every TYPE word a fix may use → (group, plural, namespaced)."""
    out: dict[str, tuple[str, str, bool]] = {}
    for jk in JOB_KINDS:
        for word in jk.words:
            out[word] = (jk.group, jk.kind.lower() + "s", True)
    for k in KINDS.values():
        for word in (k.kind.lower(), k.plural, k.resource, f"{k.kind.lower()}.{k.group}" if k.group else k.plural):
            out[word] = (k.group, k.plural, k.namespaced)
    for short, kind in _SHORT.items():
        k = KINDS[kind]
        out[short] = (k.group, k.plural, k.namespaced)
    return out


TYPES = _types()


def _words(text: str) -> list[str]:
    """The words of the command line ``text`` starts with, up to a shell operator, a comment or
    the prose after it (an opening parenthesis)."""
    lexer = shlex.shlex(text, posix=True, punctuation_chars=";&|()")
    lexer.whitespace_split = True
    words: list[str] = []
    try:
        for token in lexer:
            if token and set(token) <= set(";&|()"):
                break
            words.append(token)
    except ValueError:  # an unclosed quote: what was read is the command
        pass
    return words


def _split(words: list[str]) -> tuple[list[str], str | None, set[str]]:
    """(the positional words, the namespace flag's value, the flags given without a value)."""
    positional: list[str] = []
    namespace = None
    flags: set[str] = set()
    i = 0
    while i < len(words):
        word = words[i]
        name, eq, value = word.partition("=")
        if name in _NAMESPACE:
            namespace = value if eq else (words[i + 1] if i + 1 < len(words) else None)
            i += 1 if eq else 2
            continue
        if word.startswith("-"):
            flags.add(name)
            i += 2 if name in _VALUED and not eq else 1
            continue
        positional.append(word)
        i += 1
    return positional, namespace, flags


def _on(verb: str, type_word: str, namespace: str | None, default_namespace: str) -> Permission | None:
    found = TYPES.get(type_word.lower())
    if found is None:
        return None
    group, plural, namespaced = found
    return Permission(verb, group, plural, (namespace or default_namespace) if namespaced else None)


def _plugin(positional: list[str], flags: set[str], config: KueueConfig | None) -> list[Permission]:
    """What ``kueue-dra map set|remove`` and ``kueue-dra classes set-extended-resource`` write."""
    if positional[1:3] == ["classes", "set-extended-resource"]:
        return [Permission("update", "resource.k8s.io", "deviceclasses")]
    if positional[1:2] != ["map"] or positional[2:3] not in (["set"], ["remove"]) or config is None:
        return []
    if config.kind == "Kueue":
        return [Permission("update", "kueue.openshift.io", "kueues")]
    if config.kind != "ConfigMap":
        return []
    out = [Permission("update", "", "configmaps", config.namespace)]
    if "--restart" in flags:
        out.append(Permission("patch", "apps", "deployments", config.namespace))
    return out


def command_permissions(words: list[str], config: KueueConfig | None, default_namespace: str) -> list[Permission]:
    """What one command line (its words, the command word first) changes."""
    positional, namespace, flags = _split(words[1:])
    if not positional:
        return []
    verb = positional[0]
    if verb == "kueue-dra":
        return _plugin(positional, flags, config)
    if verb == "rollout" and positional[1:2] == ["restart"] and len(positional) > 2:
        target = _on("patch", positional[2].partition("/")[0], namespace, default_namespace)
        return [target] if target else []
    if verb in _PATCHING or verb in ("delete", "create"):
        if len(positional) < 2:
            return []  # create -f FILE: what it creates is in the file
        target = _on("patch" if verb in _PATCHING else verb, positional[1].partition("/")[0], namespace,
                     default_namespace)
        return [target] if target else []
    return []


def _applied(text: str, default_namespace: str) -> Iterator[Permission]:
    for m in _APPLY.finditer(text):
        try:
            obj = json.loads(m.group("json"))
        except ValueError:
            continue
        kind = KINDS.get(str(obj.get("kind"))) if isinstance(obj, dict) else None
        if kind is None:
            continue
        ns = (obj.get("metadata") or {}).get("namespace") or default_namespace
        yield Permission("create", kind.group, kind.plural, ns if kind.namespaced else None)


def fix_permissions(fix: str, config: KueueConfig | None, default_namespace: str = "default") -> list[Permission]:
    """Every permission the command lines of ``fix`` need, in their order, each once."""
    found: list[Permission] = list(_applied(fix, default_namespace))
    rest = _APPLY.sub("", fix)
    for m in _COMMAND.finditer(rest):
        found.extend(command_permissions(_words(rest[m.start():]), config, default_namespace))
    return list(dict.fromkeys(found))


def denied_note(denied: list[Permission]) -> str:
    """What a fix says when the user may not make its changes, and who can."""
    what = ", or ".join(p.describe() for p in denied)
    plugin_role = any(p.qualified in ("configmaps", "kueues.kueue.openshift.io", "deviceclasses.resource.k8s.io")
                      and p.verb == "update" for p in denied)
    who = f"ask a cluster-admin ({MAPPING_EDITOR})" if plugin_role else "ask a cluster-admin"
    return f" (you may not {what}: {who})"


def _fixes(document: Any) -> Iterator[dict[str, Any]]:
    """Every finding and check of ``document`` (at any depth) that has a fix."""
    if isinstance(document, list):
        for item in document:
            yield from _fixes(item)
    elif isinstance(document, dict):
        if isinstance(document.get("fix"), str) and ("code" in document or "id" in document):
            yield document
        for value in document.values():
            if isinstance(value, (dict, list)):
                yield from _fixes(value)


def with_rights(document: T, view: Any, config: KueueConfig | None) -> T:
    """``document`` with each fix the user may not carry out saying so (a live cluster only; each
    distinct permission is asked once per run)."""
    if not getattr(view, "live", False):
        return document
    default_namespace = str(getattr(view, "default_namespace", "default") or "default")
    for item in _fixes(document):
        denied = [p for p in fix_permissions(item["fix"], config, default_namespace) if may(view, p) is False]
        if denied:
            item["fix"] += denied_note(denied)
    return document
