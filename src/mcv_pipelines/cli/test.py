"""`mcv test [PATHS]`: run the test cases of recipes (`tests:`) for real and check what they make."""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from mcv_pipelines.cli import connection
from mcv_pipelines.cli.catalog_options import add_catalog_options, catalog_from_args
from mcv_pipelines.cli.options import add_schema_option, operation_schemas
from mcv_pipelines.diagnostics import Diagnostic, has_errors
from mcv_pipelines.errors import ExitCode, UsageError
from mcv_pipelines.pipeline.cases import read_cases
from mcv_pipelines.pipeline.check import check_pipeline
from mcv_pipelines.pipeline.discover import find_pipelines
from mcv_pipelines.reporters import render_report

__all__ = ["register", "run"]


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "test",
        help="run the test cases of pipelines and check what they make",
        description="Run every case of the `tests:` lists of the pipelines found under PATHS (default: the "
        "current folder) on the embedded local service, or the configured one, and check each "
        "expectation: file counts, formats sniffed from the bytes, sizes, dimensions, pages, text, "
        "durations, streams, archive members, golden files, expected failures. A case skips (reason "
        "said) when the service lacks an engine it needs or an environment variable it names is unset. "
        "Exit 0 all passed, 1 an expectation failed, 2 a file or case is invalid, 3 service trouble.",
    )
    parser.add_argument("paths", nargs="*", metavar="PATH", help="pipeline files or folders (default: .)")
    parser.add_argument("-k", dest="select", metavar="TEXT", help="only the cases whose name contains TEXT")
    parser.add_argument(
        "-j", "--jobs", type=int, default=4, metavar="N", help="cases run at once (default 4)"
    )
    parser.add_argument(
        "--update-golden",
        action="store_true",
        help="write (or refresh) the golden files of `golden:` expectations from this run's outputs",
    )
    parser.add_argument(
        "--root",
        type=Path,
        metavar="DIR",
        help="the folder fixtures must live in (default: the repository holding each pipeline)",
    )
    parser.add_argument(
        "--report", type=Path, metavar="FILE", help="write every case's result: .jsonl, or .xml (JUnit)"
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=300.0,
        metavar="SECONDS",
        help="longest wait for one case's job (default 300)",
    )
    parser.add_argument(
        "--fail-on-skip",
        action="store_true",
        help="a case that would be skipped (an engine or environment variable missing) fails instead",
    )
    parser.add_argument(
        "--keep-outputs",
        type=Path,
        metavar="DIR",
        help="keep each case's downloaded files under DIR (default: removed after the run)",
    )
    connection.add_service_option(parser)
    add_schema_option(parser)
    add_catalog_options(parser)
    connection.add_connection_options(parser, formats=("text", "github"))
    parser.set_defaults(handler=run)


def _load(args: argparse.Namespace) -> tuple[list[Any], list[Diagnostic], list[str], int]:
    """The recipes with cases to run, every diagnostic of the offline checks, the files read, and how
    many cases they hold before ``-k`` picks."""
    from mcv_pipelines.testing.runner import Recipe

    catalog, warnings = catalog_from_args(args)
    files, found = find_pipelines(args.paths or ["."])
    found = [*warnings, *found]
    schemas = operation_schemas(args)
    recipes: list[Recipe] = []
    written = 0
    for file in files:
        result = check_pipeline(file, {}, use_examples=True, schemas=schemas, catalog=catalog, cases=True)
        found.extend(result.diagnostics)
        if has_errors(result.diagnostics) or result.pipeline is None or result.pipeline.document is None:
            continue
        document = result.pipeline.document
        cases, _ = read_cases(document)
        written += len(cases)
        if args.select:
            cases = [case for case in cases if args.select in case.name]
        if cases:
            recipes.append(Recipe(document, tuple(cases)))
    return recipes, found, files, written


def _run_cases(args: argparse.Namespace, recipes: list[Any]) -> list[Any]:
    """Start (or reach) the service, read its listing once, run every case, print each as it ends."""
    from mcv_pipelines.catalog.listing import parse_pages
    from mcv_pipelines.cli.run import service_for
    from mcv_pipelines.run.live_listing import fetch_listing
    from mcv_pipelines.testing.outcome import CaseResult
    from mcv_pipelines.testing.report import case_lines
    from mcv_pipelines.testing.runner import TestOptions, run_cases

    options = TestOptions(
        root=args.root,
        jobs=args.jobs,
        timeout=args.timeout,
        update_golden=args.update_golden,
        fail_on_skip=args.fail_on_skip,
        keep_outputs=args.keep_outputs.resolve() if args.keep_outputs else None,
        schemas=operation_schemas(args),
    )

    def said(result: CaseResult) -> None:
        sys.stdout.write(case_lines(result, args.format))
        sys.stdout.flush()

    with service_for(args) as (settings, embedded):
        if not embedded:
            options = replace(options, fast_polls=False)

        async def go() -> list[CaseResult]:
            async with connection.CLIENT_FACTORY(settings) as client:
                listing = parse_pages([await fetch_listing(client)], source=str(settings.base_url))
                return await run_cases(client, recipes, options, said, listing)

        return asyncio.run(go())


def run(args: argparse.Namespace) -> int:
    if args.jobs < 1:
        raise UsageError(f"--jobs {args.jobs}: give 1 or more")
    if args.report is not None and args.report.suffix not in (".jsonl", ".xml"):
        raise UsageError(f"--report {args.report}: give a .jsonl or .xml (JUnit) file")
    started = time.monotonic()
    recipes, found, files, written = _load(args)
    # Only what stops a case: warnings are `mcv validate`'s to say, and would repeat on every run.
    errors = [d for d in found if d.is_error]
    if errors:
        sys.stderr.write(render_report("github" if args.format == "github" else "text", errors, files))
    invalid = bool(errors)
    if not recipes:
        if written and args.select:
            print(f"mcv: no case name contains {args.select!r} ({written} cases found)", file=sys.stderr)
        elif not invalid:
            print(
                "mcv: no test cases found: add a `tests:` list to a pipeline (see `mcv init`)",
                file=sys.stderr,
            )
        return int(ExitCode.INVALID)
    results = _run_cases(args, recipes)
    from mcv_pipelines.testing.outcome import CaseStatus
    from mcv_pipelines.testing.report import summary_line, write_report

    elapsed = time.monotonic() - started
    print(summary_line(results, elapsed))
    if args.report is not None:
        write_report(args.report, results, elapsed)
    statuses = {result.status for result in results}
    if CaseStatus.ERROR in statuses:
        return int(ExitCode.SERVICE)
    if invalid or CaseStatus.INVALID in statuses:
        return int(ExitCode.INVALID)
    if CaseStatus.FAILED in statuses:
        return int(ExitCode.FAILED)
    return int(ExitCode.OK)
