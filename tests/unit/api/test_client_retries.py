"""Repeats: 429 waits Retry-After, idempotent requests back off, creating POSTs are never repeated blindly."""

from __future__ import annotations

from datetime import UTC, datetime

import httpx
import pytest
from apifakes import SYNC, job_json, task_json

from mcv_pipelines.api import NetworkError, OutcomeUnknown, WaitTimeout
from mcv_pipelines.api.retry import parse_retry_after


def _rate_limited(retry_after: str = "7") -> httpx.Response:
    return httpx.Response(
        429,
        json={"message": "Too many requests", "code": "TOO_MANY_REQUESTS"},
        headers={"Retry-After": retry_after, "X-RateLimit-Limit": "500", "X-RateLimit-Remaining": "0"},
    )


async def test_429_waits_retry_after_then_repeats(make_client, fake_time) -> None:
    answers = [_rate_limited("7"), httpx.Response(201, json={"data": job_json()})]
    seen = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return answers.pop(0)

    client = make_client(handler)
    job = await client.create_job({"a": {"operation": "import/url", "url": "https://x/y.png"}}, tag="t")
    assert job.id == "j1"
    assert len(seen) == 2  # a 429 surely did not create the job, so it is repeated
    assert fake_time.sleeps == [7.0]
    assert client.last_rate_limit is not None
    assert client.last_rate_limit.limit == 500


async def test_429_on_the_sync_host_waits_too(make_client, fake_time) -> None:
    answers = [_rate_limited("3"), httpx.Response(200, json={"data": job_json()})]
    hosts = []

    def handler(request: httpx.Request) -> httpx.Response:
        hosts.append(str(request.url))
        return answers.pop(0)

    client = make_client(handler)
    job = await client.wait_job("j1", max_wait=60)
    assert job.status == "finished"
    assert hosts == [f"{SYNC}/v2/jobs/j1"] * 2
    assert fake_time.sleeps == [3.0]


async def test_retry_after_as_http_date_is_understood(make_client, fake_time) -> None:
    answers = [
        _rate_limited("Wed, 21 Oct 2015 07:28:00 GMT"),
        httpx.Response(200, json={"data": task_json()}),
    ]
    client = make_client(lambda r: answers.pop(0))
    await client.get_task("t1")
    assert answers == []
    assert fake_time.sleeps == []  # a date in the past means: go now


def test_retry_after_values() -> None:
    def now() -> datetime:
        return datetime(2026, 1, 1, 12, 0, 0, tzinfo=UTC)

    assert parse_retry_after("Thu, 01 Jan 2026 12:00:30 GMT", now) == 30.0
    assert parse_retry_after("2.5") == 2.5
    assert parse_retry_after("-4") == 0.0
    assert parse_retry_after("soon") is None
    assert parse_retry_after(None) is None


async def test_backoff_is_exponential_and_bounded(make_client, fake_time) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused", request=request)

    client = make_client(handler, attempts=6, base_delay=1.0, max_delay=5.0, max_elapsed=1000.0)
    with pytest.raises(NetworkError, match="GET /v2/users/me: network error: ConnectError"):
        await client.me()
    # random() is 1.0 in the fixture, so each wait is its ceiling: 1, 2, 4, then capped at 5
    assert fake_time.sleeps == [1.0, 2.0, 4.0, 5.0, 5.0]


async def test_total_retry_time_is_bounded(make_client, fake_time) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(500, json={"message": "oops"})

    client = make_client(handler, attempts=100, base_delay=10.0, max_delay=10.0, max_elapsed=25.0)
    with pytest.raises(Exception, match="HTTP 500"):
        await client.get_job("j1")
    assert sum(fake_time.sleeps) <= 25.0
    assert len(fake_time.sleeps) == 3  # 10 + 10 + 5 (the rest of the budget), then give up


