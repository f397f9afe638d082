"""import/google-cloud-storage and export/google-cloud-storage on the local service against a real
GCS server (fake-gcs-server on loopback) and a token endpoint of the test's own that verifies the
service account's signed grant: file and prefix forms both ways, content types read back, resumable
uploads in chunks, the errors a user meets, the key shown nowhere, and nothing taken from the
environment."""

from __future__ import annotations

import hashlib
import logging
import re
import secrets
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from caller_jobs import error_of, run_job
from fake_gcs import FakeGcs, FaultyRelay, ServiceAccount, TokenEndpoint, free_port, need_fake_gcs
from loopback_listener import Tripwire
from mcv_pipelines.cli.main import main
from mcv_pipelines.service.engines.image.pillow import PillowEngine
from mcv_pipelines.service.engines.url_guard import UrlGuard, parse_networks
from mcv_pipelines.service.server import LocalService
from mcv_pipelines.service.work.caller_storage.gcs import GcsStore
from recording_proxy import RecordingProxy

BUCKET = "mcv-gcs-test"
REPO = Path(__file__).resolve().parents[3]


@dataclass
class Gcs:
    """The session's server, reached through ``proxy`` (its upload sessions too), and the one service
    account its token endpoint knows."""

    server: FakeGcs
    proxy: RecordingProxy
    account: ServiceAccount
    tokens: TokenEndpoint

    def settings(self, **more: Any) -> dict[str, Any]:
        return {"gcs_endpoint": self.proxy.url, "gcs_token_uri": self.tokens.url, **more}

    def task(self, operation: str, **more: Any) -> dict[str, Any]:
        return {
            "operation": operation,
            "project_id": "test-project",
            "bucket": BUCKET,
            "client_email": self.account.email,
            "private_key": self.account.pem,
            **more,
        }


@pytest.fixture(scope="module")
def gcs() -> Iterator[Gcs]:
    binary = need_fake_gcs()
    port = free_port()
    with RecordingProxy(f"http://127.0.0.1:{port}") as proxy:
        server = FakeGcs(binary, port, external_url=proxy.url).start()
        try:
            server.bucket(BUCKET)
            account = ServiceAccount()
            with TokenEndpoint(account) as tokens:
                yield Gcs(server, proxy, account, tokens)
        finally:
            server.stop()


def start(tmp_path: Path, **settings: Any) -> LocalService:
    return LocalService(data_dir=tmp_path / f"data-{secrets.token_hex(3)}", engines=[], settings=settings)


@pytest.fixture
def service(gcs: Gcs, tmp_path: Path) -> Iterator[LocalService]:
    with start(tmp_path, **gcs.settings(caller_storage_retry=1.0)) as svc:
        yield svc


@pytest.fixture
def prefix() -> str:
    return f"caller-{secrets.token_hex(4)}/"


