"""Errors, rate limits and injected faults as the real service produces them, seen through the client."""

from __future__ import annotations

import asyncio
import base64
import time
from pathlib import Path

import pytest
from client_helpers import Recording, client_for

from mcv_pipelines.api.client import ApiClient
from mcv_pipelines.api.errors import Forbidden, InvalidData, NotFound, OutcomeUnknown, Unauthorized
from mcv_pipelines.api.pacer import Pacer
from mcv_pipelines.service.engines.image.pillow import PillowEngine
from mcv_pipelines.service.server import LocalService

ASSETS = Path(__file__).resolve().parents[3] / "pipelines" / "assets"


def logo_job() -> dict[str, dict[str, object]]:
    png = base64.b64encode((ASSETS / "logo.png").read_bytes()).decode()
    return {
        "in": {"operation": "import/base64", "file": png, "filename": "logo.png"},
        "jpg": {"operation": "convert", "input": "in", "output_format": "jpg"},
        "out": {"operation": "export/url", "input": "jpg"},
    }


async def test_bad_key_is_unauthorized_and_never_shown(service: LocalService) -> None:
    async with client_for(service, api_key="not-the-key-0123456789") as api:
        with pytest.raises(Unauthorized) as caught:
            await api.me()
    assert caught.value.status == 401
    assert "not-the-key-0123456789" not in str(caught.value)


async def test_missing_scope_is_forbidden(tmp_path: Path) -> None:
    with LocalService(data_dir=tmp_path, scopes=["user.read", "task.read"], engines=[PillowEngine()]) as svc:
        async with client_for(svc) as api:
            assert (await api.me()).id
            with pytest.raises(Forbidden) as caught:
                await api.create_job(logo_job())
    assert caught.value.status == 403
    assert caught.value.method == "POST"
    assert caught.value.path == "/v2/jobs"


async def test_unknown_job_is_not_found(api: ApiClient) -> None:
    with pytest.raises(NotFound) as caught:
        await api.get_job("00000000-0000-0000-0000-000000000000")
    assert caught.value.status == 404


async def test_invalid_body_has_field_errors(api: ApiClient) -> None:
    with pytest.raises(InvalidData) as caught:
        await api.create_job(
            {"in": {"operation": "import/url"}, "c": {"operation": "convert", "input": "nowhere"}}
        )
    error = caught.value
    assert error.status == 422
    assert error.code == "INVALID_DATA"
    assert any(name.startswith("tasks.in") for name in error.field_errors), error.field_errors
    assert all(messages for messages in error.field_errors.values())
    assert "tasks.in" in str(error)


async def test_rate_limit_429_is_waited_out(tmp_path: Path) -> None:
    settings = {"rate_limit": 2, "rate_period": 2.0}  # two creations, then one a second
    with LocalService(data_dir=tmp_path, engines=[PillowEngine()], settings=settings) as svc:
        recording = Recording()
        # The pacer told the service's real window (2 s, not the public 60 s) spaces the rest sensibly.
        async with client_for(svc, transport=recording, pacer=Pacer(window=2.0)) as api:
            started = time.monotonic()
            tasks = await asyncio.gather(*(api.import_upload() for _ in range(4)))
            elapsed = time.monotonic() - started
    assert len({t.id for t in tasks}) == 4  # all four created, none twice
    statuses = [status for method, _, status in recording.seen if method == "POST"]
    assert statuses.count(429) >= 1, statuses
    assert statuses.count(201) == 4, statuses
    assert elapsed >= 1.0  # the Retry-After (1 s) was honoured


async def test_job_completes_through_injected_503s(tmp_path: Path) -> None:
    # seed 5: the creating POST passes, then a good share of the GETs answer 503 and are repeated.
    with LocalService(data_dir=tmp_path, engines=[PillowEngine()], faults="503=0.3,seed=5") as svc:
        recording = Recording()
        async with client_for(svc, transport=recording) as api:
            job = await api.create_job(logo_job(), tag="through-503")
            for _ in range(6):
                assert (await api.get_job(job.id)).id == job.id
            ended = await api.wait_job(job.id, max_wait=60)
            assert ended.status == "finished"
            assert [j.id async for j in api.list_jobs(tag="through-503")] == [job.id]
    assert any(status == 503 for _, _, status in recording.seen), recording.seen


async def test_lost_answer_to_a_create_is_outcome_unknown_and_reconciled_by_tag(tmp_path: Path) -> None:
    with LocalService(data_dir=tmp_path, engines=[PillowEngine()], faults="drop_after=1") as svc:
        async with client_for(svc) as api:
            with pytest.raises(OutcomeUnknown):
                await api.create_job(logo_job(), tag="lost-answer")
            found = [j async for j in api.list_jobs(tag="lost-answer")]
    assert len(found) == 1  # carried out once by the service, and not sent again by the client
