"""kubectl-style global flags, accepted before or after the command name: kubectl passes every
argument after the plugin name through unchanged, so users write both ``kubectl kueue-dra
--context prod classes`` and ``kubectl kueue-dra classes --context prod``. Each flag is declared
on the root group *and* on every command; a callback stores the value in one ``GlobalOptions``
object on the root context (a value given after the command wins)."""

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import IO, Any, cast

import click

from ..commands.connection import DEFAULT_TIMEOUT, parse_timeout
from ..environment import Environment
from ..errors import UsageError
from ..render.output import Style
from ..render.printers.spec import FAMILIES, OutputSpec
from .printing import OPTIONAL_BOOL, print_options, selection_options


@dataclass(kw_only=True)
class GlobalOptions:
    env: Environment  # the run's streams, variables, working directory and clock
    kubeconfig: str | None = None
    context: str | None = None
    namespace: str | None = None
    all_namespaces: bool = False
    as_user: str | None = None
    as_groups: list[str] = field(default_factory=list)
    request_timeout: float = DEFAULT_TIMEOUT
    insecure_skip_tls_verify: bool = False
    disable_compression: bool | None = None  # None: not given (the kubeconfig, then the server's address decide)
    output: str = "table"  # the printer's family (table, wide, json, yaml, name, jsonpath, custom-columns)
    output_value: str | None = None  # -o as given
    template: str | None = None
    allow_missing_template_keys: bool = True
    sort_by: str | None = None
    selector: str | None = None
    field_selector: str | None = None
    printer: OutputSpec = field(default_factory=OutputSpec)
    no_headers: bool = False
    color: str = "auto"
    verbose: int = 0
    from_path: str | None = None
    given: set[str] = field(default_factory=set)  # the flags given on the command line

    def check(self, command: str, accepts: "Accepts") -> "GlobalOptions":
        """A usage error (exit 2) for a global flag that does nothing for ``command``."""
        from .printing import printer

        if "output_value" in self.given:
            self.given.add("output")
        self.printer = printer(self, accepts.outputs)
        self.output = self.printer.family
        unused = [name for name in _FLAG_NAMES if name in self.given and not accepts.takes(name, self)]
        if unused:
            flag = _FLAG_NAMES[unused[0]]
            what = f"-o {self.printer.format}" if unused[0] == "output" else flag
            raise UsageError(f"{what} does nothing for {command}", accepts.hint(unused[0], command))
        if self.as_groups and not self.as_user:
            # the API server refuses Impersonate-Group without Impersonate-User (kubectl says so too)
            raise UsageError("--as-group needs --as: Kubernetes impersonates groups only together with a user",
                             "add --as USER")
        return self

    @property
    def style(self) -> Style:
        return Style(self.color, self.env.stdout, no_color=bool(self.env.vars.get("NO_COLOR")))

    @property
    def stdout(self) -> IO[str]:
        return self.env.stdout


CONNECTION = ("kubeconfig", "context", "as_user", "as_groups", "request_timeout", "insecure_skip_tls_verify",
              "disable_compression")
_FLAG_NAMES = {"kubeconfig": "--kubeconfig", "context": "--context", "namespace": "-n/--namespace",
               "all_namespaces": "-A/--all-namespaces", "as_user": "--as", "as_groups": "--as-group",
               "request_timeout": "--request-timeout", "insecure_skip_tls_verify": "--insecure-skip-tls-verify",
               "disable_compression": "--disable-compression", "output": "-o/--output", "no_headers": "--no-headers",
               "sort_by": "--sort-by", "selector": "-l/--selector", "field_selector": "--field-selector",
               "color": "--color", "from_path": "--from"}
_SAID_FALSE = ("allow_missing_template_keys", "disable_compression")  # =false is said, not the flag absent


