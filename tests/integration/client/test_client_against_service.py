"""The client's whole round trip against the real local service: jobs, tasks, files, webhooks, account."""

from __future__ import annotations

import asyncio
import base64
from pathlib import Path

import pytest
from PIL import Image

from mcv_pipelines.api.client import ApiClient
from mcv_pipelines.api.errors import NotFound

ASSETS = Path(__file__).resolve().parents[3] / "pipelines" / "assets"


async def test_upload_convert_export_wait_download(api: ApiClient, tmp_path: Path) -> None:
    job = await api.create_job(
        {
            "upload": {"operation": "import/upload"},
            "webp": {"operation": "convert", "input": "upload", "output_format": "webp", "width": 100},
            "export": {"operation": "export/url", "input": "webp"},
        },
        tag="client-roundtrip",
    )
    assert job.status in ("waiting", "processing")
    upload_task = next(t for t in job.tasks if t.name == "upload")
    assert await api.upload_file(upload_task, ASSETS / "photo.jpg") in (200, 201, 204)
    ended = await api.wait_job(job.id, max_wait=60)
    assert ended.status == "finished"
    export = next(t for t in ended.tasks if t.name == "export")
    assert export.result is not None
    [file] = export.result.files
    path = await api.download_file(file, tmp_path)
    assert path.name == "photo.webp"
    with Image.open(path) as image:
        assert (image.format, image.size) == ("WEBP", (100, 75))
    found = [j.id async for j in api.list_jobs(tag="client-roundtrip")]
    assert found == [job.id]
    assert [j.id async for j in api.list_jobs(tag="some-other-tag")] == []


async def test_task_list_pages_follow_next(api: ApiClient) -> None:
    png = base64.b64encode((ASSETS / "logo.png").read_bytes()).decode()
    tasks = {f"in{i}": {"operation": "import/base64", "file": png, "filename": f"l{i}.png"} for i in range(5)}
    job = await api.create_job(tasks)
    await api.wait_job(job.id, max_wait=60)
    listed = [t async for t in api.list_tasks(job_id=job.id, per_page=2)]
    assert sorted(t.name or "" for t in listed) == sorted(tasks)
    assert len({t.id for t in listed}) == 5


async def test_cancel_retry_and_delete(api: ApiClient) -> None:
    waiting = await api.import_upload()  # waits for a file that never comes
    cancelled = await api.cancel_task(waiting.id)
    assert cancelled.status == "error"
    assert cancelled.code == "CANCELLED"
    retried = await api.retry_task(waiting.id)
    assert retried.id != waiting.id
    assert retried.retry_of_task_id == waiting.id
    assert retried.status in ("waiting", "processing")
    await api.cancel_task(retried.id)
    await api.delete_task(waiting.id)
    with pytest.raises(NotFound):
        await api.get_task(waiting.id)
    job = await api.create_job({"in": {"operation": "import/url", "url": "http://127.0.0.1:9/none"}})
    await api.wait_job(job.id, max_wait=60)
    await api.delete_job(job.id)
    with pytest.raises(NotFound):
        await api.get_job(job.id)


async def test_webhooks_create_list_delete(api: ApiClient) -> None:
    hook = await api.create_webhook("http://127.0.0.1:9/hook", ["job.finished", "job.failed"])
    assert hook.signing_secret
    assert set(hook.events) == {"job.finished", "job.failed"}
    listed = [w async for w in api.list_webhooks()]
    assert [w.id for w in listed] == [hook.id]
    await api.delete_webhook(hook.id)
    assert [w async for w in api.list_webhooks()] == []


async def test_credits_decrease_with_use(api: ApiClient) -> None:
    before = (await api.me()).credits
    assert before is not None
    png = base64.b64encode((ASSETS / "logo.png").read_bytes()).decode()
    job = await api.create_job(
        {
            "in": {"operation": "import/base64", "file": png, "filename": "logo.png"},
            "jpg": {"operation": "convert", "input": "in", "output_format": "jpg"},
        }
    )
    ended = await api.wait_job(job.id, max_wait=60)
    spent = sum(t.credits or 0 for t in ended.tasks)
    assert spent > 0
    assert (await api.me()).credits == before - spent


async def test_operations_listing_with_include_and_alternatives(api: ApiClient) -> None:
    plain = await api.list_operations(operation="convert", input_format="png", output_format="jpg")
    assert [(op.engine, op.input_format, op.output_format) for op in plain] == [("pillow", "png", "jpg")]
    [op] = plain
    assert {o.name for o in op.options} >= {"width", "height", "fit"}
    assert op.engine_versions
    assert op.engine_versions[0].version
    bare = await api.list_operations(operation="merge", include=())
    assert bare
    assert all(not op.options for op in bare)
    every = await api.list_operations(alternatives=True)
    assert len(every) >= len(await api.list_operations())
    assert {op.operation for op in every} >= {"convert", "thumbnail", "merge", "archive", "watermark"}


async def test_concurrent_callers_share_one_client(api: ApiClient) -> None:
    jobs = await asyncio.gather(
        *(api.create_job({"u": {"operation": "import/upload"}}, tag="many") for _ in range(8))
    )
    assert len({j.id for j in jobs}) == 8
    assert len([j async for j in api.list_jobs(tag="many", per_page=3)]) == 8
