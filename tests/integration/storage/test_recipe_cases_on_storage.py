"""The storage recipes' own test cases (`tests:` in pipelines/*-roundtrip.yaml and *-thumbnails.yaml),
run with `mcv test` against real servers, as a team's CI would run them: the server seeded with the
two images the cases name, the addresses and credentials given through the environment variables
each case lists, the service told where Azurite and the GCS emulator are. Without those variables
`mcv test pipelines/` skips these cases (tests/integration/engines/test_recipe_cases.py); here
`--fail-on-skip` makes a skip a failure, and no secret may reach the output."""

from __future__ import annotations

import secrets
import shutil
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from azurite import ACCOUNT, KEY, Azurite
from fake_gcs import FakeGcs, ServiceAccount, TokenEndpoint, free_port, need_fake_gcs
from keystone_stub import KeystoneStub
from mcv_pipelines.cli.main import main
from mcv_pipelines.service.server import LocalService
from seaweed import SeaweedS3
from sshd import SftpServer
from swift_server import SwiftServer

REPO = Path(__file__).resolve().parents[3]
ASSETS = REPO / "pipelines" / "assets"
SEED = {"incoming/photo.jpg": "photo.jpg", "incoming/logo.png": "logo.png", "decoy.png": "logo.png"}


def _mcv_test(
    recipe: str,
    environ: dict[str, str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    settings: dict[str, Any] | None = None,
) -> str:
    """Run the recipe's cases on a served instance; returns what was printed, after checking that it
    passed, skipped nothing and showed no secret."""
    with LocalService(data_dir=tmp_path / "service", settings=settings or {}) as service:
        for name, value in {
            **environ,
            "MCV_BASE_URL": service.base_url,
            "MCV_API_KEY": service.api_key,
            "MCV_CONFIG": str(tmp_path / "no-config.toml"),
        }.items():
            monkeypatch.setenv(name, value)
        monkeypatch.chdir(REPO)
        code = main(["test", f"pipelines/{recipe}.yaml", "--fail-on-skip"])
    out, err = capsys.readouterr()
    assert code == 0, out + err
    assert f"PASS    pipelines/{recipe}.yaml::" in out
    for name, value in environ.items():
        if name.isupper() and any(word in name for word in ("KEY", "PASSWORD", "SECRET")):
            assert value not in out + err, name
    return out


def test_the_s3_recipe_passes_its_case(
    seaweed: SeaweedS3, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    bucket = f"recipe-{secrets.token_hex(4)}"
    client = seaweed.client()
    try:
        client.create_bucket(Bucket=bucket)
        for key, asset in SEED.items():
            client.put_object(Bucket=bucket, Key=key, Body=(ASSETS / asset).read_bytes())
        environ = {
            "AWS_ACCESS_KEY_ID": seaweed.access_key,
            "AWS_SECRET_ACCESS_KEY": seaweed.secret_key,
            "MCV_TEST_S3_ENDPOINT": seaweed.endpoint,
            "MCV_TEST_S3_BUCKET": bucket,
        }
        _mcv_test("s3-roundtrip", environ, tmp_path, monkeypatch, capsys)
        stored = client.list_objects_v2(Bucket=bucket, Prefix="web/")
        assert sorted(o["Key"] for o in stored["Contents"]) == ["web/logo.webp", "web/photo.webp"]
    finally:
        client.close()


def test_the_azure_recipe_passes_its_case(
    azurite: Azurite, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from azure.storage.blob import BlobServiceClient

    blobs = BlobServiceClient.from_connection_string(azurite.connection_string)
    container = blobs.create_container(f"recipe-{secrets.token_hex(4)}")
    try:
        for name, asset in SEED.items():
            container.upload_blob(name, (ASSETS / asset).read_bytes())
        environ = {
            "AZURE_STORAGE_KEY": KEY,
            "MCV_TEST_AZURE_ACCOUNT": ACCOUNT,
            "MCV_TEST_AZURE_CONTAINER": container.container_name,
        }
        settings = {"azure_blob_endpoint": azurite.endpoint}
        _mcv_test("azure-roundtrip", environ, tmp_path, monkeypatch, capsys, settings)
        assert sorted(b.name for b in container.list_blobs(name_starts_with="web/")) == [
            "web/logo.webp",
            "web/photo.webp",
        ]
    finally:
        blobs.close()


@pytest.fixture(scope="module")
def gcs() -> Iterator[tuple[FakeGcs, ServiceAccount, TokenEndpoint]]:
    server = FakeGcs(need_fake_gcs(), free_port()).start()
    try:
        account = ServiceAccount()
        with TokenEndpoint(account) as tokens:
            yield server, account, tokens
    finally:
        server.stop()


def test_the_gcs_recipe_passes_its_case(
    gcs: tuple[FakeGcs, ServiceAccount, TokenEndpoint],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    server, account, tokens = gcs
    bucket = server.bucket(f"recipe-{secrets.token_hex(4)}")
    for name, asset in SEED.items():
        server.put(bucket, name, (ASSETS / asset).read_bytes())
    environ = {
        "GCS_CLIENT_EMAIL": account.email,
        "GCS_PRIVATE_KEY": account.pem,
        "MCV_TEST_GCS_PROJECT": "test-project",
        "MCV_TEST_GCS_BUCKET": bucket,
    }
    settings = {"gcs_endpoint": server.url, "gcs_token_uri": tokens.url}
    _mcv_test("gcs-roundtrip", environ, tmp_path, monkeypatch, capsys, settings)
    assert sorted(server.names(bucket, "web/")) == ["web/logo.webp", "web/photo.webp"]


def test_the_sftp_recipe_passes_its_case(
    sshd: SftpServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The case reads `incoming` and writes `thumbs` in the login directory: no other test uses them,
    # and they are removed after.
    made = [sshd.home / "incoming", sshd.home / "thumbs", sshd.home / "decoy.png"]
    assert not any(path.exists() for path in made)
    try:
        for name, asset in SEED.items():
            (sshd.home / name).parent.mkdir(parents=True, exist_ok=True)
            (sshd.home / name).write_bytes((ASSETS / asset).read_bytes())
        sshd.give_home()
        environ = {
            "SFTP_PASSWORD": sshd.password,
            "MCV_TEST_SFTP_HOST": "127.0.0.1",
            "MCV_TEST_SFTP_PORT": str(sshd.port),
            "MCV_TEST_SFTP_USERNAME": sshd.user,
        }
        _mcv_test("sftp-thumbnails", environ, tmp_path, monkeypatch, capsys)
        assert sorted(p.name for p in (sshd.home / "thumbs").iterdir()) == ["logo.webp", "photo.webp"]
    finally:
        for path in made:
            if path.is_dir():
                shutil.rmtree(path)
            else:
                path.unlink(missing_ok=True)


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_the_swift_recipe_passes_its_case(
    swift: SwiftServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    container = f"recipe-{secrets.token_hex(4)}"
    account = swift.account_url("demo")
    with httpx.Client(trust_env=False) as http:
        assert http.put(f"{account}/{container}").status_code == 201
        for name, asset in SEED.items():
            assert (
                http.put(f"{account}/{container}/{name}", content=(ASSETS / asset).read_bytes()).status_code
                == 201
            )
        with KeystoneStub(swift.account_url, _closed_port()) as keystone:
            environ = {
                "OS_PASSWORD": keystone.password,
                "MCV_TEST_SWIFT_AUTH_URL": keystone.url,
                "MCV_TEST_SWIFT_USERNAME": keystone.username,
                "MCV_TEST_SWIFT_CONTAINER": container,
            }
            _mcv_test("swift-thumbnails", environ, tmp_path, monkeypatch, capsys)
        listed = http.get(f"{account}/{container}", params={"prefix": "thumbnails/"}).text.split()
    assert sorted(listed) == ["thumbnails/logo.png", "thumbnails/photo.png"]
