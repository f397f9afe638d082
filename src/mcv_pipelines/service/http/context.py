"""What every route reaches through ``request.app.state.ctx``: config, store, scheduler and friends."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from starlette.requests import Request

from mcv_pipelines.service.engines.base import Engine
from mcv_pipelines.service.files.storage import Storage
from mcv_pipelines.service.http.metrics import Metrics
from mcv_pipelines.service.http.ratelimit import RateLimiter
from mcv_pipelines.service.state.changes import ChangeFeed
from mcv_pipelines.service.state.config import ServiceConfig
from mcv_pipelines.service.state.store import Store
from mcv_pipelines.service.work.scheduler import Scheduler
from mcv_pipelines.service.work.webhooks import WebhookDispatcher

__all__ = ["ServiceContext", "context"]


@dataclass
class ServiceContext:
    config: ServiceConfig
    store: Store
    scheduler: Scheduler
    webhooks: WebhookDispatcher
    limiter: RateLimiter
    engines: Sequence[Engine]
    changes: ChangeFeed = field(default_factory=ChangeFeed)
    metrics: Metrics = field(default_factory=Metrics)
    # Set when the service begins to stop: long-lived answers (the console's event streams) end then,
    # so the server's graceful shutdown does not wait for them and cancel them.
    closing: threading.Event = field(default_factory=threading.Event)
    storage: Storage = field(kw_only=True)  # where tasks' files live (created once at start)
    # /readyz: (name, raises when not ready); the database's check, then whatever else is added
    ready_checks: list[tuple[str, Callable[[], None]]] = field(default_factory=list)
    # /v2/operations and /v2/convert/formats bodies by query (listing.py): the engines do not change
    listings: dict[tuple[object, ...], bytes] = field(default_factory=dict)

    @property
    def base(self) -> str:
        return self.config.public_url


def context(request: Request) -> ServiceContext:
    ctx: ServiceContext = request.app.state.ctx
    return ctx
