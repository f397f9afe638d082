"""The options of `mcv serve` for a team deployment (database, role, leases, keys, rate limit) and
the `mcv serve keys create|list|revoke` commands."""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from mcv_pipelines.errors import UsageError
from mcv_pipelines.redact import redact, register_secret
from mcv_pipelines.service.server import LocalService
from mcv_pipelines.service.state.database import DatabaseUnavailable, SchemaTooNew, check_url, open_database
from mcv_pipelines.service.state.database.postgres import masked_url
from mcv_pipelines.service.state.keyfile import KeyFileError, apply_keys, read_key_file
from mcv_pipelines.service.state.store import Store

__all__ = [
    "API_KEY_VARIABLE",
    "ROLES",
    "KeyFile",
    "add_options",
    "check_options",
    "open_store",
    "reload_on_sighup",
]

API_KEY_VARIABLE = "MCV_SERVE_API_KEY"
ROLES = ("all", "api", "worker")


def add_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--database",
        default=None,
        metavar="URL",
        help="state database: sqlite:///PATH (default: service.sqlite3 in the data dir) or "
        "postgresql://USER@HOST[:PORT]/DB, shared by any number of api and worker processes "
        "(give the password in PGPASSWORD, not in the URL)",
    )
    parser.add_argument(
        "--role",
        choices=ROLES,
        default="all",
        help="all: serve the API and run tasks (default); api: serve the API only; worker: run tasks, "
        "serve only /healthz, /readyz and /metrics (api and worker need --database postgresql://...)",
    )
    parser.add_argument(
        "--lease-seconds",
        type=float,
        default=30.0,
        metavar="S",
        help="on PostgreSQL, a task whose worker stopped renewing its lease this long ago runs again "
        "on another worker (default: 30)",
    )
    parser.add_argument(
        "--api-key-file",
        type=Path,
        default=None,
        metavar="FILE",
        help="API keys, one `KEY [scope,scope...]` a line (# comments); re-read on SIGHUP",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=None,
        metavar="N",
        help="tasks this process runs at once, on --role all or worker (default: 4); on PostgreSQL "
        "its connection pool holds up to N + 4",
    )
    parser.add_argument(
        "--storage-retry-seconds",
        type=float,
        default=None,
        metavar="S",
        help="a storage call that cannot connect or gets a 5xx is tried again with growing waits for "
        "this long before its task fails (default: 60; 0: at once)",
    )
    parser.add_argument(
        "--rate-limit",
        type=int,
        default=None,
        metavar="N",
        help="job and task creations per minute per API key (default: 500; 0: no limit)",
    )
    parser.add_argument(
        "--sync-max-wait",
        type=float,
        default=None,
        metavar="S",
        help="the longest a sync request waits for its job or task to end, then answers 409 "
        "SYNC_WAIT_TIMEOUT naming it (default: 50, under the 60 s proxies commonly allow)",
    )


def check_options(args: argparse.Namespace) -> None:
    """UsageError for a combination that cannot work; warnings for risky ones."""
    if args.database is not None:
        masked_url(args.database)  # its password is a secret from here on
        reason = check_url(args.database)
        if reason:
            raise UsageError(
                f"--database: not a database URL mcv knows ({reason}); not shown: it may hold a password"
            )
    shared = args.database is not None and not args.database.startswith("sqlite:")
    if args.role != "all" and not shared:
        raise UsageError(
            f"--role {args.role} needs a database shared by several processes: add "
            "--database postgresql://USER@HOST/DB (on SQLite one process serves the API and runs "
            "the tasks: --role all)"
        )
    # Without MCV_SIGNING_KEY every process reads the signing key kept in the database (issue 25).
    if args.lease_seconds < 1:
        raise UsageError("--lease-seconds: give at least 1 second")
    if args.workers is not None and args.workers < 1:
        raise UsageError(f"--workers: give at least 1 task at a time (got {args.workers})")
    if args.storage_retry_seconds is not None and args.storage_retry_seconds < 0:
        raise UsageError("--storage-retry-seconds: give 0 or more seconds")
    if args.rate_limit is not None and args.rate_limit < 0:
        raise UsageError("--rate-limit: give 0 (no limit) or a positive number of jobs per minute")
    if args.sync_max_wait is not None and not 0 < args.sync_max_wait <= 24 * 3600:
        raise UsageError("--sync-max-wait: give a number of seconds above 0 (at most a day)")
    if args.api_key is not None:
        register_secret(args.api_key)
        print(
            "warning: a key given with --api-key is visible in the process list and the shell history; "
            f"prefer {API_KEY_VARIABLE} or --api-key-file",
            file=sys.stderr,
        )


def env_api_key() -> str | None:
    key = os.environ.get(API_KEY_VARIABLE, "").strip()
    if key:
        register_secret(key)
    return key or None


def settings_of(args: argparse.Namespace) -> dict[str, Any]:
    named = {
        "rate_limit": args.rate_limit,
        "workers": args.workers,
        "sync_max_wait": args.sync_max_wait,
        "storage_retry": args.storage_retry_seconds,
    }
    return {name: value for name, value in named.items() if value is not None}


def open_store(args: argparse.Namespace, data_dir: Path) -> Store:
    """The store `--database` names (the data dir's SQLite file by default), migrated."""
    import sqlite3

    try:
        if args.database is None:
            data_dir.mkdir(parents=True, exist_ok=True)
        return Store(open_database(args.database, data_dir / "service.sqlite3"))
    except (DatabaseUnavailable, SchemaTooNew) as exc:
        raise UsageError(redact(str(exc))) from None
    except (OSError, sqlite3.Error) as exc:
        raise UsageError(f"cannot open the database in {data_dir}: {exc}") from None


class KeyFile:
    """The --api-key-file of a running service: read at start (a bad line stops the start) and on
    SIGHUP (a bad line keeps the keys read before, and says so)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.source = f"file:{path.resolve()}"
        self.count = 0
        try:
            self._lines = read_key_file(path)
        except KeyFileError as exc:
            raise UsageError(f"--api-key-file: {exc}") from None

    def load(self, service: LocalService) -> None:
        assert service.ctx is not None
        apply_keys(service.ctx.store, self._lines, self.source, service.ctx.config.default_credits)
        self.count = len(self._lines)

    def reload(self, service: LocalService) -> None:
        try:
            self._lines = read_key_file(self.path)
            self.load(service)
        except (KeyFileError, DatabaseUnavailable) as exc:
            print(f"error: {redact(str(exc))}; keeping the keys read before", file=sys.stderr, flush=True)
            return
        print(f"API keys: re-read {self.path} ({self.count})", flush=True)


@contextlib.contextmanager
def reload_on_sighup(key_file: KeyFile | None, service: LocalService) -> Iterator[None]:
    if key_file is None or threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, frame: object) -> None:
        threading.Thread(target=key_file.reload, args=(service,), name="mcv-keys", daemon=True).start()

    previous = signal.signal(signal.SIGHUP, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGHUP, previous)
