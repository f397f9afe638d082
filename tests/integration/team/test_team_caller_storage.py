"""Issue 36 on a team: import and export of the caller's storage (S3, SFTP and Azure Blob on their real
servers) run by a `--role worker` process of a deployment on PostgreSQL and S3, and never by its
`--role api` process. Each caller's store is reached through a relay on loopback that notes which
process opened every connection (/proc): the worker must have made them all, the API none. Both
processes get the same settings (private addresses allowed, the same Azure endpoint), so nothing but
where the transfer runs tells them apart."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from azure.storage.blob import BlobServiceClient
from pg_server import PgServer
from team_helpers import Serve

from azurite import ACCOUNT, KEY, Azurite
from caller_jobs import run_job
from flaky_tcp import FlakyRelay
from seaweed import SeaweedS3
from sshd import SftpServer

API_KEY = "sk-team-storage-0123456789abcdef"


@dataclass(frozen=True)
class Api:
    base_url: str
    api_key: str = API_KEY


@pytest.fixture
def relays() -> Iterator[list[FlakyRelay]]:
    made: list[FlakyRelay] = []
    yield made
    for relay in made:
        relay.close()


def relay_to(relays: list[FlakyRelay], port: int) -> FlakyRelay:
    relays.append(FlakyRelay(("127.0.0.1", port)).serve())
    return relays[-1]


def test_the_workers_move_the_callers_files_and_the_api_never_reaches_the_stores(
    postgres: PgServer,
    seaweed: SeaweedS3,
    sshd: SftpServer,
    azurite: Azurite,
    tmp_path: Path,
    relays: list[FlakyRelay],
) -> None:
    run = f"team-{secrets.token_hex(3)}"
    s3 = seaweed.client()
    for name, body in (("a.txt", b"alpha"), ("b.txt", b"beta")):
        s3.put_object(Bucket=seaweed.bucket, Key=f"{run}/in/{name}", Body=body)
    s3.put_object(Bucket=seaweed.bucket, Key=f"{run}/in-decoy.txt", Body=b"no")
    (sshd.home / run / "in").mkdir(parents=True)
    (sshd.home / run / "in" / "c.txt").write_bytes(b"gamma")
    sshd.give_home()
    blobs = BlobServiceClient.from_connection_string(azurite.connection_string)
    container = blobs.create_container(f"c{secrets.token_hex(6)}")
    container.upload_blob("in/d.txt", b"delta")

    s3_relay = relay_to(relays, int(urlsplit(seaweed.endpoint).port or 0))
    sftp_relay = relay_to(relays, sshd.port)
    azure_relay = relay_to(relays, azurite.port)
    url = postgres.url(postgres.new_database())
    # The team's own store is the same S3 server, reached directly: only the caller's goes through a relay.
    shared = [
        "--database",
        url,
        "--storage",
        f"s3://{seaweed.bucket}/{run}-own",
        "--s3-endpoint",
        seaweed.endpoint,
    ]
    shared += [
        "--allow-private-urls",
        "--azure-blob-endpoint",
        f"http://127.0.0.1:{azure_relay.port}/{{account}}",
    ]
    env = {"MCV_SIGNING_KEY": "b" * 64, "MCV_SERVE_API_KEY": API_KEY, **seaweed.env}
    logs = tmp_path / "logs"
    logs.mkdir()
    api = Serve(
        ["--role", "api", "--rate-limit", "0", *shared, "--data-dir", str(tmp_path / "api")],
        logs / "api.log",
        env,
    )
    try:
        worker = Serve(
            ["--role", "worker", *shared, "--data-dir", str(tmp_path / "worker")], logs / "worker.log", env
        )
        try:
            tasks = run_job(
                Api(api.base), _job(run, seaweed, s3_relay, sshd, sftp_relay, container.container_name)
            )
        finally:
            worker.stop()
    finally:
        api.stop()

    for name, task in tasks.items():
        assert task["status"] == "finished", (name, task["message"])
    assert [f["filename"] for f in tasks["s3-in"]["result"]["files"]] == ["a.txt", "b.txt"]  # no decoy
    stored = {
        key: s3.get_object(Bucket=seaweed.bucket, Key=f"{run}/out/{key}")["Body"].read()
        for key in ("a.txt", "b.txt")
    }
    s3.close()
    assert stored == {"a.txt": b"alpha", "b.txt": b"beta"}
    assert (sshd.home / run / "out" / "c.txt").read_bytes() == b"gamma"
    assert tasks["sftp-in"]["result"]["host_key"] == sshd.fingerprint
    assert container.get_blob_client("out/d.txt").download_blob().readall() == b"delta"
    blobs.close()

    # Who connected to each caller's store: the worker every time, the API never.
    for relay in (s3_relay, sftp_relay, azure_relay):
        assert relay.owners, "nothing reached the store through its relay"
        assert set(relay.owners) == {worker.process.pid}, (relay.owners, api.process.pid)
    assert api.process.pid not in s3_relay.owners + sftp_relay.owners + azure_relay.owners


def _job(
    run: str,
    seaweed: SeaweedS3,
    s3_relay: FlakyRelay,
    sshd: SftpServer,
    sftp_relay: FlakyRelay,
    container: str,
) -> dict[str, Any]:
    bucket = {
        "bucket": seaweed.bucket,
        "region": "us-east-1",
        "endpoint": f"http://127.0.0.1:{s3_relay.port}",
        "access_key_id": seaweed.access_key,
        "secret_access_key": seaweed.secret_key,
    }
    sftp = {"host": "127.0.0.1", "port": sftp_relay.port, "username": sshd.user, "password": sshd.password}
    azure = {"storage_account": ACCOUNT, "storage_access_key": KEY, "container": container}
    return {
        "s3-in": {"operation": "import/s3", **bucket, "key_prefix": f"{run}/in/"},
        "s3-out": {"operation": "export/s3", "input": "s3-in", **bucket, "key_prefix": f"{run}/out/"},
        "sftp-in": {"operation": "import/sftp", **sftp, "path": f"{run}/in"},
        "sftp-out": {"operation": "export/sftp", "input": "sftp-in", **sftp, "path": f"{run}/out"},
        "azure-in": {"operation": "import/azure/blob", **azure, "blob_prefix": "in/"},
        "azure-out": {"operation": "export/azure/blob", "input": "azure-in", **azure, "blob_prefix": "out/"},
    }
