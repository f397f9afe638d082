"""Warm LibreOffice against cold soffice, and one job against four at once, side by side (issue 24).

Run: nice .venv/bin/python bench/engines.py [--runs 15] [--unoserver DIR]  (two minutes or so; needs
soffice and python3-uno). Memory is bench/memory.py's.

With ``--unoserver DIR`` (a venv whose bin/ has unoserver's ``unoserver`` and ``unoconvert``, e.g.
``/usr/bin/python3 -m venv --system-site-packages DIR && DIR/bin/pip install unoserver``), the same
file is also converted by a running unoserver, ``unoconvert`` started for each file (its client's start
counted, as a user of unoserver pays it), in the same run.

Rows: a 1-page docx -> pdf job through the local service (import/base64 + convert, waited on through
the sync endpoint: what a client sees) against `soffice --convert-to pdf` started cold for each file
(its profile made beforehand, so only the start is counted); the CPU LibreOffice spends per job
(soffice.bin and its UNO bridge, user + system) and its share of the job's wall time; one job
against four submitted at once, in rounds of one then four, with every slot's LibreOffice warm; the
same with the conversion removed (import-only jobs: what the service itself adds); and four at once
after the pool shrank to its one warm process (the other slots start cold, or wait for it).
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import os
import shutil
import signal
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


def _job(client: httpx.Client, tasks: dict[str, Any]) -> float:
    started = time.perf_counter()
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


def _office(service: LocalService) -> LibreOfficeEngine:
    assert service.ctx is not None
    return next(e for e in service.ctx.scheduler.engines if isinstance(e, LibreOfficeEngine))


def _cpu_seconds(engine: LibreOfficeEngine) -> float:
    """User + system CPU of the pool's idle processes so far (soffice.bin and bridge)."""
    ticks = 0
    for process in engine.pool._idle:  # a measurement reads what the pool holds
        for pid in (process.worker, process.bridge.pid if process.bridge else None):
            with contextlib.suppress(OSError, TypeError):
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
                ticks += int(fields[11]) + int(fields[12])
    return ticks / os.sysconf("SC_CLK_TCK")


def _burst(client: httpx.Client, threads: ThreadPoolExecutor, tasks: dict[str, Any], n: int) -> float:
    started = time.perf_counter()
    list(threads.map(lambda _: _job(client, tasks), range(n)))
    return time.perf_counter() - started


