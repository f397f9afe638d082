"""Fixtures for client tests: a fake clock whose sleep records every wait, and a client factory."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import pytest
from apifakes import API_KEY, BASE, SYNC, FakeTime

from mcv_pipelines.api import ApiClient, RetryPolicy, Settings


@pytest.fixture
def fake_time() -> FakeTime:
    return FakeTime()


Handler = Callable[[httpx.Request], Any]
MakeClient = Callable[..., ApiClient]


@pytest.fixture
async def make_client(fake_time: FakeTime) -> AsyncIterator[MakeClient]:
    made: list[ApiClient] = []

    def factory(
        handler: Handler | None = None, *, transport: httpx.AsyncBaseTransport | None = None, **retry: Any
    ) -> ApiClient:
        policy = RetryPolicy(sleep=fake_time.sleep, clock=fake_time.clock, random=lambda: 1.0, **retry)
        settings = Settings.build(api_key=API_KEY, base_url=BASE, sync_url=SYNC)
        client = ApiClient(settings, transport=transport or httpx.MockTransport(handler), retry=policy)
        made.append(client)
        return client

    yield factory
    for client in made:
        await client.aclose()
