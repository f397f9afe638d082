"""`mcv batch PIPELINE (--manifest F | --glob PATTERN --as PARAM)`: one pipeline over every row."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from contextlib import ExitStack
from dataclasses import replace
from pathlib import Path
from typing import Any

from mcv_pipelines.batch.execute import BatchInterrupted, BatchOptions, BatchOutcome, execute_batch
from mcv_pipelines.batch.journal import Journal, OpenMode
from mcv_pipelines.batch.manifest import Manifest, glob_manifest, open_manifest
from mcv_pipelines.batch.meta import BatchMeta, default_journal_path
from mcv_pipelines.batch.packing import MAX_ROWS_PER_JOB
from mcv_pipelines.batch.prepare import RowRenderer, prepare_rows
from mcv_pipelines.batch.progress import Progress
from mcv_pipelines.batch.report import ReportRow, check_report_path, open_report
from mcv_pipelines.batch.shard import parse_shard
from mcv_pipelines.batch.view import PlainBatchView, RichBatchView
from mcv_pipelines.cli import connection
from mcv_pipelines.cli.catalog_options import add_catalog_options, catalog_from_args
from mcv_pipelines.cli.options import add_param_options, add_schema_option, operation_schemas, param_values
from mcv_pipelines.cli.run import service_for
from mcv_pipelines.errors import ExitCode, InvalidInput, UsageError
from mcv_pipelines.pipeline.document import load_document
from mcv_pipelines.redact import redact
from mcv_pipelines.reporters import render_report
from mcv_pipelines.run.events import EventSink, JsonLinesEvents, NullEvents
from mcv_pipelines.run.model import RunOptions

__all__ = ["batch", "register"]


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "batch",
        help="run a pipeline over every row of a manifest: resumable, sharded, reported",
        description="Check every row of the manifest (CSV, JSONL, YAML, or a glob of files), then run "
        "the pipeline once per row with bounded concurrency, recording each row in a journal. Run the "
        "same command again to resume after a crash or Ctrl-C: finished rows are skipped, rows already "
        "submitted are followed, never submitted twice. Exit 0 all rows finished, 1 a row failed, "
        "2 invalid rows (nothing submitted), 3 service trouble, 130 interrupted.",
    )
    parser.add_argument("pipeline", metavar="PIPELINE", help="the pipeline file")
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--manifest", metavar="FILE", help="rows as .csv, .tsv, .jsonl or .yaml")
    source.add_argument("--glob", metavar="PATTERN", help="one row per matching file (** recurses)")
    parser.add_argument("--as", dest="as_param", metavar="PARAM", help="the param a --glob path goes to")
    parser.add_argument("--key", metavar="COLUMN", help="the column naming each row (default: a hash "
                        "of the row's params)")
    add_param_options(parser)
    add_schema_option(parser)
    add_catalog_options(parser)
    parser.add_argument("--concurrency", type=int, default=4, metavar="N",
                        help="jobs at once (default 4); each job carries --rows-per-job rows")
    parser.add_argument("--rows-per-job", type=int, metavar="N",
                        help="rows packed into one job (default: from the rows left and --concurrency, at "
                        "most 50; 1: a job per row). Each row still fails alone, with its own report line")
    parser.add_argument("--journal", type=Path, metavar="FILE",
                        help="the SQLite journal (default: next to --report, else in the current directory)")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--resume", action="store_true", help="require a journal to resume")
    mode.add_argument("--restart", action="store_true",
                      help="discard the journal and start over (submitted rows run again)")
    parser.add_argument("--retry-failed", action="store_true", help="send the failed rows again")
    parser.add_argument("--shard", metavar="I/N", help="take shard I of N (counting from 1) by key hash")
    parser.add_argument("--report", type=Path, metavar="FILE",
                        help="every row as .jsonl, .csv or .xml (JUnit)")
    parser.add_argument("--fail-fast", action="store_true", help="start no new row after a row fails")
    parser.add_argument("--skip-invalid", action="store_true",
                        help="run the valid rows; invalid ones are reported as failed (invalid-row)")
    parser.add_argument("--wait", choices=("auto", "sync", "poll"), default="auto",
                        help="how to follow each job (default auto: a blocking wait)")
    parser.add_argument("--timeout", type=float, metavar="SECONDS",
                        help="per job: stop following it after this long (its rows fail, the job runs on)")
    parser.add_argument("--out", type=Path, metavar="DIR",
                        help="download every row's files here instead of download_to (names must differ "
                        "between rows)")
    parser.add_argument("--overwrite", action="store_true", help="replace files that already exist")
    parser.add_argument("--progress", choices=("auto", "rich", "plain", "none"), default="auto",
                        help="progress on stderr (default auto: live on a terminal, lines otherwise)")
    parser.add_argument("--events", type=Path, metavar="FILE", help="append one JSON object per row event")
    connection.add_service_option(parser)
    connection.add_connection_options(parser)
    parser.set_defaults(handler=batch)


def _manifest(args: argparse.Namespace, params: frozenset[str]) -> Manifest:
    if args.glob is not None:
        if not args.as_param:
            raise UsageError("--glob needs --as PARAM: the param each matching path is given to")
        return glob_manifest(args.glob, args.as_param, params=params)
    if args.as_param:
        raise UsageError("--as goes with --glob")
    return open_manifest(args.manifest, params=params)


def _print_invalid(args: argparse.Namespace, prepared: Any) -> None:
    sys.stderr.write(render_report("text", prepared.diagnostics, [args.pipeline]))
    shown = min(prepared.invalid_rows, 20)
    if prepared.invalid_rows > shown:
        print(f"mcv: ... and {prepared.invalid_rows - shown} more invalid rows", file=sys.stderr)


def batch(args: argparse.Namespace) -> int:
    if args.concurrency < 1:
        raise UsageError("--concurrency must be at least 1")
    if args.rows_per_job is not None and not 1 <= args.rows_per_job <= MAX_ROWS_PER_JOB:
        raise UsageError(f"--rows-per-job must be from 1 to {MAX_ROWS_PER_JOB}, not {args.rows_per_job}")
    if args.report is not None:
        check_report_path(args.report)
    shard = parse_shard(args.shard) if args.shard else None
    fixed, _ = param_values(args)
    document = load_document(args.pipeline)
    catalog, _warnings = catalog_from_args(args)
    renderer = RowRenderer(document, fixed=fixed, schemas=operation_schemas(args), catalog=catalog)
    manifest = _manifest(args, renderer.param_names)
    run_options = RunOptions(wait=args.wait, timeout=args.timeout, out_dir=args.out, overwrite=args.overwrite,
                             status_interval=0.0)
    meta = BatchMeta.describe(args.pipeline, manifest, key_column=args.key,
                              shard=None if shard is None else str(shard),
                              settings={"params": fixed, "out": str(args.out) if args.out else None},
                              options={"concurrency": args.concurrency})
    journal_path = args.journal or default_journal_path(args.pipeline, manifest.label, report=args.report,
                                                        shard=None if shard is None else str(shard))
    open_mode: OpenMode = "resume" if args.resume else "restart" if args.restart else "auto"
    with ExitStack() as stack:
        journal = stack.enter_context(Journal.open(journal_path, meta, mode=open_mode))
        prepared = prepare_rows(manifest, renderer, journal, key_column=args.key, shard=shard,
                                options=run_options)
        if prepared.collision_count:
            for collision in prepared.collisions[:20]:
                print(f"mcv: {redact(str(collision))}", file=sys.stderr)
            raise InvalidInput(f"{prepared.collision_count} output file(s) would be written by more than one "
                               "row; make download_to or the file names depend on the row",
                               [c.diagnostic(manifest.label) for c in prepared.collisions])
        if prepared.invalid_rows and not args.skip_invalid:
            _print_invalid(args, prepared)
            print(f"mcv: {prepared.invalid_rows} of {prepared.rows} rows are invalid; nothing was submitted "
                  "(fix them, or pass --skip-invalid to run the others)", file=sys.stderr)
            return int(ExitCode.INVALID)
        if prepared.invalid_rows:
            _print_invalid(args, prepared)
        if args.retry_failed:
            retried = journal.retry_failed()
            if retried:
                print(f"mcv: retrying {retried} failed row(s)", file=sys.stderr)
        counts = journal.counts()
        progress = Progress(counts.total, finished=counts.finished, failed=counts.failed)
        view = _view(args, progress)
        events: EventSink = NullEvents()
        if args.events is not None:
            try:
                writer = JsonLinesEvents(args.events)
            except OSError as exc:
                raise UsageError(f"--events {args.events}: {exc.strerror or exc}") from exc
            stack.callback(writer.close)
            events = writer
        settings, embedded = stack.enter_context(service_for(args))
        if embedded:
            run_options = replace(run_options, poll_interval=0.5)
        options = BatchOptions(concurrency=args.concurrency, fail_fast=args.fail_fast, run=run_options,
                               key_column=args.key, shard=shard, rows_per_job=args.rows_per_job)
        if counts.finished:
            print(f"mcv: resuming {journal.path}: {counts.finished} row(s) already finished", file=sys.stderr)

        async def go() -> BatchOutcome:
            async with connection.CLIENT_FACTORY(settings) as client:
                return await execute_batch(client, journal, manifest, renderer, options, events=events,
                                           progress=progress, on_change=view.show if view else None)

        try:
            outcome = asyncio.run(go())
        except (BatchInterrupted, KeyboardInterrupt):
            if view:
                view.close()
            _write_report(args, journal, document.data)
            print(f"mcv: interrupted; every row is recorded in {journal.path}. Run the same command again "
                  "to resume (finished rows are skipped, submitted ones followed)", file=sys.stderr)
            return int(ExitCode.INTERRUPTED)
        if view:
            view.close()
        _write_report(args, journal, document.data)
    return _conclude(outcome, journal_path, args)


def _view(args: argparse.Namespace, progress: Progress) -> PlainBatchView | RichBatchView | None:
    kind = args.progress
    if kind == "auto":
        kind = "rich" if sys.stderr.isatty() else "plain"
    if kind == "rich":
        return RichBatchView(progress.snapshot)
    if kind == "plain":
        return PlainBatchView(progress.snapshot)
    return None


def _write_report(args: argparse.Namespace, journal: Journal, data: Any) -> None:
    if args.report is None:
        return
    name = data.get("name") if isinstance(data, dict) else None
    with open_report(args.report, name=str(name or Path(args.pipeline).stem)) as report:
        for row in journal.rows():
            report.write(ReportRow.from_journal(row))


def _conclude(outcome: BatchOutcome, journal_path: Path, args: argparse.Namespace) -> int:
    counts = outcome.counts
    if args.format == "json":
        print(json.dumps({"total": counts.total, "finished": counts.finished, "failed": counts.failed,
                          "not_done": counts.total - counts.done, "troubled": outcome.troubled,
                          "journal": str(journal_path),
                          "report": str(args.report) if args.report else None}))
    else:
        print(f"{counts.finished} finished, {counts.failed} failed, {counts.total - counts.done} not done "
              f"of {counts.total} rows" + (f"; report: {args.report}" if args.report else ""))
    if outcome.troubled:
        print(f"mcv: {outcome.troubled} row(s) were left unfinished by service trouble "
              f"({outcome.last_trouble}); run the same command again to resume them "
              f"(journal {journal_path})", file=sys.stderr)
        return int(ExitCode.SERVICE)
    if counts.failed:
        print(f"mcv: {counts.failed} row(s) failed; see the report, or run again with --retry-failed",
              file=sys.stderr)
        return int(ExitCode.FAILED)
    if counts.done < counts.total:
        print("mcv: stopped early (--fail-fast); run the same command again to go on", file=sys.stderr)
        return int(ExitCode.FAILED)
    return int(ExitCode.OK)
