"""Small helpers of the client integration tests (imported by name: pytest puts this folder on sys.path)."""

from __future__ import annotations

import httpx

from mcv_pipelines.api.client import ApiClient
from mcv_pipelines.api.pacer import Pacer
from mcv_pipelines.api.retry import RetryPolicy
from mcv_pipelines.api.settings import Settings
from mcv_pipelines.service.server import LocalService

__all__ = ["Recording", "client_for"]


def client_for(
    service: LocalService,
    *,
    api_key: str | None = None,
    retry: RetryPolicy | None = None,
    transport: httpx.AsyncBaseTransport | None = None,
    pacer: Pacer | None = None,
) -> ApiClient:
    settings = Settings(
        base_url=service.base_url, sync_url=service.sync_url, api_key=api_key or service.api_key
    )
    return ApiClient(settings, retry=retry or RetryPolicy(base_delay=0.05), transport=transport, pacer=pacer)


class Recording(httpx.AsyncBaseTransport):
    """A real loopback transport that notes (method, path, status) of every answer: no mocking."""

    def __init__(self) -> None:
        self.inner = httpx.AsyncHTTPTransport()
        self.seen: list[tuple[str, str, int]] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self.inner.handle_async_request(request)
        self.seen.append((request.method, request.url.path, response.status_code))
        return response

    async def aclose(self) -> None:
        await self.inner.aclose()
