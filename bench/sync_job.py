"""Per-job cost of the service: POST /sync/v2/jobs (import/base64 -> convert -> export/url) latency,
beside the floor: a plain Starlette app on uvicorn answering a trivial JSON POST on the same machine.

    .venv/bin/python bench/sync_job.py [--jobs 200] [--warmup 20] [--py-spy STACKS.txt]

Each server runs in a child process of its own (the local service with its rate limit lifted, on a
fresh data directory; the floor app); one httpx client in this process sends the requests one at a
time over a kept-alive loopback connection and times each answer. The image is a 16x16 PNG converted
to webp, so nearly all of a job's time is the service's own overhead. ``--py-spy`` samples every
thread of the service with py-spy (in the dev extra), waits included, and writes collapsed stacks.
Prints a table of p50/p95/mean latency and the server's CPU time per request (user + system of every
thread, from /proc: steadier than latency on a busy machine). Target (issue 15): the sync job at <= 15 ms p50.
"""

from __future__ import annotations

import argparse
import base64
import io
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from PIL import Image

KEY = "sk-bench-sync-7f3a1c"
TARGET_P50_MS = 15.0

SERVICE = """
import signal, sys, threading
from mcv_pipelines.service.server import LocalService
data_dir, port, key = sys.argv[1], int(sys.argv[2]), sys.argv[3]
stop = threading.Event()
signal.signal(signal.SIGTERM, lambda *_: stop.set())
with LocalService(data_dir=data_dir, api_key=key, port=port, settings={"rate_limit": 10**9}):
    stop.wait()
"""

FLOOR = """
import sys
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

async def echo(request: Request) -> JSONResponse:
    body = await request.json()
    return JSONResponse({"data": {"id": "floor", "status": "finished", "tasks": len(body)}}, status_code=201)

app = Starlette(routes=[Route("/echo", echo, methods=["POST"])])
uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
"""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait_listening(port: int, process: subprocess.Popen[bytes], seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"server exited {process.returncode} before listening")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise SystemExit(f"nothing listens on port {port} after {seconds:g} s")


