"""A soak run: steady mixed load against 1 API + 2 workers (`mcv serve` processes, each with a data
directory of its own) on PostgreSQL and S3 (throwaway servers on loopback, as in the tests), with no
MCV_SIGNING_KEY (the key kept in the database), for ``--minutes`` minutes.

    .venv/bin/python bench/soak.py --minutes 10 [--concurrency 4]

The load, round robin: a tiny PNG made a WebP, two one-page PDFs merged, a short WAV made an MP3;
each job is import/base64 -> the conversion -> export/url, created then waited for
(``/v2/jobs/{id}/wait``), and its export link downloaded. Per minute it prints: jobs finished, jobs/s,
p50 and p99 latency (creation to download), errors (failed jobs and failed requests), and the RSS of
each process at the end of the minute (MiB). At the end: whether the issue's targets hold (no failed
job; RSS growth after minute 2 under 10 %; p99 of the last minute within 1.5x of minute 2).
"""

from __future__ import annotations

import argparse
import base64
import io
import itertools
import math
import shutil
import statistics
import struct
import sys
import tempfile
import threading
import time
import wave
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
from PIL import Image
from pypdf import PdfWriter

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "integration" / "team"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from pg_server import PgServer, find_bin_dir
from team_helpers import Serve

from seaweed import SeaweedS3, find_weed

KEY = "sk-bench-soak-0123456789abcdef"


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def _png() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (32, 32), (200, 80, 40)).save(out, "PNG")
    return out.getvalue()


def _pdf() -> bytes:
    writer, out = PdfWriter(), io.BytesIO()
    writer.add_blank_page(width=72, height=72)
    writer.write(out)
    return out.getvalue()


def _wav() -> bytes:
    out = io.BytesIO()
    with wave.open(out, "wb") as sound:
        sound.setnchannels(1)
        sound.setsampwidth(2)
        sound.setframerate(8000)
        frames = (int(8000 * math.sin(2 * math.pi * 440 * i / 8000)) for i in range(4000))
        sound.writeframes(b"".join(struct.pack("<h", f) for f in frames))
    return out.getvalue()


def _jobs() -> list[dict[str, Any]]:
    png, pdf, wav = _b64(_png()), _b64(_pdf()), _b64(_wav())
    image = {
        "in": {"operation": "import/base64", "file": png, "filename": "a.png"},
        "web": {"operation": "convert", "input": "in", "output_format": "webp"},
        "out": {"operation": "export/url", "input": "web"},
    }
    merge = {
        "a": {"operation": "import/base64", "file": pdf, "filename": "a.pdf"},
        "b": {"operation": "import/base64", "file": pdf, "filename": "b.pdf"},
        "both": {"operation": "merge", "input": ["a", "b"], "output_format": "pdf"},
        "out": {"operation": "export/url", "input": "both"},
    }
    audio = {
        "in": {"operation": "import/base64", "file": wav, "filename": "a.wav"},
        "mp3": {"operation": "convert", "input": "in", "output_format": "mp3"},
        "out": {"operation": "export/url", "input": "mp3"},
    }
    return [{"tasks": image}, {"tasks": merge}, {"tasks": audio}]


class Minute:
    def __init__(self) -> None:
        self.latencies: list[float] = []
        self.errors = 0
        self.lock = threading.Lock()


def _one(client: httpx.Client, job: dict[str, Any]) -> None:
    created = client.post("/v2/jobs", json=job)
    created.raise_for_status()
    done = client.get(f"/v2/jobs/{created.json()['data']['id']}/wait", params={"timeout": 120})
    done.raise_for_status()
    data = done.json()["data"]
    if data["status"] != "finished":
        raise RuntimeError(f"job {data['id']} ended {data['status']}")
    out = next(t for t in data["tasks"] if t["name"] == "out")
    for item in out["result"]["files"]:
        client.get(item["url"]).raise_for_status()


