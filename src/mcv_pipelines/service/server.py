"""Run the local service in-process: uvicorn in a background thread on a loopback port.

Example::

    with LocalService() as service:          # a temporary data directory, a fresh API key
        httpx.get(f"{service.base_url}/v2/users/me",
                  headers={"Authorization": f"Bearer {service.api_key}"})
"""

from __future__ import annotations

import asyncio
import secrets
import socket
import tempfile
import threading
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import fields
from pathlib import Path
from types import TracebackType
from typing import Any

import uvicorn

from mcv_pipelines.redact import register_secret
from mcv_pipelines.service.engines import available_engines, close_engines
from mcv_pipelines.service.engines.base import Engine
from mcv_pipelines.service.engines.lookup import warm_listings
from mcv_pipelines.service.files.storage import Storage, open_storage
from mcv_pipelines.service.http.app import build_app
from mcv_pipelines.service.http.context import ServiceContext
from mcv_pipelines.service.http.faults import Faults, parse_faults
from mcv_pipelines.service.http.health import database_check, storage_check
from mcv_pipelines.service.http.logs import TaskLog
from mcv_pipelines.service.http.metrics import Metrics
from mcv_pipelines.service.http.ratelimit import RateLimiter
from mcv_pipelines.service.http.ratelimit_shared import SharedRateLimiter
from mcv_pipelines.service.state.accounts import KeyRevoked
from mcv_pipelines.service.state.changes import ChangeFeed
from mcv_pipelines.service.state.config import ALL_SCOPES, ServiceConfig
from mcv_pipelines.service.state.database import open_database
from mcv_pipelines.service.state.notices import relay_notices
from mcv_pipelines.service.state.shared_secrets import signing_key
from mcv_pipelines.service.state.store import Store
from mcv_pipelines.service.work.lease_scheduler import LeaseScheduler
from mcv_pipelines.service.work.scheduler import Scheduler
from mcv_pipelines.service.work.webhooks import WebhookDispatcher

__all__ = ["ALL_SCOPES", "KeyRevoked", "LocalService"]


