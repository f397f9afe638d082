"""Imports (url, base64, raw, cloud storage), upload forms and download links."""

from __future__ import annotations

import base64
import hashlib
import io
import time
import zipfile
from pathlib import Path
from typing import Any

import httpx
import pytest
from service_helpers import Receiver, task_named, upload, wait_job

from mcv_pipelines.service.server import LocalService
from mcv_pipelines.service.work.embedded import AT_CREATION_LIMIT


def run(client: httpx.Client, tasks: dict[str, Any]) -> dict[str, Any]:
    created = client.post("/v2/jobs", json={"tasks": tasks})
    assert created.status_code == 201, created.text
    return wait_job(client, created.json()["data"]["id"])


def export_of(client: httpx.Client, source: dict[str, Any], **options: Any) -> dict[str, Any]:
    return task_named(
        run(client, {"in": source, "out": {"operation": "export/url", "input": "in", **options}}), "out"
    )


def test_import_url_from_loopback_sends_headers(client: httpx.Client) -> None:
    with Receiver() as origin:
        origin.files["/dir/photo.txt"] = b"remote bytes"
        done = run(
            client,
            {
                "in": {
                    "operation": "import/url",
                    "url": f"{origin.url}/dir/photo.txt?x=1",
                    "headers": {"X-Token": "abc"},
                }
            },
        )
        assert origin.requests[0][2]["X-Token"] == "abc"
    imported = task_named(done, "in")
    assert imported["status"] == "finished"
    assert imported["result"]["files"][0]["filename"] == "photo.txt"
    assert imported["result"]["files"][0]["md5"] == hashlib.md5(b"remote bytes").hexdigest()  # noqa: S324 - the API reports md5


def test_import_url_failure_is_a_task_error_without_the_headers(client: httpx.Client) -> None:
    with Receiver() as origin:
        done = run(
            client,
            {
                "in": {
                    "operation": "import/url",
                    "url": f"{origin.url}/missing.txt",
                    "headers": {"Authorization": "Bearer secret-token"},
                }
            },
        )
    failed = task_named(done, "in")
    assert failed["status"] == "error"
    assert failed["code"] == "IMPORT_FAILED"
    assert "404" in failed["message"]
    shown = client.get(f"/v2/tasks/{failed['id']}", params={"include": "payload"}).json()["data"]
    assert "headers" not in shown["payload"]  # credentials are hidden in answers


def test_import_base64_and_raw(client: httpx.Client) -> None:
    done = run(
        client,
        {
            "b": {
                "operation": "import/base64",
                "file": base64.b64encode(b"\x00\x01bin").decode(),
                "filename": "x.bin",
            },
            "r": {"operation": "import/raw", "file": "plain", "filename": "y.txt"},
            "bad": {"operation": "import/base64", "file": "not=base64", "filename": "z.bin"},
        },
    )
    assert task_named(done, "b")["result"]["files"][0]["size"] == 5
    assert task_named(done, "r")["result"]["files"][0]["filename"] == "y.txt"
    assert task_named(done, "bad")["code"] == "INVALID_BASE64"


def test_embedded_files_are_imported_by_the_jobs_creation(client: httpx.Client) -> None:
    """import/base64 and import/raw end in the creating request: the answer shows them finished with
    their file (or failed), and the tasks that use them go on from there."""
    data = b"\x00\x01embedded"
    created = client.post("/v2/jobs", json={"tasks": {
        "b": {"operation": "import/base64", "file": base64.b64encode(data).decode(), "filename": "e.bin"},
        "bad": {"operation": "import/base64", "file": "not=base64", "filename": "z.bin"},
        "out": {"operation": "export/url", "input": ["b"]},
        "lost": {"operation": "export/url", "input": ["bad"]},
    }})
    assert created.status_code == 201, created.text
    answer = created.json()["data"]
    born = task_named(answer, "b")
    assert born["status"] == "finished"
    assert born["result"]["files"] == [{"filename": "e.bin", "size": len(data),
                                        "md5": hashlib.md5(data).hexdigest()}]  # noqa: S324 - the API reports md5
    assert task_named(answer, "bad")["status"] == "error"
    assert task_named(answer, "bad")["code"] == "INVALID_BASE64"
    done = wait_job(client, answer["id"])
    assert done["status"] == "error"
    assert task_named(done, "lost")["code"] == "INPUT_TASK_FAILED"
    url = task_named(done, "out")["result"]["files"][0]["url"]
    assert httpx.get(url).content == data
    # A job of embedded files alone has nothing left to run: it has ended when it is created.
    only = client.post("/v2/jobs", json={"tasks": {"r": {"operation": "import/raw", "file": "x",
                                                         "filename": "x.txt"}}})
    assert only.json()["data"]["status"] == "finished"
    assert client.get(f"/v2/jobs/{only.json()['data']['id']}").json()["data"]["status"] == "finished"


