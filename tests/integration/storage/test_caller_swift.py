"""import/openstack and export/openstack on the local service against a real OpenStack Swift on loopback
(tests/swift_server.py), logged in through the test's own Keystone token answer (keystone_stub.py):
objects and prefixes both ways, Keystone v3 and v2, the errors a user meets, credentials shown nowhere,
and the guard of a served instance on both the auth_url and the catalog's storage URL."""

from __future__ import annotations

import hashlib
import logging
import secrets
import socket
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest

from caller_jobs import error_of, run_job
from cutting_relay import CuttingRelay
from http_stub import served
from keystone_stub import REGION, KeystoneStub
from mcv_pipelines.service.engines.url_guard import UrlGuard, parse_networks, system_resolver
from mcv_pipelines.service.server import LocalService
from swift_server import LARGEST, SwiftServer


def start(tmp_path: Path, **settings: Any) -> LocalService:
    return LocalService(data_dir=tmp_path / f"data-{secrets.token_hex(3)}", engines=[], settings=settings)


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def keystone(swift: SwiftServer) -> Iterator[KeystoneStub]:
    with KeystoneStub(swift.account_url, _closed_port()) as stub:
        yield stub


@pytest.fixture
def service(tmp_path: Path) -> Iterator[LocalService]:
    with start(tmp_path, caller_storage_retry=1.0) as svc:
        yield svc


@pytest.fixture
def container(swift: SwiftServer) -> str:
    """A fresh container in the default project's account."""
    name = f"c-{secrets.token_hex(4)}"
    assert httpx.put(f"{swift.account_url('demo')}/{name}", trust_env=False).status_code == 201
    return name


def login(keystone: KeystoneStub, container: str, **extra: Any) -> dict[str, Any]:
    return {
        "auth_url": keystone.url,
        "username": keystone.username,
        "password": keystone.password,
        "region": REGION,
        "container": container,
        **extra,
    }


def put(swift: SwiftServer, container: str, objects: dict[str, bytes], project: str = "demo") -> None:
    for name, body in objects.items():
        answer = httpx.put(f"{swift.account_url(project)}/{container}/{name}", content=body, trust_env=False)
        assert answer.status_code == 201, answer.text


def get(swift: SwiftServer, container: str, name: str, project: str = "demo") -> httpx.Response:
    return httpx.get(f"{swift.account_url(project)}/{container}/{name}", trust_env=False)


def names(swift: SwiftServer, container: str, prefix: str = "", project: str = "demo") -> list[str]:
    listed = httpx.get(
        f"{swift.account_url(project)}/{container}",
        params={"format": "json", "prefix": prefix},
        trust_env=False,
    )
    return [item["name"] for item in listed.json()]


def test_a_prefix_comes_in_object_by_object_and_goes_out_under_names_and_a_prefix(
    swift: SwiftServer, keystone: KeystoneStub, service: LocalService, container: str
) -> None:
    put(
        swift,
        container,
        {
            "in/a.txt": b"alpha",
            "in/sub/b.csv": b"b,c",
            "in/dir/": b"",
            "in-decoy.txt": b"no",
            "x.png": b"png",
        },
    )
    tasks = run_job(
        service,
        {
            "in": {"operation": "import/openstack", **login(keystone, container), "file_prefix": "in/"},
            "one": {
                "operation": "import/openstack",
                **login(keystone, container, auth_url=f"{keystone.url}/v3"),
                "file": "x.png",
                "filename": "y.png",
            },
            "out": {
                "operation": "export/openstack",
                "input": "in",
                **login(keystone, container),
                "file_prefix": "out/",
            },
            "numbered": {
                "operation": "export/openstack",
                "input": ["in", "one"],
                **login(keystone, container),
                "file": "page-%02d.bin",
            },
        },
    )
    for task in tasks.values():
        assert task["status"] == "finished", task["message"]
        assert "password" not in task["payload"]
    assert [(f["filename"], f["size"]) for f in tasks["in"]["result"]["files"]] == [
        ("a.txt", 5),
        ("b.csv", 3),
    ]
    assert tasks["one"]["result"]["files"][0]["filename"] == "y.png"
    assert [f["location"] for f in tasks["out"]["result"]["files"]] == [
        f"swift://{container}/out/a.txt",
        f"swift://{container}/out/b.csv",
    ]
    assert names(swift, container, "out/") == ["out/a.txt", "out/b.csv"]  # nothing else, no partial
    assert get(swift, container, "out/a.txt").content == b"alpha"
    assert get(swift, container, "out/b.csv").headers["Content-Type"].startswith("text/csv")
    assert [get(swift, container, f"page-{n:02d}.bin").content for n in (1, 2, 3)] == [
        b"alpha",
        b"b,c",
        b"png",
    ]
    assert get(swift, container, "page-03.bin").headers["Content-Type"] == "image/png"
    assert [path for path, _ in keystone.requests] == ["/v3/auth/tokens"] * 4
    assert keystone.requests[0][1] == {"user": "demo", "domain": {"name": "Default"}, "scope": None}


