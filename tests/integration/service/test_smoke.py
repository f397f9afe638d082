from __future__ import annotations

import httpx
from service_helpers import task_named, upload, wait_job


def test_upload_convert_export_round_trip(client: httpx.Client) -> None:
    created = client.post(
        "/v2/jobs",
        json={
            "tag": "t1",
            "tasks": {
                "in": {"operation": "import/upload"},
                "md": {"operation": "convert", "input": "in", "output_format": "md", "upper": True},
                "out": {"operation": "export/url", "input": "md"},
            },
        },
    )
    assert created.status_code == 201, created.text
    job = created.json()["data"]
    assert job["status"] == "processing"
    form = task_named(job, "in")["result"]["form"]
    assert task_named(job, "in")["message"] == "Waiting for upload"
    answer = upload(form, b"hello")
    assert answer.status_code == 201, answer.text
    done = wait_job(client, job["id"])
    assert done["status"] == "finished", done
    files = task_named(done, "out")["result"]["files"]
    assert files[0]["filename"] == "in.md"
    got = httpx.get(files[0]["url"])
    assert got.content == b"HELLO"
    assert "attachment" in got.headers["content-disposition"]
