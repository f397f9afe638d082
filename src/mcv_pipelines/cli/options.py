"""Command-line options shared by the pipeline commands (params in, values out)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from mcv_pipelines.pipeline.opcheck import OperationSchemas
from mcv_pipelines.pipeline.params import parse_assignments, read_params_file

__all__ = ["add_param_options", "add_schema_option", "operation_schemas", "param_values", "port_number"]


def add_param_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "-p",
        "--param",
        dest="params",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a param value (repeatable); coerced to the param's declared type",
    )
    parser.add_argument("--params-file", metavar="FILE", help="param values from a YAML or JSON mapping")


def param_values(args: argparse.Namespace) -> tuple[dict[str, Any], str]:
    """The values given (file first, then -p on top) and a label of where they came from."""
    values: dict[str, Any] = {}
    source = "command line"
    if args.params_file:
        values.update(read_params_file(args.params_file))
        source = f"{args.params_file} or the command line" if args.params else args.params_file
    values.update(parse_assignments(args.params))
    return values, source


def add_schema_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--operation-schemas",
        metavar="DIR",
        help="operation schemas to check against (default: the shipped ones)",
    )


def operation_schemas(args: argparse.Namespace) -> OperationSchemas | None:
    directory = args.operation_schemas
    return OperationSchemas(Path(directory)) if directory else None


def port_number(text: str) -> int:
    """An argparse type: a TCP port, 0 (any free one) to 65535."""
    if not text.isdigit() or int(text) > 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number (0 to 65535)")
    return int(text)
