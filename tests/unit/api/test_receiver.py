"""The webhook receiver hands signed job events to waiters and refuses tampered ones (loopback only)."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest

from mcv_pipelines.api import WaitTimeout
from mcv_pipelines.api.receiver import WebhookReceiver
from mcv_pipelines.api.webhooks import sign

SECRET = "whsec-receiver-test"


def _body(job_id: str = "j1", event: str = "job.finished") -> bytes:
    job = {"id": job_id, "status": "finished" if event == "job.finished" else "error", "tasks": []}
    return json.dumps({"event": event, "job": job}).encode()


async def _post(url: str, body: bytes, headers: dict[str, str]) -> httpx.Response:
    async with httpx.AsyncClient(trust_env=False) as http:
        return await http.post(url, content=body, headers={"Content-Type": "application/json", **headers})


@pytest.mark.parametrize("header", ["Service-Signature", "CloudConvert-Signature"])
async def test_signed_event_reaches_the_waiter(header: str) -> None:
    async with WebhookReceiver(secrets=[SECRET]) as receiver:
        waiter = asyncio.create_task(receiver.wait_for_job("j1", max_wait=10))
        await asyncio.sleep(0)
        body = _body()
        response = await _post(receiver.url, body, {header: sign(body, SECRET)})
        assert response.status_code == 200
        job = await waiter
    assert job.status == "finished"


async def test_event_before_the_wait_is_kept() -> None:
    async with WebhookReceiver(secrets=[SECRET]) as receiver:
        body = _body("j2", "job.failed")
        await _post(receiver.url, body, {"Service-Signature": sign(body, SECRET)})
        job = await receiver.wait_for_job("j2", max_wait=1)
    assert job.status == "error"


async def test_tampered_or_unsigned_event_is_refused() -> None:
    async with WebhookReceiver(secrets=[SECRET]) as receiver:
        body = _body("j3")
        signature = sign(body, SECRET)
        tampered = body.replace(b'"finished"', b'"error"')
        assert (await _post(receiver.url, tampered, {"Service-Signature": signature})).status_code == 401
        assert (await _post(receiver.url, body, {})).status_code == 401
        assert receiver.rejected == 2
        with pytest.raises(WaitTimeout):
            await receiver.wait_for_job("j3", max_wait=0.05)


async def test_other_paths_and_bad_bodies() -> None:
    async with WebhookReceiver() as receiver:
        async with httpx.AsyncClient(trust_env=False) as http:
            assert (await http.get(receiver.url)).status_code == 405
            assert (
                await http.post(receiver.url.replace("/webhook", "/other"), content=b"{}")
            ).status_code == 404
            assert (await http.post(receiver.url, content=b"not json")).status_code == 400
        created = json.dumps({"event": "job.created", "job": {"id": "j4", "status": "processing"}}).encode()
        assert (await _post(receiver.url, created, {})).status_code == 200
        assert [e.event for e in receiver.events] == ["job.created"]