def test_a_large_object_streams_in_and_out_whole(
    swift: SwiftServer, keystone: KeystoneStub, service: LocalService, container: str
) -> None:
    body = secrets.token_bytes(9 * 1024 * 1024 + 7)  # several chunks both ways
    put(swift, container, {"big.bin": body})
    tasks = run_job(
        service,
        {
            "in": {"operation": "import/openstack", **login(keystone, container), "file": "big.bin"},
            "out": {
                "operation": "export/openstack",
                "input": "in",
                **login(keystone, container),
                "file": "copy.bin",
            },
        },
    )
    assert tasks["out"]["status"] == "finished", tasks["out"]["message"]
    md5 = hashlib.md5(body, usedforsecurity=False).hexdigest()
    assert tasks["in"]["result"]["files"][0]["md5"] == md5
    copy = get(swift, container, "copy.bin")
    assert copy.headers["ETag"].strip('"') == md5
    assert copy.content == body


def test_a_tenant_name_logs_in_with_keystone_v2_or_v3_scoped_where_v2_is_gone(
    swift: SwiftServer, keystone: KeystoneStub, service: LocalService
) -> None:
    project = f"p{secrets.token_hex(3)}"
    box = "box"
    assert httpx.put(f"{swift.account_url(project)}/{box}", trust_env=False).status_code == 201
    put(swift, box, {"a.txt": b"tenant's"}, project)
    task = {"operation": "import/openstack", **login(keystone, box, tenant_name=project), "file": "a.txt"}
    v2 = run_job(service, {"t": task})["t"]
    assert v2["status"] == "finished", v2["message"]
    assert keystone.requests[-1] == ("/v2.0/tokens", {"user": "demo", "tenant": project})
    keystone.v2 = False
    v3 = run_job(service, {"t": {**task, "auth_url": f"{keystone.url}/v2.0/"}})["t"]  # its version replaced
    assert v3["status"] == "finished", v3["message"]
    scope = {"project": {"name": project, "domain": {"name": "Default"}}}
    assert keystone.requests[-1] == (
        "/v3/auth/tokens",
        {"user": "demo", "domain": {"name": "Default"}, "scope": scope},
    )