def _stop(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def _job_body(image: bytes, index: int) -> dict[str, Any]:
    return {
        "tag": f"bench-sync-{index}",
        "tasks": {
            "in": {
                "operation": "import/base64",
                "file": base64.b64encode(image).decode(),
                "filename": "p.png",
            },
            "webp": {"operation": "convert", "input": "in", "output_format": "webp"},
            "out": {"operation": "export/url", "input": "webp"},
        },
    }


def _cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process and its threads so far (from /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _measured(
    client: httpx.Client, url: str, bodies: list[dict[str, Any]], warmup: int, pid: int
) -> tuple[list[float], float]:
    """Milliseconds of each request after ``warmup`` ones, and the server's CPU ms per request."""
    _timed(client, url, bodies[:warmup])
    cpu = _cpu_seconds(pid)
    times = _timed(client, url, bodies[warmup:])
    return times, (_cpu_seconds(pid) - cpu) * 1000 / len(times)


def _timed(client: httpx.Client, url: str, bodies: list[dict[str, Any]]) -> list[float]:
    """Milliseconds of each request; every answer must be a success."""
    times: list[float] = []
    for body in bodies:
        started = time.perf_counter()
        response = client.post(url, json=body)
        elapsed = (time.perf_counter() - started) * 1000
        if response.status_code not in (200, 201):
            raise SystemExit(f"{url}: HTTP {response.status_code}: {response.text[:300]}")
        data = response.json()["data"]
        if data.get("status") not in ("finished", None) and data.get("id") != "floor":
            raise SystemExit(f"{url}: job ended {data.get('status')}: {response.text[:300]}")
        times.append(elapsed)
    return times


def _row(label: str, times: list[float], cpu_ms: float) -> str:
    ordered = sorted(times)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return (
        f"{label:<44}{statistics.median(ordered):>8.2f}{p95:>8.2f}{statistics.fmean(ordered):>8.2f}"
        f"{1000 / statistics.fmean(ordered):>9.0f}{cpu_ms:>14.2f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--jobs", type=int, default=200, help="measured requests per server (default 200)")
    parser.add_argument(
        "--warmup", type=int, default=20, help="requests sent first, not counted (default 20)"
    )
    parser.add_argument("--py-spy", metavar="FILE", help="sample the service with py-spy; collapsed stacks")
    parser.add_argument(
        "--service-script",
        metavar="FILE",
        help="run this Python file as the service instead (argv: DATA_DIR PORT KEY), to try a change",
    )
    args = parser.parse_args()

    buffer = io.BytesIO()
    Image.new("RGB", (16, 16), (200, 30, 40)).save(buffer, "PNG")
    image = buffer.getvalue()
    total = args.jobs + args.warmup
    env = {**os.environ, "MCV_CONFIG": "/nonexistent"}

    with tempfile.TemporaryDirectory(prefix="mcv-bench-sync-") as tmp:
        port = _free_port()
        script = Path(tmp) / "service.py"
        script.write_text(Path(args.service_script).read_text() if args.service_script else SERVICE)
        service = subprocess.Popen(
            [sys.executable, str(script), str(Path(tmp) / "data"), str(port), KEY], env=env
        )
        sampler = None
        try:
            _wait_listening(port, service)
            if args.py_spy:
                sampler = subprocess.Popen(
                    ["py-spy", "record", "--pid", str(service.pid), "--format", "raw", "--threads",
                     "--rate", "500", "--output", args.py_spy, "--nonblocking", "--idle"],
                    stdout=subprocess.DEVNULL,
                )  # fmt: skip
                time.sleep(1)  # attached before the first request
            headers = {"Authorization": f"Bearer {KEY}"}
            with httpx.Client(base_url=f"http://127.0.0.1:{port}", headers=headers, timeout=60) as client:
                bodies = [_job_body(image, i) for i in range(total)]
                sync_times, sync_cpu = _measured(client, "/sync/v2/jobs", bodies, args.warmup, service.pid)
        finally:
            if sampler is not None:
                sampler.send_signal(signal.SIGINT)  # py-spy writes its file on SIGINT
                sampler.wait(60)
            _stop(service)

        floor_port = _free_port()
        floor_script = Path(tmp) / "floor.py"
        floor_script.write_text(FLOOR)
        floor = subprocess.Popen([sys.executable, str(floor_script), str(floor_port)], env=env)
        try:
            _wait_listening(floor_port, floor)
            with httpx.Client(base_url=f"http://127.0.0.1:{floor_port}", timeout=60) as client:
                bodies = [{"tag": f"floor-{i}", "tasks": {"a": 1}} for i in range(total)]
                floor_times, floor_cpu = _measured(client, "/echo", bodies, args.warmup, floor.pid)
        finally:
            _stop(floor)

    print(
        f"{args.jobs} requests each (after {args.warmup} warm-up), one at a time, {os.cpu_count()} CPU(s)\n"
    )
    header = f"{'request':<44}{'p50 ms':>8}{'p95 ms':>8}{'mean':>8}{'per s':>9}{'server CPU ms':>14}"
    print(header)
    print("-" * len(header))
    print(_row("POST /sync/v2/jobs base64 -> webp -> url", sync_times, sync_cpu))
    print(_row("floor: Starlette + uvicorn, trivial JSON POST", floor_times, floor_cpu))
    p50 = statistics.median(sync_times)
    verdict = "ok" if p50 <= TARGET_P50_MS else "MISSED"
    print(
        f"\ntarget: sync job p50 <= {TARGET_P50_MS:g} ms: {verdict} "
        f"({p50 / statistics.median(floor_times):.1f}x the floor)"
    )


if __name__ == "__main__":
    main()
