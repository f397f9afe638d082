"""Uploads stream a multipart body (fields in order, file last, no key); downloads resume with Range."""

from __future__ import annotations

import os
import re
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from apifakes import task_json

from mcv_pipelines.api import Task, TransferError, UploadForm, safe_filename
from mcv_pipelines.api.transfer import CHUNK_SIZE


class StreamingTransport(httpx.AsyncBaseTransport):
    """Reads request bodies chunk by chunk (MockTransport would read them whole first)."""

    def __init__(self, respond: Callable[[httpx.Request, bytes], httpx.Response]) -> None:
        self.respond = respond
        self.requests: list[httpx.Request] = []
        self.chunk_sizes: list[int] = []
        self.streamed: list[bool] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        self.streamed.append(
            isinstance(request.stream, httpx.AsyncByteStream) and not hasattr(request, "_content")
        )
        body = b""
        assert isinstance(request.stream, httpx.AsyncByteStream)
        async for chunk in request.stream:
            self.chunk_sizes.append(len(chunk))
            body += chunk
        return self.respond(request, body)


def _form(url: str = "http://127.0.0.1:9999/upload/t1") -> UploadForm:
    return UploadForm(
        url=url,
        parameters=(
            ("expires", "1700000000"),
            ("max_file_count", "1"),
            ("max_file_size", "10000000"),
            ("signature", "abc123"),
        ),
    )


def _part_names(body: bytes) -> list[str]:
    return re.findall(rb'Content-Disposition: form-data; name="([^"]+)"', body)  # type: ignore[return-value]  # bytes pattern gives bytes


async def test_upload_streams_fields_in_order_with_file_last(make_client, tmp_path: Path) -> None:
    data = bytes(range(256)) * 4096  # 1 MiB
    path = tmp_path / "photo.jpg"
    path.write_bytes(data)
    transport = StreamingTransport(lambda req, body: httpx.Response(201, text="<PostResponse/>"))
    client = make_client(transport=transport)
    status = await client.upload_file(_form(), path)
    assert status == 201
    request = transport.requests[0]
    assert "authorization" not in request.headers
    assert transport.streamed == [True]
    assert int(request.headers["Content-Length"]) == sum(transport.chunk_sizes)
    assert "transfer-encoding" not in request.headers
    assert max(transport.chunk_sizes[1:-1]) <= CHUNK_SIZE  # never the whole file in one piece
    assert len(transport.chunk_sizes) >= len(data) // CHUNK_SIZE + 2  # head, file pieces, tail


async def test_upload_body_is_a_valid_multipart_form(make_client, tmp_path: Path) -> None:
    path = tmp_path / 'we"ird name.png'
    path.write_bytes(b"\x89PNG-data")
    bodies: list[bytes] = []

    def respond(request: httpx.Request, body: bytes) -> httpx.Response:
        bodies.append(body)
        return httpx.Response(204)

    client = make_client(transport=StreamingTransport(respond))
    task = Task.from_json(
        task_json(
            status="waiting",
            operation="import/upload",
            result={
                "form": {
                    "url": "http://127.0.0.1:9999/upload/t1",
                    "parameters": {"b_first": "1", "a_second": "2"},
                }
            },
        )
    )
    await client.upload_file(task, path)
    body = bodies[0]
    assert _part_names(body) == [b"b_first", b"a_second", b"file"]
    assert b'filename="we%22ird name.png"' in body
    assert b"\r\n\r\n\x89PNG-data\r\n--" in body
    assert body.endswith(b"--\r\n")