def test_an_embedded_file_over_the_creation_limit_is_imported_by_a_worker(client: httpx.Client) -> None:
    data = bytes(range(256)) * (AT_CREATION_LIMIT // 256 + 1)
    created = client.post("/v2/jobs", json={"tasks": {
        "b": {"operation": "import/base64", "file": base64.b64encode(data).decode(), "filename": "big.bin"},
    }})
    assert created.status_code == 201, created.text
    assert task_named(created.json()["data"], "b")["status"] in ("waiting", "processing")
    done = wait_job(client, created.json()["data"]["id"])
    assert task_named(done, "b")["result"]["files"][0]["size"] == len(data)


def test_download_link_headers_range_and_inline(client: httpx.Client) -> None:
    out = export_of(client, {"operation": "import/raw", "file": "0123456789", "filename": "digits.txt"})
    file = out["result"]["files"][0]
    assert (file["filename"], file["size"]) == ("digits.txt", 10)
    whole = httpx.get(file["url"])
    assert whole.headers["content-length"] == "10"
    assert whole.headers["content-disposition"].startswith("attachment")
    assert 'filename="digits.txt"' in whole.headers["content-disposition"]
    part = httpx.get(file["url"], headers={"Range": "bytes=2-5"})
    assert part.status_code == 206
    assert part.content == b"2345"
    inline = export_of(client, {"operation": "import/raw", "file": "i", "filename": "i.txt"}, inline=True)
    assert httpx.get(inline["result"]["files"][0]["url"]).headers["content-disposition"].startswith("inline")


def test_download_link_signature_is_checked(client: httpx.Client) -> None:
    url = export_of(client, {"operation": "import/raw", "file": "x", "filename": "a.txt"})["result"]["files"][
        0
    ]["url"]
    tampered = url.replace("a.txt", "b.txt")
    answer = httpx.get(tampered)
    assert answer.status_code == 403
    assert answer.json()["code"] == "INVALID_SIGNATURE"
    assert httpx.get(url.replace("signature=", "signature=0")).status_code == 403


def test_expired_download_link(tmp_path: Path) -> None:
    from service_helpers import TextEngine

    with (
        LocalService(data_dir=tmp_path, engines=[TextEngine()], settings={"link_ttl": -1}) as svc,
        httpx.Client(base_url=svc.base_url, headers={"Authorization": f"Bearer {svc.api_key}"}) as client,
    ):
        url = export_of(client, {"operation": "import/raw", "file": "x", "filename": "a.txt"})["result"][
            "files"
        ][0]["url"]
        answer = httpx.get(url)
        assert answer.status_code == 403
        assert answer.json()["code"] == "LINK_EXPIRED"


def test_archive_multiple_files_zips_them(client: httpx.Client) -> None:
    done = run(
        client,
        {
            "a": {"operation": "import/raw", "file": "A", "filename": "a.txt"},
            "b": {"operation": "import/raw", "file": "B", "filename": "b.txt"},
            "out": {"operation": "export/url", "input": ["a", "b"], "archive_multiple_files": True},
        },
    )
    files = task_named(done, "out")["result"]["files"]
    assert len(files) == 1
    archive = zipfile.ZipFile(io.BytesIO(httpx.get(files[0]["url"]).content))
    assert sorted(archive.namelist()) == ["a.txt", "b.txt"]
    assert archive.read("b.txt") == b"B"


def test_upload_form_rejects_a_bad_signature_and_too_large_files(client: httpx.Client) -> None:
    form = client.post("/v2/import/upload", json={}).json()["data"]["result"]["form"]
    forged = {**form, "parameters": {**form["parameters"], "max_file_size": 10**12}}
    answer = upload(forged, b"x")
    assert answer.status_code == 403
    assert answer.json()["code"] == "INVALID_SIGNATURE"
    small = client.post("/v2/import/upload", json={}).json()["data"]
    small["result"]["form"]["parameters"]["max_file_size"] = 3
    assert upload(small["result"]["form"], b"x").status_code == 403  # the limit is signed too
    missing = httpx.post(form["url"], data={k: str(v) for k, v in form["parameters"].items()})
    assert missing.status_code == 422
    assert upload(form, b"fine").status_code == 201


def test_upload_size_limit_and_expiry(tmp_path: Path) -> None:
    from service_helpers import TextEngine

    settings = {"max_upload_size": 4}
    with (
        LocalService(data_dir=tmp_path / "a", engines=[TextEngine()], settings=settings) as svc,
        httpx.Client(base_url=svc.base_url, headers={"Authorization": f"Bearer {svc.api_key}"}) as client,
    ):
        task = client.post("/v2/import/upload", json={}).json()["data"]
        too_big = upload(task["result"]["form"], b"12345")
        assert too_big.status_code == 413
        assert too_big.json()["code"] == "FILE_TOO_LARGE"
        assert client.get(f"/v2/tasks/{task['id']}").json()["data"]["status"] == "waiting"
        assert upload(task["result"]["form"], b"1234").status_code == 201
    with (
        LocalService(data_dir=tmp_path / "b", engines=[TextEngine()], settings={"upload_ttl": -1}) as svc,
        httpx.Client(base_url=svc.base_url, headers={"Authorization": f"Bearer {svc.api_key}"}) as client,
    ):
        form = client.post("/v2/import/upload", json={}).json()["data"]["result"]["form"]
        assert upload(form, b"x").json()["code"] == "FORM_EXPIRED"


def test_upload_redirect_and_unsafe_filename(client: httpx.Client) -> None:
    task = client.post("/v2/import/upload", json={"redirect": "http://127.0.0.1:9/done"}).json()["data"]
    answer = upload(task["result"]["form"], b"data", filename="../../etc/evil.txt")
    assert answer.status_code == 303
    assert answer.headers["location"] == "http://127.0.0.1:9/done"
    done = client.get(f"/v2/tasks/{task['id']}").json()["data"]
    assert done["status"] == "finished"
    assert done["result"]["files"][0]["filename"] == "evil.txt"


def test_sandbox_accepts_only_whitelisted_files(tmp_path: Path) -> None:
    from service_helpers import TextEngine

    allowed = hashlib.md5(b"allowed").hexdigest()  # noqa: S324 - the sandbox whitelists by md5
    with (
        LocalService(
            data_dir=tmp_path,
            engines=[TextEngine()],
            sandbox=True,
            settings={"sandbox_whitelist": frozenset({allowed})},
        ) as svc,
        httpx.Client(base_url=svc.base_url, headers={"Authorization": f"Bearer {svc.api_key}"}) as client,
    ):
        credits = client.get("/v2/users/me").json()["data"]["credits"]
        done = run(
            client,
            {
                "ok": {"operation": "import/raw", "file": "allowed", "filename": "a.txt"},
                "md": {"operation": "convert", "input": "ok", "output_format": "md"},
                "no": {"operation": "import/raw", "file": "other", "filename": "b.txt"},
            },
        )
        assert task_named(done, "md")["status"] == "finished"
        assert task_named(done, "md")["credits"] == 0
        assert task_named(done, "no")["code"] == "SANDBOX_FILE_NOT_ALLOWED"
        up = client.post("/v2/import/upload", json={}).json()["data"]
        upload(up["result"]["form"], b"not allowed")
        assert client.get(f"/v2/tasks/{up['id']}").json()["data"]["code"] == "SANDBOX_FILE_NOT_ALLOWED"
        assert client.get("/v2/users/me").json()["data"]["credits"] == credits


def test_retention_deletes_ended_tasks_and_their_files(tmp_path: Path) -> None:
    from service_helpers import TextEngine

    with (
        LocalService(
            data_dir=tmp_path,
            engines=[TextEngine()],
            settings={"task_retention": 0.5, "janitor_interval": 0.2},
        ) as svc,
        httpx.Client(base_url=svc.base_url, headers={"Authorization": f"Bearer {svc.api_key}"}) as client,
    ):
        done = run(client, {"in": {"operation": "import/raw", "file": "x", "filename": "a.txt"}})
        task_id = done["tasks"][0]["id"]
        assert (tmp_path / "tasks" / task_id / "a.txt").exists()
        deadline = time.monotonic() + 5
        while client.get(f"/v2/tasks/{task_id}").status_code != 404 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert client.get(f"/v2/tasks/{task_id}").status_code == 404
        assert not (tmp_path / "tasks" / task_id).exists()
        assert client.get(f"/v2/jobs/{done['id']}").status_code == 404


def test_malformed_upload_bodies_are_422(client: httpx.Client) -> None:
    url = client.post("/v2/import/upload", json={}).json()["data"]["result"]["form"]["url"]
    garbage = httpx.post(
        url, content=b"garbage\r\n--xx\r\nbad", headers={"content-type": "multipart/form-data; boundary=xx"}
    )
    assert garbage.status_code == 422
    assert "malformed" in garbage.json()["errors"]["file"][0]
    plain = httpx.post(url, content=b"abc", headers={"content-type": "text/plain"})
    assert plain.status_code == 422
    assert httpx.post(url.replace("/upload/", "/upload/x"), files={"file": ("a", b"a")}).status_code == 404


def test_an_upload_never_made_fails_when_its_form_expires(tmp_path: Path) -> None:
    from service_helpers import TextEngine

    settings = {"upload_ttl": 0.5, "janitor_interval": 0.2}
    with (
        LocalService(data_dir=tmp_path, engines=[TextEngine()], settings=settings) as svc,
        httpx.Client(base_url=svc.base_url, headers={"Authorization": f"Bearer {svc.api_key}"}) as client,
    ):
        created = client.post(
            "/v2/jobs",
            json={
                "tasks": {
                    "up": {"operation": "import/upload"},
                    "out": {"operation": "export/url", "input": "up"},
                }
            },
        ).json()["data"]
        done = wait_job(client, created["id"])
        assert done["status"] == "error"
        assert task_named(done, "up")["code"] == "UPLOAD_EXPIRED"
        assert task_named(done, "out")["code"] == "INPUT_TASK_FAILED"


@pytest.mark.parametrize(
    "size",
    [0, 1, 64 * 1024 - 300, 64 * 1024 + 1, 3 * 1024 * 1024 + 17],
    ids=["empty", "one-byte", "just-under-inline", "just-over-inline", "several-batches"],
)
def test_uploads_of_every_size_arrive_whole(client: httpx.Client, size: int) -> None:
    """Small bodies are handled on the event loop, bigger ones in batches on worker threads: either
    way the stored file, its reported md5 and the download are the bytes sent."""
    content = bytes((i * 7 + size) % 251 for i in range(size))
    job = client.post("/v2/jobs", json={"tasks": {
        "in": {"operation": "import/upload"},
        "out": {"operation": "export/url", "input": "in"},
    }}).json()["data"]  # fmt: skip
    answer = upload(task_named(job, "in")["result"]["form"], content, filename="blob.bin")
    assert answer.status_code == 201, answer.text
    stored = answer.json()["data"]["result"]["files"][0]
    assert (stored["size"], stored["md5"]) == (size, hashlib.md5(content, usedforsecurity=False).hexdigest())
    files = task_named(wait_job(client, job["id"]), "out")["result"]["files"]
    assert httpx.get(files[0]["url"]).content == content


def test_an_upload_without_content_length_is_stored(client: httpx.Client) -> None:
    """A chunked body (no Content-Length) takes the worker-thread path and still arrives whole."""
    task = client.post("/v2/import/upload", json={}).json()["data"]
    form = task["result"]["form"]
    boundary = "mcvtestboundary"
    parts = [
        f'--{boundary}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'.encode()
        for k, v in form["parameters"].items()
    ]
    parts.append(
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="c.txt"\r\n\r\n'.encode()
        + b"chunked body"
        + f"\r\n--{boundary}--\r\n".encode()
    )

    def chunks() -> Any:
        yield from parts

    answer = httpx.post(
        form["url"], content=chunks(), headers={"Content-Type": f"multipart/form-data; boundary={boundary}"}
    )
    assert answer.status_code == 201, answer.text
    assert "content-length" not in answer.request.headers
    assert answer.json()["data"]["result"]["files"][0]["size"] == len(b"chunked body")
