"""Upload a large file to an import/upload form and report the service's peak memory.

The service runs in its own process (so the client's memory does not count); the file is sparse
(created with truncate, never held in memory) and streamed by httpx. Prints a table:

    python bench/upload.py            # 1 GiB
    python bench/upload.py --size-mib 256
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import httpx

SERVICE = textwrap.dedent("""
    import sys, time
    from mcv_pipelines.service.server import LocalService
    svc = LocalService(data_dir=sys.argv[1], engines=[]).start()
    print(svc.base_url, svc.api_key, flush=True)
    time.sleep(3600)
""")


def rss_kib(pid: int, field: str) -> int:
    """VmRSS (now) or VmHWM (peak) of a process, in KiB, from /proc."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise RuntimeError(f"{field} not found for pid {pid}")


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--size-mib", type=int, default=1024)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="mcv-bench-") as tmp:
        source = Path(tmp) / "big.bin"
        with source.open("wb") as handle:
            handle.truncate(args.size_mib * 1024 * 1024)  # sparse: no memory, hardly any disk
        with subprocess.Popen(
            [sys.executable, "-c", SERVICE, str(Path(tmp) / "data")], stdout=subprocess.PIPE, text=True
        ) as child:
            try:
                assert child.stdout is not None
                base, key = child.stdout.readline().split()
                headers = {"Authorization": f"Bearer {key}"}
                task = httpx.post(f"{base}/v2/import/upload", json={}, headers=headers).json()["data"]
                form = task["result"]["form"]
                before = rss_kib(child.pid, "VmRSS")
                started = time.monotonic()
                with source.open("rb") as handle:
                    answer = httpx.post(
                        form["url"],
                        data={k: str(v) for k, v in form["parameters"].items()},
                        files={"file": ("big.bin", handle)},
                        timeout=600.0,
                    )
                seconds = time.monotonic() - started
                peak = rss_kib(child.pid, "VmHWM")
                done = httpx.get(f"{base}/v2/tasks/{task['id']}", headers=headers).json()["data"]
            finally:
                child.kill()
    size = done["result"]["files"][0]["size"] if done.get("result") else None
    rows = [
        ("file size (MiB)", f"{args.size_mib}"),
        ("upload answer", f"{answer.status_code}"),
        ("task status", f"{done['status']} (stored {size} bytes)"),
        ("seconds", f"{seconds:.1f}"),
        ("throughput (MiB/s)", f"{args.size_mib / seconds:.0f}"),
        ("service RSS before (MiB)", f"{before / 1024:.1f}"),
        ("service peak RSS (MiB)", f"{peak / 1024:.1f}"),
        ("peak RSS delta (MiB)", f"{(peak - before) / 1024:.1f}  (target < 100)"),
    ]
    width = max(len(name) for name, _ in rows)
    print(f"{'measure':<{width}}  value")
    print(f"{'-' * width}  {'-' * 30}")
    for name, value in rows:
        print(f"{name:<{width}}  {value}")
    return 0 if answer.status_code == 201 and size == args.size_mib * 1024 * 1024 else 1


if __name__ == "__main__":
    raise SystemExit(main())
