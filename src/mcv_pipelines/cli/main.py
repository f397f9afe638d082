"""Entry point of `mcv`: builds the parser from the command table and runs one command.

Each command module exposes ``register(subparsers)``, which adds its parser(s) and sets
``handler=<function(args) -> int>`` as a default. Expected errors (``McvError``) print as one line
and exit with their code; anything else is a bug, written with its traceback to a log file.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import tempfile
import traceback
from collections.abc import Callable, Sequence

from mcv_pipelines import __version__
from mcv_pipelines.errors import ExitCode, McvError
from mcv_pipelines.redact import redact

__all__ = ["COMMANDS", "build_parser", "main"]

# The command table: module path of each command group, in the order `mcv --help` lists them.
COMMANDS: tuple[str, ...] = (
    "mcv_pipelines.cli.validate",
    "mcv_pipelines.cli.run",
    "mcv_pipelines.cli.batch",
    "mcv_pipelines.cli.render",
    "mcv_pipelines.cli.graph",
    "mcv_pipelines.cli.catalog",
    "mcv_pipelines.cli.plan",
    "mcv_pipelines.cli.jobs",
    "mcv_pipelines.cli.tasks",
    "mcv_pipelines.cli.webhooks",
    "mcv_pipelines.cli.me",
    "mcv_pipelines.cli.operations",
    "mcv_pipelines.cli.serve",
)

Handler = Callable[[argparse.Namespace], int]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mcv",
        description="Media conversion recipes as code: validate, render and run YAML pipelines.",
    )
    parser.add_argument("--version", action="version", version=f"mcv {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module_name in COMMANDS:
        importlib.import_module(module_name).register(subparsers)
    return parser


def _report_bug(exc: BaseException) -> int:
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


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
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
