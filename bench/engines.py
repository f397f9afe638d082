"""Warm engines against cold programs, side by side in one run, printed as a table (issue 24).

Run: nice .venv/bin/python bench/engines.py [--runs 15] [--tasks 200]  (a minute or two; needs soffice
and python3-uno)

Office rows: a 1-page docx -> pdf job through the local service (import/base64 + convert, waited on
through the sync endpoint: what a client sees) against `soffice --convert-to pdf` started cold for
each file (its profile made beforehand, so only the start is counted); four such jobs submitted at
once against one; and the resident memory of the service process plus its warm LibreOffice
processes (soffice and its UNO bridge), idle after the runs, and again after ``--tasks`` more jobs and
an idle spell (the pool keeps one process warm and retires each after 200 conversions).
"""

from __future__ import annotations

import argparse
import base64
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx

from mcv_pipelines.service.engines.office.libreoffice import LibreOfficeEngine
from mcv_pipelines.service.server import LocalService

DOCX = Path(__file__).resolve().parents[1] / "pipelines" / "assets" / "letter.docx"
IDLE_SECONDS = 10.0  # the service's default is 60 s; shorter here to measure the pool shrinking


def _job(client: httpx.Client, payload: str) -> float:
    started = time.perf_counter()
    tasks: dict[str, Any] = {
        "doc": {"operation": "import/base64", "file": payload, "filename": "letter.docx"},
        "pdf": {"operation": "convert", "input": "doc", "output_format": "pdf"},
    }
    created = client.post("/v2/jobs", json={"tasks": tasks})
    created.raise_for_status()
    ended = client.get(f"/sync/v2/jobs/{created.json()['data']['id']}").json()["data"]
    elapsed = time.perf_counter() - started
    if ended["status"] != "finished":
        raise SystemExit(f"the job failed: {ended}")
    return elapsed


def _cold_soffice(runs: int, tmp: Path) -> list[float]:
    soffice = shutil.which("soffice")
    if soffice is None:
        raise SystemExit("soffice is not installed")
    profile = (tmp / "cold-profile").as_uri()
    argv = [soffice, f"-env:UserInstallation={profile}", "--headless", "--norestore", "--convert-to", "pdf"]
    subprocess.run([*argv, "--outdir", str(tmp / "warmup"), str(DOCX)], check=True, capture_output=True)
    times = []
    for run in range(runs):
        started = time.perf_counter()
        subprocess.run(
            [*argv, "--outdir", str(tmp / f"cold-{run}"), str(DOCX)], check=True, capture_output=True
        )
        times.append(time.perf_counter() - started)
    return times


def _rss_mib(pids: set[int]) -> float:
    """Resident memory of ``pids`` and every process in their sessions (soffice.bin under soffice)."""
    total = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            status = (entry / "status").read_text()
        except OSError:
            continue
        if int(entry.name) in pids or int(stat[3]) in pids:  # field 6 of stat: the session id
            rss = next((line.split()[1] for line in status.splitlines() if line.startswith("VmRSS:")), "0")
            total += int(rss)
    return total / 1024


def _office_pids(service: LocalService) -> set[int]:
    assert service.ctx is not None
    for engine in service.ctx.scheduler.engines:
        if isinstance(engine, LibreOfficeEngine):
            processes = engine.pool._idle  # a measurement reads what the pool holds
            return {p.pid for proc in processes for p in (proc.office, proc.bridge) if p is not None}
    return set()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--tasks", type=int, default=200, help="jobs run before the last memory reading")
    args = parser.parse_args()
    payload = base64.b64encode(DOCX.read_bytes()).decode()
    rows: list[tuple[str, str]] = []
    office_engine = LibreOfficeEngine(idle_seconds=IDLE_SECONDS)
    with (
        tempfile.TemporaryDirectory() as name,
        LocalService(data_dir=Path(name) / "data", engines=[office_engine]) as service,
    ):
        tmp = Path(name)
        headers = {"Authorization": f"Bearer {service.api_key}"}
        with httpx.Client(base_url=service.base_url, headers=headers, timeout=300) as client:
            first = _job(client, payload)  # starts the pool's first LibreOffice
            warm = [_job(client, payload) for _ in range(args.runs)]
            cold = _cold_soffice(max(5, args.runs // 3), tmp)
            with ThreadPoolExecutor(4) as threads:
                list(threads.map(lambda _: _job(client, payload), range(4)))  # four processes warm
                together = []
                for _ in range(5):
                    started = time.perf_counter()
                    list(threads.map(lambda _: _job(client, payload), range(4)))
                    together.append(time.perf_counter() - started)
            time.sleep(1)  # idle, every slot's LibreOffice still warm
            office = _office_pids(service)
            rss_service = _rss_mib({os.getpid()})
            rss_office = _rss_mib(office)
            for _ in range(args.tasks):  # a worker's day in small: does memory come back after it?
                _job(client, payload)
            time.sleep(IDLE_SECONDS + 6)  # idle long enough for the spare processes to be stopped
            kept = _office_pids(service)
            rss_kept = _rss_mib(kept) + _rss_mib({os.getpid()})
        warm_p50, cold_p50, four = (
            statistics.median(warm),
            statistics.median(cold),
            statistics.median(together),
        )
        rows += [
            ("docx -> pdf job, first (pool starts)", f"{first * 1000:.0f} ms"),
            (f"docx -> pdf job p50 warm (n={len(warm)})", f"{warm_p50 * 1000:.0f} ms"),
            (f"soffice --convert-to pdf cold p50 (n={len(cold)})", f"{cold_p50 * 1000:.0f} ms"),
            ("warm / cold (target <= 0.30)", f"{warm_p50 / cold_p50:.2f}x"),
            ("4 jobs at once p50 (n=5)", f"{four * 1000:.0f} ms"),
            ("4 at once / one (target <= 1.5)", f"{four / warm_p50:.2f}x"),
            (f"RSS idle: service process + {len(office) // 2} warm LibreOffice", f"{rss_service:.0f} MiB + "
             f"{rss_office:.0f} MiB = {rss_service + rss_office:.0f} MiB"),
            (f"RSS after {args.tasks} more jobs and {IDLE_SECONDS:g} s idle: service + "
             f"{len(kept) // 2} LibreOffice kept warm",
             f"{rss_kept:.0f} MiB"),
        ]  # fmt: skip
    width = max(len(label) for label, _ in rows)
    print(f"{'measure':<{width}}  value")
    for label, value in rows:
        print(f"{label:<{width}}  {value}")


if __name__ == "__main__":
    main()
