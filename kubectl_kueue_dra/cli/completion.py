"""Shell completion, two ways in:

* ``kubectl kueue-dra <TAB>``: kubectl (1.26+) runs ``kubectl_complete-kueue_dra`` from PATH with
  the words after the plugin name and reads cobra's format back (``value<TAB>help`` lines, then
  ``:<directive>``). That executable runs ``kubectl-kueue_dra __complete WORDS…`` (the archive's shell
  script), or is the ``kubectl_complete-kueue_dra`` console script of a pip install.
* ``kubectl-kueue_dra <TAB>``: click's own bash/zsh/fish scripts (``completion bash|zsh|fish``).

Both answer from the same click command tree. Resource names (namespaces, DeviceClasses, the
``TYPE/NAME`` of ``explain``) come from the cluster with a short timeout, or from ``--from``;
contexts come from the kubeconfig (``completers``). A completion never prints an error: no answer
is the answer.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import click

from ..environment import Environment
from . import recall
from .common import Command
from .options import with_global_options

COMMAND_NAME = "kubectl-kueue_dra"
COMPLETE_VAR = "_KUBECTL_KUEUE_DRA_COMPLETE"
COBRA_REQUESTS = ("__complete", "__completeNoDesc")

# cobra's ShellCompDirective bits
DIRECTIVE_DEFAULT, DIRECTIVE_ERROR, DIRECTIVE_NO_SPACE, DIRECTIVE_NO_FILE_COMP = 0, 1, 2, 4
DIRECTIVE_FILTER_DIRS = 16

#: what ``completion kubectl`` prints; the same script ships in the archive
KUBECTL_COMPLETE_SCRIPT = """\
#!/bin/sh
# Shell completion for `kubectl kueue-dra <TAB>` (kubectl >= 1.26): kubectl runs
# kubectl_complete-kueue_dra from PATH with the words typed after the plugin name and reads
# cobra-style candidates back. Put this file on PATH next to kubectl-kueue_dra, e.g.
#   ln -s "$PWD/kubectl_complete-kueue_dra" ~/.krew/bin/
exec kubectl-kueue_dra __complete "$@"
"""


# ---- entry points ---------------------------------------------------------------------------
def completion_request(argv: list[str], env: Environment) -> int | None:
    """Answer a completion request and return the exit code, or None when this is none."""
    if argv and argv[0] in COBRA_REQUESTS:
        answer = cobra_complete(argv[1:], env, descriptions=argv[0] == "__complete")
        recall.printed(answer)  # kept by the frozen binary unless a completer asked the cluster
        env.stdout.write(answer)
        env.stdout.flush()
        return 0
    instruction = env.vars.get(COMPLETE_VAR)
    if instruction:
        from .completers import prepare

        prepare(env.vars.get("COMP_WORDS", "").split())
        return _shell_complete(instruction, env)
    return None


def _shell_complete(instruction: str, env: Environment) -> int:
    """click's ``shell_complete`` (``<shell>_source`` / ``<shell>_complete``), reading the words
    from the run's variables and writing to its stdout."""
    shell, _, action = instruction.partition("_")
    comp = _completer(shell, env)
    if comp is None or action not in ("source", "complete"):
        return 1
    # bytes, or a Windows text stdout turns LF into CRLF (as click writes it)
    click.echo((comp.source() if action == "source" else comp.complete()).encode(),
               nl=action == "complete", file=env.stdout)
    return 0


def _words(shell: str, env_vars: Mapping[str, str]) -> tuple[list[str], str]:
    """What click's completion classes read from ``COMP_WORDS``/``COMP_CWORD``: the words before the
    one being completed, and that one (fish passes it as COMP_CWORD, the others its index)."""
    from click.shell_completion import split_arg_string

    words = split_arg_string(env_vars.get("COMP_WORDS", ""))
    if shell == "fish":
        incomplete = env_vars.get("COMP_CWORD", "")
        incomplete = split_arg_string(incomplete)[0] if incomplete else ""
        args = words[1:]
        if incomplete and args and args[-1] == incomplete:
            args.pop()
        return args, incomplete
    index = int(env_vars.get("COMP_CWORD", "0") or 0)
    return words[1:index], words[index] if index < len(words) else ""