def test_a_prefix_comes_in_file_by_file_and_goes_out_with_the_token_of_a_signed_grant(
    gcs: Gcs, service: LocalService, prefix: str
) -> None:
    for name, body, kind in (
        (f"{prefix}in/a.txt", b"alpha", "text/plain"),
        (f"{prefix}in/sub/b.csv", b"b,c", "text/csv"),
        (f"{prefix}in-decoy.txt", b"no", "text/plain"),
    ):
        gcs.server.put(BUCKET, name, body, kind)
    grants, issued, seen = len(gcs.tokens.grants), len(gcs.tokens.issued), len(gcs.proxy.requests)
    escaped = gcs.account.pem.replace("\n", "\\n")  # as some SDKs send a key: backslash and n
    tasks = run_job(
        service,
        {
            "in": gcs.task("import/google-cloud-storage", file_prefix=f"{prefix}in/"),
            "out": {
                **gcs.task("export/google-cloud-storage", private_key=escaped),
                "input": "in",
                "file_prefix": f"{prefix}out/",
            },
        },
    )
    for name in ("in", "out"):
        assert tasks[name]["status"] == "finished", tasks[name]["message"]
    assert [(f["filename"], f["size"]) for f in tasks["in"]["result"]["files"]] == [
        ("a.txt", 5),
        ("b.csv", 3),
    ]
    assert [f["location"] for f in tasks["out"]["result"]["files"]] == [
        f"gs://{BUCKET}/{prefix}out/a.txt",
        f"gs://{BUCKET}/{prefix}out/b.csv",
    ]
    assert gcs.server.names(BUCKET, f"{prefix}out") == [f"{prefix}out/a.txt", f"{prefix}out/b.csv"]
    assert gcs.server.get(BUCKET, f"{prefix}out/a.txt") == b"alpha"
    assert gcs.server.get(BUCKET, f"{prefix}out/b.csv") == b"b,c"
    assert gcs.server.meta(BUCKET, f"{prefix}out/a.txt")["contentType"] == "text/plain"
    assert gcs.server.meta(BUCKET, f"{prefix}out/b.csv")["contentType"] == "text/csv"
    # One grant per task (its token kept for the task's calls), verified by the endpoint.
    assert len(gcs.tokens.grants) - grants == 2
    tokens = gcs.tokens.issued[issued:]
    api = [(m, p, h) for m, p, h in gcs.proxy.requests[seen:] if "upload_id=" not in p]
    sessions = [(m, p, h) for m, p, h in gcs.proxy.requests[seen:] if "upload_id=" in p]
    assert {m for m, _, _ in api} == {"GET", "POST"}  # listed, read, two upload sessions opened
    assert all(h.get("authorization", "").removeprefix("Bearer ") in tokens for _, _, h in api)
    assert len(sessions) == 2  # one PUT each: small files go in one final chunk
    assert all("authorization" not in h for _, _, h in sessions)  # the session is its own credential
    for task in tasks.values():
        assert "private_key" not in task["payload"]


def test_one_file_in_with_its_filename_and_numbered_files_out(
    gcs: Gcs, service: LocalService, prefix: str
) -> None:
    gcs.server.put(BUCKET, f"{prefix}photo.jpg", b"jpeg bytes", "image/jpeg")
    gcs.server.put(BUCKET, f"{prefix}empty.txt", b"", "text/plain")
    tasks = run_job(
        service,
        {
            "one": gcs.task("import/google-cloud-storage", file=f"{prefix}photo.jpg", filename="p.jpg"),
            "two": gcs.task("import/google-cloud-storage", file=f"{prefix}empty.txt"),
            "out": {
                **gcs.task("export/google-cloud-storage"),
                "input": ["one", "two"],
                "file": f"{prefix}page-%d",
            },
        },
    )
    assert tasks["one"]["result"]["files"][0]["filename"] == "p.jpg"
    assert tasks["out"]["status"] == "finished", tasks["out"]["message"]
    assert gcs.server.get(BUCKET, f"{prefix}page-1") == b"jpeg bytes"
    assert gcs.server.get(BUCKET, f"{prefix}page-2") == b""  # an empty file is an empty object
    assert gcs.server.meta(BUCKET, f"{prefix}page-1")["contentType"] == "image/jpeg"  # from p.jpg
    assert gcs.server.meta(BUCKET, f"{prefix}page-2")["contentType"] == "text/plain"


def test_a_large_object_streams_in_and_goes_out_in_resumable_chunks(
    gcs: Gcs, service: LocalService, prefix: str
) -> None:
    body = secrets.token_bytes(20 * 1024 * 1024 + 123)
    gcs.server.put(BUCKET, f"{prefix}big.bin", body)
    seen = len(gcs.proxy.requests)
    tasks = run_job(
        service,
        {
            "in": gcs.task("import/google-cloud-storage", file=f"{prefix}big.bin"),
            "out": {**gcs.task("export/google-cloud-storage"), "input": "in", "file": f"{prefix}copy.bin"},
        },
    )
    assert tasks["out"]["status"] == "finished", tasks["out"]["message"]
    assert gcs.server.get(BUCKET, f"{prefix}copy.bin") == body
    spans = [h["content-range"] for m, p, h in gcs.proxy.requests[seen:] if m == "PUT" and "upload_id=" in p]
    chunk = 8 * 1024 * 1024
    total = len(body)
    assert spans == [
        f"bytes 0-{chunk - 1}/*",
        f"bytes {chunk}-{2 * chunk - 1}/*",
        f"bytes {2 * chunk}-{total - 1}/{total}",
    ]


