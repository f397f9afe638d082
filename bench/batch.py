"""`mcv batch` over many small images, next to a plain loop doing one job at a time with httpx.

    .venv/bin/python bench/batch.py [ROWS] [CONCURRENCY] [RATE_LIMIT] [--no-loop] [--serve] [--work-dir DIR]
                                    [--rows-per-job N]

The local service allows 500 job creations per key per minute by default, like the real one: past 500
rows the batch runs at that limit (about 8.3 rows/s), its pacer waiting instead of collecting 429s.
Give RATE_LIMIT (e.g. 100000) to measure the tool itself.

A local service runs in this process (loopback), or with --serve a real `mcv serve` process (issue 15's
setup), whose CPU time per row is then shown too. Each row is a 16x16 PNG converted to webp (import/upload
-> convert -> export/url). Each way on its own rows' outputs, packed (the rows a job mcv batch chooses)
beside `--rows-per-job 1` (a job a row) in the same round:
1. the batch in this process through the library (``prepare_rows`` + ``execute_batch``), its requests
   counted with an httpx event hook on the one shared client: rows/s, requests per row, jobs created;
2. `python -m mcv_pipelines batch` in a subprocess (remote mode: MCV_BASE_URL + MCV_API_KEY): rows/s,
   its peak RSS (ru_maxrss, from wait4 as it exits) and its CPU time (user + system,
   start-up included) per row, which a busy shared machine disturbs less than rows/s; meanwhile another
   thread asks `GET /v2/jobs` every 50 ms and the latency of those answers is shown (p95/max);
3. a plain loop with httpx: create the job, upload, wait on the sync host, download, one row at a time.
Prints a table.

On ext4, leave a minute between runs (or give --work-dir on tmpfs): the previous run's cleanup frees
thousands of inodes, and for about a minute ext4 skips recently freed inodes when it allocates new
ones, which made the service's file creations (a directory per task) several times dearer here
(service CPU 4.1 -> 8 ms/row, all of it kernel time).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from types import TracebackType
from typing import Any, Protocol

import httpx
from PIL import Image

from mcv_pipelines.api.client import ApiClient
from mcv_pipelines.api.settings import Settings
from mcv_pipelines.batch import BatchMeta, BatchOptions, Journal, RowRenderer, execute_batch, open_manifest
from mcv_pipelines.batch.prepare import prepare_rows
from mcv_pipelines.pipeline.document import load_document
from mcv_pipelines.run.model import RunOptions
from mcv_pipelines.service.server import LocalService

KEY = "sk-bench-batch-0c9d2e"
PIPELINE = """\
version: 1
name: bench-webp
params:
  image: {type: string}
  out: {type: string, default: out}
job:
  tag: bench-webp
tasks:
  source:
    operation: import/upload
    upload_from: "{{ params.image }}"
  convert:
    operation: convert
    input: source
    output_format: webp
    filename: "{{ params.image | stem }}.webp"
  publish:
    operation: export/url
    input: convert
    download_to: "{{ params.out }}/"