def _unoserver(directory: Path, runs: int, tmp: Path) -> list[float]:
    """unoconvert's wall time per file against a unoserver started here (and stopped)."""
    bin_dir = directory / "bin"
    port, uno_port = "20803", "20802"
    server = subprocess.Popen(
        [str(bin_dir / "unoserver"), "--port", port, "--uno-port", uno_port,
         "--user-installation", str(tmp / "unoserver-profile")],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )  # fmt: skip
    convert = [str(bin_dir / "unoconvert"), "--port", port]
    try:
        deadline = time.monotonic() + 120
        while True:  # its first conversion also waits for soffice to come up
            done = subprocess.run([*convert, str(DOCX), str(tmp / "uno-warmup.pdf")], capture_output=True)
            if done.returncode == 0:
                break
            if time.monotonic() > deadline:
                raise SystemExit(f"unoserver did not convert: {done.stderr.decode()[-300:]}")
            time.sleep(1)
        times = []
        for run in range(runs):
            started = time.perf_counter()
            subprocess.run(
                [*convert, str(DOCX), str(tmp / f"uno-{run}.pdf")], check=True, capture_output=True
            )
            times.append(time.perf_counter() - started)
        return times
    finally:
        for sig, wait in ((signal.SIGTERM, 10), (signal.SIGKILL, 30)):  # it may outlive a SIGTERM
            with contextlib.suppress(ProcessLookupError):
                os.killpg(server.pid, sig)
            with contextlib.suppress(subprocess.TimeoutExpired):
                server.wait(timeout=wait)
                break


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--idle-bursts", type=int, default=3, help="bursts of four after the pool shrank")
    parser.add_argument("--unoserver", type=Path, help="a venv with unoserver installed: measured too")
    args = parser.parse_args()
    payload = base64.b64encode(DOCX.read_bytes()).decode()
    convert: dict[str, Any] = {
        "doc": {"operation": "import/base64", "file": payload, "filename": "letter.docx"},
        "pdf": {"operation": "convert", "input": "doc", "output_format": "pdf"},
    }
    only_import: dict[str, Any] = {"doc": convert["doc"]}
    office_engine = LibreOfficeEngine(idle_seconds=IDLE_SECONDS)
    times: dict[str, list[float]] = {}
    with (
        tempfile.TemporaryDirectory() as name,
        LocalService(data_dir=Path(name) / "data", engines=[office_engine]) as service,
    ):
        tmp = Path(name)
        headers = {"Authorization": f"Bearer {service.api_key}"}
        with httpx.Client(base_url=service.base_url, headers=headers, timeout=300) as client:
            first = _job(client, convert)  # starts the pool's first LibreOffice
            cpu_before, own_before = _cpu_seconds(_office(service)), time.process_time()
            warm = [_job(client, convert) for _ in range(args.runs)]
            cpu = (_cpu_seconds(_office(service)) - cpu_before) / args.runs
            own = (time.process_time() - own_before) / args.runs  # the service and this client
            cold = _cold_soffice(max(5, args.runs // 3), tmp)
            uno = _unoserver(args.unoserver, args.runs, tmp) if args.unoserver else []
            with ThreadPoolExecutor(4) as threads:
                _burst(client, threads, convert, 4)  # every slot's LibreOffice starting
                deadline = time.monotonic() + 300
                while len(_office(service).pool.pids()) < 4 and time.monotonic() < deadline:
                    time.sleep(0.2)  # started in the background: measure once all four are warm
                for _ in range(5):
                    for label, tasks, n in (
                        ("one", convert, 1),
                        ("four", convert, 4),
                        ("one import", only_import, 1),
                        ("four imports", only_import, 4),
                    ):
                        times.setdefault(label, []).append(_burst(client, threads, tasks, n))  # fmt: skip
                for _ in range(args.idle_bursts):
                    deadline = time.monotonic() + IDLE_SECONDS * 3
                    while _office(service).pool.size > 1 and time.monotonic() < deadline:
                        time.sleep(0.5)  # the spare processes stop after IDLE_SECONDS
                    times.setdefault("four, one warm", []).append(_burst(client, threads, convert, 4))
                    times.setdefault("one, after", []).append(_burst(client, threads, convert, 1))
    p50 = {label: statistics.median(values) for label, values in times.items()}
    warm_p50, cold_p50 = statistics.median(warm), statistics.median(cold)
    ms = "{:.0f} ms".format
    cores = len(os.sched_getaffinity(0))
    rows = [
        ("docx -> pdf job, first (pool starts)", ms(first * 1000)),
        (f"docx -> pdf job p50 warm (n={len(warm)})", ms(warm_p50 * 1000)),
        (f"soffice --convert-to pdf cold p50 (n={len(cold)})", ms(cold_p50 * 1000)),
        ("warm / cold (target <= 0.30)", f"{warm_p50 / cold_p50:.2f}x"),
        *(
            [
                (f"unoserver + unoconvert p50 (n={len(uno)})", ms(statistics.median(uno) * 1000)),
                ("warm job / unoserver (target <= 1.0)", f"{warm_p50 / statistics.median(uno):.2f}x"),
            ]
            if uno
            else []
        ),
        ("LibreOffice CPU per job (soffice + bridge)", f"{ms(cpu * 1000)} = {cpu / warm_p50:.0%} of a job"),
        ("service + client CPU per job (this process)", f"{ms(own * 1000)} = {own / warm_p50:.0%} of a job"),
        ("one job p50, in rounds with four (n=5)", ms(p50["one"] * 1000)),
        ("4 jobs at once p50, all slots warm (n=5)", ms(p50["four"] * 1000)),
        ("4 at once / one (target <= 1.5)", f"{p50['four'] / p50['one']:.2f}x"),
        # Four jobs' CPU spread over every core, against one job's time: no schedule does better.
        (f"  the CPU floor on {cores} cores: 4 x CPU per job / cores / one",
         f"{max(1.0, 4 * (cpu + own) / cores / p50['one']):.2f}x"),
        ("conversion removed: one import-only job p50", ms(p50["one import"] * 1000)),
        ("conversion removed: 4 at once p50", ms(p50["four imports"] * 1000)),
        ("conversion removed: 4 at once / one", f"{p50['four imports'] / p50['one import']:.2f}x"),
    ]
    if "four, one warm" in p50:
        n = len(times["four, one warm"])
        rows += [
            (f"4 at once after idle, one LibreOffice warm p50 (n={n})", ms(p50["four, one warm"] * 1000)),
            ("  the same / one job in the same rounds", f"{p50['four, one warm'] / p50['one, after']:.2f}x"),
        ]
    width = max(len(label) for label, _ in rows)
    print(f"{'measure':<{width}}  value")
    for label, value in rows:
        print(f"{label:<{width}}  {value}")


if __name__ == "__main__":
    main()
