"""The official Python SDK, unchanged, against the local service (endpoint and sync_endpoint)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import cloudconvert
import pytest

from mcv_pipelines.service.server import LocalService


@pytest.fixture
def sdk(service: LocalService) -> Iterator[None]:
    cloudconvert.configure(
        api_key=service.api_key, sandbox=False, endpoint=service.base_url, sync_endpoint=service.sync_url
    )
    yield
    cloudconvert.configure(api_key="", sandbox=False)


@pytest.mark.usefixtures("sdk")
def test_sdk_uploads_waits_and_downloads_the_converted_file(tmp_path: Path) -> None:
    source = tmp_path / "notes.txt"
    source.write_text("converted by the local service")
    job = cloudconvert.Job.create(
        payload={
            "tag": "sdk",
            "tasks": {
                "upload-it": {"operation": "import/upload"},
                "to-md": {"operation": "convert", "input": "upload-it", "output_format": "md", "upper": True},
                "export-it": {"operation": "export/url", "input": "to-md"},
            },
        }
    )
    upload_task = next(t for t in job["tasks"] if t["name"] == "upload-it")
    assert cloudconvert.Task.upload(file_name=str(source), task=upload_task) is True

    done = cloudconvert.Job.wait(id=job["id"])
    assert done["status"] == "finished"
    export = next(t for t in done["tasks"] if t["name"] == "export-it")
    file = export["result"]["files"][0]
    target = tmp_path / file["filename"]
    assert cloudconvert.download(filename=str(target), url=file["url"]) == str(target)
    assert target.read_text() == "CONVERTED BY THE LOCAL SERVICE"

    task = cloudconvert.Task.wait(id=export["id"])
    assert task["status"] == "finished"
    assert cloudconvert.Task.find(id=export["id"])["operation"] == "export/url"
    assert [j["id"] for j in cloudconvert.Job.all({"filter[tag]": "sdk"})] == [job["id"]]
    assert cloudconvert.Job.delete(job["id"]) is True
    assert cloudconvert.Task.find(id=export["id"]).get("code") == "NOT_FOUND"
