"""import/s3 and export/s3 on the local service against a real S3 server (SeaweedFS on loopback):
keys and prefixes both ways, every export option read back from the stored object, the errors a user
meets, and credentials shown nowhere."""

from __future__ import annotations

import hashlib
import logging
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from caller_jobs import error_of, run_job
from cutting_relay import CuttingRelay
from loopback_listener import Tripwire
from mcv_pipelines.service.engines.url_guard import UrlGuard, parse_networks
from mcv_pipelines.service.server import LocalService
from recording_proxy import RecordingProxy
from seaweed import SeaweedS3, need_weed


def start(tmp_path: Path, **settings: Any) -> LocalService:
    return LocalService(data_dir=tmp_path / f"data-{secrets.token_hex(3)}", engines=[], settings=settings)


@pytest.fixture
def service(tmp_path: Path) -> Iterator[LocalService]:
    with start(tmp_path, caller_storage_retry=1.0) as svc:
        yield svc


def bucket_of(s3: SeaweedS3, endpoint: str | None = None, **extra: Any) -> dict[str, Any]:
    return {
        "bucket": s3.bucket,
        "region": "us-east-1",
        "endpoint": endpoint or s3.endpoint,
        "access_key_id": s3.access_key,
        "secret_access_key": s3.secret_key,
        **extra,
    }


@pytest.fixture
def prefix() -> str:
    return f"caller-{secrets.token_hex(4)}/"


def put(s3: SeaweedS3, objects: dict[str, bytes]) -> None:
    client = s3.client()
    try:
        for key, body in objects.items():
            client.put_object(Bucket=s3.bucket, Key=key, Body=body)
    finally:
        client.close()


def test_a_prefix_comes_in_file_by_file_and_goes_out_with_every_option(
    seaweed: SeaweedS3, service: LocalService, prefix: str
) -> None:
    put(
        seaweed,
        {f"{prefix}in/a.txt": b"alpha", f"{prefix}in/sub/b.csv": b"b,c", f"{prefix}in-decoy.txt": b"no"},
    )
    options = {
        "acl": "public-read",
        "cache_control": "public, max-age=31536000",
        "content_type": "application/x-exactly-this",
        "content_disposition": 'attachment; filename="x.txt"',
        "metadata": {"origin": "mcv", "run": "7"},
        "server_side_encryption": "AES256",
        "tagging": {"team": "media", "note": "a b&c"},
    }
    with RecordingProxy(seaweed.endpoint) as proxy:
        tasks = run_job(
            service,
            {
                "in": {"operation": "import/s3", **bucket_of(seaweed), "key_prefix": f"{prefix}in/"},
                "out": {
                    "operation": "export/s3",
                    "input": "in",
                    **bucket_of(seaweed, proxy.url),
                    "key_prefix": f"{prefix}out/",
                    **options,
                },
            },
        )
    assert tasks["in"]["status"] == "finished", tasks["in"]["message"]
    assert [(f["filename"], f["size"]) for f in tasks["in"]["result"]["files"]] == [
        ("a.txt", 5),
        ("b.csv", 3),
    ]
    assert tasks["out"]["status"] == "finished", tasks["out"]["message"]
    assert [f["location"] for f in tasks["out"]["result"]["files"]] == [
        f"s3://{seaweed.bucket}/{prefix}out/a.txt",
        f"s3://{seaweed.bucket}/{prefix}out/b.csv",
    ]
    client = seaweed.client()
    try:
        for name, body in (("a.txt", b"alpha"), ("b.csv", b"b,c")):
            key = f"{prefix}out/{name}"
            head = client.head_object(Bucket=seaweed.bucket, Key=key)
            assert head["ContentType"] == "application/x-exactly-this"  # never replaced by a guess
            assert head["CacheControl"] == "public, max-age=31536000"
            assert head["ContentDisposition"] == 'attachment; filename="x.txt"'
            assert head["Metadata"] == {"origin": "mcv", "run": "7"}
            assert head["ServerSideEncryption"] == "AES256"
            tags = client.get_object_tagging(Bucket=seaweed.bucket, Key=key)["TagSet"]
            assert {t["Key"]: t["Value"] for t in tags} == {"team": "media", "note": "a b&c"}
            assert client.get_object(Bucket=seaweed.bucket, Key=key)["Body"].read() == body
        listed = client.list_objects_v2(Bucket=seaweed.bucket, Prefix=f"{prefix}out")
        assert sorted(o["Key"] for o in listed["Contents"]) == [f"{prefix}out/a.txt", f"{prefix}out/b.csv"]
    finally:
        client.close()
    # SeaweedFS accepts a canned ACL without keeping it: what was sent is what can be checked.
    writes = [headers for method, _, headers in proxy.requests if method == "PUT"]
    assert len(writes) == 2
    assert all(headers.get("x-amz-acl") == "public-read" for headers in writes)


