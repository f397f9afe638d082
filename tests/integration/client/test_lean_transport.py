"""The client's own HTTP/1.1 transport (api.h1) against loopback servers: reuse, limits and broken answers."""

from __future__ import annotations

import asyncio
import contextlib

import httpx
import pytest
from loopback_http import LoopbackHttp, as_json

from mcv_pipelines.api.client import ApiClient
from mcv_pipelines.api.errors import NetworkError, OutcomeUnknown
from mcv_pipelines.api.h1 import LeanTransport
from mcv_pipelines.api.retry import RetryPolicy
from mcv_pipelines.api.settings import Settings

USER = as_json({"data": {"id": "u-1", "username": "lean"}})


def _api(port: int) -> ApiClient:
    settings = Settings(base_url=f"http://127.0.0.1:{port}", api_key="sk-test-lean-0001")
    return ApiClient(settings, retry=RetryPolicy(attempts=1))


async def test_requests_in_a_row_share_one_connection_and_concurrent_ones_get_their_own() -> None:
    server = LoopbackHttp(lambda line, body: (USER, False))
    in_flight: list[int] = []
    all_four = asyncio.Event()

    async def answer_once_all_four_are_in() -> None:
        # HTTP/1.1 without pipelining: four requests in flight at once are on four connections.
        in_flight.append(server.connections)
        if len(in_flight) == 4:
            all_four.set()
        with contextlib.suppress(TimeoutError):  # generous: they all leave within milliseconds
            await asyncio.wait_for(all_four.wait(), timeout=30)

    async with server, _api(server.port) as api:
        for _ in range(5):
            assert (await api.me()).username == "lean"
        assert server.connections == 1
        server.hold = answer_once_all_four_are_in
        users = await asyncio.gather(*(api.me() for _ in range(4)))
    assert [u.username for u in users] == ["lean"] * 4
    assert all_four.is_set(), f"waited 30 s for four requests in flight at once; {len(in_flight)} came"
    assert server.connections == 4  # the idle one, reused, and three new ones
    assert len(server.seen) == 9


async def test_a_body_left_half_read_closes_its_connection_and_the_next_request_still_works() -> None:
    big = b"x" * (4 * 1024 * 1024)
    server = LoopbackHttp(lambda line, body: (big if "/big" in line else USER, False))
    async with server, httpx.AsyncClient(transport=LeanTransport()) as http:
        async with http.stream("GET", f"http://127.0.0.1:{server.port}/big") as response:
            first = await response.aiter_bytes().__anext__()
        after = await http.get(f"http://127.0.0.1:{server.port}/me")
    assert first
    assert after.json()["data"]["username"] == "lean"
    assert server.connections == 2  # the half-read one was not put back in the pool


async def test_a_connection_closed_before_the_answer_is_an_unknown_outcome_for_a_create() -> None:
    server = LoopbackHttp(lambda line, body: (None, True))  # reads the request, hangs up
    async with server, _api(server.port) as api:
        with pytest.raises(OutcomeUnknown) as created:
            await api.create_job({"in": {"operation": "import/upload"}})
        with pytest.raises(NetworkError) as read:
            await api.me()
    assert "Server disconnected without sending a response." in str(created.value)
    assert "GET /v2/users/me: network error: RemoteProtocolError: Server disconnected" in str(read.value)


async def test_no_free_connection_within_the_pool_timeout_is_a_pool_timeout() -> None:
    server = LoopbackHttp(lambda line, body: (b"y" * (1024 * 1024), False))
    limits = httpx.Timeout(5.0, pool=0.2)
    async with server, httpx.AsyncClient(transport=LeanTransport(max_connections=1), timeout=limits) as http:
        async with http.stream("GET", f"http://127.0.0.1:{server.port}/held"):
            with pytest.raises(httpx.PoolTimeout):
                await http.get(f"http://127.0.0.1:{server.port}/waits")
        # once the held response is closed, its place is free again
        assert (await http.get(f"http://127.0.0.1:{server.port}/next")).status_code == 200


async def test_a_waiting_request_gets_the_connection_freed_by_another() -> None:
    server = LoopbackHttp(lambda line, body: (USER, False))
    async with server, httpx.AsyncClient(transport=LeanTransport(max_connections=1)) as http:
        answers = await asyncio.gather(*(http.get(f"http://127.0.0.1:{server.port}/{n}") for n in range(6)))
    assert [a.status_code for a in answers] == [200] * 6
    assert server.connections == 1


async def test_a_url_scheme_it_cannot_speak_is_unsupported_protocol() -> None:
    async with httpx.AsyncClient(transport=LeanTransport()) as http:
        with pytest.raises(httpx.UnsupportedProtocol):
            await http.get("ftp://127.0.0.1/file")


async def test_a_cookie_the_server_sets_is_sent_back_and_answers_without_one_keep_it() -> None:
    sticky = LoopbackHttp(lambda line, body: (USER, False), headers="Set-Cookie: lb=node-7; Path=/\r\n")
    plain = LoopbackHttp(lambda line, body: (USER, False))
    async with sticky, plain, _api(sticky.port) as api:
        await api.me()
        await api.me()
        api.http.cookies.set("kept", "1", domain="127.0.0.1")
        await api.http.get(f"http://127.0.0.1:{plain.port}/v2/users/me")  # no Set-Cookie in this answer
        jar = dict(api.http.cookies)
    assert sticky.cookies == [None, "lb=node-7"]
    assert sorted((plain.cookies[0] or "").split("; ")) == ["kept=1", "lb=node-7"]
    assert jar == {"lb": "node-7", "kept": "1"}
