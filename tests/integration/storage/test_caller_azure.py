"""import/azure/blob and export/azure/blob on the local service against a real Azure Blob server
(Azurite on loopback): shared key and SAS tokens, blobs and prefixes both ways, metadata read back
with Azure's own client, large files in blocks, the errors a user meets, and credentials shown nowhere."""

from __future__ import annotations

import hashlib
import logging
import secrets
import socket
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest
from azure.storage.blob import (
    BlobServiceClient,
    ContainerClient,
    ContainerSasPermissions,
    generate_container_sas,
)

from azurite import ACCOUNT, KEY, Azurite
from caller_jobs import error_of, run_job
from mcv_pipelines.service.engines.url_guard import UrlGuard, parse_networks
from mcv_pipelines.service.server import LocalService
from mcv_pipelines.service.work.caller_storage import azure_blob


def start(tmp_path: Path, azurite: Azurite, **settings: Any) -> LocalService:
    settings.setdefault("azure_blob_endpoint", azurite.endpoint)
    return LocalService(data_dir=tmp_path / f"data-{secrets.token_hex(3)}", engines=[], settings=settings)


@pytest.fixture
def service(tmp_path: Path, azurite: Azurite) -> Iterator[LocalService]:
    with start(tmp_path, azurite, caller_storage_retry=1.0) as svc:
        yield svc


@pytest.fixture
def container(azurite: Azurite) -> Iterator[ContainerClient]:
    """A fresh container, through Azure's own client."""
    client = BlobServiceClient.from_connection_string(azurite.connection_string)
    made = client.create_container(f"c{secrets.token_hex(6)}")
    try:
        yield made
    finally:
        client.close()


def keyed(container: ContainerClient, **extra: Any) -> dict[str, Any]:
    return {
        "storage_account": ACCOUNT,
        "storage_access_key": KEY,
        "container": container.container_name,
        **extra,
    }


def sas_for(container: ContainerClient, permission: str) -> str:
    return generate_container_sas(
        ACCOUNT,
        container.container_name,
        account_key=KEY,
        permission=ContainerSasPermissions.from_string(permission),
        expiry=datetime.now(UTC) + timedelta(hours=1),
    )


def with_sas(container: ContainerClient, token: str, **extra: Any) -> dict[str, Any]:
    return {"storage_account": ACCOUNT, "sas_token": token, "container": container.container_name, **extra}


def put(container: ContainerClient, blobs: dict[str, bytes]) -> None:
    for name, body in blobs.items():
        container.upload_blob(name, body)


def test_a_prefix_comes_in_blob_by_blob_and_goes_out_with_its_metadata(
    service: LocalService, container: ContainerClient
) -> None:
    put(container, {"in/a.txt": b"alpha", "in/sub dir/b +ä.csv": b"b,c", "in-decoy.txt": b"no"})
    tasks = run_job(
        service,
        {
            "in": {"operation": "import/azure/blob", **keyed(container), "blob_prefix": "in/"},
            "out": {
                "operation": "export/azure/blob",
                "input": "in",
                **keyed(container),
                "blob_prefix": "out/",
                "metadata": {"origin": "mcv", "run": "7"},
            },
        },
    )
    assert tasks["in"]["status"] == "finished", tasks["in"]["message"]
    assert [(f["filename"], f["size"]) for f in tasks["in"]["result"]["files"]] == [
        ("a.txt", 5),
        ("b +ä.csv", 3),
    ]
    assert tasks["out"]["status"] == "finished", tasks["out"]["message"]
    base = f"{container.url}/out/"
    assert [f["location"] for f in tasks["out"]["result"]["files"]] == [
        f"{base}a.txt",
        f"{base}b%20%2B%C3%A4.csv",
    ]
    assert sorted(b.name for b in container.list_blobs(name_starts_with="out")) == [
        "out/a.txt",
        "out/b +ä.csv",
    ]
    for name, body, content_type in (("a.txt", b"alpha", "text/plain"), ("b +ä.csv", b"b,c", "text/csv")):
        blob = container.get_blob_client(f"out/{name}")
        properties = blob.get_blob_properties()
        assert properties.metadata == {"origin": "mcv", "run": "7"}
        assert properties.content_settings.content_type == content_type  # from the file's name
        assert blob.download_blob().readall() == body


