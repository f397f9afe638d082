"""`mcv run` moving a big file on loopback, next to curl on the same service: MiB/s, ratio, peak RSS.

    .venv/bin/python bench/run.py [--size-mib 1024] [--rounds 1]   # needs ~3x the size on disk

A local service runs in this process (loopback); both clients talk to it, so the ratio measures the
client. Each round:
1. `mcv run` in a subprocess (remote mode: MCV_BASE_URL + MCV_API_KEY) on a pipeline import/upload ->
   export/url. Upload and download times come from its --events file (upload: job submitted to file
   uploaded; download: export seen finished to file downloaded). Peak RSS: VmHWM of /proc/<pid>/status
   sampled while it runs, and its ru_maxrss after it exits.
2. curl doing the same: a job is created over the API, curl posts the form fields and the file to the
   upload form, the job is awaited, curl downloads the export link.
The table shows the best round of each. Targets (issue 15): upload and download >= 0.95x curl, the
runner's peak RSS <= 100 MB whatever the file size.
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

from mcv_pipelines.service.server import LocalService

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
    events.unlink(missing_ok=True)  # one round's events only
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


def _timed(argv: list[str]) -> float:
    """Wall-clock seconds of one child."""
    started = time.monotonic()
    subprocess.run(argv, check=True)
    return time.monotonic() - started


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
        upload = _timed(
            ["curl", "-sS", "-f", "-L", "-o", "/dev/null", *fields, "-F", f"file=@{source}", form["url"]]
        )
        done = api.get(f"{service.sync_url}/v2/jobs/{job['id']}").json()["data"]
        url = next(t for t in done["tasks"] if t["name"] == "publish")["result"]["files"][0]["url"]
        target = work / "curl-download.bin"
        download = _timed(["curl", "-sS", "-f", "-o", str(target), url])
        assert target.stat().st_size == source.stat().st_size
        target.unlink()
    return {"upload": upload, "download": download}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("size_mib", nargs="?", type=int, help=argparse.SUPPRESS)  # the old positional
    parser.add_argument("--size-mib", type=int, default=1024, dest="size", help="file size (default 1024)")
    parser.add_argument("--rounds", type=int, default=1, help="rounds; the best of each is shown")
    parser.add_argument(
        "--dir",
        help="where the files go (default: the temp dir); /dev/shm takes a busy disk out of the numbers",
    )
    args = parser.parse_args()
    size = (args.size_mib or args.size) * MIB
    if shutil.which("curl") is None:
        raise SystemExit("curl is not installed")
    mcv_runs: list[dict[str, float]] = []
    curl_runs: list[dict[str, float]] = []
    with tempfile.TemporaryDirectory(prefix="mcv-bench-run-", dir=args.dir) as tmp:
        work = Path(tmp)
        source = work / "big.bin"
        make_file(source, size)
        with LocalService(data_dir=work / "service") as service:
            for _ in range(args.rounds):  # alternate, so a busy machine slows both alike
                mcv_runs.append(run_mcv(work, source, service))
                curl_runs.append(run_curl(work, source, service))
    mcv = {key: min(run[key] for run in mcv_runs) for key in ("upload", "download", "total")}
    curl = {key: min(run[key] for run in curl_runs) for key in ("upload", "download")}
    mcv_rss = max(run["peak_sampled"] for run in mcv_runs)
    mib = size / MIB
    print(
        f"file: {mib:.0f} MiB in {args.dir or tempfile.gettempdir()}, local service on loopback, "
        f"{os.cpu_count()} CPU(s), {args.rounds} round(s)\n"
    )
    header = (
        f"{'client':<10}{'upload s':>10}{'MiB/s':>8}{'ratio':>7}"
        f"{'download s':>12}{'MiB/s':>8}{'ratio':>7}{'peak RSS':>12}"
    )
    print(header)
    print("-" * len(header))
    # curl's RSS is not shown: ru_maxrss of a forked child counts this (big) process's pages too.
    for name, row, rss in (("curl", curl, "-"), ("mcv run", mcv, f"{mcv_rss / MIB:.1f} MiB")):
        up, down = row["upload"], row["download"]
        print(
            f"{name:<10}{up:>10.2f}{mib / up:>8.0f}{curl['upload'] / up:>6.2f}x"
            f"{down:>12.2f}{mib / down:>8.0f}{curl['download'] / down:>6.2f}x{rss:>12}"
        )
    up, down = curl["upload"] / mcv["upload"], curl["download"] / mcv["download"]
    verdict = "ok" if min(up, down) >= 0.95 and mcv_rss <= 100e6 else "MISSED"
    print(
        f"\ntargets: upload and download >= 0.95x curl, mcv RSS <= 100 MB: {verdict}\n"
        f"mcv run total {mcv['total']:.2f} s (start-up, validation, job, both transfers); mcv peak RSS "
        f"VmHWM {mcv_rss / MIB:.1f} MiB, ru_maxrss {max(r['peak_maxrss'] for r in mcv_runs) / MIB:.1f} MiB"
    )


if __name__ == "__main__":
    main()
