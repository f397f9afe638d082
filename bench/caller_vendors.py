"""Azure Blob, Google Cloud Storage and OpenStack Swift through the service against each vendor's own
client, side by side in one run (issue 49), as bench/caller_s3.py does for S3:

- one large object: import then export in one job on the service, against the vendor client's
  download of the object to a file plus an upload of that file (what a user would script, with the
  client's defaults), with the service's RSS growth over the job;
- many small objects: one import task taking every object under a prefix, against a loop of the
  vendor client listing and downloading them with the same concurrency (4) to files.

    .venv/bin/python bench/caller_vendors.py                            # 1 GiB, 1,000 objects, all kinds
    .venv/bin/python bench/caller_vendors.py --kind azure --size-mib 256 --objects 200

The servers are the tests' (Azurite, fake-gcs-server and its token endpoint, Debian's Swift with a
Keystone stub, whose cluster stores objects over 12 MiB as Static Large Objects on both sides). Each
holds its objects in memory or a temporary directory: give it room for the object three times over.
Prints a table per kind; run by hand, never by the tests.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from caller_s3 import AT_ONCE, MIB, Service, rss_mib, table, timed

SERVICE = textwrap.dedent("""
    import json, sys, time
    from mcv_pipelines.service.server import LocalService
    svc = LocalService(data_dir=sys.argv[1], engines=[], settings=json.loads(sys.argv[2])).start()
    print(svc.base_url, svc.api_key, flush=True)
    time.sleep(36000)
