"""`mcv lsp`: the language server for editors, over stdin/stdout."""

from __future__ import annotations

import argparse
import logging
from typing import Any

from mcv_pipelines.errors import ExitCode

__all__ = ["register", "run"]


def _seconds_from_ms(text: str) -> float:
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of milliseconds")
    return int(text) / 1000


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "lsp",
        help="the language server for editors (LSP over stdio)",
        description="Serve the Language Server Protocol over stdin/stdout: the diagnostics of "
        "`mcv validate` as you type, completion, hover, go to definition and quick fixes. Editor "
        "settings (initializationOptions or workspace/didChangeConfiguration): catalog, operationSchemas.",
    )
    parser.add_argument(
        "--stdio", action="store_true", help="accepted for editors that pass it; stdio is the only transport"
    )
    parser.add_argument(
        "--debounce-ms",
        type=_seconds_from_ms,
        default=0.05,
        metavar="MS",
        help="changes that come within MS of the buffer's last check wait for MS of quiet and are "
        "checked together; a lone change is checked at once (default 50)",
    )
    parser.add_argument("--log-file", metavar="PATH", help="write the server's log here (default: no log)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    root = logging.getLogger()
    # stdout carries the protocol and stderr belongs to the editor: log to a file or not at all.
    root.handlers[:] = [logging.FileHandler(args.log_file, encoding="utf-8")] if args.log_file else [
        logging.NullHandler()
    ]
    root.setLevel(logging.INFO if args.log_file else logging.CRITICAL)
    # pygls logs every message it sends at INFO: that would cost more than the checks it carries.
    logging.getLogger("pygls").setLevel(logging.WARNING)
    from mcv_pipelines.lsp.server import create_server  # pygls is imported by this command only

    create_server(args.debounce_ms).start_io()
    return int(ExitCode.OK)
