"""Shared wiring of the commands that talk to a service: settings options, the client, output.

``CLIENT_FACTORY`` builds the client from settings; tests swap it. With no service configured (no key,
no base URL) a command runs against the embedded local service on its persistent data directory
(``--data-dir``, ``MCV_DATA_DIR``, else the user data directory), started for the command's duration,
so ``mcv jobs show ID`` sees the jobs an earlier ``mcv run`` made.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from mcv_pipelines.api.client import ApiClient
from mcv_pipelines.api.settings import Settings, config_path
from mcv_pipelines.api.timeouts import Timeouts
from mcv_pipelines.errors import UsageError
from mcv_pipelines.redact import redact

__all__ = [
    "CLIENT_FACTORY",
    "add_connection_options",
    "add_service_option",
    "add_timeout_options",
    "emit",
    "emit_json",
    "resolve_settings",
    "run_with_client",
    "settings_from_args",
    "with_timeouts",
]

CLIENT_FACTORY: Callable[[Settings], ApiClient] = ApiClient


def add_connection_options(
    parser: argparse.ArgumentParser, *, formats: tuple[str, ...] = ("text", "json")
) -> None:
    group = parser.add_argument_group("service (default: environment, then the profile file)")
    group.add_argument("--profile", metavar="NAME", help="profile in the config file (MCV_CONFIG to move it)")
    group.add_argument("--base-url", metavar="URL", help="API host (MCV_BASE_URL)")
    group.add_argument("--sync-url", metavar="URL", help="host of the blocking endpoints (MCV_SYNC_URL)")
    group.add_argument("--region", help="processing region of the public instance (MCV_REGION)")
    group.add_argument(
        "--sandbox",
        action="store_const",
        const=True,
        default=None,
        help="use the sandbox instance (MCV_SANDBOX)",
    )
    group.add_argument(
        "--api-key",
        metavar="KEY",
        help="API key; prefer MCV_API_KEY: a flag shows in the process list and shell history",
    )
    group.add_argument(
        "--data-dir",
        type=Path,
        metavar="DIR",
        help="data of the embedded local service, used when no service is configured (MCV_DATA_DIR)",
    )
    add_timeout_options(group)
    parser.add_argument("--format", choices=formats, default="text", help="output format")


def add_service_option(parser: argparse.ArgumentParser) -> None:
    """--service auto|local|remote: which service a command that runs jobs uses (see ``run.service_for``)."""
    parser.add_argument(
        "--service",
        choices=("auto", "local", "remote"),
        default="auto",
        help="local: the embedded service; remote: the configured one (default: remote when a key or "
        "base URL is configured)",
    )


def add_timeout_options(group: Any) -> None:
    """--connect-timeout and --read-timeout: every request to the service is bounded by both."""
    defaults = Timeouts()
    group.add_argument(
        "--connect-timeout",
        type=float,
        metavar="SECONDS",
        help=f"longest wait to open a connection to the service (default {defaults.connect:g}; "
        "MCV_CONNECT_TIMEOUT, or connect_timeout in the profile)",
    )
    group.add_argument(
        "--read-timeout",
        type=float,
        metavar="SECONDS",
        help=f"longest wait for the next bytes of an answer (default {defaults.read:g} for API requests, "
        f"{defaults.transfer_read:g} for uploads and downloads; the blocking job wait allows "
        f"{defaults.sync_read:g}; MCV_READ_TIMEOUT, or read_timeout in the profile)",
    )


def with_timeouts(chosen: Settings, given: Settings) -> Settings:
    """``chosen`` (the embedded service's settings) with the timeouts the user gave."""
    return replace(chosen, connect_timeout=given.connect_timeout, read_timeout=given.read_timeout)


def resolve_settings(args: argparse.Namespace) -> Settings:
    """The settings of the flags, environment and profile; may be unconfigured (embedded default)."""
    if getattr(args, "api_key", None):
        print(
            "mcv: warning: --api-key is visible to other users of this machine; prefer MCV_API_KEY",
            file=sys.stderr,
        )
    return Settings.resolve(
        api_key=args.api_key,
        base_url=args.base_url,
        sync_url=args.sync_url,
        region=args.region,
        sandbox=args.sandbox,
        profile=args.profile,
        connect_timeout=getattr(args, "connect_timeout", None),
        read_timeout=getattr(args, "read_timeout", None),
    )


def settings_from_args(args: argparse.Namespace) -> Settings:
    """Configured settings, or a UsageError saying how to configure them."""
    settings = resolve_settings(args)
    if not settings.is_configured:
        raise UsageError(
            "no service configured: set MCV_API_KEY for the public service, or MCV_BASE_URL for another "
            "instance (for example one started with `mcv serve`), or put them in a profile in "
            f"{config_path()} and pass --profile NAME"
        )
    return settings


def run_with_client(args: argparse.Namespace, action: Callable[[ApiClient], Awaitable[int]]) -> int:
    """Resolve settings, open a client, run ``action`` to completion, close the client.

    Unconfigured, the embedded local service serves the command (on ``--data-dir`` or the default).
    """
    settings = resolve_settings(args)

    def run(chosen: Settings) -> int:
        async def runner() -> int:
            async with CLIENT_FACTORY(chosen) as client:
                return await action(client)

        return asyncio.run(runner())

    if settings.is_configured:
        return run(settings)
    # Imported only here: a configured service needs neither the local service (starlette, uvicorn)
    # nor the runner package (rich), and importing them cost every API command ~0.2 s (issue 15).
    from mcv_pipelines.run.embedded import embedded_service

    with embedded_service(getattr(args, "data_dir", None)) as embedded:
        return run(with_timeouts(embedded.settings, settings))


def emit(text: str) -> None:
    print(redact(text))


def emit_json(value: Any) -> None:
    print(redact(json.dumps(value, indent=2, sort_keys=True, default=str)))