""")


@dataclass
class Kind:
    """One kind's server, as the service and the vendor's client each reach it."""

    name: str
    operation: str  # import/<name>, export/<name>
    one: str  # the payload fields of one object and of a prefix
    many: str
    login: dict[str, Any]
    settings: dict[str, Any]
    put: Callable[[str, Path], None]  # the vendor's upload of a file
    get: Callable[[str, Path], None]  # the vendor's download to a file
    names: Callable[[str], list[str]]  # the vendor's listing of a prefix
    size: Callable[[str], int]


def random_file(path: Path, size: int) -> Path:
    block = os.urandom(8 * MIB)
    with path.open("wb") as out:
        for start in range(0, size, len(block)):
            out.write(block[: min(len(block), size - start)])
    return path


@contextmanager
def azure() -> Iterator[Kind]:
    from azure.storage.blob import BlobServiceClient

    from azurite import ACCOUNT, KEY, Azurite, need_azurite

    server = Azurite(need_azurite()).start()
    try:
        box = BlobServiceClient.from_connection_string(server.connection_string).create_container("bench")

        def get(name: str, path: Path) -> None:
            with path.open("wb") as out:
                box.download_blob(name).readinto(out)

        def put(name: str, path: Path) -> None:
            with path.open("rb") as data:
                box.upload_blob(name, data, overwrite=True)

        yield Kind(
            "azure", "azure/blob", "blob", "blob_prefix",
            {"storage_account": ACCOUNT, "storage_access_key": KEY, "container": "bench"},
            {"azure_blob_endpoint": server.endpoint}, put, get,
            lambda prefix: [b.name for b in box.list_blobs(name_starts_with=prefix)],
            lambda name: int(box.get_blob_client(name).get_blob_properties().size),
        )  # fmt: skip
    finally:
        server.stop()


@contextmanager
def gcs() -> Iterator[Kind]:
    from google.auth.credentials import AnonymousCredentials
    from google.cloud import storage

    from fake_gcs import FakeGcs, ServiceAccount, TokenEndpoint, free_port, need_fake_gcs

    port = free_port()
    server = FakeGcs(need_fake_gcs(), port, external_url=f"http://127.0.0.1:{port}").start()
    account = ServiceAccount()
    try:
        server.bucket("bench")
        client = storage.Client(
            project="bench", credentials=AnonymousCredentials(), client_options={"api_endpoint": server.url}
        )
        bucket = client.bucket("bench")
        with TokenEndpoint(account) as tokens:
            yield Kind(
                "google-cloud-storage", "google-cloud-storage", "file", "file_prefix",
                {"project_id": "bench", "bucket": "bench", "client_email": account.email,
                 "private_key": account.pem},
                {"gcs_endpoint": server.url, "gcs_token_uri": tokens.url},
                lambda name, path: bucket.blob(name).upload_from_filename(str(path)),
                lambda name, path: bucket.blob(name).download_to_filename(str(path)),
                lambda prefix: [b.name for b in client.list_blobs("bench", prefix=prefix)],
                lambda name: int(bucket.get_blob(name).size),
            )  # fmt: skip
    finally:
        server.stop()


@contextmanager
def swift() -> Iterator[Kind]:
    from swiftclient import client
    from swiftclient.service import SwiftService, SwiftUploadObject

    from keystone_stub import REGION, KeystoneStub
    from swift_server import LARGEST, SwiftServer, need_swift

    need_swift()
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed = int(probe.getsockname()[1])
    with SwiftServer() as server, KeystoneStub(server.account_url, closed) as keystone:
        url = server.account_url("demo")
        client.put_container(url, "x", "bench")
        options = {"os_storage_url": url, "os_auth_token": "x", "segment_size": LARGEST, "use_slo": True}

        def put(name: str, path: Path) -> None:  # over the cluster's 12 MiB: segments, as the service does
            with SwiftService(options) as service:
                for result in service.upload("bench", [SwiftUploadObject(str(path), object_name=name)]):
                    assert result["success"], result

        def get(name: str, path: Path) -> None:
            _, body = client.get_object(url, "x", "bench", name, resp_chunk_size=MIB)
            with path.open("wb") as out:
                for chunk in body:
                    out.write(chunk)

        yield Kind(
            "openstack", "openstack", "file", "file_prefix",
            {"auth_url": keystone.url, "username": keystone.username, "password": keystone.password,
             "region": REGION, "container": "bench"},
            {}, put, get,
            lambda prefix: [o["name"] for o in client.get_container(url, "x", "bench", prefix=prefix,
                                                                    full_listing=True)[1]],
            lambda name: int(client.head_object(url, "x", "bench", name)["content-length"]),
        )  # fmt: skip


def large(kind: Kind, root: Path, size: int) -> list[dict[str, str]]:
    source = random_file(root / "source.bin", size)
    kind.put("large/in.bin", source)
    source.unlink()
    local = root / "vendor.bin"
    vendor = timed(lambda: kind.get("large/in.bin", local)) + timed(
        lambda: kind.put("large/vendor.bin", local)
    )
    local.unlink()
    with Service_(root / "data", kind.settings) as service:
        op = kind.operation
        tasks = {
            "in": {"operation": f"import/{op}", **kind.login, kind.one: "large/in.bin"},
            "out": {"operation": f"export/{op}", **kind.login, "input": "in", kind.one: "large/mcv-out.bin"},
        }
        before = rss_mib(service.child.pid, "VmRSS")
        done = timed(lambda: service.run(tasks))
        peak = rss_mib(service.child.pid, "VmHWM")
    assert kind.size("large/mcv-out.bin") == size
    mib = size / MIB
    return [
        {"way": f"{kind.name} client: download + upload", "size": f"{mib:.0f} MiB",
         "seconds": f"{vendor:.1f}", "MiB/s (each way)": f"{2 * mib / vendor:.0f}", "x client": "1.00",
         "service RSS growth MiB": "-"},
        {"way": f"mcv serve: import + export/{kind.operation}", "size": f"{mib:.0f} MiB",
         "seconds": f"{done:.1f}", "MiB/s (each way)": f"{2 * mib / done:.0f}",
         "x client": f"{vendor / done:.2f}", "service RSS growth MiB": f"{peak - before:.0f}"},
    ]  # fmt: skip


def many(kind: Kind, root: Path, count: int) -> list[dict[str, str]]:
    small = random_file(root / "small.bin", 4096)
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda n: kind.put(f"many/o{n:05d}.bin", small), range(count)))
    out = root / "vendor-many"
    out.mkdir()

    def loop() -> None:
        listed = kind.names("many/")
        assert len(listed) == count, len(listed)
        with ThreadPoolExecutor(AT_ONCE) as pool:
            list(pool.map(lambda name: kind.get(name, out / name.rsplit("/", 1)[1]), listed))

    vendor = timed(loop)
    with Service_(root / "data-many", kind.settings) as service:
        task = timed(lambda: service.run({"in": {"operation": f"import/{kind.operation}", **kind.login,
                                                  kind.many: "many/"}}))  # fmt: skip
    return [
        {"way": f"{kind.name} client: list + download, {AT_ONCE} at a time", "objects": str(count),
         "seconds": f"{vendor:.2f}", "objects/s": f"{count / vendor:.0f}", "x client": "1.00"},
        {"way": f"mcv serve: one import/{kind.operation} task ({kind.many})", "objects": str(count),
         "seconds": f"{task:.2f}", "objects/s": f"{count / task:.0f}", "x client": f"{vendor / task:.2f}"},
    ]  # fmt: skip


class Service_(Service):
    """bench/caller_s3.py's service process, given the operator's settings of the kind."""

    def __init__(self, data_dir: Path, settings: dict[str, Any]) -> None:
        import httpx

        command = [sys.executable, "-c", SERVICE, str(data_dir), json.dumps(settings)]
        self.child = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
        assert self.child.stdout is not None
        base, key = self.child.stdout.readline().split()
        self.api = httpx.Client(base_url=base, headers={"Authorization": f"Bearer {key}"}, timeout=3600)

    def __enter__(self) -> Service_:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


KINDS = {"azure": azure, "gcs": gcs, "swift": swift}


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--kind", choices=[*KINDS, "all"], default="all")
    parser.add_argument("--size-mib", type=int, default=1024, help="the large object's size (default 1024)")
    parser.add_argument("--objects", type=int, default=1000, help="small objects under the prefix (1000)")
    args = parser.parse_args()
    for name in KINDS if args.kind == "all" else [args.kind]:
        with ExitStack() as stack:
            kind = stack.enter_context(KINDS[name]())
            root = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix=f"mcv-bench-{name}-")))
            table(large(kind, root, args.size_mib * MIB))
            table(many(kind, root, args.objects))
    print(f"load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
