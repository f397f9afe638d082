"""Entry point of `mcv`: lists commands from a static table and imports only the one that runs.

Each command module exposes ``register(subparsers)``, which adds its parser(s) and sets
``handler=<function(args) -> int>`` as a default. ``mcv --help`` and ``mcv --version`` import no
command module; ``mcv validate ...`` imports only ``mcv_pipelines.cli.validate`` (issue 15: building
every command's parser imported httpx, starlette, rich and the service even for ``validate``).
Expected errors (``McvError``) print as one line and exit with their code; anything else is a bug,
written with its traceback to a log file.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import os
import sys
from collections.abc import Callable, Sequence
from typing import NamedTuple

from mcv_pipelines import __version__
from mcv_pipelines.errors import ExitCode, McvError
from mcv_pipelines.redact import redact

__all__ = [
    "COMMANDS",
    "HIDDEN_COMMANDS",
    "Command",
    "build_full_parser",
    "build_parser",
    "chosen_command",
    "main",
    "program",
]

# `import httpx` also imports httpx's own command line (click, rich, pygments: ~40 ms of CPU) whenever
# click is installed, and mcv never runs it. None in sys.modules makes that one import fail, and httpx
# then defines a stub in its place (issue 15: start-up is a fifth of `mcv batch`'s CPU at 400 rows).
sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]  # None blocks an import, by design


class Command(NamedTuple):
    """One row of the command table: what `mcv --help` lists, and where the command lives."""

    name: str
    module: str
    help: str


# The command table, in the order `mcv --help` lists them. A new command is one row here; its module's
# `register(subparsers)` adds a parser named `name` (tests/unit/cli/test_command_table.py checks that the
# name and help here match what the module registers).
COMMANDS: tuple[Command, ...] = (
    Command("validate", "mcv_pipelines.cli.validate", "check pipelines offline (files or directories)"),
    Command("run", "mcv_pipelines.cli.run", "run a pipeline: submit, upload, follow, download"),
    Command(
        "batch",
        "mcv_pipelines.cli.batch",
        "run a pipeline over every row of a manifest: resumable, sharded, reported",
    ),
    Command("test", "mcv_pipelines.cli.test", "run the test cases of pipelines and check what they make"),
    Command("render", "mcv_pipelines.cli.render", "print the job body a pipeline sends"),
    Command("graph", "mcv_pipelines.cli.graph", "draw a pipeline's task graph (mermaid or dot)"),
    Command("catalog", "mcv_pipelines.cli.catalog", "show the operations catalog or what changed in it"),
    Command(
        "plan",
        "mcv_pipelines.cli.plan",
        "tasks, conversion types and estimated credits of a run or a batch",
    ),
    Command("jobs", "mcv_pipelines.cli.jobs", "show, list, wait for and delete jobs"),
    Command("tasks", "mcv_pipelines.cli.tasks", "show, list, cancel, retry and delete tasks"),
    Command("webhooks", "mcv_pipelines.cli.webhooks", "create, list and delete webhooks"),
    Command("me", "mcv_pipelines.cli.me", "show the account of the configured API key"),
    Command("operations", "mcv_pipelines.cli.operations", "list operations, formats, engines and options"),
    Command(
        "schema", "mcv_pipelines.cli.schema", "print the pipeline schema editors use (options, formats, docs)"
    ),
    Command("serve", "mcv_pipelines.cli.serve", "run the embedded local conversion service"),
    Command("lsp", "mcv_pipelines.cli.lsp", "the language server for editors (LSP over stdio)"),
    Command(
        "init",
        "mcv_pipelines.cli.setup.init",
        "start a project: a pipeline, its pre-commit hook and CI",
    ),
    Command(
        "doctor",
        "mcv_pipelines.cli.setup.doctor",
        "check engines, the configured service and the data dir",
    ),
    Command(
        "completion",
        "mcv_pipelines.cli.setup.completion",
        "print a completion script for bash, zsh or fish",
    ),
)

# Commands for the shell completion scripts, not for people: registered only when named, so neither
# `mcv --help` nor a completion script lists them.
HIDDEN_COMMANDS: tuple[Command, ...] = (
    Command("__complete-params", "mcv_pipelines.cli.setup.complete_params", "declared params of a pipeline"),
)

Handler = Callable[[argparse.Namespace], int]


def chosen_command(argv: Sequence[str]) -> str | None:
    """The command named on the command line: the first argument that is not an option.

    `mcv` itself takes no option with a value (only -h and --version), so the first positional is
    the command, wherever it stands.
    """
    for arg in argv:
        if arg == "--":
            return None
        if not arg.startswith("-"):
            return arg
    return None


def build_parser(command: str | None = None, *, every: bool = False) -> argparse.ArgumentParser:
    """The parser with every command listed; only ``command``'s module is imported and registered.

    The others get a placeholder parser carrying the table's help, so `mcv --help` lists them all and a
    misspelt command still gets argparse's "invalid choice" message with the full list. With ``every``,
    every command's module is imported and registered (what a completion script is made from).
    """
    parser = argparse.ArgumentParser(
        prog="mcv",
        description="Media conversion recipes as code: validate, render and run YAML pipelines.",
    )
    parser.add_argument("--version", action="version", version=f"mcv {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for row in COMMANDS:
        if every or row.name == command:
            importlib.import_module(row.module).register(subparsers)
        else:
            subparsers.add_parser(row.name, help=row.help)
    for row in HIDDEN_COMMANDS:
        if row.name == command:
            importlib.import_module(row.module).register(subparsers)
    return parser


def build_full_parser() -> argparse.ArgumentParser:
    """The parser with every command's module imported and registered (for the completion scripts)."""
    return build_parser(None, every=True)