def test_one_key_in_with_its_filename_and_numbered_keys_out(
    seaweed: SeaweedS3, service: LocalService, prefix: str
) -> None:
    put(seaweed, {f"{prefix}photo.jpg": b"jpeg bytes"})
    tasks = run_job(
        service,
        {
            "one": {
                "operation": "import/s3",
                **bucket_of(seaweed),
                "key": f"{prefix}photo.jpg",
                "filename": "p.jpg",
            },
            "two": {"operation": "import/raw", "file": "second", "filename": "q.txt"},
            "out": {
                "operation": "export/s3",
                "input": ["one", "two"],
                **bucket_of(seaweed),
                "key": f"{prefix}page-%d.bin",
            },
        },
    )
    assert tasks["one"]["result"]["files"][0]["filename"] == "p.jpg"
    assert tasks["out"]["status"] == "finished", tasks["out"]["message"]
    client = seaweed.client()
    try:
        first = client.get_object(Bucket=seaweed.bucket, Key=f"{prefix}page-1.bin")
        second = client.get_object(Bucket=seaweed.bucket, Key=f"{prefix}page-2.bin")
        assert (first["Body"].read(), second["Body"].read()) == (b"jpeg bytes", b"second")
        assert first["ContentType"] == "image/jpeg"  # guessed from the file's name when not given
    finally:
        client.close()


def test_a_large_object_streams_both_ways_as_multipart(
    seaweed: SeaweedS3, service: LocalService, prefix: str
) -> None:
    body = secrets.token_bytes(20 * 1024 * 1024 + 123)  # three parts out
    put(seaweed, {f"{prefix}big.bin": body})
    tasks = run_job(
        service,
        {
            "in": {"operation": "import/s3", **bucket_of(seaweed), "key": f"{prefix}big.bin"},
            "out": {
                "operation": "export/s3",
                "input": "in",
                **bucket_of(seaweed),
                "key": f"{prefix}copy.bin",
                "metadata": {"k": "v"},
            },
        },
    )
    assert tasks["out"]["status"] == "finished", tasks["out"]["message"]
    client = seaweed.client()
    try:
        copy = client.get_object(Bucket=seaweed.bucket, Key=f"{prefix}copy.bin")
        assert copy["Metadata"] == {"k": "v"}
        assert copy["Body"].read() == body
    finally:
        client.close()
    assert seaweed.multipart_uploads(prefix) == []


def test_each_failure_has_its_code_names_the_bucket_and_hides_the_secret(
    seaweed: SeaweedS3, service: LocalService, prefix: str, caplog: pytest.LogCaptureFixture
) -> None:
    canary = "canary-" + secrets.token_urlsafe(24) + "/+="
    caplog.set_level(logging.DEBUG)
    wrong = error_of(
        service,
        {"operation": "import/s3", **bucket_of(seaweed), "secret_access_key": canary, "key": f"{prefix}x"},
    )
    assert wrong["code"] == "STORAGE_ACCESS_DENIED"
    assert f"S3 bucket '{seaweed.bucket}'" in wrong["message"]
    token = error_of(
        service,
        {"operation": "import/s3", **bucket_of(seaweed), "session_token": canary, "key": f"{prefix}x"},
    )
    assert token["code"] == "STORAGE_ACCESS_DENIED"  # the token was sent: static keys with one are refused
    no_bucket = error_of(
        service, {"operation": "import/s3", **bucket_of(seaweed), "bucket": "nope-bucket", "key": "x"}
    )
    assert no_bucket["code"] == "STORAGE_BUCKET_NOT_FOUND"
    assert "nope-bucket" in no_bucket["message"]
    no_key = error_of(
        service, {"operation": "import/s3", **bucket_of(seaweed), "key": f"{prefix}missing.txt"}
    )
    assert no_key["code"] == "STORAGE_FILE_NOT_FOUND"
    assert f"{prefix}missing.txt" in no_key["message"]
    empty = error_of(
        service, {"operation": "import/s3", **bucket_of(seaweed), "key_prefix": f"{prefix}none/"}
    )
    assert empty["code"] == "STORAGE_FILE_NOT_FOUND"
    with socket_closed() as port:
        away = error_of(
            service, {"operation": "import/s3", **bucket_of(seaweed, f"http://127.0.0.1:{port}"), "key": "x"}
        )
    assert away["code"] == "STORAGE_UNREACHABLE"
    assert f"127.0.0.1:{port}" in away["message"]
    # The service's log is its own loggers' (botocore's DEBUG lines go nowhere an operator reads).
    logged = "\n".join(r.getMessage() for r in caplog.records if r.name.startswith("mcv_pipelines"))
    shown = str([wrong, token, no_bucket, no_key, empty, away]) + logged
    for secret in (
        canary,
        seaweed.secret_key,
        seaweed.access_key,
        httpx.URL("", params={"s": canary}).query.decode(),
    ):
        assert secret not in shown
    assert "secret_access_key" not in wrong["payload"]
    assert "access_key_id" not in wrong["payload"]


