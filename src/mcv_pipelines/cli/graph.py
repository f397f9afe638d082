"""`mcv graph PIPELINE --format mermaid|dot`: draw the task graph (params' examples fill gaps)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from mcv_pipelines.cli.options import add_param_options, add_schema_option, operation_schemas, param_values
from mcv_pipelines.errors import ExitCode
from mcv_pipelines.pipeline.check import check_pipeline
from mcv_pipelines.pipeline.diagram import DIAGRAMS
from mcv_pipelines.redact import redact
from mcv_pipelines.reporters import render_report

__all__ = ["register", "run"]


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "graph",
        help="draw a pipeline's task graph (mermaid or dot)",
        description="Render a pipeline and print its task graph as Mermaid or Graphviz dot text.",
    )
    parser.add_argument("pipeline", metavar="PIPELINE")
    parser.add_argument("--format", choices=sorted(DIAGRAMS), default="mermaid")
    add_param_options(parser)
    add_schema_option(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    values, source = param_values(args)
    result = check_pipeline(
        args.pipeline, values, source=source, schemas=operation_schemas(args), use_examples=True
    )
    if result.pipeline is None:
        sys.stderr.write(render_report("text", result.diagnostics, [args.pipeline]))
        return int(ExitCode.INVALID)
    sys.stdout.write(redact(DIAGRAMS[args.format](result.pipeline)))
    return int(ExitCode.OK)