def test_a_busy_listing_is_asked_again_and_a_cut_read_resumes_where_it_stopped(
    gcs: Gcs, tmp_path: Path, prefix: str
) -> None:
    body = secrets.token_bytes(3 * 1024 * 1024 + 7)
    gcs.server.put(BUCKET, f"{prefix}in/big.bin", body)
    with FaultyRelay(gcs.server.url) as relay, start(tmp_path, **gcs.settings(gcs_endpoint=relay.url)) as svc:
        ended = run_job(svc, {"t": gcs.task("import/google-cloud-storage", file_prefix=f"{prefix}in/")})["t"]
    assert ended["status"] == "finished", ended["message"]
    [entry] = ended["result"]["files"]
    assert (entry["size"], entry["md5"]) == (len(body), hashlib.md5(body, usedforsecurity=False).hexdigest())
    listings = [p for m, p, _ in relay.requests if m == "GET" and "alt=media" not in p]
    assert len(listings) == 2  # the 503, then the listing
    reads = [(p, h) for m, p, h in relay.requests if "alt=media" in p]
    assert len(reads) == 2
    assert "range" not in reads[0][1]
    resumed = re.fullmatch(r"bytes=(\d+)-", reads[1][1]["range"])
    assert resumed is not None
    assert 0 < int(resumed.group(1)) <= len(body) // 2  # on from the last byte taken, not from 0
    assert "generation=" in reads[1][0]  # of the same version of the object


def test_an_upload_whose_answer_was_lost_asks_the_session_and_goes_on_without_sending_again(
    gcs: Gcs, tmp_path: Path, prefix: str
) -> None:
    body = secrets.token_bytes(9 * 1024 * 1024 + 5)
    gcs.server.put(BUCKET, f"{prefix}big.bin", body)
    job = {
        "in": gcs.task("import/google-cloud-storage", file=f"{prefix}big.bin"),
        "out": {**gcs.task("export/google-cloud-storage"), "input": "in", "file": f"{prefix}copy.bin"},
    }
    relay = FaultyRelay(gcs.server.url, busy=False, cut=False, lose=True)
    with relay, start(tmp_path, **gcs.settings(gcs_endpoint=relay.url)) as svc:
        ended = run_job(svc, job)["out"]
    assert ended["status"] == "finished", ended["message"]
    assert gcs.server.get(BUCKET, f"{prefix}copy.bin") == body
    spans = [h["content-range"] for m, p, h in relay.requests if m == "PUT"]
    chunk, total = 8 * 1024 * 1024, len(body)
    assert spans == [f"bytes 0-{chunk - 1}/*", "bytes */*", f"bytes {chunk}-{total - 1}/{total}"]


def test_a_refused_upload_is_cancelled_and_leaves_no_object(gcs: Gcs, tmp_path: Path, prefix: str) -> None:
    job = {
        "in": {"operation": "import/raw", "file": "x", "filename": "x.txt"},
        "out": {**gcs.task("export/google-cloud-storage"), "input": "in", "file": f"{prefix}x.txt"},
    }
    relay = FaultyRelay(gcs.server.url, busy=False, cut=False, refuse=True)
    with relay, start(tmp_path, **gcs.settings(gcs_endpoint=relay.url)) as svc:
        ended = run_job(svc, job)["out"]
    assert ended["code"] == "STORAGE_FAILED"
    assert "HTTP 400: no" in ended["message"]
    [session] = [p for m, p, _ in relay.requests if m == "PUT"]
    assert ("DELETE", session) in [(m, p) for m, p, _ in relay.requests]
    assert gcs.server.names(BUCKET, prefix) == []


