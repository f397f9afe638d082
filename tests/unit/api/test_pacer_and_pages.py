"""The shared pacer spreads requests by the rate-limit budget; lists follow links.next over pages."""

from __future__ import annotations

import asyncio

import httpx
import pytest
from apifakes import BASE, FakeTime, task_json

from mcv_pipelines.api import BadResponse, Pacer


async def test_pacer_sends_at_once_while_budget_is_plenty() -> None:
    time = FakeTime()
    pacer = Pacer(clock=time.clock, sleep=time.sleep)
    pacer.observe({"X-RateLimit-Limit": "500", "X-RateLimit-Remaining": "400"})
    for _ in range(10):
        await pacer.acquire()
    assert time.sleeps == []


async def test_pacer_spreads_concurrent_callers_when_budget_is_low() -> None:
    time = FakeTime()
    pacer = Pacer(window=60.0, reserve=0.2, max_spacing=5.0, clock=time.clock, sleep=time.sleep)
    pacer.observe({"x-ratelimit-limit": "100", "x-ratelimit-remaining": "12"})
    await asyncio.gather(*(pacer.acquire() for _ in range(5)))
    # 60 s / 12 remaining = 5 s apart: the callers go one after another, not all at once
    assert time.sleeps == [5.0, 5.0, 5.0, 5.0]
    assert pacer.last is not None
    assert pacer.last.remaining == 12


async def test_retry_after_holds_back_every_caller() -> None:
    time = FakeTime()
    pacer = Pacer(clock=time.clock, sleep=time.sleep)
    pacer.observe({}, retry_after=30.0)
    waited = await asyncio.gather(*(pacer.acquire() for _ in range(3)))
    assert waited[0] == 30.0
    assert time.now == 1030.0


async def test_pagination_follows_next_links(make_client) -> None:
    requests: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        requests.append(str(request.url))
        page = int(request.url.params.get("page", "1"))
        next_url = f"{BASE}/v2/tasks?filter%5Bjob_id%5D=j1&page={page + 1}" if page < 3 else None
        items = [task_json(f"t{page}-{i}") for i in range(2)]
        return httpx.Response(
            200,
            json={"data": items, "links": {"next": next_url, "last": None}, "meta": {"current_page": page}},
        )

    client = make_client(handler)
    ids = [t.id async for t in client.list_tasks(job_id="j1", include=["payload"], per_page=2)]
    assert ids == ["t1-0", "t1-1", "t2-0", "t2-1", "t3-0", "t3-1"]
    assert len(requests) == 3
    first = httpx.URL(requests[0])
    assert first.params["filter[job_id]"] == "j1"
    assert first.params["include"] == "payload"
    assert first.params["per_page"] == "2"


async def test_pagination_that_loops_is_stopped(make_client) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json={"data": [], "links": {"next": f"{BASE}/v2/jobs?page=2"}})

    client = make_client(handler)
    with pytest.raises(BadResponse, match="circle"):
        [j async for j in client.list_jobs(tag="x")]


async def test_list_jobs_filters_by_tag_and_status(make_client) -> None:
    seen: list[httpx.URL] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.url)
        return httpx.Response(
            200, json={"data": [{"id": "j1", "status": "finished", "tag": "row-1"}], "links": {"next": None}}
        )

    client = make_client(handler)
    jobs = [j async for j in client.list_jobs(tag="row-1", status="finished")]
    assert [j.tag for j in jobs] == ["row-1"]
    assert seen[0].params["filter[tag]"] == "row-1"
    assert seen[0].params["filter[status]"] == "finished"


async def test_operations_listing_reads_every_page_with_options(make_client) -> None:
    seen: list[httpx.URL] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.url)
        op = {
            "operation": "convert",
            "input_format": "jpg",
            "output_format": "webp",
            "engine": "pillow",
            "credits": 1,
            "options": [
                {"name": "quality", "type": "integer", "default": 80},
                {"name": "fit", "type": "enum", "possible_values": ["max", "crop"]},
            ],
            "engine_versions": [{"version": "10.0", "default": True, "latest": True}],
            "meta": {"group": "image"},
            "brand_new_field": 1,
        }
        nxt = f"{BASE}/v2/operations?page=2" if "page" not in request.url.params else None
        return httpx.Response(200, json={"data": [op], "links": {"next": nxt}})

    client = make_client(handler)
    ops = await client.list_operations(operation="convert", alternatives=True)
    assert len(ops) == 2
    assert seen[0].params["include"] == "options,engine_versions"
    assert seen[0].params["alternatives"] == "true"
    assert seen[0].params["filter[operation]"] == "convert"
    assert ops[0].options[1].possible_values == ("max", "crop")
    assert ops[0].engine_versions[0].default is True
    formats = await client.convert_formats(input_format="jpg")
    assert formats[0].output_format == "webp"
    assert seen[2].path == "/v2/convert/formats"


async def test_concurrent_job_creation_is_spread_by_the_shared_pacer(make_client, fake_time) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(
            201,
            json={"data": {"id": "j", "status": "waiting"}},
            headers={"X-RateLimit-Limit": "100", "X-RateLimit-Remaining": "3"},
        )

    client = make_client(handler)
    await client.create_job({"a": {"operation": "import/upload"}})  # learns the budget
    await asyncio.gather(*(client.create_job({"a": {"operation": "import/upload"}}) for _ in range(3)))
    assert len(fake_time.sleeps) >= 2  # the later callers waited their turn instead of racing into 429
    assert client.last_rate_limit is not None
    assert client.last_rate_limit.remaining == 3
