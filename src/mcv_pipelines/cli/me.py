"""`mcv me`: the account behind the configured key (and a quick check that the key works)."""

from __future__ import annotations

import argparse
from typing import Any

from mcv_pipelines.api.client import ApiClient
from mcv_pipelines.cli.api_text import user_text
from mcv_pipelines.cli.connection import add_connection_options, emit, emit_json, run_with_client

__all__ = ["register"]


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("me", help="show the account of the configured API key")
    add_connection_options(parser)
    parser.set_defaults(handler=_me)


def _me(args: argparse.Namespace) -> int:
    async def action(client: ApiClient) -> int:
        user = await client.me()
        emit_json(dict(user.raw)) if args.format == "json" else emit(user_text(user))
        return 0

    return run_with_client(args, action)