def test_sas_tokens_with_or_without_question_mark_and_numbered_blobs_out(
    service: LocalService, container: ContainerClient
) -> None:
    put(container, {"photo.jpg": b"jpeg bytes"})
    tasks = run_job(
        service,
        {
            "one": {
                "operation": "import/azure/blob",
                **with_sas(container, "?" + sas_for(container, "r")),
                "blob": "photo.jpg",
                "filename": "p.jpg",
            },
            "two": {"operation": "import/raw", "file": "second", "filename": "q.txt"},
            "out": {
                "operation": "export/azure/blob",
                "input": ["one", "two"],
                **with_sas(container, sas_for(container, "cw")),
                "blob": "page-%02d.bin",
            },
        },
    )
    assert tasks["one"]["result"]["files"][0]["filename"] == "p.jpg"
    assert tasks["out"]["status"] == "finished", tasks["out"]["message"]
    first = container.get_blob_client("page-01.bin")
    assert first.download_blob().readall() == b"jpeg bytes"
    assert first.get_blob_properties().content_settings.content_type == "image/jpeg"
    assert container.get_blob_client("page-02.bin").download_blob().readall() == b"second"
    # A read-only token cannot write: the export is refused as a credential problem.
    refused = run_job(
        service,
        {
            "raw": {"operation": "import/raw", "file": "x", "filename": "x.txt"},
            "out": {
                "operation": "export/azure/blob",
                "input": "raw",
                **with_sas(container, sas_for(container, "r")),
                "blob": "x.txt",
            },
        },
    )["out"]
    assert refused["code"] == "STORAGE_ACCESS_DENIED", refused


def test_dot_segments_of_a_blob_name_stay_in_the_name(
    service: LocalService, container: ContainerClient
) -> None:
    """ "in/../kept.txt" is a blob of that name: no URL handling may turn it into "kept.txt"."""
    tasks = run_job(
        service,
        {
            "raw": {"operation": "import/raw", "file": "dots", "filename": "d.txt"},
            "out": {
                "operation": "export/azure/blob",
                "input": "raw",
                **keyed(container),
                "blob": "in/../kept.txt",
            },
        },
    )
    assert tasks["out"]["status"] == "finished", tasks["out"]["message"]
    assert [b.name for b in container.list_blobs()] == ["in/../kept.txt"]
    back = run_job(
        service, {"in": {"operation": "import/azure/blob", **keyed(container), "blob_prefix": "in/"}}
    )
    assert back["in"]["result"]["files"][0]["size"] == 4


def test_a_large_file_goes_out_in_blocks_and_comes_back_streamed(
    service: LocalService, container: ContainerClient
) -> None:
    body = secrets.token_bytes(2 * azure_blob.BLOCK + 12345)  # three blocks out
    container.upload_blob("big.bin", body)
    tasks = run_job(
        service,
        {
            "in": {"operation": "import/azure/blob", **keyed(container), "blob": "big.bin"},
            "out": {
                "operation": "export/azure/blob",
                "input": "in",
                **keyed(container),
                "blob": "copy.bin",
                "metadata": {"k": "v"},
            },
        },
    )
    assert tasks["out"]["status"] == "finished", tasks["out"]["message"]
    assert tasks["in"]["result"]["files"][0]["size"] == len(body)
    copy = container.get_blob_client("copy.bin")
    committed, uncommitted = copy.get_block_list("all")
    assert [block.size for block in committed] == [azure_blob.BLOCK, azure_blob.BLOCK, 12345]
    assert uncommitted == []
    assert copy.get_blob_properties().metadata == {"k": "v"}
    assert copy.download_blob().readall() == body


