"""kubectl's output and selection flags: ``-o`` in every spelling kubectl accepts (``-ojson``,
``-o=json``, ``--output=json``, ``--output json``), ``--template``,
``--allow-missing-template-keys``, ``--sort-by``, ``-l/--selector`` and ``--field-selector``; and
the one place ``-o`` becomes the printer a command prints with (``render.printers``)."""

from __future__ import annotations

from typing import Any

import click

from ..errors import UsageError
from ..render.printers.spec import OutputError, OutputSpec, checked, parse_output


class _OptionalBool(click.ParamType):
    """pflag's boolean: ``--flag`` is true, ``--flag=false`` false."""

    name = "boolean"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> bool:
        if isinstance(value, bool):
            return value
        text = str(value).lower()
        if text in ("true", "t", "1"):
            return True
        if text in ("false", "f", "0"):
            return False
        flag = max(param.opts, key=len) if param is not None else "the flag"
        self.fail(f'invalid argument "{value}" for "{flag}": want true or false', param, ctx)


OPTIONAL_BOOL = _OptionalBool()


def printer(opts: Any, families: tuple[str, ...]) -> OutputSpec:
    """The printer the flags ask for, its template read and parsed; a usage error otherwise."""
    from ..commands.printing import template_file

    try:
        spec = parse_output(opts.output_value or "table", opts.template, families)
    except OutputError as e:
        raise UsageError(str(e)) from None
    if opts.template and spec.family not in ("jsonpath", "custom-columns"):
        raise UsageError(f"--template does nothing with -o {spec.format}", "use -o jsonpath --template='{…}'")
    if "allow_missing_template_keys" in opts.given and spec.family != "jsonpath":
        raise UsageError("--allow-missing-template-keys applies only to -o jsonpath")
    template = template_file(spec.template, spec.format) if spec.reads_file else spec.template
    try:
        return checked(OutputSpec(spec.format, template, opts.allow_missing_template_keys, opts.sort_by,
                                  opts.no_headers))
    except OutputError as e:
        raise UsageError(str(e)) from None


def print_options(store: Any) -> list[Any]:
    """The flags, each stored on the run's global options by ``store(attribute)``."""
    return [
        click.option("-o", "--output", "output_value", metavar="FORMAT", expose_value=False,
                     callback=store("output_value"),
                     help="Output format: json, yaml, wide, name, jsonpath=…, jsonpath-file=…, custom-columns=…, "
                          "custom-columns-file=… (default: a table)."),
        click.option("--template", metavar="TEMPLATE", expose_value=False, callback=store("template"),
                     help="The template of -o jsonpath (or custom-columns) when not given after '='."),
        click.option("--allow-missing-template-keys", "allow_missing_template_keys", type=OPTIONAL_BOOL,
                     is_flag=False, flag_value="true", default=None, metavar="[=true|false]", expose_value=False,
                     callback=store("allow_missing_template_keys"),
                     help="-o jsonpath: print nothing for a missing field (true, the default) or fail (false)."),
        click.option("--sort-by", metavar="JSONPATH", expose_value=False, callback=store("sort_by"),
                     help="Sort the listed items by this JSONPath (e.g. .name), as kubectl does."),
    ]


def selection_options(store: Any) -> list[Any]:
    """-l and --field-selector, on the commands that list objects with labels (not global: ``map
    set --selector`` is a CEL expression)."""
    return [
        click.option("-l", "--selector", metavar="SELECTOR", expose_value=False, callback=store("selector"),
                     help="Label selector (e.g. -l team=a,tier!=dev), as the API server reads it."),
        click.option("--field-selector", metavar="SELECTOR", expose_value=False, callback=store("field_selector"),
                     help="Field selector (e.g. metadata.name=x), over the fields the API server selects by."),
    ]
