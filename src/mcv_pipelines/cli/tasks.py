"""`mcv tasks show|list|cancel|retry|delete`: look at and manage single tasks."""

from __future__ import annotations

import argparse
from typing import Any

from mcv_pipelines.api.client import ApiClient
from mcv_pipelines.api.models import Task
from mcv_pipelines.cli.api_text import task_line, task_text
from mcv_pipelines.cli.connection import add_connection_options, emit, emit_json, run_with_client

__all__ = ["register"]

_INCLUDE = ("retries", "depends_on_tasks", "payload", "job")


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("tasks", help="show, list, cancel, retry and delete tasks")
    sub = parser.add_subparsers(dest="tasks_command", metavar="ACTION", required=True)

    show = sub.add_parser("show", help="show one task")
    show.add_argument("task_id", metavar="ID")
    show.add_argument(
        "--include", action="append", choices=_INCLUDE, default=[], help="extra fields (repeatable)"
    )
    show.set_defaults(handler=_show)

    listing = sub.add_parser("list", help="list tasks")
    listing.add_argument("--job-id", help="only tasks of this job")
    listing.add_argument("--status", choices=("waiting", "processing", "finished", "error"))
    listing.add_argument("--operation", help="only tasks of this operation (convert, import/url, ...)")
    listing.add_argument("--limit", type=int, default=100, help="show at most this many (default 100)")
    listing.set_defaults(handler=_list)

    leaves = [show, listing]
    for name, help_text, handler in (
        ("cancel", "cancel a waiting or processing task", _cancel),
        ("retry", "create a new task from the payload of this one", _retry),
        ("delete", "delete a task and its files", _delete),
    ):
        leaf = sub.add_parser(name, help=help_text)
        leaf.add_argument("task_id", metavar="ID")
        leaf.set_defaults(handler=handler)
        leaves.append(leaf)
    for leaf in leaves:
        add_connection_options(leaf)


def _print_task(args: argparse.Namespace, task: Task) -> None:
    emit_json(dict(task.raw)) if args.format == "json" else emit(task_text(task))


def _show(args: argparse.Namespace) -> int:
    async def action(client: ApiClient) -> int:
        _print_task(args, await client.get_task(args.task_id, include=args.include))
        return 0

    return run_with_client(args, action)


def _list(args: argparse.Namespace) -> int:
    async def action(client: ApiClient) -> int:
        tasks: list[Task] = []
        async for task in client.list_tasks(job_id=args.job_id, status=args.status, operation=args.operation):
            tasks.append(task)
            if len(tasks) >= args.limit:
                break
        if args.format == "json":
            emit_json([dict(t.raw) for t in tasks])
        else:
            for task in tasks:
                emit(f"{task.id:<38} {task_line(task)}")
        return 0

    return run_with_client(args, action)


def _cancel(args: argparse.Namespace) -> int:
    async def action(client: ApiClient) -> int:
        _print_task(args, await client.cancel_task(args.task_id))
        return 0

    return run_with_client(args, action)


def _retry(args: argparse.Namespace) -> int:
    async def action(client: ApiClient) -> int:
        _print_task(args, await client.retry_task(args.task_id))
        return 0

    return run_with_client(args, action)


def _delete(args: argparse.Namespace) -> int:
    async def action(client: ApiClient) -> int:
        await client.delete_task(args.task_id)
        emit_json({"deleted": args.task_id}) if args.format == "json" else emit(
            f"deleted task {args.task_id}"
        )
        return 0

    return run_with_client(args, action)
