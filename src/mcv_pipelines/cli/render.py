"""`mcv render PIPELINE`: print the exact POST /v2/jobs body, secrets shown as ***."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from mcv_pipelines.cli.catalog_options import add_catalog_options, catalog_from_args
from mcv_pipelines.cli.options import add_param_options, add_schema_option, operation_schemas, param_values
from mcv_pipelines.errors import ExitCode
from mcv_pipelines.pipeline.check import check_pipeline
from mcv_pipelines.redact import redact
from mcv_pipelines.reporters import render_report

__all__ = ["register", "run"]


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "render",
        help="print the job body a pipeline sends",
        description="Render a pipeline with its params and print the POST /v2/jobs body as JSON "
        "(runner keys removed, secrets shown as ***). Problems go to stderr, exit 2.",
    )
    parser.add_argument("pipeline", metavar="PIPELINE")
    add_param_options(parser)
    add_schema_option(parser)
    add_catalog_options(parser)
    parser.add_argument(
        "--examples", action="store_true", help="use each param's example when no value is given"
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    values, source = param_values(args)
    catalog, warnings = catalog_from_args(args)
    result = check_pipeline(
        args.pipeline,
        values,
        source=source,
        schemas=operation_schemas(args),
        use_examples=args.examples,
        catalog=catalog,
    )
    found = [*warnings, *result.diagnostics]
    if found:
        sys.stderr.write(render_report("text", found, [args.pipeline]))
    if result.pipeline is None or not result.ok:
        return int(ExitCode.INVALID)
    sys.stdout.write(redact(json.dumps(result.pipeline.job_body(), indent=2, ensure_ascii=False)) + "\n")
    return int(ExitCode.OK)