def test_a_long_listing_comes_page_by_page_and_a_token_about_to_end_is_replaced(
    gcs: Gcs, service: LocalService, prefix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    names = [f"{prefix}in/{n}.txt" for n in range(5)]
    for name in names:
        gcs.server.put(BUCKET, name, name.encode(), "text/plain")
    monkeypatch.setattr(GcsStore, "page_size", 2)  # the service runs in this process
    monkeypatch.setattr(gcs.tokens, "expires_in", 200)  # less than the 5 minutes a token must have left
    grants, seen = len(gcs.tokens.grants), len(gcs.proxy.requests)
    ended = run_job(service, {"t": gcs.task("import/google-cloud-storage", file_prefix=f"{prefix}in/")})["t"]
    assert ended["status"] == "finished", ended["message"]
    assert [f["filename"] for f in ended["result"]["files"]] == [f"{n}.txt" for n in range(5)]
    listings = [p for m, p, _ in gcs.proxy.requests[seen:] if m == "GET" and "alt=media" not in p]
    assert len(listings) == 3
    assert all("pageToken=" in p for p in listings[1:])
    # A token that ends within 5 minutes is asked for again before each call: never sent stale.
    calls = [h for m, p, h in gcs.proxy.requests[seen:] if "upload_id=" not in p]
    assert len(gcs.tokens.grants) - grants == len(calls) == 3 + 5
    assert len({h["authorization"] for h in calls}) == len(calls)


def test_each_failure_has_its_code_names_the_bucket_and_hides_the_key(
    gcs: Gcs, service: LocalService, prefix: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    other = ServiceAccount(email=gcs.account.email)  # the right account, another key
    refused = len(gcs.tokens.refused)
    wrong = error_of(service, gcs.task("import/google-cloud-storage", private_key=other.pem, file="x"))
    assert wrong["code"] == "STORAGE_ACCESS_DENIED"
    assert gcs.account.email in wrong["message"]
    assert gcs.tokens.refused[refused:] == ["Invalid JWT Signature."]
    canary = "canary-" + secrets.token_urlsafe(24)
    garbage = f"-----BEGIN PRIVATE KEY-----\\n{canary}\\n-----END PRIVATE KEY-----\\n"
    unusable = error_of(service, gcs.task("import/google-cloud-storage", private_key=garbage, file="x"))
    assert unusable["code"] == "STORAGE_ACCESS_DENIED"
    assert "not a PEM private key" in unusable["message"]
    no_bucket = error_of(service, gcs.task("import/google-cloud-storage", bucket="nope-bucket", file="x"))
    assert no_bucket["code"] == "STORAGE_BUCKET_NOT_FOUND"
    assert "'nope-bucket'" in no_bucket["message"]
    no_bucket_out = run_job(
        service,
        {
            "in": {"operation": "import/raw", "file": "x", "filename": "x.txt"},
            "out": {
                **gcs.task("export/google-cloud-storage", bucket="nope-bucket"),
                "input": "in",
                "file": "x",
            },
        },
    )["out"]
    assert no_bucket_out["code"] == "STORAGE_BUCKET_NOT_FOUND"
    no_file = error_of(service, gcs.task("import/google-cloud-storage", file=f"{prefix}missing.txt"))
    assert no_file["code"] == "STORAGE_FILE_NOT_FOUND"
    assert f"gs://{BUCKET}/{prefix}missing.txt" in no_file["message"]
    empty = error_of(service, gcs.task("import/google-cloud-storage", file_prefix=f"{prefix}none/"))
    assert empty["code"] == "STORAGE_FILE_NOT_FOUND"
    port = free_port()
    unreachable = gcs.settings(gcs_endpoint=f"http://127.0.0.1:{port}", caller_storage_retry=0.0)
    with start(tmp_path, **unreachable) as away_svc:
        away = error_of(away_svc, gcs.task("import/google-cloud-storage", file="x"))
    assert away["code"] == "STORAGE_UNREACHABLE"
    assert f"127.0.0.1:{port}" in away["message"]
    logged = "\n".join(r.getMessage() for r in caplog.records if r.name.startswith("mcv_pipelines"))
    shown = str([wrong, unusable, no_bucket, no_bucket_out, no_file, empty, away]) + logged
    key_lines = [line for line in gcs.account.pem.splitlines() if "-----" not in line]
    for secret in (canary, *key_lines, *other.pem.splitlines()[1:-1], *gcs.tokens.issued):
        assert secret not in shown
    for ended in (wrong, unusable, no_bucket, no_file):
        assert "private_key" not in ended["payload"]


def test_the_service_environment_lends_the_task_nothing(
    gcs: Gcs, tmp_path: Path, prefix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The worker's emulator and credential variables point at the real server, its proxy variables
    at a tripwire: a service left at Google's addresses goes there (unreachable offline), and one
    set to the server reaches it directly."""
    gcs.server.put(BUCKET, f"{prefix}a.txt", b"direct")
    key_file = tmp_path / "key.json"
    key_file.write_text('{"type": "service_account"}')
    monkeypatch.setenv("STORAGE_EMULATOR_HOST", gcs.server.url)
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(key_file))
    monkeypatch.setenv("MCV_GCS_ENDPOINT", gcs.server.url)  # the CLI's variable: the library reads none
    task = gcs.task("import/google-cloud-storage", file=f"{prefix}a.txt")
    with Tripwire() as proxy:
        for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
            monkeypatch.setenv(name, proxy.url)
        for name in ("NO_PROXY", "no_proxy"):
            monkeypatch.delenv(name, raising=False)
        with start(tmp_path, caller_storage_retry=0.0) as plain:
            away = error_of(plain, task)
        settings = {"gcs_endpoint": gcs.server.url, "gcs_token_uri": gcs.tokens.url}
        with start(tmp_path, **settings) as direct:
            fine = run_job(direct, {"t": task})["t"]
    assert away["code"] == "STORAGE_UNREACHABLE"
    assert "oauth2.googleapis.com" in away["message"]  # the token first: asked of Google itself
    assert fine["status"] == "finished", fine["message"]
    assert proxy.hits == []


def test_a_served_instance_checks_the_operators_endpoint_and_token_uri_as_azures(
    gcs: Gcs, tmp_path: Path, prefix: str
) -> None:
    """As Azure's endpoint is, the operator's --gcs-token-uri and --gcs-endpoint are addresses the guard
    checks on a served instance: loopback and private ones are refused, unless --allow-private-network
    lets them in, and nothing is sent to them."""
    gcs.server.put(BUCKET, f"{prefix}a.txt", b"guarded")
    task = gcs.task("import/google-cloud-storage", file=f"{prefix}a.txt")
    asked, relayed = len(gcs.tokens.issued), len(gcs.proxy.requests)
    with start(tmp_path, url_guard=UrlGuard(), **gcs.settings(caller_storage_retry=0.0)) as guarded:
        no_token = error_of(guarded, task)
    assert len(gcs.tokens.issued) == asked  # the token endpoint was never asked
    # The token endpoint let in, the API root named by a host the guard finds private.
    port = gcs.proxy.url.rsplit(":", 1)[1]
    named = UrlGuard(
        resolver=lambda host, _: {"storage.example": ["10.20.30.40"]}[host],
        allowed_networks=parse_networks(["127.0.0.1/32"]),
    )
    settings = gcs.settings(gcs_endpoint=f"http://storage.example:{port}", caller_storage_retry=0.0)
    with start(tmp_path, url_guard=named, **settings) as guarded_api:
        no_api = error_of(guarded_api, task)
    assert len(gcs.proxy.requests) == relayed  # nothing reached the store
    allowed = UrlGuard(allowed_networks=parse_networks(["127.0.0.0/8"]))
    with start(tmp_path, url_guard=allowed, **gcs.settings(caller_storage_retry=0.0)) as open_to_loopback:
        fine = run_job(open_to_loopback, {"t": task})["t"]
    for ended, what in (
        (no_token, "the Google token endpoint"),
        (no_api, "the Google Cloud Storage endpoint"),
    ):
        assert ended["code"] == "STORAGE_FORBIDDEN_ADDRESS", ended["message"]
        assert f"The address of {what} is not allowed" in ended["message"]
        assert "--allow-private-network" in ended["message"]
    assert "127.0.0.1 resolves to a loopback address" in no_token["message"]
    assert "storage.example resolves to a private address" in no_api["message"]
    assert fine["status"] == "finished", fine["message"]


def test_a_served_instance_checks_an_upload_session_on_another_host(gcs: Gcs, tmp_path: Path) -> None:
    """An upload session the store answers at another host is an address like a caller's, refused
    when private, and connected to at the address checked. (fake-gcs-server names sessions after the
    Host it was asked by: the relay makes that another host.) The operator's loopback addresses are
    let in here; the session's host resolves to another loopback address, refused until allowed."""
    elsewhere = f"sessions.example:{free_port()}"
    job = {
        "in": {"operation": "import/raw", "file": "x", "filename": "x.txt"},
        "out": {**gcs.task("export/google-cloud-storage"), "input": "in", "file": "elsewhere.txt"},
    }

    def resolver(host: str, port: int) -> list[str]:
        return {"sessions.example": ["127.0.0.2"]}[host]

    with RecordingProxy(gcs.server.url, host=elsewhere) as relay:
        settings = {"gcs_endpoint": relay.url, "gcs_token_uri": gcs.tokens.url, "caller_storage_retry": 0.0}
        operator_only = UrlGuard(resolver=resolver, allowed_networks=parse_networks(["127.0.0.1/32"]))
        with start(tmp_path, url_guard=operator_only, **settings) as guarded:
            refused = run_job(guarded, job)["out"]
        allowed = UrlGuard(resolver=resolver, allowed_networks=parse_networks(["127.0.0.0/8"]))
        with start(tmp_path, url_guard=allowed, **settings) as open_to_loopback:
            passed = run_job(open_to_loopback, job)["out"]
    assert refused["code"] == "STORAGE_FORBIDDEN_ADDRESS"
    assert "is not allowed: sessions.example resolves to a loopback address" in refused["message"]
    assert "--allow-private-network" in refused["message"]
    # Past the guard, the session's checked address is tried (nothing listens there).
    assert passed["code"] == "STORAGE_UNREACHABLE", passed["message"]
    assert gcs.server.names(BUCKET, "elsewhere") == []


def test_the_example_recipe_converts_every_image_under_the_prefix_with_mcv_run(
    gcs: Gcs, tmp_path: Path, prefix: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """pipelines/gcs-roundtrip.yaml on a served instance: each image under the prefix becomes a webp
    under the other one, a decoy beside the prefix is left alone, and `mcv run` lists the gs://
    objects; the key, given through secret(), is printed nowhere."""
    assets = REPO / "pipelines" / "assets"
    for name, asset in (
        ("incoming/photo.jpg", "photo.jpg"),
        ("incoming/logo.png", "logo.png"),
        ("decoy.png", "logo.png"),
    ):
        gcs.server.put(BUCKET, prefix + name, (assets / asset).read_bytes())
    with LocalService(data_dir=tmp_path / "data", engines=[PillowEngine()], settings=gcs.settings()) as svc:
        for name, value in {
            "MCV_BASE_URL": svc.base_url,
            "MCV_API_KEY": svc.api_key,
            "MCV_CONFIG": str(tmp_path / "no-config.toml"),
            "MCV_DATA_DIR": str(tmp_path / "embedded"),
            "GCS_CLIENT_EMAIL": gcs.account.email,
            "GCS_PRIVATE_KEY": gcs.account.pem,
        }.items():
            monkeypatch.setenv(name, value)
        values = {
            "project_id": "test-project",
            "bucket": BUCKET,
            "source_prefix": f"{prefix}incoming/",
            "target_prefix": f"{prefix}web/",
            "width": "48",
        }
        arguments = [arg for name, value in values.items() for arg in ("-p", f"{name}={value}")]
        code = main(
            ["run", str(REPO / "pipelines" / "gcs-roundtrip.yaml"), *arguments, "--progress", "plain"]
        )
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "2 file(s) stored:" in out
    for name in ("logo.webp", "photo.webp"):
        assert f"gs://{BUCKET}/{prefix}web/{name}" in out
        assert gcs.server.meta(BUCKET, f"{prefix}web/{name}")["contentType"] == "image/webp"
        assert gcs.server.get(BUCKET, f"{prefix}web/{name}")[8:12] == b"WEBP"
    assert gcs.server.names(BUCKET, prefix) == sorted(
        [
            f"{prefix}decoy.png",
            f"{prefix}incoming/logo.png",
            f"{prefix}incoming/photo.jpg",
            f"{prefix}web/logo.webp",
            f"{prefix}web/photo.webp",
        ]
    )
    for line in gcs.account.pem.splitlines()[1:-1]:
        assert line not in out + err


def test_a_refused_service_account_names_the_bucket_it_was_reaching(gcs: Gcs, service: LocalService) -> None:
    """Issue 49: the account's refusal says which bucket the task was for, as every other failure does."""
    other = ServiceAccount(email=gcs.account.email)  # the right account, another key
    wrong = error_of(service, gcs.task("import/google-cloud-storage", private_key=other.pem, file="x"))
    assert wrong["code"] == "STORAGE_ACCESS_DENIED"
    assert gcs.account.email in wrong["message"]
    assert f"bucket {BUCKET!r}" in wrong["message"]
