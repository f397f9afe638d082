"""`mcv jobs show|list|wait|delete`: look at and manage jobs on the configured service."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from mcv_pipelines.api.client import ApiClient
from mcv_pipelines.api.models import Job
from mcv_pipelines.cli.api_text import job_text
from mcv_pipelines.cli.connection import add_connection_options, emit, emit_json, run_with_client
from mcv_pipelines.errors import ExitCode

__all__ = ["register"]


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("jobs", help="show, list, wait for and delete jobs")
    sub = parser.add_subparsers(dest="jobs_command", metavar="ACTION", required=True)

    show = sub.add_parser("show", help="show one job and its tasks")
    show.add_argument("job_id", metavar="ID")
    show.set_defaults(handler=_show)

    listing = sub.add_parser("list", help="list jobs, newest first")
    listing.add_argument("--status", help="only jobs in this status (processing, finished, error)")
    listing.add_argument("--tag", help="only jobs with this tag")
    listing.add_argument("--limit", type=int, default=100, help="show at most this many (default 100)")
    listing.set_defaults(handler=_list)

    wait = sub.add_parser("wait", help="wait until a job ends; exit 1 if it failed")
    wait.add_argument("job_id", metavar="ID")
    wait.add_argument(
        "--timeout", type=float, metavar="SECONDS", help="give up after this long (default: never)"
    )
    wait.add_argument("--download", type=Path, metavar="DIR", help="download the export/url files into DIR")
    wait.set_defaults(handler=_wait)

    delete = sub.add_parser("delete", help="delete a job and its files")
    delete.add_argument("job_id", metavar="ID")
    delete.set_defaults(handler=_delete)

    for leaf in (show, listing, wait, delete):
        add_connection_options(leaf)


def _show(args: argparse.Namespace) -> int:
    async def action(client: ApiClient) -> int:
        job = await client.get_job(args.job_id)
        emit_json(dict(job.raw)) if args.format == "json" else emit(job_text(job))
        return 0

    return run_with_client(args, action)


def _list(args: argparse.Namespace) -> int:
    async def action(client: ApiClient) -> int:
        jobs: list[Job] = []
        # Lists leave tasks out unless asked; the text view counts them, so ask.
        async for job in client.list_jobs(status=args.status, tag=args.tag, include=("tasks",)):
            jobs.append(job)
            if len(jobs) >= args.limit:
                break
        if args.format == "json":
            emit_json([dict(j.raw) for j in jobs])
        else:
            for job in jobs:
                emit(f"{job.id:<38} {job.status:<10} {job.tag or '-':<24} {len(job.tasks)} task(s)")
        return 0

    return run_with_client(args, action)


def _wait(args: argparse.Namespace) -> int:
    async def action(client: ApiClient) -> int:
        job = await client.wait_job(args.job_id, max_wait=args.timeout)
        downloaded: list[str] = []
        if args.download is not None:
            for file in job.export_files:
                downloaded.append(str(await client.download_file(file, args.download)))
        if args.format == "json":
            emit_json({"job": dict(job.raw), "downloaded": downloaded})
        else:
            emit(job_text(job))
            for path in downloaded:
                emit(f"downloaded {path}")
        return int(ExitCode.FAILED) if job.status == "error" else 0

    return run_with_client(args, action)


def _delete(args: argparse.Namespace) -> int:
    async def action(client: ApiClient) -> int:
        await client.delete_job(args.job_id)
        emit_json({"deleted": args.job_id}) if args.format == "json" else emit(f"deleted job {args.job_id}")
        return 0

    return run_with_client(args, action)