def _load(base: str, minutes: int, concurrency: int, processes: list[Serve]) -> list[list[str]]:
    jobs = itertools.cycle(_jobs())
    jobs_lock = threading.Lock()
    stop_at = time.monotonic() + minutes * 60
    started = time.monotonic()
    per_minute = [Minute() for _ in range(minutes)]
    rss: list[list[float]] = []

    def worker() -> None:
        headers = {"Authorization": f"Bearer {KEY}"}
        with httpx.Client(base_url=base, headers=headers, timeout=180) as client:
            while time.monotonic() < stop_at:
                with jobs_lock:
                    job = next(jobs)
                begun = time.monotonic()
                failed = False
                try:
                    _one(client, job)
                except Exception as exc:  # counted and shown, the load goes on
                    print(f"error: {exc}", file=sys.stderr)
                    failed = True
                minute = per_minute[min(int((time.monotonic() - started) // 60), minutes - 1)]
                with minute.lock:
                    if failed:
                        minute.errors += 1
                    else:
                        minute.latencies.append(time.monotonic() - begun)

    with ThreadPoolExecutor(concurrency) as pool:
        futures = [pool.submit(worker) for _ in range(concurrency)]
        for n in range(minutes):
            time.sleep(max(0.0, started + (n + 1) * 60 - time.monotonic()))
            rss.append([_rss_mib(p.process.pid) for p in processes])
            m = per_minute[n]
            print(f"minute {n + 1}: {len(m.latencies)} jobs, {m.errors} errors", file=sys.stderr, flush=True)
        for future in futures:
            future.result()
    rows = []
    for n, m in enumerate(per_minute):
        lat = sorted(m.latencies) or [0.0]
        p99 = lat[min(len(lat) - 1, math.ceil(0.99 * len(lat)) - 1)]
        rows.append(
            [
                str(n + 1),
                str(len(m.latencies)),
                f"{len(m.latencies) / 60:.2f}",
                f"{statistics.median(lat) * 1000:.0f}",
                f"{p99 * 1000:.0f}",
                str(m.errors),
                *(f"{value:.0f}" for value in rss[n]),
            ]
        )
    return rows


def _rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _verdict(rows: list[list[str]]) -> list[str]:
    errors = sum(int(row[5]) for row in rows)
    said = [f"failed jobs or requests: {errors} ({'ok' if errors == 0 else 'MISSED'})"]
    if len(rows) >= 3:
        base, last = rows[1], rows[-1]
        growth = max(
            float(b) and (float(a) - float(b)) / float(b) for a, b in zip(last[6:], base[6:], strict=True)
        )
        said.append(
            f"RSS growth after minute 2: {growth * 100:.1f} % ({'ok' if growth < 0.10 else 'MISSED'})"
        )
        ratio = float(last[4]) / max(1.0, float(base[4]))
        said.append(f"p99 last minute / minute 2: {ratio:.2f}x ({'ok' if ratio <= 1.5 else 'MISSED'})")
    return said


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--minutes", type=int, default=10)
    parser.add_argument("--concurrency", type=int, default=4, help="jobs in flight at once")
    args = parser.parse_args()
    bin_dir, weed = find_bin_dir(), find_weed()
    if bin_dir is None or weed is None:
        print("needs PostgreSQL's initdb/pg_ctl and SeaweedFS's weed (the dev extra)", file=sys.stderr)
        return 2
    root = Path(tempfile.mkdtemp(prefix="mcv-soak-"))
    s3 = SeaweedS3(weed, root / "s3", bucket="soak").start()
    pg_root = Path(tempfile.mkdtemp(prefix="mcv-pg-"))
    pg = PgServer(bin_dir, pg_root)
    pg.start()
    env = {"MCV_SERVE_API_KEY": KEY, **s3.env}
    url = pg.url(pg.new_database())
    shared = ["--database", url, "--storage", f"s3://{s3.bucket}/soak", "--s3-endpoint", s3.endpoint]
    shared += ["--rate-limit", "0"]
    processes: list[Serve] = []
    try:
        processes.append(
            Serve(["--role", "api", *shared, "--data-dir", str(root / "api")], root / "api.log", env)
        )
        for n in (1, 2):
            args_n = ["--role", "worker", *shared, "--data-dir", str(root / f"w{n}")]
            processes.append(Serve(args_n, root / f"w{n}.log", env))
        rows = _load(processes[0].base, args.minutes, args.concurrency, processes)
    finally:
        for process in processes:
            process.stop()
        pg.stop()
        s3.stop()
        shutil.rmtree(pg_root, ignore_errors=True)
    header = ["minute", "jobs", "jobs/s", "p50 ms", "p99 ms", "errors", "api MiB", "w1 MiB", "w2 MiB"]
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]
    print("  ".join(h.rjust(w) for h, w in zip(header, widths, strict=True)))
    for row in rows:
        print("  ".join(c.rjust(w) for c, w in zip(row, widths, strict=True)))
    for line in _verdict(rows):
        print(line)
    print(f"logs: {root}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