"""


class Endpoint(Protocol):
    @property
    def base_url(self) -> str: ...
    @property
    def sync_url(self) -> str: ...


class Served:
    """`mcv serve --port 0` in a child process, its output in a file; stopped on exit."""

    def __init__(self, work: Path, rate_limit: int | None) -> None:
        self._log = work / "serve.log"
        command = [sys.executable, "-m", "mcv_pipelines", "serve", "--port", "0",
                   "--data-dir", str(work / "service")]
        if rate_limit:
            command += ["--rate-limit", str(rate_limit)]
        env = {**os.environ, "MCV_SERVE_API_KEY": KEY}
        with self._log.open("w") as log:
            self._process = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT)
        self.base_url = self.sync_url = ""

    def __enter__(self) -> Served:
        deadline = time.monotonic() + 30
        while not self.sync_url:
            if self._process.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"mcv serve did not start:\n{self._log.read_text()}")
            time.sleep(0.05)
            for line in self._log.read_text().splitlines():
                if line.startswith("base URL:"):
                    self.base_url = line.split()[-1]
                elif line.startswith("sync URL:"):
                    self.sync_url = line.split()[-1]
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self._process.terminate()
        self._process.wait(timeout=30)

    def cpu_seconds(self) -> float:
        """User + system CPU time of the service process so far."""
        fields = Path(f"/proc/{self._process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def make_rows(work: Path, rows: int) -> None:
    (work / "img").mkdir()
    lines = ["image,out"]
    for i in range(rows):
        name = f"img/p{i:05d}.png"
        Image.new("RGB", (16, 16), (i % 256, (i * 3) % 256, 40)).save(work / name)
        lines.append(f"{name},OUT")
    (work / "pipeline.yaml").write_text(PIPELINE)
    for label in ("lib", "cli", "lib1", "cli1"):
        (work / f"{label}.csv").write_text("\n".join(lines).replace(",OUT", f",out-{label}") + "\n")


async def batch_in_process(work: Path, service: Endpoint, concurrency: int, label: str,
                           per_job: int | None) -> tuple[float, int, int]:
    """Seconds, requests and job creations of the library batch (``per_job`` rows a job; None: the
    number mcv batch chooses)."""
    requests = creations = 0

    async def count(request: httpx.Request) -> None:
        nonlocal requests, creations
        requests += 1
        creations += request.method == "POST" and request.url.path.endswith("/v2/jobs")

    manifest = open_manifest(work / f"{label}.csv", params={"image", "out"})
    renderer = RowRenderer(load_document(work / "pipeline.yaml"), base_dir=work)
    meta = BatchMeta.describe(work / "pipeline.yaml", manifest)
    started = time.perf_counter()
    with Journal.open(work / f"{label}.journal.sqlite", meta) as journal:
        prepared = prepare_rows(manifest, renderer, journal, options=RunOptions(base_dir=work))
        assert prepared.ok, prepared.diagnostics
        settings = Settings.build(api_key=KEY, base_url=service.base_url, sync_url=service.sync_url)
        async with ApiClient(settings) as client:
            client.http.event_hooks["request"].append(count)
            options = BatchOptions(concurrency=concurrency, rows_per_job=per_job,
                                   run=RunOptions(base_dir=work, status_interval=0.0, poll_interval=0.5))
            outcome = await execute_batch(client, journal, manifest, renderer, options)
        assert outcome.ok, outcome
    return time.perf_counter() - started, requests, creations


class Prober:
    """While a batch runs: ``GET /v2/jobs?per_page=1`` every 50 ms from another thread, each answer's
    latency kept (does the service still answer the API while it works through packed jobs?)."""

    def __init__(self, service: Endpoint) -> None:
        self.url = f"{service.base_url}/v2/jobs"
        self.latencies: list[float] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._probe, daemon=True)

    def _probe(self) -> None:
        with httpx.Client(headers={"Authorization": f"Bearer {KEY}"}, timeout=30) as http:
            while not self._stop.wait(0.05):
                started = time.perf_counter()
                http.get(self.url, params={"per_page": 1}).raise_for_status()
                self.latencies.append(time.perf_counter() - started)

    def __enter__(self) -> Prober:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def summary(self) -> str:
        if not self.latencies:
            return "-"
        ordered = sorted(self.latencies)
        p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]
        return f"{p95 * 1000:.0f}/{ordered[-1] * 1000:.0f} ms"


def batch_subprocess(work: Path, service: Endpoint, concurrency: int, label: str,
                     per_job: int | None) -> tuple[float, int, float]:
    """Seconds, peak RSS (bytes) and CPU seconds (user + system) of `mcv batch` in a child process,
    all three from the kernel's account of the child as it is reaped (``wait4``): the time stops when
    the child does, not at the next poll."""
    env = {**os.environ, "MCV_BASE_URL": service.base_url, "MCV_API_KEY": KEY,
           "MCV_CONFIG": str(work / "none.toml")}
    command = [sys.executable, "-m", "mcv_pipelines", "batch", "pipeline.yaml", "--manifest", f"{label}.csv",
               "--concurrency", str(concurrency), "--progress", "none", "--report", f"{label}.jsonl"]
    if per_job is not None:
        command += ["--rows-per-job", str(per_job)]
    started = time.perf_counter()
    process = subprocess.Popen(command, cwd=work, env=env, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise SystemExit(f"mcv batch exited {process.returncode}")
    return elapsed, usage.ru_maxrss * 1024, usage.ru_utime + usage.ru_stime


def plain_loop(work: Path, service: Endpoint, rows: int) -> tuple[float, int]:
    """Seconds and requests of create, upload, wait, download, one row at a time."""
    out = work / "out-loop"
    out.mkdir()
    headers = {"Authorization": f"Bearer {KEY}"}
    requests = 0

    def count(_: httpx.Request) -> None:
        nonlocal requests
        requests += 1

    started = time.perf_counter()
    with httpx.Client(event_hooks={"request": [count]}, timeout=60) as http:
        for i in range(rows):
            image = work / "img" / f"p{i:05d}.png"
            body: dict[str, Any] = {"tag": "bench-loop", "tasks": {
                "source": {"operation": "import/upload"},
                "convert": {"operation": "convert", "input": "source", "output_format": "webp",
                            "filename": f"{image.stem}.webp"},
                "publish": {"operation": "export/url", "input": "convert"},
            }}
            job = http.post(f"{service.base_url}/v2/jobs", json=body, headers=headers).raise_for_status()
            data = job.json()["data"]
            form = next(t for t in data["tasks"] if t["name"] == "source")["result"]["form"]
            with image.open("rb") as stream:
                http.post(form["url"], data=form["parameters"], files={"file": stream}).raise_for_status()
            done = http.get(f"{service.sync_url}/v2/jobs/{data['id']}", headers=headers).raise_for_status()
            export = next(t for t in done.json()["data"]["tasks"] if t["name"] == "publish")
            for file in export["result"]["files"]:
                (out / file["filename"]).write_bytes(http.get(file["url"]).raise_for_status().content)
    return time.perf_counter() - started, requests


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("rows", nargs="?", type=int, default=1000, help="manifest rows (default 1000)")
    parser.add_argument("concurrency", nargs="?", type=int, default=8, help="jobs at once (default 8)")
    parser.add_argument(
        "rate_limit", nargs="?", type=int, default=None,
        help="job creations per minute per key (default: the service's 500; e.g. 100000 to lift it)",
    )  # fmt: skip
    parser.add_argument("--no-loop", action="store_true", help="skip the plain httpx loop (slow)")
    parser.add_argument("--rows-per-job", type=int, default=None, metavar="N",
                        help="rows a job on the packed side (default: as mcv batch chooses)")
    parser.add_argument(
        "--serve", action="store_true",
        help="measure against a real `mcv serve` process (and show its CPU per row), not one in this process",
    )  # fmt: skip
    parser.add_argument(
        "--work-dir", type=Path, default=None,
        help="make the run's temporary directory here (default: the system's, e.g. /tmp)",
    )  # fmt: skip
    args = parser.parse_args()
    rows, concurrency, limit = args.rows, args.concurrency, args.rate_limit
    settings = {"rate_limit": limit} if limit else None
    with tempfile.TemporaryDirectory(prefix="mcv-bench-batch-", dir=args.work_dir) as tmp:
        work = Path(tmp)
        make_rows(work, rows)
        with (
            Served(work, limit) if args.serve
            else LocalService(data_dir=work / "service", api_key=KEY, settings=settings)
        ) as service:  # fmt: skip
            packed = args.rows_per_job
            libs = [asyncio.run(batch_in_process(work, service, concurrency, label, per_job))
                    for label, per_job in (("lib", packed), ("lib1", 1))]
            clis = []
            for label, per_job in (("cli", packed), ("cli1", 1)):
                before = service.cpu_seconds() if isinstance(service, Served) else 0.0
                with Prober(service) as prober:
                    run = batch_subprocess(work, service, concurrency, label, per_job)
                served = service.cpu_seconds() - before if isinstance(service, Served) else None
                clis.append((*run, served, prober.summary()))
            loop_seconds, loop_requests = (0.0, 0) if args.no_loop else plain_loop(work, service, rows)
        labels = ["out-lib", "out-lib1", "out-cli", "out-cli1"] + ([] if args.no_loop else ["out-loop"])
        for label in labels:
            made = len(list((work / label).glob("*.webp")))
            if made != rows:
                raise SystemExit(f"{label}: {made} of {rows} files")
    where = "`mcv serve` process" if args.serve else "local service in this process"
    print(f"{rows} rows of 16x16 PNG -> webp, {where} on loopback, concurrency {concurrency}, "
          f"rate limit {limit or 500} job creations/min\n")
    print(f"{'run':<44} {'seconds':>8} {'rows/s':>8} {'requests/row':>13} {'jobs':>6} {'peak RSS':>10} "
          f"{'CPU ms/row':>11} {'service ms/row':>15} {'API p95/max':>12}")
    ways = (f"--rows-per-job {args.rows_per_job}" if args.rows_per_job else "packed", "--rows-per-job 1")
    for way, (seconds, requests, creations) in zip(ways, libs, strict=True):
        print(f"{f'mcv batch, library, {way}':<44} {seconds:8.1f} {rows / seconds:8.1f} "
              f"{requests / rows:13.2f} {creations:6d} {'-':>10} {'-':>11} {'-':>15}")
    for way, (seconds, peak, cpu, served, probed) in zip(ways, clis, strict=True):
        shown = "-" if served is None else f"{served * 1000 / rows:.2f}"
        print(f"{f'mcv batch, subprocess, {way}':<44} {seconds:8.1f} {rows / seconds:8.1f} {'-':>13} "
              f"{'-':>6} {peak / 2**20:8.1f} MB {cpu * 1000 / rows:11.2f} {shown:>15} {probed:>12}")
    print(f"\npacked / one job a row: {libs[1][0] / libs[0][0]:.2f}x rows/s (library), "
          f"{clis[1][0] / clis[0][0]:.2f}x (subprocess)")
    if args.no_loop:
        return
    lib_seconds, cli_seconds = libs[0][0], clis[0][0]
    print(f"{'plain httpx loop, one at a time':<44} {loop_seconds:8.1f} {rows / loop_seconds:8.1f} "
          f"{loop_requests / rows:13.2f} {rows:6d}")
    print(f"\nbatch/loop speed ratio: {loop_seconds / lib_seconds:.2f}x (library), "
          f"{loop_seconds / cli_seconds:.2f}x (subprocess, including start-up and validation)")


if __name__ == "__main__":
    main()