@pytest.mark.parametrize("fault", [httpx.ReadTimeout, httpx.RemoteProtocolError, httpx.WriteError])
async def test_creating_post_is_not_repeated_after_it_was_sent(make_client, fault) -> None:
    seen = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        raise fault("lost", request=request)

    client = make_client(handler)
    with pytest.raises(OutcomeUnknown) as info:
        await client.create_job({"a": {"operation": "import/upload"}}, tag="row-17")
    assert len(seen) == 1
    assert "POST /v2/jobs: outcome unknown" in str(info.value)


async def test_5xx_on_creating_post_is_outcome_unknown(make_client) -> None:
    seen = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(502, text="Bad Gateway")

    client = make_client(handler)
    with pytest.raises(OutcomeUnknown, match="HTTP 502"):
        await client.convert("t-in", "pdf")
    assert len(seen) == 1


async def test_connect_failure_on_creating_post_is_repeated(make_client, fake_time) -> None:
    seen = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if len(seen) < 3:
            raise httpx.ConnectError("refused", request=request)
        return httpx.Response(201, json={"data": task_json(status="waiting")})

    client = make_client(handler)
    task = await client.import_url("https://example.invalid/a.png")
    assert task.status == "waiting"
    assert len(seen) == 3
    assert len(fake_time.sleeps) == 2


async def test_read_fault_on_get_is_repeated(make_client) -> None:
    seen = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if len(seen) == 1:
            raise httpx.ReadError("reset", request=request)
        return httpx.Response(200, json={"data": task_json()})

    client = make_client(handler)
    assert (await client.get_task("t1")).id == "t1"
    assert len(seen) == 2


async def test_sync_wait_reissues_after_dropped_connections(make_client) -> None:
    calls = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(request)
        if len(calls) == 1:
            raise httpx.ReadTimeout("no answer yet", request=request)
        if len(calls) == 2:
            raise httpx.RemoteProtocolError("peer closed", request=request)
        if len(calls) == 3:
            return httpx.Response(504, text="gateway timeout")
        return httpx.Response(200, json={"data": job_json()})

    client = make_client(handler)
    job = await client.wait_job("j1", max_wait=3600)
    assert job.status == "finished"
    assert len(calls) == 4
    assert all(str(c.url) == f"{SYNC}/v2/jobs/j1" for c in calls)
    assert calls[0].extensions["timeout"]["read"] == 300.0  # the long sync read timeout


async def test_sync_wait_stops_at_the_deadline(make_client, fake_time) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("refused", request=request)

    client = make_client(handler, base_delay=4.0, max_delay=4.0)
    with pytest.raises(WaitTimeout, match="task t9 did not end within 10 s"):
        await client.wait_task("t9", max_wait=10)
    assert sum(fake_time.sleeps) <= 10.0


async def test_sync_wait_asks_again_when_answered_before_the_end(make_client, fake_time) -> None:
    answers = [
        httpx.Response(200, json={"data": task_json(status="processing")}),
        httpx.Response(200, json={"data": task_json(status="error", code="X", message="bad")}),
    ]
    client = make_client(lambda r: answers.pop(0))
    task = await client.wait_task("t1", max_wait=100)
    assert (task.status, task.code) == ("error", "X")
    assert fake_time.sleeps == [1.0]


async def test_sync_wait_without_deadline_outlasts_read_timeouts(make_client) -> None:
    calls = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(request)
        if len(calls) <= 8:  # more than `attempts`: a read timeout is the normal end of one long wait
            raise httpx.ReadTimeout("still waiting", request=request)
        return httpx.Response(200, json={"data": job_json()})

    client = make_client(handler, attempts=3)
    assert (await client.wait_job("j1")).status == "finished"
    assert len(calls) == 9


async def test_sync_wait_without_deadline_gives_up_on_a_dead_host(make_client) -> None:
    calls = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(request)
        raise httpx.ConnectError("refused", request=request)

    client = make_client(handler, attempts=3)
    with pytest.raises(NetworkError, match="GET /sync/v2/jobs/j1: network error: ConnectError"):
        await client.wait_job("j1")
    assert len(calls) == 3
