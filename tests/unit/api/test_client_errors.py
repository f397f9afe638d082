"""Each error status becomes its own class with the body's details; bad bodies name the endpoint."""

from __future__ import annotations

import httpx
import pytest
from apifakes import API_KEY, job_json

from mcv_pipelines.api import (
    ApiError,
    BadResponse,
    Forbidden,
    InvalidData,
    NotFound,
    PaymentRequired,
    RateLimited,
    ServerError,
    Unauthorized,
)
from mcv_pipelines.errors import ExitCode, ServiceTrouble


@pytest.mark.parametrize(
    ("status", "cls", "code"),
    [
        (400, ApiError, "BAD_REQUEST"),
        (401, Unauthorized, "UNAUTHENTICATED"),
        (402, PaymentRequired, "CREDITS_EXCEEDED"),
        (402, PaymentRequired, "PARALLEL_JOB_LIMIT_EXCEEDED"),
        (403, Forbidden, "FORBIDDEN"),
        (404, NotFound, "NOT_FOUND"),
    ],
)
async def test_error_status_becomes_its_class(make_client, status, cls, code) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(
            status, json={"message": "Nope.", "code": code}, headers={"X-Request-Id": "rq-7"}
        )

    client = make_client(handler)
    with pytest.raises(cls) as info:
        await client.get_job("abc")
    err = info.value
    assert type(err) is cls
    assert isinstance(err, ServiceTrouble)
    assert (err.status, err.code, err.detail) == (status, code, "Nope.")
    assert (err.method, err.path, err.request_id) == ("GET", "/v2/jobs/abc", "rq-7")
    assert f"GET /v2/jobs/abc: HTTP {status} {code}: Nope." in str(err)
    assert err.exit_code == ExitCode.SERVICE


async def test_422_carries_field_errors_and_exit_code_2(make_client) -> None:
    body = {
        "message": "The given data was invalid.",
        "code": "INVALID_DATA",
        "errors": {"tasks.a.operation": ["The operation is unknown."], "tag": "too long"},
    }
    client = make_client(lambda r: httpx.Response(422, json=body))
    with pytest.raises(InvalidData) as info:
        await client.create_job({"a": {"operation": "nope"}})
    err = info.value
    assert err.field_errors == {"tasks.a.operation": ("The operation is unknown.",), "tag": ("too long",)}
    assert "tasks.a.operation: The operation is unknown." in str(err)
    assert err.exit_code == ExitCode.INVALID


async def test_5xx_on_get_is_repeated_then_raised(make_client, fake_time) -> None:
    seen = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(503, json={"message": "busy", "code": "UNAVAILABLE"})

    client = make_client(handler, attempts=4)
    with pytest.raises(ServerError) as info:
        await client.get_task("t1")
    assert info.value.status == 503
    assert len(seen) == 4
    assert len(fake_time.sleeps) == 3


async def test_429_exhausted_raises_rate_limited(make_client) -> None:
    client = make_client(
        lambda r: httpx.Response(
            429, json={"message": "slow down", "code": "TOO_MANY_REQUESTS"}, headers={"Retry-After": "1"}
        ),
        rate_limited_attempts=3,
    )
    with pytest.raises(RateLimited) as info:
        await client.me()
    assert info.value.retry_after == 1.0


@pytest.mark.parametrize(
    ("response", "reason"),
    [
        (
            httpx.Response(
                200, text="<html><body>502 Bad Gateway</body></html>", headers={"Content-Type": "text/html"}
            ),
            "text/html",
        ),
        (
            httpx.Response(
                200, text='{"data": {"id": "j1", "sta', headers={"Content-Type": "application/json"}
            ),
            "truncated",
        ),
        (httpx.Response(200, json={"result": "ok"}), "no 'data'"),
        (httpx.Response(200, json={"data": {"status": "finished"}}), "'id'"),
        (httpx.Response(200, json=[1, 2]), "no 'data'"),
        (httpx.Response(200, content=b"\xff\xfe\x00garbage"), "untyped body, not JSON"),
        (httpx.Response(200, text=""), "empty body"),
    ],
)
async def test_unusable_answers_are_bad_response_naming_the_endpoint(make_client, response, reason) -> None:
    client = make_client(lambda r: response)
    with pytest.raises(BadResponse) as info:
        await client.get_job("j-42")
    assert "GET /v2/jobs/j-42" in str(info.value)
    assert reason in str(info.value)


async def test_list_without_data_list_is_bad_response(make_client) -> None:
    client = make_client(lambda r: httpx.Response(200, json={"data": {"oops": 1}, "links": {}}))
    with pytest.raises(BadResponse, match=r"GET /v2/tasks.*no 'data' list"):
        [t async for t in client.list_tasks()]


async def test_html_error_page_from_a_proxy_is_described(make_client) -> None:
    page = "<!DOCTYPE html><html><title>404 Not Found</title></html>"
    client = make_client(lambda r: httpx.Response(404, text=page, headers={"Content-Type": "text/html"}))
    with pytest.raises(NotFound, match=r"GET /v2/jobs/x: HTTP 404: text/html body, not JSON"):
        await client.get_job("x")


async def test_204_parses_to_none(make_client) -> None:
    seen = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append((request.method, request.url.path))
        return httpx.Response(204)

    client = make_client(handler)
    assert await client.delete_job("j1") is None
    assert await client.delete_task("t1") is None
    assert await client.delete_webhook(7) is None
    assert seen == [("DELETE", "/v2/jobs/j1"), ("DELETE", "/v2/tasks/t1"), ("DELETE", "/v2/webhooks/7")]


async def test_key_is_sent_but_never_in_errors(make_client) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        assert request.headers["Authorization"] == f"Bearer {API_KEY}"
        # a careless service echoing the key back must not leak it either
        return httpx.Response(401, json={"message": f"bad key {API_KEY}", "code": "UNAUTHENTICATED"})

    client = make_client(handler)
    with pytest.raises(Unauthorized) as info:
        await client.me()
    assert API_KEY not in str(info.value)
    assert API_KEY not in repr(info.value)
    assert API_KEY not in repr(client)


async def test_job_round_trip_parses_models(make_client) -> None:
    client = make_client(lambda r: httpx.Response(200, json={"data": job_json(extra_field=1)}))
    job = await client.get_job("j1", include=["tasks"])
    assert job.id == "j1"
    assert job.tasks[0].name == "a"
    assert job.tasks[0].created_at is not None
    assert job.tasks[0].created_at.tzinfo is not None


async def test_huge_answer_is_bad_response(make_client, monkeypatch) -> None:
    import mcv_pipelines.api.http as http_module

    monkeypatch.setattr(http_module, "MAX_BODY_BYTES", 1000)
    client = make_client(lambda r: httpx.Response(200, json={"data": [{"id": "x" * 2000}]}))
    with pytest.raises(BadResponse, match=r"GET /v2/tasks.*larger than 1000 bytes"):
        [t async for t in client.list_tasks()]


async def test_undecodable_compressed_body_is_bad_response(make_client) -> None:
    client = make_client(
        lambda r: httpx.Response(200, content=b"not gzip at all", headers={"Content-Encoding": "gzip"})
    )
    with pytest.raises(BadResponse, match=r"GET /v2/users/me.*DecodingError"):
        await client.me()
