"""Issue 40: what a tiny row's four HTTP exchanges cost with nothing behind them (the protocol's floor).

    .venv/bin/python bench/http_floor.py [--rows 400] [--concurrency 8] [--repeat 3]

A tiny row of `mcv batch` is four exchanges with the service: POST /v2/jobs (a JSON job, a JSON
answer), POST /upload/{task} (a multipart form with a 16x16 PNG), GET /sync/v2/jobs/{job} (the
ended job as JSON) and GET of the output file. Here the same four run between the product's own
HTTP stacks, with no service behind them:

- the server is a bare Starlette app on uvicorn (httptools, uvloop), as `mcv serve` runs: it
  parses each JSON body and the multipart form (Starlette's own ``request.form()``) and answers
  job documents of the service's shape and size, built once;
- the client is ``mcv_pipelines.api.h1.lean_client`` (httpx over the lean HTTP/1.1 transport),
  as `mcv batch` uses it, ``--concurrency`` rows at a time, with the upload's multipart body framed
  by hand as api/transfer.py frames it (httpx's own encoder costs more).

It prints rows/s and the CPU ms per row of each process (the client's start-up included, as in
bench/photos.py's tiny rows), so the product's own CPU per row can be read against this floor.
bench/photos.py runs it beside its tiny rows. No assertion on time: read the table.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import struct
import subprocess
import sys
import time
import uuid
import zlib
from pathlib import Path
from typing import Any

_TASK_NAMES = ("source", "convert", "publish")
_OPERATIONS = ("import/upload", "convert", "export/url")


def _job(base: str, status: str) -> dict[str, Any]:
    """A job answer of the service's shape: three tasks, each with its payload and result."""
    job_id = str(uuid.uuid4())
    tasks = []
    for name, operation in zip(_TASK_NAMES, _OPERATIONS, strict=True):
        task_id = str(uuid.uuid4())
        result: dict[str, Any] = {
            "files": [{"filename": "t0001.webp", "size": 58, "url": f"{base}/files/{task_id}/t0001.webp"}]
        }
        if operation == "import/upload" and status == "waiting":
            result = {"form": {"url": f"{base}/upload/{task_id}",
                               "parameters": {"expires": 1900000000, "max_file_count": 1,
                                              "max_file_size": 10**10, "signature": "0" * 64}}}  # fmt: skip
        tasks.append({
            "id": task_id, "name": name, "job_id": job_id, "status": status, "credits": 0,
            "code": None, "message": None, "percent": 100, "operation": operation,
            "engine": "pillow", "engine_version": "11.0.0", "payload": {"operation": operation},
            "result": result, "created_at": "2026-11-28T07:00:00+00:00", "started_at": None,
            "ended_at": None, "retry_of_task_id": None, "copy_of_task_id": None, "user_id": 1,
            "priority": 0, "host_name": None, "storage": None, "depends_on_task_ids": [],
            "links": {"self": f"{base}/v2/tasks/{task_id}"},
        })  # fmt: skip
    return {"data": {"id": job_id, "tag": "bench-tiny", "status": status, "tasks": tasks,
                     "created_at": "2026-11-28T07:00:00+00:00", "started_at": None, "ended_at": None,
                     "links": {"self": f"{base}/v2/jobs/{job_id}"}}}  # fmt: skip


def serve() -> None:
    """The bare server on a free loopback port; prints ``port N`` once it listens."""
    import socket

    import uvicorn
    from starlette.applications import Starlette
    from starlette.datastructures import UploadFile
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import Route

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)  # connections wait in the backlog until uvicorn accepts: none is refused
    base = f"http://127.0.0.1:{sock.getsockname()[1]}"
    created = json.dumps(_job(base, "waiting")).encode()
    finished = _job(base, "finished")
    ended = json.dumps(finished).encode()
    uploaded = json.dumps({"data": finished["data"]["tasks"][0]}).encode()  # the upload task's answer
    output = b"RIFF" + bytes(54)

    async def create(request: Request) -> Response:
        json.loads(await request.body())
        return Response(created, 201, media_type="application/json")

    async def upload(request: Request) -> Response:
        async with request.form() as form:
            file = form["file"]
            if not isinstance(file, UploadFile):
                return Response(b'{"message": "no file part"}', 422, media_type="application/json")
            await file.read()
        return Response(uploaded, 201, media_type="application/json")

    async def wait(request: Request) -> Response:
        return Response(ended, media_type="application/json")

    async def download(request: Request) -> Response:
        return Response(output, media_type="image/webp")

    app = Starlette(routes=[
        Route("/v2/jobs", create, methods=["POST"]), Route("/upload/{task}", upload, methods=["POST"]),
        Route("/sync/v2/jobs/{job}", wait), Route("/files/{task}/{name}", download),
    ])  # fmt: skip
    print(f"port {sock.getsockname()[1]}", flush=True)
    config = uvicorn.Config(app, log_level="warning", access_log=False)
    uvicorn.Server(config).run(sockets=[sock])