async def test_upload_follows_redirects_and_resends_body_on_307(make_client, tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_bytes(b"hello")

    def respond(request: httpx.Request, body: bytes) -> httpx.Response:
        if request.url.path == "/upload/t1":
            return httpx.Response(307, headers={"Location": "/storage/t1"})
        if request.url.path == "/storage/t1":
            assert b"hello" in body
            return httpx.Response(303, headers={"Location": "http://127.0.0.1:9999/thanks"})
        assert request.method == "GET"
        return httpx.Response(200, text="ok")

    transport = StreamingTransport(respond)
    client = make_client(transport=transport)
    assert await client.upload_file(_form(), path) == 200
    assert [(r.method, r.url.path) for r in transport.requests] == [
        ("POST", "/upload/t1"),
        ("POST", "/storage/t1"),
        ("GET", "/thanks"),
    ]
    assert all("authorization" not in r.headers for r in transport.requests)


async def test_upload_rejected_by_storage_is_a_transfer_error(make_client, tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_bytes(b"x")
    transport = StreamingTransport(lambda r, b: httpx.Response(403, text="<Error>Policy expired</Error>"))
    client = make_client(transport=transport)
    with pytest.raises(
        TransferError, match=r"upload of a.txt to 127.0.0.1:9999: HTTP 403: <Error>Policy expired"
    ):
        await client.upload_file(_form(), path)


async def test_an_upload_refused_with_a_5xx_is_sent_again_whole(make_client, tmp_path: Path) -> None:
    # A store or database briefly away (issue 25's chaos test: PostgreSQL restarting under the API):
    # the form's server took nothing, so the file goes again, from its first byte.
    path = tmp_path / "a.txt"
    path.write_bytes(b"hello")
    answers = [httpx.Response(500, text="Internal server error"), httpx.Response(503), httpx.Response(201)]
    bodies: list[bytes] = []

    def respond(request: httpx.Request, body: bytes) -> httpx.Response:
        bodies.append(body)
        return answers[len(bodies) - 1]

    client = make_client(transport=StreamingTransport(respond))
    assert await client.upload_file(_form(), path) == 201
    assert len(bodies) == 3
    assert all(body == bodies[0] and b"\r\n\r\nhello\r\n--" in body for body in bodies)


async def test_an_upload_refused_with_a_5xx_every_time_ends_after_the_policys_tries(
    make_client, tmp_path: Path
) -> None:
    path = tmp_path / "a.txt"
    path.write_bytes(b"x")
    transport = StreamingTransport(lambda r, b: httpx.Response(503, text="busy"))
    client = make_client(transport=transport, attempts=3)
    with pytest.raises(TransferError, match=r"upload of a.txt to 127.0.0.1:9999: HTTP 503: busy"):
        await client.upload_file(_form(), path)
    assert len(transport.requests) == 3


async def test_an_upload_refused_with_a_4xx_is_not_sent_again(make_client, tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_bytes(b"x")
    transport = StreamingTransport(lambda r, b: httpx.Response(413, text="too large"))
    client = make_client(transport=transport)
    with pytest.raises(TransferError, match="HTTP 413"):
        await client.upload_file(_form(), path)
    assert len(transport.requests) == 1


def _waiting_upload_task() -> Task:
    form = {"url": "http://127.0.0.1:9999/upload/t1", "parameters": {"signature": "abc123"}}
    return Task.from_json(task_json(status="waiting", operation="import/upload", result={"form": form}))


def _cut_then(task_status: str, after: httpx.Response) -> tuple[StreamingTransport, list[str]]:
    """The first upload's connection is cut once its body was read (its server died); a GET of the
    task answers ``task_status``; later uploads answer ``after``."""
    seen: list[str] = []

    def respond(request: httpx.Request, body: bytes) -> httpx.Response:
        seen.append(f"{request.method} {request.url.path}")
        if request.method == "GET":
            task = task_json(status=task_status, operation="import/upload")
            return httpx.Response(200, json={"data": task})
        if seen.count("POST /upload/t1") == 1:
            raise httpx.RemoteProtocolError("Server disconnected without sending a response.")
        return after

    return StreamingTransport(respond), seen


async def test_an_upload_cut_midway_is_sent_again_while_its_task_waits(make_client, tmp_path: Path) -> None:
    # Issue 25: an API process SIGKILLed behind a load balancer cuts the uploads in flight to it.
    path = tmp_path / "a.txt"
    path.write_bytes(b"hello")
    transport, seen = _cut_then("waiting", httpx.Response(201))
    client = make_client(transport=transport)
    assert await client.upload_file(_waiting_upload_task(), path) == 201
    assert seen == ["POST /upload/t1", "GET /v2/tasks/t1", "POST /upload/t1"]


async def test_an_upload_cut_after_its_file_arrived_is_not_sent_again(make_client, tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_bytes(b"hello")
    transport, seen = _cut_then("finished", httpx.Response(409))
    client = make_client(transport=transport)
    assert await client.upload_file(_waiting_upload_task(), path) == 201
    assert seen == ["POST /upload/t1", "GET /v2/tasks/t1"]


async def test_an_upload_cut_midway_to_a_bare_form_is_an_error(make_client, tmp_path: Path) -> None:
    # Without its task nothing can tell whether the file arrived: not sent blindly again.
    path = tmp_path / "a.txt"
    path.write_bytes(b"hello")
    transport, seen = _cut_then("waiting", httpx.Response(201))
    client = make_client(transport=transport)
    with pytest.raises(TransferError, match="network error: RemoteProtocolError") as raised:
        await client.upload_file(_form(), path)
    assert raised.value.cut
    assert seen == ["POST /upload/t1"]


def _refused_then_not_waiting(task_status: str) -> tuple[StreamingTransport, list[str]]:
    """The first upload is answered 503 after its file was taken (the database cut at COMMIT);
    the upload sent again is refused 409 TASK_NOT_WAITING; a GET of the task answers ``task_status``."""
    seen: list[str] = []

    def respond(request: httpx.Request, body: bytes) -> httpx.Response:
        seen.append(f"{request.method} {request.url.path}")
        if request.method == "GET":
            return httpx.Response(
                200, json={"data": task_json(status=task_status, operation="import/upload")}
            )
        if seen.count("POST /upload/t1") == 1:
            return httpx.Response(503, json={"code": "DATABASE_UNAVAILABLE", "message": "away"})
        return httpx.Response(409, json={"code": "TASK_NOT_WAITING", "message": "The task is finished."})

    return StreamingTransport(respond), seen


async def test_a_409_after_a_5xx_asks_the_task_and_a_finished_one_had_its_file(
    make_client, tmp_path: Path
) -> None:
    # CI of stop 41: a PostgreSQL restart cut the upload's COMMIT; the retry's 409 failed the row.
    path = tmp_path / "a.txt"
    path.write_bytes(b"hello")
    transport, seen = _refused_then_not_waiting("finished")
    client = make_client(transport=transport)
    assert await client.upload_file(_waiting_upload_task(), path) == 201
    assert seen == ["POST /upload/t1", "POST /upload/t1", "GET /v2/tasks/t1"]


async def test_a_409_after_a_5xx_to_a_bare_form_is_an_error_that_says_the_outcome_is_unknown(
    make_client, tmp_path: Path
) -> None:
    path = tmp_path / "a.txt"
    path.write_bytes(b"hello")
    transport, seen = _refused_then_not_waiting("finished")
    client = make_client(transport=transport)
    with pytest.raises(TransferError, match="HTTP 409") as raised:
        await client.upload_file(_form(), path)
    assert raised.value.cut
    assert raised.value.status == 409
    assert seen == ["POST /upload/t1", "POST /upload/t1"]


async def test_a_first_409_is_an_error_without_asking_the_task(make_client, tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_bytes(b"hello")
    transport = StreamingTransport(lambda r, b: httpx.Response(409, json={"code": "TASK_NOT_WAITING"}))
    client = make_client(transport=transport)
    with pytest.raises(TransferError, match="HTTP 409") as raised:
        await client.upload_file(_waiting_upload_task(), path)
    assert not raised.value.cut
    assert len(transport.requests) == 1


async def test_upload_of_a_missing_file_is_a_clear_error(make_client, tmp_path: Path) -> None:
    client = make_client(lambda r: httpx.Response(201))
    with pytest.raises(TransferError, match="cannot read the file"):
        await client.upload_file(_form(), tmp_path / "nope.bin")


class DroppingStream(httpx.AsyncByteStream):
    def __init__(self, data: bytes, drop_after: int | None) -> None:
        self.data = data
        self.drop_after = drop_after

    async def __aiter__(self) -> AsyncIterator[bytes]:
        if self.drop_after is None:
            yield self.data
            return
        yield self.data[: self.drop_after]
        raise httpx.ReadError("connection reset by peer")


async def test_download_resumes_with_range_after_a_drop(make_client, tmp_path: Path) -> None:
    data = b"0123456789" * 1000
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        rng = request.headers.get("range")
        if rng is None:
            return httpx.Response(
                200, headers={"Content-Length": str(len(data))}, stream=DroppingStream(data, drop_after=3000)
            )
        start = int(rng.removeprefix("bytes=").rstrip("-"))
        rest = data[start:]
        return httpx.Response(
            206,
            headers={
                "Content-Range": f"bytes {start}-{len(data) - 1}/{len(data)}",
                "Content-Length": str(len(rest)),
            },
            stream=DroppingStream(rest, None),
        )

    client = make_client(handler)
    dest = await client.download("http://127.0.0.1:9999/files/x/out.bin", tmp_path / "out" / "out.bin")
    assert dest.read_bytes() == data
    assert [r.headers.get("range") for r in seen] == [None, "bytes=3000-"]
    assert all("authorization" not in r.headers for r in seen)
    assert sorted(p.name for p in dest.parent.iterdir()) == ["out.bin"]  # no temp file left behind


async def test_download_starts_over_when_range_is_ignored(make_client, tmp_path: Path) -> None:
    data = b"abcdef" * 500
    calls: list[int] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(1)
        drop = 1000 if len(calls) == 1 else None
        return httpx.Response(
            200, headers={"Content-Length": str(len(data))}, stream=DroppingStream(data, drop)
        )

    client = make_client(handler)
    dest = await client.download("http://127.0.0.1:9999/f", tmp_path / "f.bin")
    assert dest.read_bytes() == data


async def test_download_gives_up_after_bounded_resumes(make_client, tmp_path: Path) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"Content-Length": "100"}, stream=DroppingStream(b"x" * 100, 10))

    client = make_client(handler)
    with pytest.raises(TransferError, match="gave up after 2 resumes"):
        await client.download("http://127.0.0.1:9999/f", tmp_path / "f.bin", max_resumes=2)
    assert os.listdir(tmp_path) == []


async def test_download_of_expired_link_is_a_transfer_error(make_client, tmp_path: Path) -> None:
    client = make_client(lambda r: httpx.Response(410, text="gone"))
    with pytest.raises(TransferError, match="HTTP 410") as info:
        await client.download("http://127.0.0.1:9999/f", tmp_path / "f.bin")
    assert info.value.status == 410


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("report.pdf", "report.pdf"),
        ("../../etc/passwd", "passwd"),
        ("/abs/path/x.png", "x.png"),
        ("C:\\Windows\\evil.exe", "evil.exe"),
        ("..", "download"),
        ("", "download"),
        ("bad\x00na\x1bme\n.txt", "badname.txt"),
        ("what?.txt", "what_.txt"),
        (".hidden", "hidden"),
    ],
)
def test_safe_filename(name: str, expected: str) -> None:
    assert safe_filename(name) == expected


def test_safe_filename_keeps_suffix_of_long_names() -> None:
    name = safe_filename("x" * 400 + ".webp")
    assert name.endswith(".webp")
    assert len(name.encode()) <= 240


async def test_download_file_uses_sanitised_name(make_client, tmp_path: Path) -> None:
    from mcv_pipelines.api import File

    client = make_client(lambda r: httpx.Response(200, content=b"ok"))
    dest = await client.download_file(File(filename="../../x.txt", url="http://127.0.0.1:9999/f"), tmp_path)
    assert dest == tmp_path / "x.txt"
    assert dest.read_bytes() == b"ok"


async def test_download_removes_parts_of_killed_attempts_but_not_of_running_ones(
    make_client, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    dead = 2**22 + 17  # above the default pid_max: no process has it
    (out / ".p026-t.png.6c519865.part").write_bytes(b"old")  # the leftover (no pid)
    (out / f".p026-t.png.{dead}-0badf00d.part").write_bytes(b"killed")
    running = out / f".p026-t.png.{os.getpid()}-feedbeef.part"  # this process, downloading it now
    running.write_bytes(b"live")
    (out / ".other.png.6c519865.part").write_bytes(b"another file's")
    client = make_client(lambda request: httpx.Response(200, content=b"png"))
    await client.download("http://127.0.0.1:9999/files/x/p026-t.png", out / "p026-t.png")
    assert sorted(p.name for p in out.iterdir()) == sorted(
        [".other.png.6c519865.part", running.name, "p026-t.png"]
    )


async def test_many_downloads_into_one_directory_read_it_once_and_still_clear_each_files_parts(
    make_client, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A batch writes thousands of files into one directory: reading it for every download made the
    batch quadratic in its rows (issue 15). Parts killed runs left are still removed, each when its
    own file is downloaded."""
    import mcv_pipelines.api.partials as partials

    out = tmp_path / "out"
    out.mkdir()
    dead = 2**22 + 17
    for i in range(3):
        (out / f".p{i}.png.{dead}-0badf00{i}.part").write_bytes(b"killed")
    reads: list[str] = []
    scandir = os.scandir

    def counted(path: Any) -> Any:
        reads.append(str(path))
        return scandir(path)

    monkeypatch.setattr(partials.os, "scandir", counted)
    client = make_client(lambda request: httpx.Response(200, content=b"png"))
    await client.download("http://127.0.0.1:9999/files/x/p0.png", out / "p0.png")
    assert sorted(p.name for p in out.iterdir()) == sorted(
        ["p0.png", f".p1.png.{dead}-0badf001.part", f".p2.png.{dead}-0badf002.part"]
    )
    for i in (1, 2, 3):
        await client.download(f"http://127.0.0.1:9999/files/x/p{i}.png", out / f"p{i}.png")
    assert sorted(p.name for p in out.iterdir()) == ["p0.png", "p1.png", "p2.png", "p3.png"]
    assert reads == [str(out)]


async def test_a_directory_is_read_again_after_a_while_for_parts_left_since(
    make_client, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import mcv_pipelines.api.partials as partials

    out = tmp_path / "out"
    out.mkdir()
    client = make_client(lambda request: httpx.Response(200, content=b"png"))
    await client.download("http://127.0.0.1:9999/files/x/a.png", out / "a.png")
    late = out / f".b.png.{2**22 + 17}-0badf00d.part"  # a process killed after the first read
    late.write_bytes(b"killed")
    monkeypatch.setattr(partials, "_RESCAN", -1.0)  # the first read is now too old to use
    await client.download("http://127.0.0.1:9999/files/x/b.png", out / "b.png")
    assert not late.exists()
    assert sorted(p.name for p in out.iterdir()) == ["a.png", "b.png"]