class LocalService:
    """The embedded service: ``start()``/``stop()`` or a context manager.

    ``data_dir`` None means a temporary directory removed on stop; with a directory, a restart keeps
    every job, task and file. ``api_key`` None generates one (``.api_key``). ``settings`` overrides
    ServiceConfig fields (task_retention, link_ttl, rate_limit, sync_max_wait, webhook_backoff,
    url_guard, ...). ``logging_configured``: the caller set up logging (logs.configure), so uvicorn
    must not install its own handlers.
    """

    def __init__(
        self,
        data_dir: str | Path | None = None,
        api_key: str | None = None,
        scopes: Iterable[str] = ALL_SCOPES,
        sandbox: bool = False,
        faults: str | Faults | None = None,
        engines: Sequence[Engine] | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
        settings: Mapping[str, Any] | None = None,
        logging_configured: bool = False,
        database: str | None = None,
        role: str = "all",
        lease_seconds: float = 30.0,
        make_key: bool = True,
    ) -> None:
        self._data_dir = Path(data_dir) if data_dir is not None else None
        self._api_key = api_key
        self._scopes = tuple(scopes)
        self._sandbox = sandbox
        self._faults = parse_faults(faults) if isinstance(faults, str) else faults
        self._engines = engines
        self._running_engines: list[Engine] = []
        self._host = host
        self._port = port
        self._settings = dict(settings or {})
        self._logging_configured = logging_configured
        self._database = database
        self._role = role
        self._lease_seconds = lease_seconds
        self._make_key = make_key
        self._listener: threading.Thread | None = None
        known = {f.name for f in fields(ServiceConfig)}
        unknown = set(self._settings) - known
        if unknown:
            raise ValueError(f"unknown service settings: {', '.join(sorted(unknown))}")
        self._temp: tempfile.TemporaryDirectory[str] | None = None
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self.ctx: ServiceContext | None = None

    # the addresses and the key
    @property
    def base_url(self) -> str:
        return self._context().config.public_url

    @property
    def sync_url(self) -> str:
        return self.base_url + "/sync"

    @property
    def api_key(self) -> str:
        assert self._api_key is not None, "start the service first (with a key)"
        return self._api_key

    @property
    def storage(self) -> Storage:
        """Where tasks' files live (the data directory unless the ``storage`` setting names another)."""
        return self._context().storage

    @property
    def data_dir(self) -> Path:
        return self._context().config.data_dir

    def warm_engines(self) -> threading.Thread:
        """Build the engines' conversion listings in the background (``warm_listings``); for a
        long-running service that runs tasks, whose first job should not wait for them."""
        return warm_listings(self._context().engines)

    def _context(self) -> ServiceContext:
        if self.ctx is None:
            raise RuntimeError("the local service is not running; call start() first")
        return self.ctx

    # life cycle
    def start(self) -> LocalService:
        # IPPROTO_TCP named, not left 0: asyncio sets TCP_NODELAY only on sockets whose proto says TCP.
        # Without it every answer on a kept-alive connection (headers, then body) waited ~40 ms for
        # the client's delayed ACK (Nagle): 44 ms for GET /v2/users/me against 2 ms (issue 15).
        family = socket.AF_INET6 if ":" in self._host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        # Accepted connections inherit it: without it an answer written in two parts (headers, body)
        # waits for the client's delayed ACK, about 40 ms on every request of a kept-alive connection.
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        try:
            sock.bind((self._host, self._port))
        except OSError:
            sock.close()
            raise
        port = sock.getsockname()[1]
        if self._data_dir is None:
            self._temp = tempfile.TemporaryDirectory(prefix="mcv-service-")
            data_dir = Path(self._temp.name)
        else:
            data_dir = self._data_dir
        config = ServiceConfig(data_dir=data_dir, sandbox=self._sandbox, **self._settings)
        if "public_url" not in self._settings:  # links must name an address clients can reach
            host = {"0.0.0.0": "127.0.0.1", "::": "[::1]"}.get(self._host, self._host)  # noqa: S104 - maps away from 0.0.0.0
            host = f"[{host}]" if ":" in host and not host.startswith("[") else host
            config.public_url = f"http://{host}:{port}"
        storage = open_storage(
            config.storage, config.data_dir, config.s3_endpoint or None, retry_for=config.storage_retry
        )
        try:
            db = open_database(self._database, config.db_path, config.workers)
        except BaseException:
            sock.close()
            storage.close()
            raise
        store = Store(db)
        if not config.signing_key:  # shared by every process through the database (issue 25)
            config.signing_key = signing_key(db, legacy=config.data_dir / "secret")
        webhooks = WebhookDispatcher(config, store)
        engines = list(self._engines) if self._engines is not None else available_engines()
        self._running_engines = engines
        changes = ChangeFeed()
        metrics = Metrics(queue_depth=lambda: scheduler.queue_depth())
        scheduler: Scheduler
        if db.shared:
            scheduler = LeaseScheduler(
                config,
                store,
                engines,
                webhooks.job_event,
                changes,
                storage,
                run_tasks=self._role in ("worker", "all"),
                lease_seconds=self._lease_seconds,
                on_lease_lost=metrics.lease_lost,
            )
            self._listener = threading.Thread(
                target=relay_notices, args=(db, changes), name="mcv-listen", daemon=True
            )
            self._listener.start()
        else:
            scheduler = Scheduler(config, store, engines, webhooks.job_event, changes, storage)
        changes.listen(metrics.task_changed)
        changes.listen(TaskLog())
        limiter = (  # on a shared database every API process counts against the same buckets
            SharedRateLimiter(db, config.rate_limit, config.rate_period)
            if db.shared
            else RateLimiter(config.rate_limit, config.rate_period)
        )
        self.ctx = ServiceContext(
            config,
            store,
            scheduler,
            webhooks,
            limiter,
            engines,
            changes,
            metrics,
            storage=storage,
            ready_checks=[database_check(db), storage_check(storage)],
        )
        if self._make_key and self._role != "worker":
            try:
                self._api_key = self._ensure_key(self._api_key, self._scopes, user_id=1)
            except KeyRevoked:
                sock.close()
                self.stop()
                raise
        scheduler.start()
        app = build_app(self.ctx, self._faults, api=self._role != "worker")
        # Logging set up by the caller (mcv serve --log-format): uvicorn adds no handlers of its own.
        log_config = None if self._logging_configured else uvicorn.config.LOGGING_CONFIG
        self._server = uvicorn.Server(
            uvicorn.Config(
                app, log_level="warning", lifespan="off", timeout_graceful_shutdown=2, log_config=log_config
            )
        )
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [sock]}, name="mcv-local-service", daemon=True
        )
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started:
            if time.monotonic() > deadline or not self._thread.is_alive():
                self.stop()
                raise RuntimeError("the local service did not start")
            time.sleep(0.01)
        return self

    def _ensure_key(self, api_key: str | None, scopes: tuple[str, ...], user_id: int | None) -> str:
        store = self._context().store
        key = api_key or secrets.token_urlsafe(32)
        register_secret(key)
        revoked = store.revoked_by_command(key)
        if revoked is not None:
            raise KeyRevoked(
                f"the API key given to this process (id {revoked}) was revoked with "
                f"`mcv serve keys revoke {revoked}` and stays revoked: give another key "
                "(e.g. one from `mcv serve keys create`) or none to generate one"
            )
        if store.find_key(key) is None:
            if user_id is not None and store.key_sources(user_id) - {"serve"}:
                user_id = None  # user 1 has keys of its own (keys create, a key file): a new user
            if user_id is None or store.get_user(user_id) is None:
                n = secrets.token_hex(3)
                user_id = store.create_user(
                    f"local-{n}", f"local-{n}@localhost", self._context().config.default_credits
                )
            store.add_key(key, user_id, scopes, source="serve")
        return key

    def add_api_key(self, scopes: Iterable[str] = ALL_SCOPES, *, new_user: bool = True) -> str:
        """A further key, for another user (default) or for the first user; returns it."""
        return self._ensure_key(None, tuple(scopes), None if new_user else 1)

    def stop(self) -> None:
        if self.ctx is not None:
            self.ctx.closing.set()
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=10)
        if self.ctx is not None:
            self.ctx.scheduler.stop()
            close_engines(self._running_engines)
            self.ctx.webhooks.stop()
            self.ctx.store.close()
            self.ctx.storage.close()
        self._server = self._thread = None
        self.ctx = None
        if self._temp is not None:
            self._temp.cleanup()
            self._temp = None

    async def __aenter__(self) -> LocalService:
        """``async with LocalService() as service:`` starts it without blocking the event loop."""
        return await asyncio.to_thread(self.start)

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await asyncio.to_thread(self.stop)

    def __enter__(self) -> LocalService:
        return self.start()

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()
