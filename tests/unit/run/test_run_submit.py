"""Submitting: one job per run, a lost answer reconciled by the run's tag before anything else."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from mcv_pipelines.api import ApiClient, RetryPolicy, Settings
from mcv_pipelines.errors import ServiceTrouble
from mcv_pipelines.pipeline.model import RenderedPipeline
from mcv_pipelines.run.events import NullEvents
from mcv_pipelines.run.submit import find_job_by_tag, job_tag, submit_job

BASE = "http://svc.test"


async def _no_sleep(seconds: float) -> None:
    return None


def _client(handler: Callable[[httpx.Request], httpx.Response]) -> ApiClient:
    settings = Settings.build(api_key="sk-unit-run-submit-0001", base_url=BASE)
    return ApiClient(settings, transport=httpx.MockTransport(handler), retry=RetryPolicy(sleep=_no_sleep))


def _pipeline(tag: str | None = "photos", name: str | None = "demo") -> RenderedPipeline:
    job: dict[str, Any] = {"tag": tag} if tag else {}
    return RenderedPipeline(path="/x/recipe.yaml", name=name, tasks={}, job=job)


def _job(job_id: str, tag: str) -> dict[str, Any]:
    return {"id": job_id, "status": "processing", "tag": tag, "tasks": []}


def test_tag_is_findable_and_unique_per_run() -> None:
    assert job_tag(_pipeline(), "abc") == "photos~abc"
    assert job_tag(_pipeline(tag=None), "abc") == "demo~abc"
    assert job_tag(_pipeline(tag=None, name=None), "abc") == "recipe~abc"


class Service:
    """A mock service: POST /v2/jobs answers per ``posts`` ('lose-after', 'lose-before', 'ok')."""

    def __init__(self, posts: list[str]) -> None:
        self.posts = posts
        self.jobs: list[dict[str, Any]] = []
        self.log: list[str] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        if request.method == "POST":
            self.log.append("POST")
            what = self.posts.pop(0)
            body = json.loads(request.content)
            if what != "lose-before":
                self.jobs.append(_job(f"job-{len(self.jobs) + 1}", body["tag"]))
            if what.startswith("lose"):
                raise httpx.ReadError("connection reset")
            return httpx.Response(201, json={"data": self.jobs[-1]})
        if request.url.path == "/v2/jobs":
            self.log.append("LIST")
            tag = request.url.params.get("filter[tag]")
            return httpx.Response(200, json={"data": [j for j in self.jobs if j["tag"] == tag], "links": {}})
        self.log.append("GET")
        job_id = request.url.path.rsplit("/", 1)[-1]
        return httpx.Response(200, json={"data": next(j for j in self.jobs if j["id"] == job_id)})


async def test_lost_answer_finds_the_created_job() -> None:
    service = Service(["lose-after"])
    async with _client(service) as client:
        job = await submit_job(client, _pipeline(), "photos~r1", NullEvents())
    assert job.id == "job-1"
    assert service.log == ["POST", "LIST", "GET"]
    assert len(service.jobs) == 1


async def test_job_absent_after_two_looks_is_sent_again() -> None:
    service = Service(["lose-before", "ok"])
    async with _client(service) as client:
        job = await submit_job(client, _pipeline(), "photos~r2", NullEvents())
    assert service.log == ["POST", "LIST", "LIST", "POST"]
    assert job.id == "job-1"
    assert len(service.jobs) == 1


async def test_gives_up_with_an_honest_message() -> None:
    service = Service(["lose-before"] * 3)
    async with _client(service) as client:
        with pytest.raises(ServiceTrouble, match="no job tagged 'photos~r3' exists"):
            await submit_job(client, _pipeline(), "photos~r3", NullEvents())
    assert service.log.count("POST") == 3
    assert service.jobs == []


async def test_find_job_by_tag_matches_exactly() -> None:
    service = Service([])
    service.jobs = [_job("a", "photos~r1x"), _job("b", "photos~r1")]
    async with _client(service) as client:
        found = await find_job_by_tag(client, "photos~r1")
        missing = await find_job_by_tag(client, "photos~zz")
    assert found is not None
    assert found.id == "b"
    assert missing is None


async def test_body_replaces_the_tag_and_keeps_job_keys() -> None:
    seen: list[dict[str, Any]] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(json.loads(request.content))
        return httpx.Response(201, json={"data": _job("j", seen[-1]["tag"])})

    pipeline = RenderedPipeline(path="p.yaml", name="n", tasks={}, job={"tag": "t", "ignore_error": False})
    async with _client(handler) as client:
        await submit_job(client, pipeline, "t~1", NullEvents(), ignore_error=True, webhook_url="http://h/w")
    assert seen[0]["tag"] == "t~1"
    assert seen[0]["ignore_error"] is True
    assert seen[0]["webhook_url"] == "http://h/w"