def test_each_failure_has_its_code_names_what_failed_and_hides_the_password(
    swift: SwiftServer,
    keystone: KeystoneStub,
    service: LocalService,
    container: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    canary = "canary-" + secrets.token_urlsafe(24) + '/+="\\'
    caplog.set_level(logging.DEBUG)
    put(swift, container, {"a.txt": b"a"})
    wrong = error_of(
        service,
        {"operation": "import/openstack", **login(keystone, container), "password": canary, "file": "a.txt"},
    )
    assert wrong["code"] == "STORAGE_ACCESS_DENIED"
    assert keystone.url.removeprefix("http://") in wrong["message"]
    no_container = error_of(
        service, {"operation": "import/openstack", **login(keystone, "nope-box"), "file": "a.txt"}
    )
    assert no_container["code"] == "STORAGE_BUCKET_NOT_FOUND"
    assert "'nope-box'" in no_container["message"]
    no_listing = error_of(
        service, {"operation": "import/openstack", **login(keystone, "nope-box"), "file_prefix": "x"}
    )
    assert no_listing["code"] == "STORAGE_BUCKET_NOT_FOUND"
    no_object = error_of(
        service, {"operation": "import/openstack", **login(keystone, container), "file": "none.txt"}
    )
    assert no_object["code"] == "STORAGE_FILE_NOT_FOUND"
    assert "none.txt" in no_object["message"]
    empty = error_of(
        service, {"operation": "import/openstack", **login(keystone, container), "file_prefix": "zz/"}
    )
    assert empty["code"] == "STORAGE_FILE_NOT_FOUND"
    export_nowhere = run_job(
        service,
        {
            "in": {"operation": "import/raw", "file": "x", "filename": "x.txt"},
            "out": {
                "operation": "export/openstack",
                "input": "in",
                **login(keystone, "nope-box"),
                "file": "x.txt",
            },
        },
    )["out"]
    assert export_nowhere["code"] == "STORAGE_BUCKET_NOT_FOUND"
    region = error_of(
        service,
        {"operation": "import/openstack", **login(keystone, container), "region": "Mars-1", "file": "a.txt"},
    )
    assert region["code"] == "STORAGE_FAILED"
    assert "'Mars-1'" in region["message"]
    assert "RegionOne" in region["message"]
    port = _closed_port()
    away = error_of(
        service,
        {
            "operation": "import/openstack",
            **login(keystone, container),
            "auth_url": f"http://127.0.0.1:{port}",
            "file": "a",
        },
    )
    assert away["code"] == "STORAGE_UNREACHABLE"
    assert f"127.0.0.1:{port}" in away["message"]
    shown = [wrong, no_container, no_listing, no_object, empty, export_nowhere, region, away]
    logged = "\n".join(r.getMessage() for r in caplog.records if r.name.startswith("mcv_pipelines"))
    for secret in (
        canary,
        keystone.password,
        *keystone.tokens,
        httpx.URL("", params={"s": canary}).query.decode(),
    ):
        assert secret not in str(shown) + logged
    for task in shown:
        assert "password" not in task["payload"]


def test_a_served_instance_checks_the_auth_url_and_every_catalog_url(
    swift: SwiftServer, keystone: KeystoneStub, tmp_path: Path, container: str
) -> None:
    with start(tmp_path, url_guard=UrlGuard()) as guarded:
        refused = error_of(
            guarded, {"operation": "import/openstack", **login(keystone, container), "file": "a"}
        )
    assert refused["code"] == "STORAGE_FORBIDDEN_ADDRESS"
    assert "is not allowed" in refused["message"]
    assert keystone.requests == []  # not even asked
    # Keystone's loopback network let in, its catalog pointing at a metadata address: refused too.
    keystone.account_url = lambda project: f"http://swift.test:{swift.port}/v1/AUTH_{project}"

    def resolver(host: str, port: int) -> list[str]:
        return ["169.254.169.254"] if host == "swift.test" else system_resolver(host, port)

    guard = UrlGuard(resolver=resolver, allowed_networks=parse_networks(["127.0.0.0/8"]))
    with start(tmp_path, url_guard=guard, caller_storage_retry=0.0) as guarded:
        catalog = error_of(
            guarded, {"operation": "import/openstack", **login(keystone, container), "file": "a"}
        )
    assert catalog["code"] == "STORAGE_FORBIDDEN_ADDRESS"
    assert "swift.test" in catalog["message"]
    assert [path for path, _ in keystone.requests] == ["/v3/auth/tokens"]


def test_a_file_over_the_largest_object_is_stored_in_segments_and_reads_back_whole(
    swift: SwiftServer, keystone: KeystoneStub, service: LocalService, container: str
) -> None:
    """The test cluster's max_file_size is 12 MiB (as 5 GiB is a real one's): a 30 MiB file is
    refused as one object, so the export writes it as a Static Large Object, which reads back whole.
    The file comes in from a large object too, which reads as one."""
    body = secrets.token_bytes(2 * LARGEST + 6 * 1024 * 1024 + 5)
    assert (
        httpx.put(
            f"{swift.account_url('demo')}/{container}/direct.bin", content=body, trust_env=False
        ).status_code
        == 413
    )  # the bound holds for one object
    source = slo(swift, container, "big.bin", body)  # a large object made by hand, to read in
    tasks = run_job(
        service,
        {
            "in": {"operation": "import/openstack", **login(keystone, container), "file": "big.bin"},
            "out": {
                "operation": "export/openstack",
                "input": "in",
                **login(keystone, container),
                "file": "large/copy.bin",
            },
        },
    )
    assert tasks["out"]["status"] == "finished", tasks["out"]["message"]
    stored = get(swift, container, "large/copy.bin")
    assert stored.status_code == 200
    assert stored.headers.get("X-Static-Large-Object") == "True"
    assert stored.headers["Content-Type"] == "application/octet-stream"
    assert hashlib.sha256(stored.content).digest() == hashlib.sha256(body).digest()
    segments = [name for name in names(swift, f"{container}_segments") if name.startswith("large/")]
    assert len(segments) == 3  # 12 MiB segments (the cluster's bound) for 30 MiB
    assert all(name.startswith("large/copy.bin/slo/") for name in segments)
    assert names(swift, container, "large/") == ["large/copy.bin"]  # no part under the object's name
    assert source in names(swift, container)


def slo(swift: SwiftServer, container: str, name: str, body: bytes) -> str:
    """``body`` stored as a Static Large Object of 8 MiB segments, written straight to Swift."""
    each = 8 * 1024 * 1024
    made = httpx.put(f"{swift.account_url('demo')}/{container}_segments", trust_env=False)
    assert made.status_code in (201, 202)  # the export finds it there and stores its segments beside
    manifest = []
    for n, start in enumerate(range(0, len(body), each)):
        part = body[start : start + each]
        path = f"{container}_segments/by-hand/{n:03d}"
        answer = httpx.put(f"{swift.account_url('demo')}/{path}", content=part, trust_env=False)
        assert answer.status_code == 201, answer.text
        manifest.append(
            {
                "path": f"/{path}",
                "etag": hashlib.md5(part, usedforsecurity=False).hexdigest(),
                "size_bytes": len(part),
            }
        )
    answer = httpx.put(
        f"{swift.account_url('demo')}/{container}/{name}",
        params={"multipart-manifest": "put"},
        json=manifest,
        trust_env=False,
    )
    assert answer.status_code == 201, answer.text
    return name


def test_a_token_refused_mid_task_is_renewed_by_logging_in_again(
    swift: SwiftServer, keystone: KeystoneStub, service: LocalService, container: str
) -> None:
    """Swift refuses each task's first token 401, as it refuses one that has ended: each task logs in
    again and lists, reads and writes with the new token."""
    put(swift, container, {f"r/{n}.txt": f"file {n}".encode() for n in range(3)})
    keystone.on_issue = lambda token: swift.revoke(token) if len(keystone.issued) % 2 else None
    tasks = run_job(
        service,
        {
            "in": {"operation": "import/openstack", **login(keystone, container), "file_prefix": "r/"},
            "out": {
                "operation": "export/openstack",
                "input": "in",
                **login(keystone, container),
                "file_prefix": "copied/",
            },
        },
    )
    for task in tasks.values():
        assert task["status"] == "finished", task["message"]
    assert [get(swift, container, f"copied/{n}.txt").content for n in range(3)] == [
        f"file {n}".encode() for n in range(3)
    ]
    assert len(keystone.issued) == 4  # each task's login, then each one's renewal


def test_a_token_about_to_end_is_renewed_before_it_is_used(
    swift: SwiftServer, keystone: KeystoneStub, service: LocalService, container: str
) -> None:
    """Keystone says the token ends in 30 s, less than the minute a write may need: the export logs
    in again before each file rather than be refused in the middle of one."""
    keystone.lifetime = 30.0
    tasks = run_job(
        service,
        {
            "in": {"operation": "import/raw", "file": "soon", "filename": "soon.txt"},
            "out": {
                "operation": "export/openstack",
                "input": "in",
                **login(keystone, container),
                "file": "soon.txt",
            },
        },
    )
    assert tasks["out"]["status"] == "finished", tasks["out"]["message"]
    assert get(swift, container, "soon.txt").content == b"soon"
    assert len(keystone.issued) >= 2  # the first login, then at least one renewal before the PUT


def test_a_cut_read_goes_on_from_where_it_stopped(
    swift: SwiftServer, keystone: KeystoneStub, service: LocalService, container: str
) -> None:
    body = secrets.token_bytes(3 * 1024 * 1024 + 11)
    put(swift, container, {"cut.bin": body})
    relay = CuttingRelay(swift.url, keep=1024 * 1024 + 5)
    keystone.account_url = lambda project: f"{relay.url}/v1/AUTH_{project}"
    try:
        ended = run_job(
            service, {"t": {"operation": "import/openstack", **login(keystone, container), "file": "cut.bin"}}
        )["t"]
    finally:
        relay.close()
    assert ended["status"] == "finished", ended["message"]
    assert ended["result"]["files"][0]["md5"] == hashlib.md5(body, usedforsecurity=False).hexdigest()
    assert relay.ranges[0] is None
    assert len(relay.ranges) == 2
    resumed_at = int(str(relay.ranges[1]).removeprefix("bytes=").removesuffix("-"))
    assert 0 < resumed_at <= 1024 * 1024 + 5  # from what came (whole chunks of it), not from the start


def test_a_task_of_its_own_imports_through_its_endpoint(
    swift: SwiftServer, keystone: KeystoneStub, service: LocalService, container: str
) -> None:
    put(swift, container, {"a.txt": b"alone"})
    with httpx.Client(
        base_url=service.base_url, headers={"Authorization": f"Bearer {service.api_key}"}, trust_env=False
    ) as client:
        created = client.post("/v2/import/openstack", json={**login(keystone, container), "file": "a.txt"})
        assert created.status_code == 201, created.text
        task_id = created.json()["data"]["id"]
        ended = client.get(f"/sync/v2/tasks/{task_id}", timeout=90.0).json()["data"]
    assert ended["status"] == "finished", ended["message"]
    assert ended["result"]["files"][0]["size"] == 5


def test_names_with_spaces_marks_and_letters_beyond_ascii_go_both_ways(
    swift: SwiftServer, keystone: KeystoneStub, service: LocalService, container: str
) -> None:
    odd = "odd dir/ä b#1?x=%20.txt"
    put(swift, container, {quote(odd): b"odd"})
    tasks = run_job(
        service,
        {
            "in": {"operation": "import/openstack", **login(keystone, container), "file_prefix": "odd dir/"},
            "out": {
                "operation": "export/openstack",
                "input": "in",
                **login(keystone, container),
                "file": "back/ö %d#?.txt",
            },
        },
    )
    assert tasks["out"]["status"] == "finished", tasks["out"]["message"]
    assert tasks["in"]["result"]["files"][0]["size"] == 3
    assert names(swift, container, "back/") == ["back/ö 1#?.txt"]


class _NotKeystone(BaseHTTPRequestHandler):
    """Answers every login 200 with a page that is not Keystone's (a wrong auth_url: a web server's)."""

    def log_message(self, format: str, *args: Any) -> None:
        del format, args

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length") or 0))
        body = b"<html><body>Welcome</body></html>"
        self.send_response(200)
        self.send_header("content-type", "text/html")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def test_a_login_answered_with_something_else_than_keystone_s_says_where(service: LocalService) -> None:
    with served(_NotKeystone) as server:
        task = {
            "operation": "import/openstack",
            "auth_url": server.url,
            "username": "demo",
            "password": "pw-" + secrets.token_urlsafe(12),
            "region": REGION,
            "container": "box",
            "file": "a.txt",
        }
        failed = error_of(service, task)
    assert failed["code"] == "STORAGE_FAILED", failed["message"]  # not an internal error
    assert f"127.0.0.1:{server.port}" in failed["message"]
    assert task["password"] not in failed["message"]