def _completer(shell: str, env: Environment) -> Any:
    """click's completion class for ``shell``, made for this run: the words come from the run's
    variables, the context's ``obj`` is the run's environment."""
    from click.shell_completion import get_completion_class

    from .root import cli

    base = get_completion_class(shell)
    if base is None:
        return None

    class RunCompletion(base):  # type: ignore[misc, valid-type]
        def get_completion_args(self) -> tuple[list[str], str]:
            return _words(shell, env.vars)

    return RunCompletion(cli, {"obj": env}, COMMAND_NAME, COMPLETE_VAR)


def cobra_complete(args: list[str], env: Environment, descriptions: bool = True) -> str:
    """cobra's ``__complete`` answer for ``args`` (the last one is the word being completed)."""
    from click.shell_completion import ShellComplete

    from .completers import prepare
    from .root import cli

    words, incomplete = (list(args[:-1]), args[-1]) if args else ([], "")
    try:
        prepare(words)
        items = ShellComplete(cli, {"obj": env}, COMMAND_NAME, COMPLETE_VAR).get_completions(words, incomplete)
    except Exception:  # noqa: BLE001 - a broken command line completes to nothing
        return f":{DIRECTIVE_ERROR}\n"
    directive = DIRECTIVE_NO_FILE_COMP
    lines = []
    for item in items:
        if item.type == "file":
            directive = DIRECTIVE_DEFAULT
        elif item.type == "dir":
            directive = DIRECTIVE_FILTER_DIRS
        else:
            help_text = (item.help or "").replace("\t", " ").replace("\n", " ")
            lines.append(f"{item.value}\t{help_text}" if descriptions and help_text else str(item.value))
            if item.nospace:
                directive |= DIRECTIVE_NO_SPACE
    return "".join(f"{line}\n" for line in lines) + f":{directive}\n"


# ---- the command ----------------------------------------------------------------------------
def _source(shell: str, env: Environment) -> str:
    if shell == "kubectl":
        return KUBECTL_COMPLETE_SCRIPT
    comp = _completer(shell, env)
    assert comp is not None
    return str(comp.source())


@click.command(cls=Command, short_help="Print a completion script for bash, zsh, fish or kubectl.", epilog="""\b
Examples:
  # kubectl kueue-dra <TAB> (with kubectl's own completion set up): put this on PATH
  kubectl kueue-dra completion kubectl > ~/.krew/bin/kubectl_complete-kueue_dra
  chmod +x ~/.krew/bin/kubectl_complete-kueue_dra
  # kubectl-kueue_dra <TAB>, in the current bash session / for every new one
  source <(kubectl kueue-dra completion bash)
  kubectl kueue-dra completion bash > ~/.local/share/bash-completion/completions/kubectl-kueue_dra
  # zsh, fish
  kubectl kueue-dra completion zsh > "${fpath[1]}/_kubectl-kueue_dra"
  kubectl kueue-dra completion fish > ~/.config/fish/completions/kubectl-kueue_dra.fish
""")
@click.argument("shell", type=click.Choice(("bash", "zsh", "fish", "kubectl")))
@with_global_options
@click.pass_context
def completion(ctx: click.Context, shell: str) -> int:
    """Print a shell completion script: bash, zsh, fish, or kubectl's.

    `kubectl kueue-dra <TAB>` is completed by kubectl itself (1.26+), which runs the completion
    executable `kubectl_complete-kueue_dra` from PATH: a pip install puts it there; the krew
    archive ships it next to the binary; `completion kubectl` prints it. `completion
    bash|zsh|fish` print scripts that complete the `kubectl-kueue_dra` command directly. Names of
    namespaces, DeviceClasses and workloads are completed from the cluster.
    """
    from .options import Accepts, command_options

    # it prints a script: no cluster, no snapshot, no output format, no namespace
    command_options(ctx, Accepts(outputs=(), cluster=False, tables=False, color=False, snapshot=False))
    env = ctx.find_root().obj
    click.echo(_source(shell, env), nl=False, file=env.stdout)
    return 0
