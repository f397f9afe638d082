"""`mcv run PIPELINE`: validate, submit as one job, upload, follow with progress, download, summarise."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets
import sys
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

from mcv_pipelines.api.settings import Settings
from mcv_pipelines.cli import connection
from mcv_pipelines.cli.options import add_param_options, add_schema_option, operation_schemas, param_values
from mcv_pipelines.diagnostics import has_errors
from mcv_pipelines.errors import ExitCode, UsageError
from mcv_pipelines.pipeline.check import check_pipeline
from mcv_pipelines.pipeline.model import RenderedPipeline
from mcv_pipelines.redact import redact
from mcv_pipelines.reporters import render_report
from mcv_pipelines.run.embedded import embedded_service
from mcv_pipelines.run.events import EventSink, JsonLinesEvents, Tee
from mcv_pipelines.run.follow import RunTimeout
from mcv_pipelines.run.model import RunOptions, RunOutcome
from mcv_pipelines.run.progress import PlainProgress, RichProgress
from mcv_pipelines.run.runner import RunInterrupted, preflight, run_pipeline
from mcv_pipelines.run.submit import job_tag, new_run_id
from mcv_pipelines.run.summary import summary_json, summary_text

__all__ = ["register", "run"]


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "run",
        help="run a pipeline: submit, upload, follow, download",
        description="Validate PIPELINE (as `mcv validate` does), submit it as one job, upload its "
        "upload_from files, follow it, download its export/url files into download_to (or --out). "
        "With no service configured it runs on the embedded local service. Exit 0 finished, 1 the job "
        "failed, 2 invalid, 3 service or network trouble, 130 interrupted.",
    )
    parser.add_argument("pipeline", metavar="PIPELINE", help="the pipeline file")
    add_param_options(parser)
    add_schema_option(parser)
    parser.add_argument(
        "--wait",
        choices=("auto", "sync", "poll", "webhook"),
        default="auto",
        help="how to follow the job (default auto: a blocking wait on the sync host)",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        metavar="SECONDS",
        help="stop following after this long; the job is left running (default: never)",
    )
    parser.add_argument("--out", type=Path, metavar="DIR", help="download every file here, not download_to")
    parser.add_argument(
        "--progress",
        choices=("auto", "rich", "plain", "none"),
        default="auto",
        help="progress on stderr (default auto: live on a terminal, lines otherwise)",
    )
    parser.add_argument("--events", type=Path, metavar="FILE", help="append one JSON object per event")
    parser.add_argument("--dry-run", action="store_true", help="validate and print the job body; no request")
    parser.add_argument(
        "--open",
        action="store_true",
        help="open the job's page of the web console in a browser (when there is a display; "
        "else the page's address is printed)",
    )
    parser.add_argument(
        "--keep-going",
        action="store_true",
        help="let the job go on past failed tasks (ignore_error) and download what finished",
    )
    parser.add_argument("--overwrite", action="store_true", help="replace files that already exist")
    connection.add_service_option(parser)
    parser.add_argument(
        "--listen",
        default="127.0.0.1:0",
        metavar="HOST:PORT",
        help="address of the webhook receiver for --wait webhook (default 127.0.0.1:0)",
    )
    parser.add_argument(
        "--public-url",
        metavar="URL",
        help="the job's webhook_url when the receiver is reached through a tunnel",
    )
    parser.add_argument(
        "--cancel-on-interrupt",
        action="store_true",
        help="on Ctrl-C cancel the job's unfinished tasks (default: leave them running)",
    )
    connection.add_connection_options(parser)
    parser.set_defaults(handler=run)


_EMBEDDED_PAUSE = (
    "mcv: the embedded service stops with this command; its unfinished tasks start again when the "
    "next command opens the same data directory (such as the one above)"
)


def _listen(value: str) -> tuple[str, int]:
    host, sep, port = value.rpartition(":")
    if not sep or not port.isdigit() or int(port) > 65535 or not host:
        raise UsageError(
            f"--listen {value!r}: expected HOST:PORT with a port up to 65535, e.g. 127.0.0.1:8765"
        )
    return host.strip("[]"), int(port)


def _checked(args: argparse.Namespace) -> RenderedPipeline:
    values, source = param_values(args)
    result = check_pipeline(
        args.pipeline, values, source=source, use_examples=False, schemas=operation_schemas(args)
    )
    if result.diagnostics:
        sys.stderr.write(render_report("text", result.diagnostics, [args.pipeline]))
    if has_errors(result.diagnostics) or result.pipeline is None:
        raise _Invalid
    return result.pipeline


class _Invalid(Exception):
    """The diagnostics are printed already; only the exit code is left."""


def _sinks(args: argparse.Namespace, stack: ExitStack) -> EventSink:
    sinks: list[EventSink] = []
    progress = args.progress
    if progress == "auto":
        progress = "rich" if sys.stderr.isatty() else "plain"
    if progress == "rich":
        view = RichProgress()
        stack.callback(view.stop)
        sinks.append(view)
    elif progress == "plain":
        sinks.append(PlainProgress())
    if args.events is not None:
        try:
            writer = JsonLinesEvents(args.events)
        except OSError as exc:
            raise UsageError(f"--events {args.events}: {exc.strerror or exc}") from exc
        stack.callback(writer.close)
        sinks.append(writer)
    return Tee(sinks)


@contextmanager
def service_for(args: argparse.Namespace) -> Iterator[tuple[Settings, bool]]:
    """The settings to use and whether they are the embedded service's."""
    settings = connection.resolve_settings(args)
    if args.service == "remote" and not settings.is_configured:
        connection.settings_from_args(args)  # raises the how-to-configure message
    if args.service == "local" or not settings.is_configured:
        with embedded_service(args.data_dir) as embedded:
            print(
                f"mcv: running on the embedded local service at {embedded.settings.base_url} "
                f"(data: {embedded.data_dir}; set MCV_API_KEY or MCV_BASE_URL for another service)",
                file=sys.stderr,
            )
            yield connection.with_timeouts(embedded.settings, settings), True
        return
    yield settings, False