def _report_bug(exc: BaseException) -> int:
    # Imported here: only a bug needs them, and tempfile costs a start-up its random and shutil imports.
    import tempfile
    import traceback

    with tempfile.NamedTemporaryFile(
        "w", prefix="mcv-crash-", suffix=".log", delete=False, encoding="utf-8"
    ) as log:
        log.write(redact("".join(traceback.format_exception(exc))))
    print(
        f"mcv: internal error: {redact(f'{type(exc).__name__}: {exc}')}\n"
        f"mcv: this is a bug; the traceback is in {log.name}",
        file=sys.stderr,
    )
    return int(ExitCode.SERVICE)


def program() -> int:
    """The `mcv` program (its console script and ``python -m mcv_pipelines``): ``main`` with the cyclic
    garbage collector off while the command's modules import, and what they built frozen after.

    Importing makes some 200,000 objects and almost no garbage, yet the collector walks them over and
    over as they pile up, and once more at exit: about a quarter of a `mcv batch` start-up (issue 15;
    363 -> 265 ms to import it and exit). Frozen objects are never walked again, which also spares
    every later full collection of a long run. Only the program does this: ``main`` called in a process
    of its own (tests, embedders) leaves that process's collector alone.
    """
    gc.disable()
    try:
        return main(_imported=_freeze_imports)
    finally:
        gc.enable()


def _freeze_imports() -> None:
    gc.freeze()
    gc.enable()


def main(argv: Sequence[str] | None = None, *, _imported: Callable[[], None] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(chosen_command(arguments))
    if _imported is not None:
        _imported()
    args = parser.parse_args(arguments)
    handler: Handler | None = getattr(args, "handler", None)
    if handler is None:
        parser.print_help(sys.stderr)
        return int(ExitCode.INVALID)
    try:
        return handler(args)
    except McvError as exc:
        print(f"mcv: error: {redact(str(exc))}", file=sys.stderr)
        return int(exc.exit_code)
    except BrokenPipeError:
        # The reader went away (`mcv ... | head`): not an error of ours. Point stdout at devnull so
        # the interpreter's final flush does not complain again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return int(ExitCode.OK)
    except KeyboardInterrupt:
        print("mcv: interrupted", file=sys.stderr)
        return int(ExitCode.INTERRUPTED)
    except Exception as exc:  # the last line of defence: a traceback is a bug, not an answer
        return _report_bug(exc)
