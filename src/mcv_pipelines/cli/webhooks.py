"""`mcv webhooks create|list|delete`: manage webhook subscriptions."""

from __future__ import annotations

import argparse
from typing import Any

from mcv_pipelines.api.client import ApiClient
from mcv_pipelines.cli.api_text import webhook_line
from mcv_pipelines.cli.connection import add_connection_options, emit, emit_json, run_with_client

__all__ = ["register"]

EVENTS = ("job.created", "job.finished", "job.failed")


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("webhooks", help="create, list and delete webhooks")
    sub = parser.add_subparsers(dest="webhooks_command", metavar="ACTION", required=True)

    create = sub.add_parser("create", help="subscribe a URL to job events")
    create.add_argument("url")
    create.add_argument(
        "--event",
        action="append",
        choices=EVENTS,
        dest="events",
        help="event kind (repeatable; default: job.finished and job.failed)",
    )
    create.set_defaults(handler=_create)

    listing = sub.add_parser("list", help="list webhooks")
    listing.add_argument("--url", help="only webhooks for this URL")
    listing.set_defaults(handler=_list)

    delete = sub.add_parser("delete", help="delete a webhook")
    delete.add_argument("webhook_id", metavar="ID")
    delete.set_defaults(handler=_delete)

    for leaf in (create, listing, delete):
        add_connection_options(leaf)


def _create(args: argparse.Namespace) -> int:
    async def action(client: ApiClient) -> int:
        hook = await client.create_webhook(args.url, args.events or ["job.finished", "job.failed"])
        # Shown once, here: the receiver needs it to verify signatures. Listings leave it out.
        if args.format == "json":
            emit_json(dict(hook.raw))
        else:
            emit(webhook_line(hook))
            emit(f"signing secret: {hook.signing_secret or '(none returned)'}")
        return 0

    return run_with_client(args, action)


def _list(args: argparse.Namespace) -> int:
    async def action(client: ApiClient) -> int:
        hooks = [h async for h in client.list_webhooks(url=args.url)]
        if args.format == "json":
            emit_json([{k: v for k, v in h.raw.items() if k != "signing_secret"} for h in hooks])
        else:
            for hook in hooks:
                emit(webhook_line(hook))
        return 0

    return run_with_client(args, action)


def _delete(args: argparse.Namespace) -> int:
    async def action(client: ApiClient) -> int:
        await client.delete_webhook(args.webhook_id)
        if args.format == "json":
            emit_json({"deleted": args.webhook_id})
        else:
            emit(f"deleted webhook {args.webhook_id}")
        return 0

    return run_with_client(args, action)