def run(args: argparse.Namespace) -> int:
    listen = _listen(args.listen)  # a bad flag is said first, even with --dry-run
    try:
        pipeline = _checked(args)
    except _Invalid:
        return int(ExitCode.INVALID)
    if args.dry_run:
        body = pipeline.job_body()
        body["tag"] = job_tag(pipeline, "RUN-ID")
        print(redact(json.dumps(body, indent=2)))
        return int(ExitCode.OK)
    options = RunOptions(
        wait=args.wait,
        timeout=args.timeout,
        out_dir=args.out,
        overwrite=args.overwrite,
        keep_going=args.keep_going,
        cancel_on_interrupt=args.cancel_on_interrupt,
        run_id=new_run_id(),
        listen=listen,
        public_url=args.public_url,
        webhook_secret=os.environ.get("MCV_WEBHOOK_SECRET") or None,
    )
    preflight(pipeline, options)  # before a service starts: a refusal costs nothing
    with ExitStack() as stack:
        settings, embedded = stack.enter_context(service_for(args))
        if embedded:
            # The local service signs a job's webhooks with the secret the job names; quicker polls.
            secret = secrets.token_hex(24) if args.wait == "webhook" else None
            options = replace(
                options,
                webhook_secret=secret,
                declare_webhook_secret=True,
                status_interval=0.5,
                poll_interval=0.5,
            )
        events = _sinks(args, stack)
        if args.open:
            from mcv_pipelines.cli.open_page import JobPageOpener

            events = Tee([events, JobPageOpener(settings.base_url)])

        async def go() -> RunOutcome:
            async with connection.CLIENT_FACTORY(settings) as client:
                return await run_pipeline(client, pipeline, options, events)

        try:
            outcome = asyncio.run(go())
        except RunInterrupted as exc:
            stack.close()
            print(f"mcv: {redact(str(exc))}", file=sys.stderr)
            if embedded and exc.job_id and not args.cancel_on_interrupt:
                print(_EMBEDDED_PAUSE, file=sys.stderr)
            return int(ExitCode.INTERRUPTED)
        except RunTimeout as exc:
            stack.close()
            print(f"mcv: error: {redact(str(exc))}", file=sys.stderr)
            if embedded:
                print(_EMBEDDED_PAUSE, file=sys.stderr)
            return int(exc.exit_code)
        stack.close()
    print(summary_json(outcome) if args.format == "json" else summary_text(outcome))
    if outcome.ok:
        return int(ExitCode.OK)
    for failure in outcome.failures:
        print(f"mcv: {redact(failure.describe())}", file=sys.stderr)
    return int(ExitCode.FAILED)
