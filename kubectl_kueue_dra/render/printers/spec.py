"""The output format a command prints in, read from ``-o`` the way kubectl reads it: ``json``,
``yaml``, ``wide``, ``name``, ``jsonpath=T``, ``jsonpath-file=F``, ``jsonpath-as-json=T``,
``custom-columns=SPEC``, ``custom-columns-file=F`` (``-o jsonpath --template T`` too), and checked
before anything is read: a template (or a ``--sort-by`` path) that does not parse is a usage error
naming it."""

from __future__ import annotations

from dataclasses import dataclass, field

#: the kinds of output; ``table`` is the plugin's default (kubectl's has no name)
FAMILIES = ("table", "wide", "json", "yaml", "name", "jsonpath", "custom-columns")
#: -o values that take a template (after ``=``, or from --template), and their family
TEMPLATE_FORMATS = {"jsonpath": "jsonpath", "jsonpath-file": "jsonpath", "jsonpath-as-json": "jsonpath",
                    "custom-columns": "custom-columns", "custom-columns-file": "custom-columns"}
#: those whose template names a file to read
FILE_FORMATS = ("jsonpath-file", "custom-columns-file")
PLAIN_FORMATS = ("table", "wide", "json", "yaml", "name")


class OutputError(ValueError):
    """``-o`` cannot be used as given; the message says what kubectl would say."""


@dataclass(frozen=True)
class OutputSpec:
    """What ``-o`` asked for. ``template`` is the text after ``=`` (a file name for the -file
    formats until ``with_template`` puts the file's text in)."""

    format: str = "table"
    template: str = ""
    allow_missing_keys: bool = True
    sort_by: str | None = None
    no_headers: bool = False
    columns: tuple = field(default=(), compare=False)  # custom-columns, parsed

    @property
    def family(self) -> str:
        return TEMPLATE_FORMATS.get(self.format, self.format)

    @property
    def reads_file(self) -> bool:
        return self.format in FILE_FORMATS


def allowed(families: tuple[str, ...]) -> str:
    names = [f for f in PLAIN_FORMATS if f in families]
    names += [f for f, family in TEMPLATE_FORMATS.items() if family in families]
    return ",".join(sorted(names))


def parse_output(value: str, template_flag: str | None = None, families: tuple[str, ...] = FAMILIES) -> OutputSpec:
    """``-o VALUE`` (``-o=VALUE`` arrives as ``=VALUE`` from a short option: kubectl takes it as VALUE)."""
    value = value[1:] if value.startswith("=") else value
    if value in PLAIN_FORMATS:
        return OutputSpec(value)
    name, sep, template = value.partition("=")
    if name not in TEMPLATE_FORMATS:
        raise OutputError(f'unable to match a printer suitable for the output format "{value}", allowed formats '
                          f"are: {allowed(families)}")
    if not sep and template_flag:
        template = template_flag
    if not template:
        raise OutputError("template format specified but no template given")
    return OutputSpec(name, template)


def checked(spec: OutputSpec) -> OutputSpec:
    """The spec with its template parsed once: a template kubectl would refuse is refused here,
    before anything is read from the cluster."""
    from .columns import ColumnsError, compile_columns, from_file_text, from_spec, relaxed
    from .jsonpath_parse import JSONPathSyntaxError, parse

    if spec.sort_by:  # as kubectl's sorter reads it: relaxed, then parsed (its messages as they are)
        try:
            parse(relaxed(spec.sort_by))
        except (ColumnsError, JSONPathSyntaxError) as e:
            raise OutputError(str(e)) from None
    if spec.family == "jsonpath":
        try:
            parse(spec.template)
        except JSONPathSyntaxError as e:
            raise OutputError(f"error parsing jsonpath {spec.template}, {e}") from None
        return spec
    if spec.family == "custom-columns":
        try:
            columns = from_file_text(spec.template) if spec.reads_file else from_spec(spec.template)
            compile_columns(columns)
        except ColumnsError as e:
            raise OutputError(str(e)) from None
        return OutputSpec(spec.format, spec.template, spec.allow_missing_keys, spec.sort_by, spec.no_headers,
                          tuple(columns))
    return spec