def test_a_listing_of_several_pages_is_followed_to_its_end(
    service: LocalService, container: ContainerClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(azure_blob, "_PAGE", "2")  # the service runs in this process
    put(container, {f"many/{n:02d}.txt": str(n).encode() for n in range(7)})
    ended = run_job(
        service, {"in": {"operation": "import/azure/blob", **keyed(container), "blob_prefix": "many/"}}
    )["in"]
    assert ended["status"] == "finished", ended["message"]
    assert [f["filename"] for f in ended["result"]["files"]] == [f"{n:02d}.txt" for n in range(7)]


class CuttingRelay:
    """A loopback relay to Azurite that cuts the first blob download halfway through its body (the
    headers promise all of it), as a dropped connection would; ``ranges`` holds each GET's Range."""

    def __init__(self, upstream: str) -> None:
        self.ranges: list[str | None] = []
        relay = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                del format, args

            def do_GET(self) -> None:
                headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "connection")}
                with httpx.Client(timeout=30.0, trust_env=False) as client:
                    answer = client.get(upstream + self.path, headers=headers)
                self.send_response(answer.status_code)
                for name, value in answer.headers.items():
                    if name.lower() not in ("connection", "transfer-encoding", "content-length"):
                        self.send_header(name, value)
                self.send_header("Content-Length", str(len(answer.content)))
                self.end_headers()
                if "comp=" not in self.path:
                    relay.ranges.append(self.headers.get("Range"))
                    if len(relay.ranges) == 1:
                        self.wfile.write(answer.content[: len(answer.content) // 2])
                        self.wfile.flush()
                        self.connection.shutdown(socket.SHUT_RDWR)
                        self.close_connection = True
                        return
                self.wfile.write(answer.content)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = int(self.server.server_address[1])
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> CuttingRelay:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


def test_a_download_cut_halfway_goes_on_from_where_it_stopped(
    azurite: Azurite, container: ContainerClient, tmp_path: Path
) -> None:
    body = secrets.token_bytes(3 * 1024 * 1024 + 7)
    container.upload_blob("cut.bin", body)
    with CuttingRelay(f"http://127.0.0.1:{azurite.port}") as relay:
        endpoint = f"http://127.0.0.1:{relay.port}/{{account}}"
        with start(tmp_path, azurite, azure_blob_endpoint=endpoint, caller_storage_retry=10.0) as svc:
            ended = run_job(
                svc, {"in": {"operation": "import/azure/blob", **keyed(container), "blob": "cut.bin"}}
            )
    assert ended["in"]["status"] == "finished", ended["in"]["message"]
    assert ended["in"]["result"]["files"][0]["md5"] == hashlib.md5(body, usedforsecurity=False).hexdigest()
    assert relay.ranges[0] is None
    # Only the rest was asked for: from the last whole chunk that arrived before the cut.
    assert len(relay.ranges) == 2
    resumed = int(str(relay.ranges[1]).removeprefix("bytes=").removesuffix("-"))
    assert 0 < resumed <= len(body) // 2


class closed_port:
    """A loopback port nothing listens on."""

    def __enter__(self) -> int:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            return int(probe.getsockname()[1])

    def __exit__(self, *exc: object) -> None:
        pass


def test_each_failure_has_its_code_names_the_container_and_hides_the_secret(
    service: LocalService,
    container: ContainerClient,
    azurite: Azurite,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    canary_key = "Y2FuYXJ5" + secrets.token_urlsafe(30).replace("-", "a").replace("_", "b") + "=="
    canary_key = canary_key[: len(canary_key) - len(canary_key) % 4]
    canary_sig = "canary" + secrets.token_urlsafe(20) + "/+="
    put(container, {"there.txt": b"x"})
    name = container.container_name

    def with_wrong_key(**target: str) -> dict[str, Any]:
        task = {"operation": "import/azure/blob", **keyed(container), "storage_access_key": canary_key}
        return error_of(service, {**task, **target})

    wrong_key = with_wrong_key(blob="there.txt")
    assert wrong_key["code"] == "STORAGE_ACCESS_DENIED"
    assert f"Azure container '{name}'" in wrong_key["message"]
    wrong_key_listing = with_wrong_key(blob_prefix="t")
    assert wrong_key_listing["code"] == "STORAGE_ACCESS_DENIED"
    assert "StorageErrorCode" not in wrong_key_listing["message"], wrong_key_listing["message"]
    forged = (
        sas_for(container, "r").split("sig=")[0]
        + "sig="
        + httpx.URL("", params={"s": canary_sig}).query.decode()[2:]
    )
    wrong_sas = error_of(
        service, {"operation": "import/azure/blob", **with_sas(container, forged), "blob": "there.txt"}
    )
    assert wrong_sas["code"] == "STORAGE_ACCESS_DENIED"
    no_container = error_of(
        service, {"operation": "import/azure/blob", **keyed(container), "container": "nope-box", "blob": "x"}
    )
    assert no_container["code"] == "STORAGE_BUCKET_NOT_FOUND"
    assert "nope-box" in no_container["message"]
    no_blob = error_of(service, {"operation": "import/azure/blob", **keyed(container), "blob": "missing.txt"})
    assert no_blob["code"] == "STORAGE_FILE_NOT_FOUND"
    assert "missing.txt" in no_blob["message"]
    empty = error_of(service, {"operation": "import/azure/blob", **keyed(container), "blob_prefix": "none/"})
    assert empty["code"] == "STORAGE_FILE_NOT_FOUND"
    with (
        closed_port() as port,
        start(
            tmp_path,
            azurite,
            caller_storage_retry=0.5,
            azure_blob_endpoint=f"http://127.0.0.1:{port}/{{account}}",
        ) as away_svc,
    ):
        away = error_of(away_svc, {"operation": "import/azure/blob", **keyed(container), "blob": "there.txt"})
    assert away["code"] == "STORAGE_UNREACHABLE"
    assert f"127.0.0.1:{port}" in away["message"]
    logged = "\n".join(r.getMessage() for r in caplog.records if r.name.startswith("mcv_pipelines"))
    shown = str([wrong_key, wrong_key_listing, wrong_sas, no_container, no_blob, empty, away]) + logged
    for secret in (
        canary_key,
        KEY,
        canary_sig,
        forged,
        httpx.URL("", params={"s": canary_sig}).query.decode()[2:],
    ):
        assert secret not in shown
    for ended in (wrong_key, wrong_sas):
        assert "storage_access_key" not in ended["payload"]
        assert "sas_token" not in ended["payload"]


def test_a_served_instance_refuses_a_private_endpoint_unless_allowed(
    azurite: Azurite, container: ContainerClient, tmp_path: Path
) -> None:
    put(container, {"a.txt": b"a"})
    task = {"operation": "import/azure/blob", **keyed(container), "blob": "a.txt"}
    with start(tmp_path, azurite, url_guard=UrlGuard()) as guarded:
        refused = error_of(guarded, task)
    named = {"blobs.example": ["127.0.0.1"]}
    rebinding = UrlGuard(resolver=lambda host, _: named[host])
    endpoint = f"http://blobs.example:{azurite.port}/{{account}}"
    with start(tmp_path, azurite, url_guard=rebinding, azure_blob_endpoint=endpoint) as renamed:
        rebound = error_of(renamed, task)
    for ended in (refused, rebound):
        assert ended["code"] == "STORAGE_FORBIDDEN_ADDRESS"
        assert "is not allowed" in ended["message"]
        assert "loopback" in ended["message"]
    allowed = UrlGuard(allowed_networks=parse_networks(["127.0.0.0/8"]))  # --allow-private-network
    with start(tmp_path, azurite, url_guard=allowed) as open_to_loopback:
        fine = run_job(open_to_loopback, {"t": task})["t"]
    assert fine["status"] == "finished", fine["message"]