@dataclass(frozen=True)
class Accepts:
    """The global flags a command acts on; every command takes -v."""

    outputs: tuple[str, ...] = tuple(f for f in FAMILIES if f != "name")
    namespace: bool = False
    all_namespaces: bool = False
    cluster: bool = True  # the connection flags (--kubeconfig, --context, --as, ...)
    tables: bool = True  # --no-headers
    color: bool = True
    snapshot: bool = True  # --from
    sort: bool = True  # --sort-by: the document has a list to sort
    selection: bool = False  # -l/--selector, --field-selector

    def takes(self, name: str, opts: "GlobalOptions") -> bool:
        if name == "output":
            return opts.output in self.outputs
        if name in CONNECTION:
            return self.cluster
        return bool({"namespace": self.namespace, "all_namespaces": self.all_namespaces,
                     "no_headers": self.tables, "color": self.color, "from_path": self.snapshot,
                     "sort_by": self.sort, "selector": self.selection,
                     "field_selector": self.selection}.get(name))

    def hint(self, name: str, command: str) -> str | None:
        if name == "output":
            return f"{command} prints {', '.join(self.outputs)}" if self.outputs else None
        return None


#: classes, map, verify: cluster-wide reads, every output format
READ_COMMAND = Accepts()
#: changes (map set/remove, classes set-extended-resource): a summary and a diff, no tables
CHANGE_COMMAND = Accepts(outputs=("table", "json", "yaml", "jsonpath"), tables=False, sort=False)


def global_options(ctx: click.Context) -> GlobalOptions:
    root = ctx.find_root()
    return cast(GlobalOptions, root.meta.setdefault("kueue_dra.options", GlobalOptions(env=root.obj)))


def command_options(ctx: click.Context, accepts: Accepts) -> GlobalOptions:
    """The global options, refusing those the command does not act on."""
    return global_options(ctx).check(ctx.command_path.split(" ", 2)[-1] if ctx.command_path else "", accepts)


def _store(attr: str, convert: Callable[[Any], Any] | None = None) -> Callable[..., Any]:
    def callback(ctx: click.Context, param: click.Parameter, value: Any) -> None:
        if value is None or value == () or (value is False and attr not in _SAID_FALSE):
            return
        opts = global_options(ctx)
        opts.given.add(attr)
        if attr == "as_groups":
            opts.as_groups.extend(value)
        elif attr == "verbose":
            opts.verbose += value
            logging.getLogger("kubectl_kueue_dra").setLevel(logging.DEBUG)
        else:
            setattr(opts, attr, convert(value) if convert else value)
    return callback


_OPTIONS: list[Callable[..., Any]] = [
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
                 callback=_store("request_timeout", parse_timeout),
                 help=f"Time to wait for one request, e.g. 10s (default {DEFAULT_TIMEOUT:g}s)."),
    click.option("--insecure-skip-tls-verify", "insecure_skip_tls_verify", is_flag=True, default=None,
                 expose_value=False, callback=_store("insecure_skip_tls_verify"),
                 help="Do not check the server's certificate (as kubectl; insecure)."),
    click.option("--disable-compression", "disable_compression", type=OPTIONAL_BOOL, is_flag=False, flag_value="true",
                 default=None, metavar="[=true|false]", expose_value=False, callback=_store("disable_compression"),
                 help="Do not ask for compressed responses (default: asked for, but not from a loopback address)."),
    click.option("--no-headers", is_flag=True, default=None, expose_value=False,
                 callback=_store("no_headers"), help="Omit table headers."),
    click.option("--color", type=click.Choice(("auto", "always", "never")), expose_value=False,
                 callback=_store("color"), help="Colour output (auto honours NO_COLOR and ttys)."),
    click.option("-v", "--verbose", count=True, default=None, expose_value=False,
                 callback=_store("verbose"), help="Debug output (requests, tracebacks)."),
]

_OPTIONS[9:9] = print_options(_store)

FROM_OPTION = click.option(
    "--from", "from_path", metavar="PATH", expose_value=False, callback=_store("from_path"),
    help="Read objects from a snapshot (YAML/JSON file or directory, must-gather tree) instead of the cluster.")


def with_global_options(f: Callable[..., Any]) -> Callable[..., Any]:
    for option in reversed(_OPTIONS):
        f = option(f)
    return f


def with_snapshot_option(f: Callable[..., Any]) -> Callable[..., Any]:
    return FROM_OPTION(f)


def with_selection_options(f: Callable[..., Any]) -> Callable[..., Any]:
    for option in reversed(selection_options(_store)):
        f = option(f)
    return f
