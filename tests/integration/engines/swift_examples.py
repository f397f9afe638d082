"""pipelines/swift-thumbnails.yaml run on the local service against a real Swift (tests/swift_server.py)
and the test's own Keystone token answer: kept apart from test_example_pipelines_on_service.py, which
calls it, so each storage kind's example keeps its servers to itself."""

from __future__ import annotations

import io
import secrets
import socket
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
from engine_job_helpers import ASSETS
from PIL import Image

from keystone_stub import REGION, KeystoneStub
from mcv_pipelines.api.models import Job
from mcv_pipelines.service.server import LocalService
from swift_server import SwiftServer

__all__ = ["swift_thumbnails"]

RunExample = Callable[..., Awaitable[tuple[Job, Any]]]


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def swift_thumbnails(
    run_example: RunExample, service: LocalService, swift: SwiftServer, values: dict[str, Any], tmp_path: Path
) -> None:
    """Every image under the prefix becomes a png thumbnail under the other one; a decoy beside the
    prefix stays where it is."""
    container = f"media-{secrets.token_hex(4)}"
    account = swift.account_url("demo")
    async with httpx.AsyncClient(trust_env=False) as client:
        assert (await client.put(f"{account}/{container}")).status_code == 201
        for name, asset in (
            ("incoming/photo.jpg", "photo.jpg"),
            ("incoming/logo.png", "logo.png"),
            ("decoy.png", "logo.png"),
        ):
            stored = await client.put(f"{account}/{container}/{name}", content=(ASSETS / asset).read_bytes())
            assert stored.status_code == 201
    with KeystoneStub(swift.account_url, _closed_port()) as keystone:
        values.update(
            auth_url=keystone.url, username=keystone.username, region=REGION, container=container, size=32
        )
        environ = {"OS_PASSWORD": keystone.password}
        job, _ = await run_example(service, "swift-thumbnails", values, tmp_path, environ)
    assert job.status == "finished", [(t.name, t.code, t.message) for t in job.tasks if t.status == "error"]
    store = next(t for t in job.tasks if t.name == "store")
    assert store.result is not None
    async with httpx.AsyncClient(trust_env=False) as client:
        listed = (await client.get(f"{account}/{container}", params={"format": "json"})).json()
        thumbs = [
            await client.get(f"{account}/{container}/thumbnails/{n}") for n in ("logo.png", "photo.png")
        ]
    assert sorted(item["name"] for item in listed) == [
        "decoy.png",
        "incoming/logo.png",
        "incoming/photo.jpg",
        "thumbnails/logo.png",
        "thumbnails/photo.png",
    ]
    for thumb in thumbs:
        assert thumb.headers["Content-Type"] == "image/png"
        with Image.open(io.BytesIO(thumb.content)) as image:
            assert (image.format, image.size) == ("PNG", (32, 32))