def drive(base: str, rows: int, concurrency: int) -> None:
    """``rows`` rows of four exchanges each, ``concurrency`` at a time; prints the seconds taken."""
    from mcv_pipelines.api.h1 import lean_client

    png = _tiny_png()
    job = {"tag": "bench-tiny", "tasks": {"source": {"operation": "import/upload"},
           "convert": {"operation": "convert", "input": "source", "output_format": "webp"},
           "publish": {"operation": "export/url", "input": "convert"}}}  # fmt: skip

    async def row(http: Any) -> None:
        answer = (await http.post(f"{base}/v2/jobs", json=job)).json()["data"]
        form = answer["tasks"][0]["result"]["form"]
        (
            await http.post(
                form["url"],
                content=_form_body(form["parameters"], png),
                headers={"content-type": f"multipart/form-data; boundary={_BOUNDARY}"},
            )
        ).raise_for_status()
        ended = (await http.get(f"{base}/sync/v2/jobs/{answer['id']}")).json()["data"]
        url = ended["tasks"][2]["result"]["files"][0]["url"]
        async with http.stream("GET", url) as response:
            async for _ in response.aiter_bytes():
                pass

    async def main() -> float:
        async with lean_client() as http:
            gate = asyncio.Semaphore(concurrency)

            async def one() -> None:
                async with gate:
                    await row(http)

            started = time.perf_counter()
            await asyncio.gather(*(one() for _ in range(rows)))
            return time.perf_counter() - started

    print(f"seconds {asyncio.run(main()):.4f}", flush=True)


def _tiny_png() -> bytes:
    """A 16x16 RGB PNG, made without Pillow (the product's client does not import it)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    pixels = b"".join(b"\x00" + bytes((9, 80, 90)) * 16 for _ in range(16))
    header = struct.pack(">IIBBBBB", 16, 16, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(pixels))
        + chunk(b"IEND", b"")
    )


_BOUNDARY = "mcv-floor-5b1c0e"


def _form_body(fields: dict[str, Any], data: bytes) -> bytes:
    """The upload form as the client frames it (api/transfer.py builds the same parts by hand)."""
    parts = [
        f'--{_BOUNDARY}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'
        for k, v in fields.items()
    ]
    head = f'--{_BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="t.png"\r\n'
    head += "Content-Type: image/png\r\n\r\n"
    return "".join(parts).encode() + head.encode() + data + f"\r\n--{_BOUNDARY}--\r\n".encode()


def _cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def measure(rows: int, concurrency: int) -> tuple[float, float, float]:
    """One run: rows/s, client CPU ms per row (its whole process), server CPU ms per row."""
    here = os.path.abspath(__file__)
    server = subprocess.Popen([sys.executable, here, "serve"], stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None
        port = server.stdout.readline().split()[-1]
        before = _cpu(server.pid)
        client = subprocess.Popen([sys.executable, here, "drive", f"http://127.0.0.1:{port}", str(rows),
                                   str(concurrency)], stdout=subprocess.PIPE, text=True)  # fmt: skip
        assert client.stdout is not None
        out = client.stdout.read()
        client.stdout.close()
        _, status, usage = os.wait4(client.pid, 0)
        served = _cpu(server.pid) - before
    finally:
        server.terminate()
        server.wait(30)
        if server.stdout:
            server.stdout.close()
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"the floor's client failed: {out}")
    seconds = float(out.split()[-1])
    return rows / seconds, (usage.ru_utime + usage.ru_stime) * 1000 / rows, served * 1000 / rows


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "serve":
        serve()
        return
    if len(sys.argv) > 1 and sys.argv[1] == "drive":
        drive(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
        return
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rows", type=int, default=400)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    title = "the four exchanges alone (bare Starlette <- lean client)"
    print(f"{title:<58} {'rows/s':>8} {'client ms/row':>14} {'server ms/row':>15} {'total ms/row':>13}")
    for _ in range(args.repeat):
        rate, client, server = measure(args.rows, args.concurrency)
        print(f"{f'{args.rows} rows, --concurrency {args.concurrency}':<58} {rate:8.1f} {client:14.2f} "
              f"{server:15.2f} {client + server:13.2f}")  # fmt: skip


if __name__ == "__main__":
    main()
