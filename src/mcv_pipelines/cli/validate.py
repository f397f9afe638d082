"""`mcv validate PATH...`: check pipelines offline; exit 0 when valid, 2 when not."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from mcv_pipelines.cli.catalog_options import add_catalog_options, catalog_from_args
from mcv_pipelines.cli.options import add_param_options, add_schema_option, operation_schemas, param_values
from mcv_pipelines.diagnostics import Diagnostic, has_errors
from mcv_pipelines.errors import ExitCode
from mcv_pipelines.pipeline.check import check_pipeline
from mcv_pipelines.pipeline.discover import find_pipelines
from mcv_pipelines.reporters import REPORTER_NAMES, render_report

__all__ = ["register", "run"]


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "validate",
        help="check pipelines offline (files or directories)",
        description="Check pipelines offline: YAML, file schema, params (examples stand in for missing "
        "values), templates, task graph, operation options, and formats, engines and options against the "
        "operations catalog (formats inferred along the graph). Exit 0 when valid, 2 when not.",
    )
    parser.add_argument("paths", nargs="+", metavar="PATH", help="pipeline files or directories holding some")
    parser.add_argument(
        "--format", choices=REPORTER_NAMES, default="text", help="report format (default text)"
    )
    add_schema_option(parser)
    add_catalog_options(parser)
    parser.add_argument(
        "--skip-non-pipelines",
        action="store_true",
        help="leave out files given that do not look like pipelines (for hooks that pass every YAML file)",
    )
    add_param_options(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    values, source = param_values(args)
    catalog, warnings = catalog_from_args(args)
    files, diagnostics = find_pipelines(args.paths, skip_non_pipelines=args.skip_non_pipelines)
    found: list[Diagnostic] = [*warnings, *diagnostics]
    schemas = operation_schemas(args)
    for file in files:
        result = check_pipeline(
            file, values, source=source, use_examples=True, schemas=schemas, catalog=catalog, cases=True
        )
        found.extend(result.diagnostics)
    sys.stdout.write(render_report(args.format, found, files))
    return int(ExitCode.INVALID) if has_errors(found) else int(ExitCode.OK)
