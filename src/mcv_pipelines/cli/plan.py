"""`mcv plan PIPELINE [--manifest F]`: the tasks, conversion types, credits and warnings of a run or batch."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from mcv_pipelines.catalog.plan import plan_to_json, plan_to_text
from mcv_pipelines.catalog.snapshot import load_catalog, load_default_catalog
from mcv_pipelines.cli.options import add_param_options, add_schema_option, operation_schemas, param_values
from mcv_pipelines.errors import ExitCode
from mcv_pipelines.pipeline.planner import plan_pipeline
from mcv_pipelines.redact import redact

__all__ = ["register", "run"]


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "plan",
        help="tasks, conversion types and estimated credits of a run or a batch",
        description="Check a pipeline and show, per task, the conversion type it runs (engine included: "
        "the task's own or the catalog's default), the estimated credits per run and, with --manifest, "
        "for every row, and every warning. Offline. Exit 0 when valid, 2 when not.",
    )
    parser.add_argument("pipeline", metavar="PIPELINE")
    add_param_options(parser)
    parser.add_argument("--manifest", metavar="FILE", help="plan a batch: one run per row (CSV, JSONL, YAML)")
    parser.add_argument(
        "--catalog", metavar="PATH", help="catalog snapshot to plan with (default: the bundled local.json)"
    )
    add_schema_option(parser)
    parser.add_argument("--format", choices=("text", "json"), default="text", help="output format")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    values, source = param_values(args)
    catalog = load_catalog(Path(args.catalog)) if args.catalog else load_default_catalog()
    plan = plan_pipeline(
        args.pipeline, values, catalog, source=source, manifest=args.manifest, schemas=operation_schemas(args)
    )
    if args.format == "json":
        sys.stdout.write(redact(json.dumps(plan_to_json(plan), indent=2, ensure_ascii=False)) + "\n")
    else:
        sys.stdout.write(redact(plan_to_text(plan)))
    return int(ExitCode.INVALID) if plan.errors else int(ExitCode.OK)
