"""`mcv run` moving a big file: the runner's peak memory and throughput, next to curl on the same service.

    .venv/bin/python bench/run.py [SIZE_MIB]      # default 1024 (1 GiB); needs ~3x that on disk

A local service runs in this process (loopback). Then:
1. `mcv run` in a subprocess (remote mode: MCV_BASE_URL + MCV_API_KEY) on a pipeline import/upload ->
   export/url; its peak RSS is VmHWM of /proc/<pid>/status, sampled while it runs, and the child's
   ru_maxrss after it exits. Upload and download times come from its --events file.
2. curl doing the same: a job is created over the API, curl posts the form fields and the file to the
   upload form, the job is awaited, curl downloads the export link.
Prints a table. Target: the runner's peak RSS under 100 MB whatever the file size.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

import httpx

from mcv_pipelines.local_service.server import LocalService

PIPELINE = """\
version: 1
name: bench-transfer
job:
  tag: bench-transfer
tasks:
  blob:
    operation: import/upload
    upload_from: "{{ params.file }}"
  publish:
    operation: export/url
    input: blob
    download_to: mcv-out/
params:
  file: {type: string}
"""
MIB = 1024 * 1024


def make_file(path: Path, size: int) -> None:
    block = os.urandom(MIB)
    with path.open("wb") as handle:
        for _ in range(size // MIB):
            handle.write(block)


def vm_hwm(pid: int) -> int | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


def run_mcv(work: Path, source: Path, service: LocalService) -> dict[str, float]:
    (work / "bench.yaml").write_text(PIPELINE)
    events = work / "events.jsonl"
    env = dict(
        os.environ, MCV_BASE_URL=service.base_url, MCV_API_KEY=service.api_key, MCV_CONFIG="/nonexistent"
    )
    mcv = [sys.executable, "-m", "mcv_pipelines", "run", "bench.yaml", "-p", f"file={source}"]
    argv = [*mcv, "--progress", "none", "--events", str(events), "--overwrite"]
    started = time.monotonic()
    proc = subprocess.Popen(argv, cwd=work, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    peak = 0
    while proc.poll() is None:
        peak = max(peak, vm_hwm(proc.pid) or 0)
        time.sleep(0.05)
    elapsed = time.monotonic() - started
    out, err = proc.communicate()
    if proc.returncode != 0:
        raise SystemExit(f"mcv run failed ({proc.returncode}):\n{out.decode()}\n{err.decode()}")
    maxrss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
    times = {}
    for line in events.read_text().splitlines():
        record = json.loads(line)
        stamp = datetime.fromisoformat(record["time"]).timestamp()
        if record["event"] == "task" and record["task"] == "publish" and record["status"] == "finished":
            times["exported"] = stamp
        times.setdefault(record["event"], stamp)
    downloaded = work / "mcv-out" / source.name
    assert downloaded.stat().st_size == source.stat().st_size
    downloaded.unlink()
    return {
        "upload": times["uploaded"] - times["submitted"],
        "download": times["downloaded"] - times["exported"],
        "total": elapsed,
        "peak_sampled": peak,
        "peak_maxrss": maxrss,
    }


def run_curl(work: Path, source: Path, service: LocalService) -> dict[str, float]:
    headers = {"Authorization": f"Bearer {service.api_key}"}
    with httpx.Client(base_url=service.base_url, headers=headers, timeout=600) as api:
        tasks = {
            "blob": {"operation": "import/upload"},
            "publish": {"operation": "export/url", "input": "blob"},
        }
        job = api.post("/v2/jobs", json={"tasks": tasks, "tag": "bench-curl"}).json()["data"]
        form = next(t for t in job["tasks"] if t["name"] == "blob")["result"]["form"]
        fields = [arg for k, v in form["parameters"].items() for arg in ("--form-string", f"{k}={v}")]
        started = time.monotonic()
        subprocess.run(
            ["curl", "-sS", "-f", "-L", "-o", "/dev/null", *fields, "-F", f"file=@{source}", form["url"]],
            check=True,
        )
        upload = time.monotonic() - started
        done = api.get(f"{service.sync_url}/v2/jobs/{job['id']}").json()["data"]
        url = next(t for t in done["tasks"] if t["name"] == "publish")["result"]["files"][0]["url"]
        target = work / "curl-download.bin"
        started = time.monotonic()
        subprocess.run(["curl", "-sS", "-f", "-o", str(target), url], check=True)
        download = time.monotonic() - started
        assert target.stat().st_size == source.stat().st_size
        target.unlink()
    return {"upload": upload, "download": download}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "size_mib", nargs="?", type=int, default=1024, help="file size in MiB (default 1024; ~3x on disk)"
    )
    size = parser.parse_args().size_mib * MIB
    if shutil.which("curl") is None:
        raise SystemExit("curl is not installed")
    with tempfile.TemporaryDirectory(prefix="mcv-bench-run-") as tmp:
        work = Path(tmp)
        source = work / "big.bin"
        make_file(source, size)
        with LocalService(data_dir=work / "service") as service:
            mcv = run_mcv(work, source, service)
            curl = run_curl(work, source, service)
    mib = size / MIB
    print(f"file: {mib:.0f} MiB, local service on loopback, {os.cpu_count()} CPU(s)")
    print(f"{'':<22}{'upload s':>10}{'MiB/s':>9}{'download s':>12}{'MiB/s':>9}{'peak RSS':>12}")
    print(
        f"{'mcv run':<22}{mcv['upload']:>10.2f}{mib / mcv['upload']:>9.0f}{mcv['download']:>12.2f}"
        f"{mib / mcv['download']:>9.0f}{mcv['peak_sampled'] / MIB:>9.1f} MiB"
    )
    print(
        f"{'curl':<22}{curl['upload']:>10.2f}{mib / curl['upload']:>9.0f}{curl['download']:>12.2f}"
        f"{mib / curl['download']:>9.0f}{'-':>12}"
    )
    print(
        f"mcv run total {mcv['total']:.2f} s (start-up, validation, job, both transfers); peak RSS: "
        f"VmHWM {mcv['peak_sampled'] / MIB:.1f} MiB, ru_maxrss {mcv['peak_maxrss'] / MIB:.1f} MiB "
        f"(target < 100 MB)"
    )


if __name__ == "__main__":
    main()