class socket_closed:
    """A loopback port nothing listens on."""

    def __enter__(self) -> int:
        import socket

        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            return int(probe.getsockname()[1])

    def __exit__(self, *exc: object) -> None:
        pass


def test_the_service_environment_lends_the_task_nothing(
    seaweed: SeaweedS3, tmp_path: Path, prefix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The worker's own AWS_* variables and ~/.aws point at a real server with good keys: a task that
    names no endpoint still goes to its region's AWS address (unreachable offline), never there."""
    put(seaweed, {f"{prefix}a.txt": b"a"})
    for name, value in seaweed.env.items():
        monkeypatch.setenv(name, value)
    config = tmp_path / "aws-config"
    config.write_text(f"[default]\nendpoint_url = {seaweed.endpoint}\nregion = us-east-1\n")
    monkeypatch.setenv("AWS_CONFIG_FILE", str(config))
    monkeypatch.setenv("AWS_ENDPOINT_URL_S3", seaweed.endpoint)
    task = bucket_of(seaweed)
    del task["endpoint"]
    with start(tmp_path, caller_storage_retry=0.0) as svc:
        ended = error_of(
            svc, {"operation": "import/s3", **task, "region": "eu-central-1", "key": f"{prefix}a.txt"}
        )
    assert ended["code"] == "STORAGE_UNREACHABLE"
    assert "s3.eu-central-1.amazonaws.com" in ended["message"]


def test_neither_a_proxy_nor_an_aws_config_of_the_environment_changes_a_transfer(
    seaweed: SeaweedS3, tmp_path: Path, prefix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A proxy resolves names itself, past the address guard: the worker's HTTP(S)_PROXY is not used;
    nor is an S3 setting of its ~/.aws/config (here one that sends requests to another host)."""
    put(seaweed, {f"{prefix}a.txt": b"direct"})
    config = tmp_path / "aws-config"
    config.write_text("[default]\ns3 =\n  use_accelerate_endpoint = true\n  addressing_style = virtual\n")
    monkeypatch.setenv("AWS_CONFIG_FILE", str(config))
    with Tripwire() as proxy:
        for name in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"):
            monkeypatch.setenv(name, proxy.url)
        for name in ("NO_PROXY", "no_proxy"):
            monkeypatch.delenv(name, raising=False)
        with start(tmp_path, caller_storage_retry=0.0) as svc:
            ended = run_job(
                svc, {"t": {"operation": "import/s3", **bucket_of(seaweed), "key": f"{prefix}a.txt"}}
            )["t"]
        assert ended["status"] == "finished", ended["message"]
        assert proxy.hits == []


@pytest.fixture
def seaweed_sts(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SeaweedS3]:
    """An S3 server of its own that also issues temporary credentials (its STS, AssumeRole)."""
    server = SeaweedS3(need_weed(), tmp_path_factory.mktemp("seaweed-sts"), sts=True)
    server.start()
    try:
        yield server
    finally:
        server.stop()


def test_temporary_credentials_from_a_real_sts_carry_a_file_both_ways_and_a_wrong_or_expired_token_is_refused(
    seaweed_sts: SeaweedS3, service: LocalService, prefix: str
) -> None:
    put(seaweed_sts, {f"{prefix}in.txt": b"temporary"})
    issued = seaweed_sts.temporary_credentials()
    temporary = {
        **bucket_of(seaweed_sts),
        "access_key_id": issued["AccessKeyId"],
        "secret_access_key": issued["SecretAccessKey"],
        "session_token": issued["SessionToken"],
    }
    tasks = run_job(
        service,
        {
            "in": {"operation": "import/s3", **temporary, "key": f"{prefix}in.txt"},
            "out": {"operation": "export/s3", "input": "in", **temporary, "key": f"{prefix}out.txt"},
        },
    )
    for name in ("in", "out"):
        assert tasks[name]["status"] == "finished", tasks[name]["message"]
    client = seaweed_sts.client()
    try:
        assert (
            client.get_object(Bucket=seaweed_sts.bucket, Key=f"{prefix}out.txt")["Body"].read()
            == b"temporary"
        )
    finally:
        client.close()
    token = issued["SessionToken"]
    forged = token[:-6] + ("AAAAAA" if not token.endswith("AAAAAA") else "BBBBBB")  # its signature broken
    expired = seaweed_sts.moved(token, -7200)
    signed_again = seaweed_sts.client_with(issued, seaweed_sts.moved(token, 0))
    try:  # the token signed again as it was is still good: what makes ``expired`` fail is its time
        signed_again.head_object(Bucket=seaweed_sts.bucket, Key=f"{prefix}in.txt")
    finally:
        signed_again.close()
    without = {name: value for name, value in temporary.items() if name != "session_token"}
    # a token the server did not sign; one that expired; the temporary keys without their token
    for wrong in ({**temporary, "session_token": forged}, {**temporary, "session_token": expired}, without):
        ended = error_of(service, {"operation": "import/s3", **wrong, "key": f"{prefix}in.txt"})
        assert ended["code"] == "STORAGE_ACCESS_DENIED", ended
        assert "session_token" in ended["message"]
        assert issued["SecretAccessKey"] not in ended["message"]
        assert token[-20:] not in ended["message"]


def test_a_served_instance_refuses_a_private_endpoint_unless_allowed(
    seaweed: SeaweedS3, tmp_path: Path, prefix: str
) -> None:
    put(seaweed, {f"{prefix}a.txt": b"a"})
    task = {"operation": "import/s3", **bucket_of(seaweed), "key": f"{prefix}a.txt"}
    with RecordingProxy(seaweed.endpoint) as proxy:
        with start(tmp_path, url_guard=UrlGuard()) as guarded:
            refused = error_of(guarded, {**task, "endpoint": proxy.url})
            renamed = {"s3.files.example": ["127.0.0.1"]}
        port = proxy.url.rsplit(":", 1)[1]
        with start(tmp_path, url_guard=UrlGuard(resolver=lambda host, _: renamed[host])) as named:
            rebound = error_of(named, {**task, "endpoint": f"http://s3.files.example:{port}"})
        assert proxy.requests == []  # nothing reached the store
        allowed = UrlGuard(allowed_networks=parse_networks(["127.0.0.0/8"]))  # --allow-private-network
        with start(tmp_path, url_guard=allowed) as open_to_loopback:
            fine = run_job(open_to_loopback, {"t": {**task, "endpoint": proxy.url}})["t"]
    for ended in (refused, rebound):
        assert ended["code"] == "STORAGE_FORBIDDEN_ADDRESS"
        assert "is not allowed" in ended["message"]
        assert "loopback" in ended["message"]
        assert "--allow-private-network" in ended["message"]
    assert fine["status"] == "finished", fine["message"]
    assert proxy.requests


def test_a_served_instance_connects_only_to_the_address_its_guard_checked(
    seaweed: SeaweedS3, tmp_path: Path, prefix: str
) -> None:
    """DNS rebinding: the guard is told ``localhost`` is 127.0.0.2 (let in, as --allow-private-network
    127.0.0.2/32 would), while the machine's resolver, which botocore would ask again when it connects,
    says 127.0.0.1, where a tripwire listens on the same port. Every request must go to 127.0.0.2 (a
    relay to the store) with the name in its Host header, and nothing to 127.0.0.1."""
    put(seaweed, {f"{prefix}in.txt": b"checked"})
    guard = UrlGuard(
        resolver=lambda host, _: {"localhost": ["127.0.0.2"]}[host],
        allowed_networks=parse_networks(["127.0.0.2/32"]),
    )
    with Tripwire("127.0.0.1") as rebound:
        with RecordingProxy(seaweed.endpoint, address=("127.0.0.2", rebound.port)) as checked:
            named = bucket_of(seaweed, f"http://localhost:{rebound.port}")
            with start(tmp_path, url_guard=guard, caller_storage_retry=1.0) as svc:
                tasks = run_job(
                    svc,
                    {
                        "in": {"operation": "import/s3", **named, "key": f"{prefix}in.txt"},
                        "out": {"operation": "export/s3", "input": "in", **named, "key": f"{prefix}out.txt"},
                    },
                )
        assert rebound.hits == []  # the rebound address got no connection at all
    for name in ("in", "out"):
        assert tasks[name]["status"] == "finished", tasks[name]["message"]
    assert {method for method, _, _ in checked.requests} >= {"GET", "PUT"}
    assert {headers["host"] for _, _, headers in checked.requests} == {f"localhost:{rebound.port}"}
    client = seaweed.client()
    try:
        assert client.get_object(Bucket=seaweed.bucket, Key=f"{prefix}out.txt")["Body"].read() == b"checked"
    finally:
        client.close()


def test_on_a_service_that_keeps_its_files_in_s3_both_ways_stream_store_to_store(
    s3_env: SeaweedS3, tmp_path: Path, prefix: str
) -> None:
    """The service's own store is a bucket too: the caller's objects go straight into it and out of
    it (no file on the worker's disk), named and stored with their attributes as on a directory."""
    put(s3_env, {f"{prefix}in/a.txt": b"alpha", f"{prefix}in/b.txt": b"beta"})
    store = f"s3://{s3_env.bucket}/svc-{secrets.token_hex(3)}"
    with start(tmp_path, storage=store, s3_endpoint=s3_env.endpoint) as svc:
        tasks = run_job(
            svc,
            {
                "in": {"operation": "import/s3", **bucket_of(s3_env), "key_prefix": f"{prefix}in/"},
                "out": {
                    "operation": "export/s3",
                    "input": "in",
                    **bucket_of(s3_env),
                    "key": f"{prefix}out-%02d.txt",
                    "content_type": "text/plain; charset=utf-8",
                },
            },
        )
        local = list((svc.data_dir / "tasks").rglob("*.txt"))
    assert tasks["out"]["status"] == "finished", tasks["out"]["message"]
    assert [f["md5"] for f in tasks["in"]["result"]["files"]] == [
        "2c1743a391305fbf367df8e4f069f9f9",
        "987bcab01b929eb2c07877b224215c92",
    ]
    assert local == []
    client = s3_env.client()
    try:
        for key, body in ((f"{prefix}out-01.txt", b"alpha"), (f"{prefix}out-02.txt", b"beta")):
            stored = client.get_object(Bucket=s3_env.bucket, Key=key)
            assert (stored["Body"].read(), stored["ContentType"]) == (body, "text/plain; charset=utf-8")
    finally:
        client.close()


def _cut_read(
    seaweed: SeaweedS3, tmp_path: Path, prefix: str, changed: bytes | None
) -> tuple[dict[str, Any], CuttingRelay, bytes]:
    """import/s3 of a 3 MiB object through a relay that cuts its first answer halfway; with
    ``changed``, the object is replaced by those bytes once the cut has happened."""
    body = secrets.token_bytes(3 * 1024 * 1024 + 11)
    key = f"{prefix}cut.bin"
    put(seaweed, {key: body})

    def replace(_: str) -> None:
        if changed is not None:
            put(seaweed, {key: changed})

    relay = CuttingRelay(seaweed.endpoint, len(body) // 2, signed=True, on_cut=replace)
    try:
        with start(tmp_path, caller_storage_retry=10.0) as svc:
            ended = run_job(
                svc, {"in": {"operation": "import/s3", **bucket_of(seaweed, relay.url), "key": key}}
            )
    finally:
        relay.close()
    return ended["in"], relay, body


def test_a_cut_read_goes_on_from_where_it_stopped_of_the_same_version(
    seaweed: SeaweedS3, tmp_path: Path, prefix: str
) -> None:
    task, relay, body = _cut_read(seaweed, tmp_path, prefix, None)
    assert task["status"] == "finished", task["message"]
    assert task["result"]["files"][0]["md5"] == hashlib.md5(body, usedforsecurity=False).hexdigest()
    assert relay.ranges[0] is None
    assert len(relay.ranges) == 2
    resumed = int(str(relay.ranges[1]).removeprefix("bytes=").removesuffix("-"))
    assert 0 < resumed <= len(body) // 2
    assert relay.matches[0] is None
    assert relay.matches[1] == f'"{hashlib.md5(body, usedforsecurity=False).hexdigest()}"'  # the ETag begun


def test_a_read_cut_while_the_object_was_replaced_fails_instead_of_joining_two_versions(
    seaweed: SeaweedS3, tmp_path: Path, prefix: str
) -> None:
    task, relay, _ = _cut_read(seaweed, tmp_path, prefix, secrets.token_bytes(3 * 1024 * 1024 + 11))
    assert task["status"] == "error"
    assert task["code"] == "STORAGE_FAILED", task["message"]
    assert "PreconditionFailed" in task["message"]
    assert f"s3://{seaweed.bucket}/{prefix}cut.bin" in task["message"]
    assert len(relay.ranges) == 2  # asked once more, of the version begun, and refused
