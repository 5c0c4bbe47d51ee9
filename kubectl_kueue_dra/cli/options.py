"""kubectl-style global flags, accepted before or after the command name.

kubectl passes every argument after the plugin name through unchanged, so users write both
``kubectl kueue-dra --context prod classes`` and ``kubectl kueue-dra classes --context prod``.
Each flag is therefore declared on the root group *and* on every command; a callback stores the
value in one ``GlobalOptions`` object on the root context (a value given after the command wins).
"""

import logging
import re
from dataclasses import dataclass, field
from typing import Any, Callable

import click

from ..errors import UsageError
from ..render.output import FORMATS, Style

DEFAULT_TIMEOUT = 30.0


@dataclass
class GlobalOptions:
    kubeconfig: str | None = None
    context: str | None = None
    namespace: str | None = None
    all_namespaces: bool = False
    as_user: str | None = None
    as_groups: list[str] = field(default_factory=list)
    request_timeout: float = DEFAULT_TIMEOUT
    output: str = "table"
    no_headers: bool = False
    color: str = "auto"
    verbose: int = 0
    from_path: str | None = None

    @property
    def style(self) -> Style:
        return Style(self.color)


def parse_timeout(value: str) -> float:
    """kubectl's --request-timeout: a bare number is seconds; units ms, s, m, h; 0 = our default."""
    text = value.strip()
    if re.fullmatch(r"\d+(\.\d+)?", text):
        seconds = float(text)
    else:
        parts = re.findall(r"(\d+(?:\.\d+)?)(ms|s|m|h)", text)
        if not parts or "".join(a + b for a, b in parts) != text:
            raise UsageError(f'invalid --request-timeout "{value}"', 'use e.g. "10s", "1m" or "500ms"')
        scale = {"ms": 0.001, "s": 1, "m": 60, "h": 3600}
        seconds = sum(float(a) * scale[b] for a, b in parts)
    return seconds if seconds > 0 else DEFAULT_TIMEOUT


def global_options(ctx: click.Context) -> GlobalOptions:
    root = ctx.find_root()
    return root.meta.setdefault("kueue_dra.options", GlobalOptions())


def _store(attr: str, convert: Callable[[Any], Any] | None = None) -> Callable:
    def callback(ctx: click.Context, param: click.Parameter, value: Any) -> None:
        if value is None or value == () or value is False:
            return
        opts = global_options(ctx)
        if attr == "as_groups":
            opts.as_groups.extend(value)
        elif attr == "verbose":
            opts.verbose += value
            logging.getLogger("kubectl_kueue_dra").setLevel(logging.DEBUG)
        else:
            setattr(opts, attr, convert(value) if convert else value)
    return callback


def _timeout(value: str) -> float:
    return parse_timeout(value)


_OPTIONS: list[Callable] = [
    click.option("--kubeconfig", metavar="PATH", expose_value=False, callback=_store("kubeconfig"),
                 help="Kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)."),
    click.option("--context", metavar="NAME", expose_value=False, callback=_store("context"),
                 help="Kubeconfig context to use."),
    click.option("-n", "--namespace", metavar="NS", expose_value=False, callback=_store("namespace"),
                 help="Namespace (default: the context's namespace)."),
    click.option("-A", "--all-namespaces", is_flag=True, default=None, expose_value=False,
                 callback=_store("all_namespaces"), help="Look in all namespaces, where it applies."),
    click.option("--as", "as_user", metavar="USER", expose_value=False, callback=_store("as_user"),
                 help="Impersonate this user."),
    click.option("--as-group", "as_groups", metavar="GROUP", multiple=True, expose_value=False,
                 callback=_store("as_groups"), help="Impersonate this group (repeatable)."),
    click.option("--request-timeout", metavar="DURATION", expose_value=False,
                 callback=_store("request_timeout", _timeout),
                 help=f"Time to wait for one request, e.g. 10s (default {DEFAULT_TIMEOUT:g}s)."),
    click.option("-o", "--output", type=click.Choice(FORMATS), expose_value=False,
                 callback=_store("output"), help="Output format (default table)."),
    click.option("--no-headers", is_flag=True, default=None, expose_value=False,
                 callback=_store("no_headers"), help="Omit table headers."),
    click.option("--color", type=click.Choice(("auto", "always", "never")), expose_value=False,
                 callback=_store("color"), help="Colour output (auto honours NO_COLOR and ttys)."),
    click.option("-v", "--verbose", count=True, default=None, expose_value=False,
                 callback=_store("verbose"), help="Debug output (requests, tracebacks)."),
]

FROM_OPTION = click.option(
    "--from", "from_path", metavar="PATH", expose_value=False, callback=_store("from_path"),
    help="Read objects from a snapshot (YAML/JSON file or directory, must-gather tree) "
         "instead of the cluster.")


def with_global_options(f: Callable) -> Callable:
    for option in reversed(_OPTIONS):
        f = option(f)
    return f


def with_snapshot_option(f: Callable) -> Callable:
    return FROM_OPTION(f)
