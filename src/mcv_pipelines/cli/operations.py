"""`mcv operations`: the conversion types the configured service offers, with their options."""

from __future__ import annotations

import argparse
from typing import Any

from mcv_pipelines.api.client import ApiClient
from mcv_pipelines.cli.api_text import operation_line
from mcv_pipelines.cli.connection import add_connection_options, emit, emit_json, run_with_client

__all__ = ["register"]


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("operations", help="list operations, formats, engines and options")
    parser.add_argument("--operation", help="only this operation (convert, thumbnail, ...)")
    parser.add_argument("--input-format", help="only conversions from this format")
    parser.add_argument("--output-format", help="only conversions to this format")
    parser.add_argument("--engine", help="only this engine")
    parser.add_argument("--engine-version", help="only this engine version")
    parser.add_argument("--alternatives", action="store_true", help="include alternative engines")
    add_connection_options(parser)
    parser.set_defaults(handler=_operations)


def _operations(args: argparse.Namespace) -> int:
    async def action(client: ApiClient) -> int:
        ops = await client.list_operations(
            operation=args.operation,
            input_format=args.input_format,
            output_format=args.output_format,
            engine=args.engine,
            engine_version=args.engine_version,
            alternatives=args.alternatives,
        )
        if args.format == "json":
            emit_json([dict(op.raw) for op in ops])
        else:
            for op in ops:
                emit(operation_line(op))
            emit(f"{len(ops)} conversion type(s)")
        return 0

    return run_with_client(args, action)
