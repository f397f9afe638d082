"""`mcv run` on the embedded service with the Azure example against a real Azure Blob server (Azurite on
loopback, found through MCV_AZURE_BLOB_ENDPOINT as `mcv serve` finds it): it lists the blobs it stored,
and the account key, given through secret(), shows up in nothing it prints."""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest
from azure.storage.blob import BlobServiceClient, ContainerClient
from run_helpers import asset, pipeline

from azurite import ACCOUNT, KEY, Azurite
from mcv_pipelines.cli.main import main
from mcv_pipelines.errors import UsageError


@pytest.fixture
def container(azurite: Azurite, monkeypatch: pytest.MonkeyPatch) -> Iterator[ContainerClient]:
    """Two images under incoming/ of a fresh container; the key where secret() reads it."""
    client = BlobServiceClient.from_connection_string(azurite.connection_string)
    made = client.create_container(f"run-{secrets.token_hex(4)}")
    for name in ("photo.jpg", "logo.png"):
        made.upload_blob(f"incoming/{name}", Path(asset(name)).read_bytes())
    monkeypatch.setenv("AZURE_STORAGE_KEY", KEY)
    monkeypatch.setenv("MCV_AZURE_BLOB_ENDPOINT", azurite.endpoint)
    try:
        yield made
    finally:
        client.close()


def test_run_lists_the_blobs_it_stored(
    isolated: Path, container: ContainerClient, capsys: pytest.CaptureFixture[str]
) -> None:
    values = {"account": ACCOUNT, "container": container.container_name, "source_prefix": "incoming/"}
    params = [arg for name, value in {**values, "width": "48"}.items() for arg in ("-p", f"{name}={value}")]
    code = main(["run", pipeline("azure-roundtrip"), *params, "--progress", "plain"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "2 file(s) stored:" in out
    for name in ("logo.webp", "photo.webp"):
        assert f"{container.url}/web/{name}" in out
    assert sorted(b.name for b in container.list_blobs(name_starts_with="web/")) == [
        "web/logo.webp",
        "web/photo.webp",
    ]
    assert KEY not in out + err


def test_a_bad_endpoint_variable_is_a_usage_error(isolated: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from mcv_pipelines.run.embedded import embedded_service

    monkeypatch.setenv("MCV_AZURE_BLOB_ENDPOINT", "blob.example/{account}")
    with (
        pytest.raises(
            UsageError, match=re.escape("MCV_AZURE_BLOB_ENDPOINT 'blob.example/{account}': expected an http")
        ),
        embedded_service(),
    ):
        pass
